import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The count of wrong passphrases given at prompts, kept in a file beside the store so that it
/// survives restarts (a process that exits after each guess gains nothing), and the wait it
/// imposes, which grows as Apple's passcode lockout does: four wrong answers cost nothing, the
/// fifth locks prompts for 1 minute, the sixth for 5, the seventh for 15, and every later one for
/// an hour. A right answer clears the count.
///
/// The file is `authentication-failures` in the store's directory (0600, opened without following
/// symlinks): one line, "KBAF1 <count> <seconds since 1970 of the last failure>". A file that is
/// not that (damaged, or written by hand) counts as five failures just now: damage must not be a
/// way to clear the count. It is not sealed: whoever can write the store's directory can also copy
/// its files and guess offline, where only scrypt slows them (see the Authentication article).
package struct FailedAttemptLedger: Sendable {
  /// Where the count lives; nil keeps it in this value only (a storage without a directory).
  package let file: URL?
  /// The clock, replaceable so tests can step through the schedule without waiting.
  package let now: @Sendable () -> Date

  /// Failures allowed before prompts lock.
  package static let freeAttempts = 4

  package init(directory: URL?, now: @escaping @Sendable () -> Date = Date.init) {
    file = directory?.appendingPathComponent("authentication-failures")
    self.now = now
  }

  /// The seconds prompts stay locked after `failures` consecutive wrong answers.
  package static func lockout(afterFailures failures: Int) -> Int {
    switch failures {
    case ...freeAttempts: 0
    case 5: 60
    case 6: 300
    case 7: 900
    default: 3600
    }
  }

  /// The recorded failures and the time of the last one.
  package func read() -> (failures: Int, last: Date) {
    guard let file else { return (0, .distantPast) }
    // O_NONBLOCK: a FIFO in the file's place must not hang the read; it is no ledger.
    let descriptor = open(file.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else {
      return errno == ENOENT ? (0, .distantPast) : (Self.freeAttempts + 1, now())
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      return (Self.freeAttempts + 1, now())
    }
    var bytes = [UInt8](repeating: 0, count: 64)
    let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0, count < 64, let line = String(bytes: bytes[0..<count], encoding: .utf8) else {
      return (Self.freeAttempts + 1, now())
    }
    let fields = line.split(whereSeparator: \.isWhitespace)
    guard fields.count == 3, fields[0] == "KBAF1", let failures = Int(fields[1]), failures >= 0,
      let seconds = Int64(fields[2])
    else { return (Self.freeAttempts + 1, now()) }
    return (failures, Date(timeIntervalSince1970: TimeInterval(seconds)))
  }

  /// The seconds left before a prompt may be shown again (0: now).
  package func secondsLocked() -> Int {
    let (failures, last) = read()
    let until = last.addingTimeInterval(TimeInterval(Self.lockout(afterFailures: failures)))
    let left = until.timeIntervalSince(now())
    // A last failure in the future (the clock was set back) counts from now, not for years.
    return left > 0 ? Int(min(left, TimeInterval(Self.lockout(afterFailures: failures))).rounded(.up)) : 0
  }

  /// Records one more wrong answer; returns the new count.
  @discardableResult
  package func recordFailure() throws(SecStatus) -> Int {
    let failures = min(read().failures, 1_000_000) + 1
    try write("KBAF1 \(failures) \(Int64(now().timeIntervalSince1970))\n")
    return failures
  }

  /// Clears the count after a right answer.
  package func recordSuccess() {
    guard let file, read().failures != 0 else { return }
    unlink(file.path)
  }

  /// Replaces the file: written beside it, then renamed over it, so a crash leaves one or the other.
  private func write(_ line: String) throws(SecStatus) {
    guard let file else { return }
    let temporary = file.path + ".new"
    unlink(temporary)
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw SecStatus(
        errSecIO, detail: "cannot record a failed attempt in \(file.path): \(String(cString: strerror(errno)))")
    }
    let bytes = Array(line.utf8)
    let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    let synced = fsync(descriptor)
    close(descriptor)
    guard written == bytes.count, synced == 0, rename(temporary, file.path) == 0 else {
      unlink(temporary)
      throw SecStatus(errSecIO, detail: "cannot record a failed attempt in \(file.path)")
    }
  }
}

import Foundation
import KeychainCrypto
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Which executable a connected process runs, read from /proc with care for the race a process
/// identifier invites: the process could exit after connecting and another take its number.
///
/// The kernel gave the peer's pid when the connection was accepted. A process that took that pid
/// since then started after the connection did, so its start time (field 22 of /proc/PID/stat, in
/// clock ticks since boot) is later than the moment of the accept; the start time is read before
/// and after the executable's path, and must be the same both times and no later than the accept.
package enum ProcessInspection {
  /// Clock ticks since boot now, on the clock /proc/PID/stat's start time counts.
  static func ticksSinceBoot() -> UInt64? {
    var now = timespec()
    guard clock_gettime(CLOCK_BOOTTIME, &now) == 0 else { return nil }
    let perSecond = UInt64(sysconf(Int32(_SC_CLK_TCK)))
    return UInt64(now.tv_sec) * perSecond + UInt64(now.tv_nsec) * perSecond / 1_000_000_000
  }

  /// The start time of process `pid`, in clock ticks since boot.
  static func startTime(of pid: Int32) -> UInt64? {
    // The start time is field 22, the 20th after the name.
    guard let fields = statFields(of: pid), fields.count > 19 else { return nil }
    return UInt64(fields[19])
  }

  /// The fields of /proc/PID/stat after the command name (field 3 first), or nil when it cannot
  /// be read.
  static func statFields(of pid: Int32) -> [Substring]? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"), data.count < 4096,
      let text = String(data: data, encoding: .utf8),
      // The command name (field 2) is in parentheses and may hold spaces or ")": count fields
      // after its last ")".
      let close = text.lastIndex(of: ")")
    else { return nil }
    return text[text.index(after: close)...].split(separator: " ")
  }

  /// Where /proc/PID/exe leads, or nil when it cannot be read.
  static func executableLink(of pid: Int32) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return nil }
    return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The executable of process `pid`, which connected no later than `acceptedAt` (ticks since
  /// boot); nil when it cannot be known for certain.
  static func executable(of pid: Int32, acceptedAt: UInt64) -> String? {
    guard let before = startTime(of: pid), before <= acceptedAt else { return nil }
    guard let path = executableLink(of: pid), startTime(of: pid) == before else { return nil }
    // An executable replaced or removed since it started is named "PATH (deleted)": no rule names it.
    return path.hasSuffix(" (deleted)") ? nil : path
  }

  /// The SHA-256 of the executable process `pid` runs, lowercase hex: read through
  /// /proc/PID/exe, the very file the process runs even if its path now names another; nil when
  /// it cannot be read, or when the process that holds `pid` now started after `acceptedAt` (the
  /// client exited and another process took its number).
  ///
  /// Digests are kept by the file's identity and change times (device, inode, size, modification
  /// and status-change times; no program can set the last, and any write changes it), so a pinned
  /// program is hashed once, not on every connection; the file is read in bounded blocks.
  static func sha256(of pid: Int32, acceptedAt: UInt64) -> String? {
    let descriptor = open("/proc/\(pid)/exe", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, let started = startTime(of: pid), started <= acceptedAt else { return nil }
    let identity = FileIdentity(status)
    if let known = digests.withLock({ $0[identity] }) { return known }
    guard let digest = try? SHA256.hash(readingToEnd: descriptor) ?? nil else { return nil }
    let hex = digest.map { String(format: "%02x", $0) }.joined()
    digests.withLock { cache in
      // Bounded: a long-lived agent meets few programs, but nothing must grow without limit.
      if cache.count >= 256 { cache.removeAll() }
      cache[identity] = hex
    }
    return hex
  }

  /// The digests of the executables hashed so far, by their files' identity.
  private static let digests = Mutex<[FileIdentity: String]>([:])
}

/// What tells one version of a file from another without reading it.
struct FileIdentity: Hashable {
  let device: UInt64
  let inode: UInt64
  let size: Int64
  let modified: Int64
  let modifiedNanoseconds: Int64
  let changed: Int64
  let changedNanoseconds: Int64

  init(_ status: stat) {
    device = UInt64(status.st_dev)
    inode = UInt64(status.st_ino)
    size = Int64(status.st_size)
    modified = Int64(status.st_mtim.tv_sec)
    modifiedNanoseconds = Int64(status.st_mtim.tv_nsec)
    changed = Int64(status.st_ctim.tv_sec)
    changedNanoseconds = Int64(status.st_ctim.tv_nsec)
  }
}

extension ProcessInspection {
  /// The identity of the file process `pid` runs now (device and inode through /proc/PID/exe), or
  /// nil when it cannot be read. Compared at each request with the one read when the caller was
  /// identified: a process that ran another program since (execve) is not the caller the policy
  /// judged.
  static func runningFile(of pid: Int32) -> RunningFile? {
    var status = stat()
    guard stat("/proc/\(pid)/exe", &status) == 0 else { return nil }
    return RunningFile(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
  }
}

/// Which file a process runs: its device and inode.
package struct RunningFile: Hashable, Sendable {
  let device: UInt64
  let inode: UInt64
}

extension ProcessInspection {
  /// Why process `pid` may not be the program its executable is (issue 49, case 4), or nil: it was
  /// started with a loader variable (its initial environment, /proc/PID/environ), or another
  /// process traces it (TracerPid), or either cannot be read. A rule's groups are not given to
  /// such a process. What this cannot see: code a process loads itself later, a preloaded library
  /// that erased its own variable, or a debugger that attaches after this check; the
  /// Authentication article's table states these.
  static func alteration(of pid: Int32) -> String? {
    guard let environment = boundedContents(of: "/proc/\(pid)/environ") else {
      return "its environment cannot be read"
    }
    // A program started with a loader variable is not the program a rule trusts.
    for variable in environment.split(separator: 0) {
      for name in AgentEnvironment.loaderVariables {
        let prefix = Array("\(name)=".utf8)
        if variable.starts(with: prefix) && variable.count > prefix.count { return "it was started with \(name)" }
      }
    }
    guard let status = boundedContents(of: "/proc/\(pid)/status"),
      let line = String(decoding: status, as: UTF8.self).split(separator: "\n").first(where: {
        $0.hasPrefix("TracerPid:")
      })
    else { return "its status cannot be read" }
    let tracer = line.dropFirst("TracerPid:".count).trimmingCharacters(in: .whitespaces)
    return tracer == "0" ? nil : "process \(tracer) traces it"
  }

  /// A /proc file's bytes, at most 1 MiB (an environment is bounded by the kernel's argument
  /// limit), or nil when it cannot be read.
  private static func boundedContents(of path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 16 << 10)
    while bytes.count < 1 << 20 {
      let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 { return nil }
      if count == 0 { break }
      bytes += block.prefix(count)
    }
    return bytes
  }
}

extension ProcessInspection {
  /// The namespaces in which a path names the same file for the caller and the agent.
  static let pathNamespaces = ["mnt", "user"]

  /// The namespace in which process `pid` differs from the agent, or nil when it shares them all
  /// (issue 49, case 3). A process in another mount namespace can bind any file over a path a rule
  /// names, and /proc/PID/exe then shows that path; in another user namespace it can do so without
  /// privilege. Unreadable counts as different.
  static func foreignNamespace(of pid: Int32) -> String? {
    for name in pathNamespaces {
      var own = stat()
      var theirs = stat()
      guard stat("/proc/self/ns/\(name)", &own) == 0, stat("/proc/\(pid)/ns/\(name)", &theirs) == 0 else {
        return name
      }
      if own.st_ino != theirs.st_ino || own.st_dev != theirs.st_dev { return name }
    }
    return nil
  }
}

extension ProcessInspection {
  /// The executable of process `pid`'s parent (ssh's: git, a shell), for a confirmation's words;
  /// nil when it cannot be read or is init.
  static func parentExecutable(of pid: Int32) -> String? {
    // Field 4, the parent's pid, is the second after the name.
    guard let fields = statFields(of: pid), fields.count > 1, let parent = Int32(fields[1]), parent > 1 else {
      return nil
    }
    return executableLink(of: parent)
  }
}

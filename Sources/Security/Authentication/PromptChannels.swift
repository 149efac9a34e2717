import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One run of an askpass program: the prompt is its argument, its standard output (up to
/// `PassphrasePrompt.answerLimit` bytes, one trailing newline dropped) the answer, and its exit
/// status says whether the user answered (0) or declined (any other). Its standard input is
/// /dev/null. A helper still running at the timeout is killed.
///
/// Confirming, it runs as OpenSSH runs its askpass for a yes/no question: `SSH_ASKPASS_PROMPT` is
/// `confirm` in its environment, and its exit status alone is the answer.
struct AskpassHelper {
  let path: String
  let timeout: Duration
  var confirming = false

  func ask(_ text: String) -> PromptAnswer {
    var pipeEnds: [Int32] = [-1, -1]
    guard pipe(&pipeEnds) == 0 else { return .failed("cannot make a pipe: \(String(cString: strerror(errno)))") }
    // Neither end may reach another child this process starts meanwhile (dup2 clears the flag
    // on the helper's standard output).
    for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    defer { close(pipeEnds[0]) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
    guard SpawnedProcess.closeDescriptors(from: 3, in: &actions) else {
      close(pipeEnds[1])
      return .failed("cannot keep this process's open files from the askpass helper")
    }
    var child: pid_t = 0
    let arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path), strdup(text), nil]
    defer { arguments.forEach { free($0) } }
    let environment: [UnsafeMutablePointer<CChar>?] =
      confirming
      ? SpawnedProcess.environment(adding: ["SSH_ASKPASS_PROMPT": "confirm", "KEYCHAIN_BRIDGE_PROMPT": "confirm"]) : []
    defer { environment.forEach { free($0) } }
    let spawned =
      confirming
      ? posix_spawn(&child, path, &actions, nil, arguments, environment)
      : posix_spawn(&child, path, &actions, nil, arguments, environ)
    close(pipeEnds[1])
    guard spawned == 0 else {
      return .failed("cannot run \(path): \(String(cString: strerror(spawned)))")
    }
    let deadline = ContinuousClock.now + timeout
    var answer: [UInt8] = []
    var overflowed = false
    var buffer = [UInt8](repeating: 0, count: 512)
    reading: while true {
      let remaining = ContinuousClock.now.duration(to: deadline)
      guard remaining > .zero else { return killed(child, answer: &answer) }
      var poller = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(clamping: remaining.components.seconds * 1000 + 1))
      if ready < 0 && errno == EINTR { continue }
      if ready <= 0 { continue }
      let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { break reading }
      if answer.count + count > PassphrasePrompt.answerLimit {
        overflowed = true
      } else {
        answer.append(contentsOf: buffer[0..<count])
      }
    }
    Secrets.wipe(&buffer)
    // Output closed: the helper is ending; it gets what is left of the timeout to do so.
    guard let status = waitForExit(child, until: deadline) else { return killed(child, answer: &answer) }
    let signal = status & 0x7f
    if signal != 0 {
      Secrets.wipe(&answer)
      return .failed("the askpass helper \(path) ended on signal \(signal)")
    }
    guard (status >> 8) & 0xff == 0 else {
      Secrets.wipe(&answer)
      return .canceled
    }
    if overflowed {
      Secrets.wipe(&answer)
      return .failed("the askpass helper \(path) answered more than \(PassphrasePrompt.answerLimit) bytes")
    }
    if answer.last == UInt8(ascii: "\n") { answer.removeLast() }
    if answer.last == UInt8(ascii: "\r") { answer.removeLast() }
    return .answered(answer)
  }

  private func killed(_ child: pid_t, answer: inout [UInt8]) -> PromptAnswer {
    Secrets.wipe(&answer)
    kill(child, SIGKILL)
    var status: Int32 = 0
    while waitpid(child, &status, 0) < 0 && errno == EINTR {}
    return .timedOut
  }

  /// The child's wait status, or nil when it is still running at `deadline`.
  private func waitForExit(_ child: pid_t, until deadline: ContinuousClock.Instant) -> Int32? {
    var status: Int32 = 0
    while true {
      let reaped = waitpid(child, &status, WNOHANG)
      if reaped == child { return status }
      if reaped < 0 && errno != EINTR { return 0x7f00 }  // gone already: reported as exit 127
      if ContinuousClock.now >= deadline { return nil }
      usleep(5_000)
    }
  }
}

/// A prompt on the controlling terminal, as `sudo` asks: echo off while the answer is typed, and
/// the terminal's settings restored after. Signals from the keyboard are off too, so Ctrl-C is read
/// as a cancel (and the terminal is always restored) instead of killing the process with echo off.
struct TerminalPrompt {
  let timeout: Duration
  /// Whether what is typed is shown (a yes or no; never a passphrase).
  var echo = false

  func ask(_ text: String) -> PromptAnswer {
    let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard terminal >= 0 else { return .failed("cannot open the terminal: \(String(cString: strerror(errno)))") }
    defer { close(terminal) }
    var saved = termios()
    guard tcgetattr(terminal, &saved) == 0 else { return .failed("the process's terminal is not a terminal") }
    var quiet = saved
    quiet.c_lflag &= echo ? ~tcflag_t(ISIG) : ~tcflag_t(ECHO | ECHONL | ISIG)
    guard tcsetattr(terminal, TCSAFLUSH, &quiet) == 0 else { return .failed("cannot turn the terminal's echo off") }
    defer {
      tcsetattr(terminal, TCSAFLUSH, &saved)
      write(terminal, "\n", 1)
    }
    let shown = Array((text.hasSuffix(" ") ? text : text + " ").utf8)
    _ = shown.withUnsafeBytes { write(terminal, $0.baseAddress, $0.count) }
    let deadline = ContinuousClock.now + timeout
    var answer: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let remaining = ContinuousClock.now.duration(to: deadline)
      guard remaining > .zero else {
        Secrets.wipe(&answer)
        return .timedOut
      }
      var poller = pollfd(fd: terminal, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(clamping: remaining.components.seconds * 1000 + 1))
      if ready <= 0 { continue }
      let count = read(terminal, &byte, 1)
      if count < 0 && errno == EINTR { continue }
      // End of input (Ctrl-D on an empty line) or Ctrl-C: the user declined.
      if count == 0 || byte == 0x03 || (byte == 0x04 && answer.isEmpty) {
        Secrets.wipe(&answer)
        return .canceled
      }
      if count < 0 { return .failed("cannot read the terminal: \(String(cString: strerror(errno)))") }
      if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { return .answered(answer) }
      guard answer.count < PassphrasePrompt.answerLimit else {
        Secrets.wipe(&answer)
        return .failed("the answer is longer than \(PassphrasePrompt.answerLimit) bytes")
      }
      answer.append(byte)
    }
  }
}

/// What a program this process starts must not inherit.
package enum SpawnedProcess {
  /// This process's environment with `extra` set, as C strings for posix_spawn (nil-terminated;
  /// the caller frees them).
  static func environment(adding extra: [String: String]) -> [UnsafeMutablePointer<CChar>?] {
    var entries: [UnsafeMutablePointer<CChar>?] = []
    var index = 0
    while let entry = environ[index] {
      let text = String(cString: entry)
      if !extra.keys.contains(where: { text.hasPrefix($0 + "=") }) { entries.append(strdup(entry)) }
      index += 1
    }
    for (name, value) in extra.sorted(by: { $0.key < $1.key }) { entries.append(strdup("\(name)=\(value)")) }
    return entries + [nil]
  }

  /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run time:
  /// Swift's Glibc module does not declare it.
  private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
  private static let closeFrom: CloseFrom? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
      return nil
    }
    return unsafeBitCast(symbol, to: CloseFrom.self)
  }()

  /// Adds to `actions` the closing of every descriptor from `lowest` up, so a child (an askpass
  /// helper, a terminal server) holds none of this process's files or sockets: the store's
  /// database, the agent's socket, a server connection that must close when this process closes
  /// it. False when the C library cannot do it.
  package static func closeDescriptors(from lowest: Int32, in actions: inout posix_spawn_file_actions_t) -> Bool {
    guard let closeFrom else { return false }
    return closeFrom(&actions, lowest) == 0
  }
}

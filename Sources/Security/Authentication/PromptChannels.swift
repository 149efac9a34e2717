import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One run of an askpass program: the prompt is its argument, its standard output (up to
/// `PassphrasePrompt.answerLimit` bytes, one trailing newline dropped) the answer, and its exit
/// status says whether the user answered (0) or declined (any other). Its standard input is
/// /dev/null. A helper still running at the timeout is killed. No thread waits for it: its output
/// and its end are watched on the prompt thread.
///
/// Confirming, it runs as OpenSSH runs its askpass for a yes/no question: `SSH_ASKPASS_PROMPT` is
/// `confirm` in its environment, and its exit status alone is the answer.
package struct AskpassHelper: PromptService {
  /// The helper, by absolute path.
  package let path: String
  /// How long a prompt waits for its answer.
  package let timeout: Duration
  /// Whether it runs in OpenSSH's confirmation mode.
  var confirming = false

  /// An askpass prompt through the helper at `path`, waiting `timeout` for an answer.
  package init(path: String, timeout: Duration) {
    self.path = path
    self.timeout = timeout
  }

  /// A helper can always be run (whether it runs is the answer's business).
  package func unavailability() -> PromptUnavailable? { nil }

  /// Runs the helper in its confirmation mode: exit status 0 allows; what it printed does not
  /// matter.
  package func confirm(_ text: String, completion: @escaping @Sendable (Bool) -> Void) {
    var confirming = self
    confirming.confirming = true
    confirming.ask(text) { answer in
      guard case .answered(var printed) = answer else { return completion(false) }
      Secrets.wipe(&printed)
      completion(true)
    }
  }

  /// Starts the helper showing `text`; `completion` runs once, on the prompt thread.
  package func ask(_ text: String, completion: @escaping @Sendable (PromptAnswer) -> Void) {
    var pipeEnds: [Int32] = [-1, -1]
    guard pipe(&pipeEnds) == 0 else {
      return completion(.failed("cannot make a pipe: \(String(cString: strerror(errno)))"))
    }
    // Neither end may reach another child this process starts meanwhile (dup2 clears the flag
    // on the helper's standard output).
    for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
    guard SpawnedProcess.closeDescriptors(from: 3, in: &actions) else {
      pipeEnds.forEach { close($0) }
      return completion(.failed("cannot keep this process's open files from the askpass helper"))
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
      close(pipeEnds[0])
      return completion(.failed("cannot run \(path): \(String(cString: strerror(spawned)))"))
    }
    let deadline = ContinuousClock.now + timeout
    AskpassRun(path: path, child: child, output: pipeEnds[0], deadline: deadline, completion: completion)
      .start(watching: pipeEnds[0], until: deadline)
  }
}

/// The state of one askpass helper while it runs, touched on the prompt thread only.
private final class AskpassRun: WatchedPrompt, @unchecked Sendable {
  // @unchecked: every field is used on the prompt thread (`PromptIO`) only, after `start`.
  let path: String
  let child: pid_t
  let completion: @Sendable (PromptAnswer) -> Void
  var watch = 0
  var answer: [UInt8] = []
  var overflowed = false
  var finished = false

  let output: Int32
  let deadline: ContinuousClock.Instant

  init(
    path: String, child: pid_t, output: Int32, deadline: ContinuousClock.Instant,
    completion: @escaping @Sendable (PromptAnswer) -> Void
  ) {
    self.path = path
    self.child = child
    self.output = output
    self.deadline = deadline
    self.completion = completion
  }

  func read() {
    guard !finished else { return }
    guard var bytes = readAvailable(output) else { return outputEnded() }
    defer { Secrets.wipe(&bytes) }
    if answer.count + bytes.count > PassphrasePrompt.answerLimit {
      overflowed = true
    } else {
      answer.append(contentsOf: bytes)
    }
  }

  /// Output closed: the helper is ending; it gets what is left of the timeout to do so.
  private func outputEnded() {
    PromptIO.shared.stop(watch)
    reapWhenDone(child, until: deadline) { [self] status in
      guard let status else { return finish(.timedOut) }
      finish(outcome(status))
    }
  }

  func expire() {
    guard !finished else { return }
    PromptIO.shared.stop(watch)
    killAndReap(child)
    finish(.timedOut)
  }

  private func outcome(_ status: Int32) -> PromptAnswer {
    let signal = status & 0x7f
    if signal != 0 { return .failed("the askpass helper \(path) ended on signal \(signal)") }
    guard (status >> 8) & 0xff == 0 else { return .canceled }
    if overflowed {
      return .failed("the askpass helper \(path) answered more than \(PassphrasePrompt.answerLimit) bytes")
    }
    var typed = answer
    if typed.last == UInt8(ascii: "\n") { typed.removeLast() }
    if typed.last == UInt8(ascii: "\r") { typed.removeLast() }
    return .answered(typed)
  }

  private func finish(_ outcome: PromptAnswer) {
    guard !finished else { return }
    finished = true
    Secrets.wipe(&answer)
    completion(outcome)
  }
}

/// A prompt on the controlling terminal, as `sudo` asks: echo off while the answer is typed, and
/// the terminal's settings restored after. Signals from the keyboard are off too, so Ctrl-C is read
/// as a cancel (and the terminal is always restored) instead of killing the process with echo off.
/// What is typed is watched on the prompt thread: no thread waits for it.
package struct TerminalPrompt: PromptService {
  /// How long a prompt waits for its answer.
  package let timeout: Duration
  /// Whether what is typed is shown (a yes or no; never a passphrase).
  var echo = false

  /// A prompt on this process's controlling terminal, waiting `timeout` for an answer.
  package init(timeout: Duration) { self.timeout = timeout }

  /// Why no terminal can be asked: this process has no controlling terminal.
  package func unavailability() -> PromptUnavailable? {
    let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard terminal >= 0 else {
      return PromptUnavailable(reason: "no terminal to ask on and KEYCHAIN_BRIDGE_ASKPASS is not set")
    }
    close(terminal)
    return nil
  }

  /// Asks a yes or no question, what is typed shown: `y` or `yes` allows.
  package func confirm(_ text: String, completion: @escaping @Sendable (Bool) -> Void) {
    var shown = self
    shown.echo = true
    shown.ask(text + " [y/N]") { answer in
      guard case .answered(var bytes) = answer else { return completion(false) }
      defer { Secrets.wipe(&bytes) }
      completion(["y", "yes"].contains(String(decoding: bytes, as: UTF8.self).lowercased()))
    }
  }

  /// Asks on the terminal, showing `text`; `completion` runs once, on the prompt thread.
  package func ask(_ text: String, completion: @escaping @Sendable (PromptAnswer) -> Void) {
    let terminal = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard terminal >= 0 else {
      return completion(.failed("cannot open the terminal: \(String(cString: strerror(errno)))"))
    }
    var saved = termios()
    guard tcgetattr(terminal, &saved) == 0 else {
      close(terminal)
      return completion(.failed("the process's terminal is not a terminal"))
    }
    var quiet = saved
    quiet.c_lflag &= echo ? ~tcflag_t(ISIG) : ~tcflag_t(ECHO | ECHONL | ISIG)
    guard tcsetattr(terminal, TCSAFLUSH, &quiet) == 0 else {
      close(terminal)
      return completion(.failed("cannot turn the terminal's echo off"))
    }
    let shown = Array((text.hasSuffix(" ") ? text : text + " ").utf8)
    _ = shown.withUnsafeBytes { write(terminal, $0.baseAddress, $0.count) }
    TerminalRun(terminal: terminal, saved: saved, completion: completion).start(
      watching: terminal, until: .now + timeout)
  }
}

/// The state of one terminal prompt while the user types, touched on the prompt thread only.
private final class TerminalRun: WatchedPrompt, @unchecked Sendable {
  // @unchecked: every field is used on the prompt thread (`PromptIO`) only, after `start`.
  let terminal: Int32
  let saved: termios
  let completion: @Sendable (PromptAnswer) -> Void
  var watch = 0
  var answer: [UInt8] = []
  var finished = false

  init(terminal: Int32, saved: termios, completion: @escaping @Sendable (PromptAnswer) -> Void) {
    self.terminal = terminal
    self.saved = saved
    self.completion = completion
  }

  func expire() { finish(.timedOut) }

  func read() {
    guard !finished else { return }
    // End of input (Ctrl-D on an empty line, or the terminal gone): the user declined.
    guard var bytes = readAvailable(terminal) else { return finish(.canceled) }
    defer { Secrets.wipe(&bytes) }
    for byte in bytes {
      if byte == 0x03 || (byte == 0x04 && answer.isEmpty) { return finish(.canceled) }
      if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { return finish(.answered(answer)) }
      guard answer.count < PassphrasePrompt.answerLimit else {
        return finish(.failed("the answer is longer than \(PassphrasePrompt.answerLimit) bytes"))
      }
      answer.append(byte)
    }
  }

  private func finish(_ outcome: PromptAnswer) {
    guard !finished else { return }
    finished = true
    var restored = saved
    tcsetattr(terminal, TCSAFLUSH, &restored)
    write(terminal, "\n", 1)
    PromptIO.shared.stop(watch)
    Secrets.wipe(&answer)
    completion(outcome)
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

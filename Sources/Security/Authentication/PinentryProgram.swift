import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One run of a pinentry program, GnuPG's prompts (pinentry-gnome3, -qt, -curses, -tty), the Linux
/// desktop's standard way to ask for a passphrase. It speaks the Assuan protocol of pinentry's
/// manual on its standard input and output: it greets with `OK`, each command is a line answered by
/// `OK` or `ERR code text`, and GETPIN sends the answer first in `D` lines, percent-escaped.
///
/// Written here rather than through a library: the few commands a prompt needs are lines of text,
/// and GnuPG's libassuan would bring a C dependency for them. The terminal a text pinentry uses is
/// `GPG_TTY` (as gpg-agent gives it), else this process's controlling terminal.
package struct PinentryProgram: PromptService {
  /// The program, by absolute path.
  package let path: String
  /// How long a prompt waits for its answer.
  package let timeout: Duration

  /// A pinentry prompt through the program at `path`, waiting `timeout` for an answer.
  package init(path: String, timeout: Duration) {
    self.path = path
    self.timeout = timeout
  }

  /// A program can always be run (whether it answers is the prompt's business).
  package func unavailability() -> PromptUnavailable? { nil }

  /// The longest line read: a `D` line holds at most 1,000 bytes by the protocol, a comment or
  /// status line less; anything longer is not pinentry.
  static let lineLimit = 4096

  /// Asks for a passphrase, showing `text`; `completion` runs once, on the prompt thread.
  package func ask(_ text: String, completion: @escaping @Sendable (PromptAnswer) -> Void) {
    run(["SETDESC " + Self.escaped(text), "SETPROMPT Passphrase:", "GETPIN"], completion: completion)
  }

  /// Asks the user to allow or refuse what `text` says; `completion` gets true only when they
  /// allowed it.
  package func confirm(_ text: String, completion: @escaping @Sendable (Bool) -> Void) {
    run(["SETDESC " + Self.escaped(text), "SETOK Allow", "SETCANCEL Deny", "CONFIRM"]) { answer in
      guard case .answered(var data) = answer else { return completion(false) }
      Secrets.wipe(&data)
      completion(true)
    }
  }

  /// Runs the program, sends the options and `commands`, then BYE; `completion` gets the data of
  /// the last command, or why there is none.
  private func run(_ commands: [String], completion: @escaping @Sendable (PromptAnswer) -> Void) {
    // One socket pair for both directions: the program reads and writes its end as its standard
    // input and output, and this process's sends carry MSG_NOSIGNAL, so a pinentry that exits
    // early is an error here, not a SIGPIPE that ends the process.
    var ends: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
      return completion(.failed("cannot make a socket pair: \(String(cString: strerror(errno)))"))
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, ends[1], 0)
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
    guard SpawnedProcess.closeDescriptors(from: 3, in: &actions) else {
      ends.forEach { close($0) }
      return completion(.failed("cannot keep this process's open files from pinentry"))
    }
    var child: pid_t = 0
    let arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
    defer { arguments.forEach { free($0) } }
    let spawned = posix_spawn(&child, path, &actions, nil, arguments, environ)
    close(ends[1])
    guard spawned == 0 else {
      close(ends[0])
      return completion(.failed("cannot run \(path): \(String(cString: strerror(spawned)))"))
    }
    var options = ["SETTIMEOUT \(max(1, timeout.components.seconds))", "SETTITLE Keychain"]
    if let terminal = Self.terminal() { options.append("OPTION ttyname=\(terminal)") }
    if let type = ProcessInfo.processInfo.environment["TERM"] { options.append("OPTION ttytype=\(type)") }
    let deadline = ContinuousClock.now + timeout
    PinentryRun(
      path: path, child: child, socket: ends[0], deadline: deadline, options: options, commands: commands,
      completion: completion
    ).start(watching: ends[0], until: deadline)
  }

  /// The terminal a text pinentry should use: `GPG_TTY`, else this process's controlling
  /// terminal's name, else none (a graphical pinentry needs none).
  static func terminal() -> String? {
    if let named = ProcessInfo.processInfo.environment["GPG_TTY"], named.hasPrefix("/dev/") { return named }
    let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    return ttyname(descriptor).map { String(cString: $0) }
  }

  /// `text` for a command's argument: `%`, CR and LF percent-escaped, as the protocol asks.
  static func escaped(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "%": result += "%25"
      case "\r": result += "%0D"
      case "\n": result += "%0A"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}

/// One conversation with a pinentry program, touched on the prompt thread only: the greeting, the
/// options (whose answers do not matter), the commands (each must be answered), then BYE.
private final class PinentryRun: WatchedPrompt, @unchecked Sendable {
  // @unchecked: every field is used on the prompt thread (`PromptIO`) only, after `start`.
  let path: String
  let child: pid_t
  let socket: Int32
  let deadline: ContinuousClock.Instant
  let completion: @Sendable (PromptAnswer) -> Void
  /// What is still to be sent, in order; nil stands for the greeting, which is read, not sent.
  var steps: [(line: String?, required: Bool)]
  var watch = 0
  var buffered: [UInt8] = []
  /// The `D` lines' data of the response being read.
  var data: [UInt8] = []
  var finished = false

  init(
    path: String, child: pid_t, socket: Int32, deadline: ContinuousClock.Instant, options: [String],
    commands: [String], completion: @escaping @Sendable (PromptAnswer) -> Void
  ) {
    self.path = path
    self.child = child
    self.socket = socket
    self.deadline = deadline
    self.completion = completion
    steps = [(nil, true)] + options.map { ($0, false) } + commands.map { ($0, true) }
  }

  func expire() { finish(.timedOut) }

  func read() {
    guard !finished else { return }
    guard var bytes = readAvailable(socket) else {
      return finish(ContinuousClock.now >= deadline ? .timedOut : .failed("\(path) ended without answering"))
    }
    buffered.append(contentsOf: bytes)
    Secrets.wipe(&bytes)
    while !finished, let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
      var line = Array(buffered[..<newline])
      buffered.removeSubrange(...newline)
      take(line)
      Secrets.wipe(&line)
    }
    if !finished && buffered.count > PinentryProgram.lineLimit { finish(.failed("\(path) sent a line too long")) }
  }

  /// One line of the response to the current step.
  private func take(_ line: [UInt8]) {
    if line == Array("OK".utf8) || line.starts(with: Array("OK ".utf8)) { return answered(.answered(data)) }
    if line.starts(with: Array("D ".utf8)) {
      guard Self.unescape(line.dropFirst(2), into: &data), data.count <= PassphrasePrompt.answerLimit else {
        return finish(.failed("\(path) answered more than \(PassphrasePrompt.answerLimit) bytes"))
      }
      return
    }
    if line.starts(with: Array("ERR ".utf8)) {
      let code = Int(String(decoding: line.dropFirst(4).prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)) ?? 0
      // GnuPG error codes: the low 16 bits name the error whatever the source.
      switch code & 0xFFFF {
      case 99, 114: return answered(.canceled)  // canceled, not confirmed
      case 62: return answered(.timedOut)
      default: return answered(.failed("\(path) failed: \(String(decoding: line.dropFirst(4), as: UTF8.self))"))
      }
    }
    // Comments (#) and status lines (S) say nothing about the answer.
  }

  /// The current step's response ended with `answer`: go on to the next step, or finish.
  private func answered(_ answer: PromptAnswer) {
    let step = steps.removeFirst()
    let isLast = steps.isEmpty
    guard case .answered = answer else {
      // An option this pinentry does not know is not a reason to give up.
      Secrets.wipe(&data)
      data = []
      if step.required { return finish(step.line == nil ? .failed("\(path) did not greet as pinentry does") : answer) }
      return sendNext()
    }
    if isLast {
      _ = send("BYE")
      let result = PromptAnswer.answered(data)
      return finish(result)
    }
    Secrets.wipe(&data)
    data = []
    sendNext()
  }

  private func sendNext() {
    guard let line = steps.first?.line else { return }
    if !send(line) { finish(.failed("\(path) stopped reading")) }
  }

  private func send(_ line: String) -> Bool {
    let bytes = Array((line + "\n").utf8)
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
      guard count > 0 else { return false }
      sent += count
    }
    return true
  }

  private func finish(_ outcome: PromptAnswer) {
    guard !finished else { return }
    finished = true
    Secrets.wipe(&buffered)
    Secrets.wipe(&data)
    PromptIO.shared.stop(watch)
    killAndReap(child)
    completion(outcome)
  }

  /// Appends `escaped` with its `%XX` escapes decoded to `data`; false for a malformed escape.
  private static func unescape(_ escaped: ArraySlice<UInt8>, into data: inout [UInt8]) -> Bool {
    var index = escaped.startIndex
    while index < escaped.endIndex {
      let byte = escaped[index]
      guard byte == UInt8(ascii: "%") else {
        data.append(byte)
        index += 1
        continue
      }
      guard escaped.endIndex - index >= 3,
        let value = UInt8(String(decoding: escaped[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
      else { return false }
      data.append(value)
      index += 3
    }
    return true
  }
}

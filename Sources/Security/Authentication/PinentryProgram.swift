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
struct PinentryProgram {
  let path: String
  let timeout: Duration

  /// The longest line read: a `D` line holds at most 1,000 bytes by the protocol, a comment or
  /// status line less; anything longer is not pinentry.
  static let lineLimit = 4096

  /// Asks for a passphrase, showing `text`.
  func ask(_ text: String) -> PromptAnswer {
    run(["SETDESC " + Self.escaped(text), "SETPROMPT Passphrase:", "GETPIN"])
  }

  /// Asks the user to allow or refuse what `text` says; true only when they allowed it.
  func confirm(_ text: String) -> Bool {
    guard case .answered(var data) = run(["SETDESC " + Self.escaped(text), "SETOK Allow", "SETCANCEL Deny", "CONFIRM"])
    else { return false }
    Secrets.wipe(&data)
    return true
  }

  /// Runs the program, sends the options and `commands`, then BYE; the data of the last command.
  private func run(_ commands: [String]) -> PromptAnswer {
    // One socket pair for both directions: the program reads and writes its end as its standard
    // input and output, and this process's sends carry MSG_NOSIGNAL, so a pinentry that exits
    // early is an error here, not a SIGPIPE that ends the process.
    var ends: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
      return .failed("cannot make a socket pair: \(String(cString: strerror(errno)))")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, ends[1], 0)
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
    guard SpawnedProcess.closeDescriptors(from: 3, in: &actions) else {
      ends.forEach { close($0) }
      return .failed("cannot keep this process's open files from pinentry")
    }
    var child: pid_t = 0
    let arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
    defer { arguments.forEach { free($0) } }
    let spawned = posix_spawn(&child, path, &actions, nil, arguments, environ)
    close(ends[1])
    var session = Conversation(socket: ends[0], deadline: ContinuousClock.now + timeout, path: path)
    defer {
      session.wipe()
      close(ends[0])
      if spawned == 0 {
        kill(child, SIGKILL)
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
      }
    }
    guard spawned == 0 else { return .failed("cannot run \(path): \(String(cString: strerror(spawned)))") }
    guard case .answered = session.response() else { return .failed("\(path) did not greet as pinentry does") }
    var options = ["SETTIMEOUT \(max(1, timeout.components.seconds))", "SETTITLE Keychain"]
    if let terminal = Self.terminal() { options.append("OPTION ttyname=\(terminal)") }
    if let type = ProcessInfo.processInfo.environment["TERM"] { options.append("OPTION ttytype=\(type)") }
    for option in options {
      // An option this pinentry does not know is not a reason to give up.
      guard session.send(option) else { return .failed("\(path) stopped reading") }
      if case .answered(var ignored) = session.response() { Secrets.wipe(&ignored) }
    }
    var answer = PromptAnswer.failed("\(path) answered nothing")
    for command in commands {
      if case .answered(var earlier) = answer { Secrets.wipe(&earlier) }
      guard session.send(command) else { return .failed("\(path) stopped reading") }
      answer = session.response()
      guard case .answered = answer else { return answer }
    }
    _ = session.send("BYE")
    return answer
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

  /// The lines going to and coming from one pinentry, before a deadline.
  private struct Conversation {
    let socket: Int32
    let deadline: ContinuousClock.Instant
    let path: String
    var buffered: [UInt8] = []

    /// Wipes what was read and not taken (a passphrase may be in it).
    mutating func wipe() { Secrets.wipe(&buffered) }

    func send(_ line: String) -> Bool {
      let bytes = Array((line + "\n").utf8)
      var sent = 0
      while sent < bytes.count {
        let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return false }
        sent += count
      }
      return true
    }

    /// Lines up to the `OK` or `ERR` that ends a response: `.answered` with the `D` lines' data
    /// (unescaped; the caller wipes it), `.canceled` when the user cancelled or refused,
    /// `.timedOut`, or `.failed`.
    mutating func response() -> PromptAnswer {
      var data: [UInt8] = []
      while true {
        guard var line = nextLine() else {
          Secrets.wipe(&data)
          return ContinuousClock.now >= deadline ? .timedOut : .failed("\(path) ended without answering")
        }
        defer { Secrets.wipe(&line) }
        if line == Array("OK".utf8) || line.starts(with: Array("OK ".utf8)) { return .answered(data) }
        if line.starts(with: Array("D ".utf8)) {
          guard Self.unescape(line.dropFirst(2), into: &data), data.count <= PassphrasePrompt.answerLimit else {
            Secrets.wipe(&data)
            return .failed("\(path) answered more than \(PassphrasePrompt.answerLimit) bytes")
          }
          continue
        }
        if line.starts(with: Array("ERR ".utf8)) {
          Secrets.wipe(&data)
          let code = Int(String(decoding: line.dropFirst(4).prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)) ?? 0
          // GnuPG error codes: the low 16 bits name the error whatever the source.
          switch code & 0xFFFF {
          case 99, 114: return .canceled  // canceled, not confirmed
          case 62: return .timedOut
          default:
            return .failed("\(path) failed: \(String(decoding: line.dropFirst(4), as: UTF8.self))")
          }
        }
        // Comments (#) and status lines (S) say nothing about the answer.
      }
    }

    /// The next line without its newline, or nil at the end of output, a line too long, or the
    /// deadline.
    private mutating func nextLine() -> [UInt8]? {
      var chunk = [UInt8](repeating: 0, count: 1024)
      defer { Secrets.wipe(&chunk) }
      while true {
        if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
          let line = Array(buffered[..<newline])
          buffered.removeSubrange(...newline)
          return line
        }
        guard buffered.count <= PinentryProgram.lineLimit else { return nil }
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return nil }
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, Int32(clamping: remaining.components.seconds * 1000 + 1))
        if ready < 0 && errno == EINTR { continue }
        if ready <= 0 { continue }
        let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return nil }
        buffered.append(contentsOf: chunk[..<count])
      }
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
}

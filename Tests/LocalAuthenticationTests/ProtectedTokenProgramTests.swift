import AgentProcess
import Foundation
import Security
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The iOS-style program of issue 32 (Examples/ProtectedTokenDemo), run unchanged as a real
/// process: its prompt answered by a scripted askpass helper, through a real terminal (tmux), and
/// by the agent. Wrong answers, no answer and a crashing helper give Apple's errors, never the token.
@Suite(.serialized) struct ProtectedTokenProgram {
  static var program: String {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("protected-token-demo").path
  }

  /// A private folder with a store directory, removed afterwards.
  final class Folder {
    let url: URL
    init() throws {
      url = URL(fileURLWithPath: "/tmp/kcla-\(UUID().uuidString.prefix(8))", isDirectory: true)
      try FileManager.default.createDirectory(
        at: url, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    var log: URL { url.appendingPathComponent("prompts.log") }
    var prompts: [String] {
      ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
    func helper(_ user: AuthenticationFixture.User) throws -> String {
      try AuthenticationFixture.writeHelper(user, in: url, log: log)
    }
  }

  /// Runs the program with `environment` (on top of a clean one); its exit status and output.
  static func run(_ environment: [String: String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    var base = ProcessInfo.processInfo.environment
    for name in [
      "KEYCHAIN_BRIDGE_AGENT", "KEYCHAIN_BRIDGE_ASKPASS", "KEYCHAIN_BRIDGE_PASSPHRASE", "KEYCHAIN_BRIDGE_HOME",
    ] {
      base[name] = nil
    }
    process.environment = base.merging(environment) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  static let passphrase = "correct horse battery staple"

  @Test("With a scripted askpass helper the program runs unchanged: one prompt, two reads, none after invalidate")
  func withAScriptedHelper() throws {
    let folder = try Folder()
    let (status, output) = try Self.run([
      "KEYCHAIN_BRIDGE_HOME": folder.url.appendingPathComponent("store").path,
      "KEYCHAIN_BRIDGE_PASSPHRASE": Self.passphrase,
      "KEYCHAIN_BRIDGE_ASKPASS": try folder.helper(.answers(Self.passphrase)),
    ])
    #expect(status == 0, "\(output)")
    #expect(output.contains("second read: the token, without asking again"))
    #expect(output.contains("read after invalidate: refused with -25293"))
    #expect(
      folder.prompts == [
        "protected-token-demo wants to use a protected keychain item. It says: \u{201C}Sign in to your account\u{201D}. Keychain passphrase:"
      ])
  }

  @Test(
    "A wrong answer, a cancel, a crashing helper and no answer give LAError's codes and no read",
    arguments: [
      (AuthenticationFixture.User.answers("wrong"), -1), (.cancels, -2), (.crashes, -4), (.hangs, -4),
    ] as [(AuthenticationFixture.User, Int)])
  func failures(user: AuthenticationFixture.User, code: Int) throws {
    let folder = try Folder()
    let started = ContinuousClock.now
    let (status, output) = try Self.run([
      "KEYCHAIN_BRIDGE_HOME": folder.url.appendingPathComponent("store").path,
      "KEYCHAIN_BRIDGE_PASSPHRASE": Self.passphrase,
      "KEYCHAIN_BRIDGE_ASKPASS": try folder.helper(user),
      "KEYCHAIN_BRIDGE_ASKPASS_TIMEOUT": "1",
    ])
    #expect(status == 2, "\(output)")
    #expect(output.contains("authentication failed: LAError \(code) "), "\(output)")
    #expect(output.contains("read without the user: -25308\n"), "\(output)")
    #expect(!output.contains("READ THE TOKEN") && !output.contains("first read"))
    #expect(started.duration(to: .now) < .seconds(20))
  }

  /// A tmux server on a private socket, killed afterwards.
  final class Terminal {
    let socket: String
    init(_ folder: Folder, command: String) throws {
      socket = folder.url.appendingPathComponent("tmux.sock").path
      try Self.tmux(socket, ["new-session", "-d", "-x", "200", "-y", "40", command])
    }
    deinit { _ = try? Self.tmux(socket, ["kill-server"]) }

    /// Runs tmux with `arguments`; its standard output when `arguments` is a capture-pane.
    ///
    /// posix_spawn and waitpid, not Foundation's Process: the server new-session starts inherits
    /// the descriptor Process watches for its child's end, so Process would wait for the server.
    @discardableResult
    static func tmux(_ socket: String, _ arguments: [String]) throws -> String {
      let capture = socket + ".out"
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
      posix_spawn_file_actions_addopen(&actions, 1, capture, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
      // The server lives on after this call: it must not keep the test process's sockets open
      // (a PostgreSQL session another test waits to see closed).
      guard SpawnedProcess.closeDescriptors(from: 3, in: &actions) else { throw CocoaError(.executableLoad) }
      let argv: [UnsafeMutablePointer<CChar>?] =
        (["/usr/bin/tmux", "-S", socket] + arguments).map { strdup($0) } + [nil]
      defer { argv.forEach { free($0) } }
      var child: pid_t = 0
      let spawned = posix_spawn(&child, "/usr/bin/tmux", &actions, nil, argv, environ)
      guard spawned == 0 else { throw CocoaError(.executableLoad) }
      var status: Int32 = 0
      while waitpid(child, &status, 0) < 0 && errno == EINTR {}
      return (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
    }

    var screen: String { (try? Self.tmux(socket, ["capture-pane", "-p"])) ?? "" }

    func type(_ text: String) throws { try Self.tmux(socket, ["send-keys", text, "Enter"]) }

    /// Waits until the screen shows `text`; false after 20 s.
    func waitFor(_ text: String) -> Bool {
      let deadline = ContinuousClock.now + .seconds(20)
      while ContinuousClock.now < deadline {
        if screen.contains(text) { return true }
        usleep(50_000)
      }
      return false
    }
  }

  @Test("Through a real terminal: asked without echo, as sudo asks; a wrong answer is refused")
  func throughARealTerminal() throws {
    for (answer, expected) in [(Self.passphrase, "EXIT=0"), ("not it", "EXIT=2")] {
      let folder = try Folder()
      let command =
        "env -u KEYCHAIN_BRIDGE_ASKPASS -u KEYCHAIN_BRIDGE_AGENT KEYCHAIN_BRIDGE_HOME=\(folder.url.path)/store "
        + "KEYCHAIN_BRIDGE_PASSPHRASE='\(Self.passphrase)' \(Self.program); echo EXIT=$?; sleep 60"
      let terminal = try Terminal(folder, command: command)
      #expect(terminal.waitFor("Keychain passphrase:"), "\(terminal.screen)")
      try terminal.type(answer)
      #expect(terminal.waitFor(expected), "\(terminal.screen)")
      let screen = terminal.screen
      #expect(!screen.contains(answer), "the answer was echoed: \(screen)")
      if expected == "EXIT=0" {
        #expect(screen.contains("second read: the token, without asking again"))
      } else {
        #expect(screen.contains("authentication failed: LAError -1 "))
      }
    }
  }

  @Test("In agent mode the agent asks, naming the program, and the program gets no passphrase")
  func inAgentModeTheAgentAsks() throws {
    let folder = try Folder()
    let policy =
      RunningAgent.defaultPolicy + "\(URL(fileURLWithPath: Self.program).resolvingSymlinksInPath().path) = *\n"
    let agent = try RunningAgent(
      passphrase: Self.passphrase, policy: policy,
      environment: ["KEYCHAIN_BRIDGE_ASKPASS": try folder.helper(.answers(Self.passphrase))])
    defer { agent.stop() }
    // The program's environment has no helper and no passphrase: only the agent can ask.
    let (status, output) = try Self.run(["KEYCHAIN_BRIDGE_AGENT": agent.socketPath])
    #expect(status == 0, "\(output)\n\(agent.log)")
    #expect(output.contains("second read: the token, without asking again"))
    #expect(folder.prompts.count == 1)
    #expect(folder.prompts.first?.hasPrefix(URL(fileURLWithPath: Self.program).resolvingSymlinksInPath().path) == true)
  }
}

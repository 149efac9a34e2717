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

  @Test("Through a real terminal: asked without echo, as sudo asks; a wrong answer is refused")
  func throughARealTerminal() throws {
    for (answer, expected) in [(Self.passphrase, "EXIT=0"), ("not it", "EXIT=2")] {
      let folder = try Folder()
      let command =
        "env -u KEYCHAIN_BRIDGE_ASKPASS -u KEYCHAIN_BRIDGE_AGENT KEYCHAIN_BRIDGE_HOME=\(folder.url.path)/store "
        + "KEYCHAIN_BRIDGE_PASSPHRASE='\(Self.passphrase)' \(Self.program); echo EXIT=$?; sleep 60"
      let terminal = try TestTerminal(in: folder.url, command: command)
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

import AgentProcess
import Foundation
import Security
import TestTools
import Testing

/// The Secret Service under the agent's policy (issue 51): with no policy file at all, the
/// `security` tool installed beside keychaind reaches what desktop programs store and they reach
/// what it stores, while any other program keeps its own group on the agent's socket.
@Suite(
  "The Secret Service and the agent's policy",
  .enabled(if: InstalledTool.runs(SecretServiceClients.installed), "dbus-daemon, secret-tool and python3 are needed"))
struct SecretServicePolicyTests {
  /// The `security` tool built beside keychaind.
  static let securityTool = RunningAgent.executable.deletingLastPathComponent().appendingPathComponent("security")

  @Test("With no policy file, secret-tool, Python's keyring and the security tool read what each other wrote")
  func crossAPIRoundTripsWithoutAPolicy() throws {
    let (bus, agent) = try SecretServiceTests.start(policy: nil)
    defer {
      agent.stop()
      bus.stop()
    }
    let throughAgent = ["KEYCHAIN_BRIDGE_AGENT": agent.socketPath]
    func security(_ arguments: [String]) throws -> (
      status: Int32, output: String
    ) {
      let run = try bus.run(Self.securityTool.path, arguments, environment: throughAgent)
      if run.status != 0 { Issue.record("security \(arguments.joined(separator: " ")): \(run.error)") }
      return (run.status, run.output.trimmingCharacters(in: .newlines))
    }
    func python(_ code: String) throws -> String {
      let script =
        "import keyring\nfrom keyring.backends import SecretService\n"
        + "keyring.set_keyring(SecretService.Keyring())\n" + code
      let run = try bus.run(SecretServiceClients.python, ["-c", script])
      #expect(run.status == 0, "\(run.error)")
      return run.output.trimmingCharacters(in: .newlines)
    }

    let stored = try bus.run(
      SecretServiceClients.secretTool, ["store", "--label=Mail", "service", "mail", "username", "alice"],
      input: "hunter2")
    #expect(stored.status == 0, "\(stored.error)")
    #expect(try security(["find-generic-password", "-s", "mail", "-a", "alice", "-w"]) == (0, "hunter2"))

    #expect(try security(["add-generic-password", "-s", "chat", "-a", "bob", "-w", "from the tool"]).status == 0)
    let lookup = try bus.run(SecretServiceClients.secretTool, ["lookup", "service", "chat", "username", "bob"])
    #expect(lookup.status == 0 && lookup.output == "from the tool", "\(lookup)")

    _ = try python("keyring.set_password('svc', 'carol', 's3cret')")
    #expect(try security(["find-generic-password", "-s", "svc", "-a", "carol", "-w"]) == (0, "s3cret"))

    #expect(try security(["add-generic-password", "-s", "web", "-a", "dave", "-w", "tool's"]).status == 0)
    #expect(try python("print(keyring.get_password('web', 'dave'))") == "tool's")

    // Granted every group and choosing none, the tool searches them all, as macOS's does: an
    // item of another collection (another group) is found too.
    let elsewhereItem = try bus.run(
      SecretServiceClients.python,
      [
        "-c",
        "import secretstorage\nc = secretstorage.create_collection(secretstorage.dbus_init(), 'Work')\n"
          + "c.create_item('Work', {'service': 'work', 'username': 'erin'}, b'in work')",
      ])
    #expect(elsewhereItem.status == 0, "\(elsewhereItem.error)")
    #expect(try security(["find-generic-password", "-s", "work", "-a", "erin", "-w"]) == (0, "in work"))

    // The rule is for the tool installed beside keychaind: a copy elsewhere is a program like any
    // other, with a group of its own, where nothing was stored.
    let elsewhere = agent.folder.appendingPathComponent("bin", isDirectory: true)
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    let copy = elsewhere.appendingPathComponent("security")
    try FileManager.default.copyItem(at: Self.securityTool, to: copy)
    let copied = try bus.run(
      copy.path, ["find-generic-password", "-s", "mail", "-a", "alice"], environment: throughAgent)
    #expect(copied.status == 44, "\(copied)")
  }

  @Test("A program no rule names is logged once, with the path the agent saw (issue 52)")
  func unnamedProgramsAreLoggedOnce() throws {
    let tool = Self.securityTool.resolvingSymlinksInPath().path
    let agent = try RunningAgent(policy: "\(tool) = *\n")
    defer { agent.stop() }
    for _ in 0..<3 {
      _ = try agent.connect()
    }
    let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let lines = agent.log.split(separator: "\n").filter {
      $0.contains("no rule of the agent's policy names this program")
    }
    #expect(lines.count == 1, "\(agent.log)")
    #expect(lines.first?.contains(runner) == true, "\(lines)")
  }
}

import AgentProcess
import Foundation
import Testing

/// The `security` tool with KEYCHAIN_BRIDGE_AGENT set: every command acts on the agent's store, a
/// lock by one command holds for the next process, and the tool opens no store file of its own.
@Suite struct AgentCommandTests {
  @Test func lockAndUnlockActOnTheAgentForEveryProcess() throws {
    let agent = try RunningAgent()
    defer { agent.stop() }
    let tool = SecurityToolTests.Harness()
    let environment = ["KEYCHAIN_BRIDGE_AGENT": agent.socketPath]
    func run(_ arguments: String...) throws -> (status: Int32, output: String, errors: String) {
      try tool.run(arguments, environment: environment)
    }
    #expect(try run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "pw").status == 0)
    #expect(try run("find-generic-password", "-a", "alice", "-s", "svc", "-w").output == "pw\n")
    #expect(try run("lock-keychain").status == 0)
    // Another process, the same lock: a WhenUnlocked secret is errSecInteractionNotAllowed (exit 36).
    let locked = try run("find-generic-password", "-a", "alice", "-s", "svc", "-w")
    #expect(locked.status == 36, "\(locked.errors)")
    let info = try run("show-keychain-info")
    #expect(info.output.contains("served by agent \"\(agent.socketPath)\" locked"), "\(info.output)")
    #expect(try run("unlock-keychain").status == 0)
    #expect(try run("find-generic-password", "-a", "alice", "-s", "svc", "-w").output == "pw\n")
    #expect(try run("show-keychain-info").output.contains("unlocked"))
    // The store is the agent's: the tool created none at KEYCHAIN_BRIDGE_HOME.
    #expect(!FileManager.default.fileExists(atPath: tool.directory.path))
    agent.terminate()
    let gone = try run("find-generic-password", "-a", "alice", "-s", "svc", "-w")
    #expect(gone.status != 0)
    #expect(gone.errors.contains("errSecNotAvailable") && gone.errors.contains("keychaind --socket"), "\(gone.errors)")
    #expect(!FileManager.default.fileExists(atPath: tool.directory.path), "no fallback to a store in the process")
  }

  /// The client process never opens the store's database or key file: strace follows every file
  /// it opens while it adds and reads an item through the agent.
  @Test func aClientOpensNeitherTheDatabaseNorTheKeyFile() throws {
    let agent = try RunningAgent()
    defer { agent.stop() }
    let trace = agent.folder.appendingPathComponent("client.trace")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
    process.arguments = [
      "-f", "-qq", "-e", "trace=open,openat,openat2", "-o", trace.path, SecurityToolTests.binary.path,
      "add-generic-password", "-a", "bob", "-s", "svc", "-w", "pw",
    ]
    process.environment = [
      "KEYCHAIN_BRIDGE_AGENT": agent.socketPath, "KEYCHAIN_BRIDGE_ACCESS_GROUPS": SecurityToolTests.groups,
    ]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let opened = try String(contentsOf: trace, encoding: .utf8)
    #expect(opened.contains("openat"), "strace recorded the client's opens")
    #expect(!opened.contains("keychain.key") && !opened.contains("keychain.db"), "\(opened)")
    #expect(!opened.contains(agent.storeDirectory.path))
  }
}

import Foundation
import KeychainAgentWire
import KeychainStorageAgent
import Security

#if canImport(Glibc)
  import Glibc
#endif

/// A `keychaind` started for a test (SecurityTests, SecurityToolTests), as a real process: its own socket folder (0700) and store,
/// stopped with SIGTERM (or killed) and removed afterwards.
package final class RunningAgent: @unchecked Sendable {
  // @unchecked: `process` changes only in `start` and `stop`, which one test calls in turn.
  package let folder: URL
  package let socketPath: String
  package let storeDirectory: URL
  private let passphrase: String?
  private let extraArguments: [String]
  private let extraEnvironment: [String: String]
  private let hasPolicyFile: Bool
  package private(set) var process = Process()

  /// The agent executable, built beside the test bundle.
  package static var executable: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("keychaind")
  }

  /// The policy tests run under unless they give their own: the test runner and the `security`
  /// tool are granted every group, so their calls keep the groups they ask for.
  package static var defaultPolicy: String {
    let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let tool = executable.deletingLastPathComponent().appendingPathComponent("security").resolvingSymlinksInPath().path
    return "\(runner) = *\n\(tool) = *\n"
  }

  /// Starts an agent over a new store (with `passphrase`, a passphrase store opened unlocked),
  /// under `policy` (the agent's policy file's text; nil for no policy file at all, the user's
  /// configuration folder being the test's), with `environment` added to its own.
  package init(
    passphrase: String? = nil, policy: String? = RunningAgent.defaultPolicy, arguments: [String] = [],
    environment: [String: String] = [:]
  ) throws {
    // Short: a Unix socket's path holds 107 bytes.
    folder = URL(fileURLWithPath: "/tmp/kca-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    socketPath = folder.appendingPathComponent("agent.sock").path
    storeDirectory = folder.appendingPathComponent("store", isDirectory: true)
    self.passphrase = passphrase
    extraArguments = arguments
    extraEnvironment = environment
    hasPolicyFile = policy != nil
    if let policy { try Data(policy.utf8).write(to: folder.appendingPathComponent("agent-policy")) }
    try start()
  }

  /// Starts (or starts again) the agent on the same socket and store, and waits until it answers.
  package func start() throws {
    process = Process()
    process.executableURL = Self.executable
    let policyArguments = hasPolicyFile ? ["--policy", folder.appendingPathComponent("agent-policy").path] : []
    process.arguments = ["--socket", socketPath, "--store", storeDirectory.path] + policyArguments + extraArguments
    var environment = ProcessInfo.processInfo.environment
    environment["KEYCHAIN_BRIDGE_AGENT"] = nil
    environment["KEYCHAIN_BRIDGE_PASSPHRASE"] = passphrase
    environment["KEYCHAIN_BRIDGE_ASKPASS"] = nil
    // Without a policy file the user's folder is read: the test's own, which has none.
    environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("config").path
    environment.merge(extraEnvironment) { $1 }
    process.environment = environment
    let log = folder.appendingPathComponent("agent.log")
    if !FileManager.default.fileExists(atPath: log.path) {
      _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    }
    let handle = try FileHandle(forWritingTo: log)
    try handle.seekToEnd()
    process.standardError = handle
    try process.run()
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
      if let descriptor = try? FrameSocket.connect(to: socketPath) {
        close(descriptor)
        return
      }
      guard process.isRunning else {
        throw AgentTestError("keychaind exited with \(process.terminationStatus): \(self.log)")
      }
      usleep(20_000)
    }
    throw AgentTestError("keychaind did not answer at \(socketPath) within 30 s")
  }

  /// What the agent wrote on its standard error.
  package var log: String {
    (try? String(contentsOf: folder.appendingPathComponent("agent.log"), encoding: .utf8)) ?? ""
  }

  /// Whether the agent's log holds `text`, read again for up to 30 s until it does: on a loaded
  /// machine the line an attacker's test waits for may be written after the attacker's process
  /// has already reported back.
  package func logs(_ text: String) -> Bool {
    for _ in 0..<300 {
      if log.contains(text) { return true }
      usleep(100_000)
    }
    return log.contains(text)
  }

  /// A client of the agent over a new connection: the SecItem calls, the lock and, for a program
  /// the policy grants every group, a replicator's rows.
  package func connect() throws -> AgentClient {
    try AgentClient(socketPath: socketPath, backend: try SecurityBackends.required())
  }

  /// A SecItem store over a new connection (its groups and its prompt the agent's).
  package func connectStore() throws -> KeychainStore {
    KeychainStore(socketPath: socketPath, agent: try connect())
  }

  /// Ends the agent as SIGTERM does, and waits for it.
  package func terminate() {
    guard process.isRunning else { return }
    process.terminate()
    process.waitUntilExit()
  }

  /// Ends the agent with SIGKILL, as a crash would, and waits for it.
  package func kill() {
    guard process.isRunning else { return }
    Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Stops the agent and removes its folder.
  package func stop() {
    terminate()
    try? FileManager.default.removeItem(at: folder)
  }
}

package struct AgentTestError: Error, CustomStringConvertible {
  package let description: String

  package init(_ description: String) { self.description = description }
}

import AgentProcess
import Foundation
import Testing

@testable import Security

#if canImport(Glibc)
  import Glibc
#endif

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

  @Test func autoStartsOneAgentOnDemandThatServesTheProgramsAfterIt() throws {
    let tool = SecurityToolTests.Harness()
    let runtime = URL(fileURLWithPath: "/tmp/kcr-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(
      at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    let socket = runtime.path + "/keychain-bridge/agent.sock"
    defer {
      for pid in Self.agents(serving: socket) { kill(pid, SIGTERM) }
      try? FileManager.default.removeItem(at: runtime)
    }
    // The user's policy names the tool (every group): the agent started on demand reads it from
    // XDG_CONFIG_HOME; only a program a rule names may lock the store for every program.
    let configuration = runtime.appendingPathComponent("config/keychain-bridge", isDirectory: true)
    try FileManager.default.createDirectory(
      at: configuration, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    try Data("\(SecurityToolTests.binary.resolvingSymlinksInPath().path) = *\n".utf8).write(
      to: configuration.appendingPathComponent("agent-policy"))
    let environment = [
      "KEYCHAIN_BRIDGE_AGENT": "auto", "XDG_RUNTIME_DIR": runtime.path,
      "KEYCHAIN_BRIDGE_ACCESS_GROUPS": SecurityToolTests.groups,
      "XDG_CONFIG_HOME": runtime.appendingPathComponent("config").path,
    ]
    // Six programs at once and no agent yet: they start one between them, and each is served.
    let programs = (0..<6).map { index in
      let process = Process()
      process.executableURL = SecurityToolTests.binary
      process.arguments = ["add-generic-password", "-a", "user\(index)", "-s", "svc", "-w", "pw\(index)"]
      process.environment = environment.merging(["KEYCHAIN_BRIDGE_HOME": tool.directory.path]) { old, _ in old }
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      return process
    }
    for program in programs { try program.run() }
    for program in programs { program.waitUntilExit() }
    #expect(programs.map(\.terminationStatus) == [0, 0, 0, 0, 0, 0])
    let agents = Self.agents(serving: socket)
    #expect(agents.count == 1, "keychaind processes serving \(socket): \(agents)")
    for index in 0..<6 {
      let found = try tool.run(
        ["find-generic-password", "-a", "user\(index)", "-s", "svc", "-w"], environment: environment)
      #expect(found.output == "pw\(index)\n", "\(found.errors)")
    }
    let info = try tool.run(["show-keychain-info"], environment: environment)
    #expect(info.output.contains("served by agent \"\(socket)\""), "\(info.output)")
    // The agent outlived the programs that started it, in a session of its own, and is the one
    // every later program reaches: a lock by one is a lock for the next.
    #expect(try tool.run(["lock-keychain"], environment: environment).status == 0)
    #expect(
      try tool.run(["find-generic-password", "-a", "user0", "-s", "svc", "-w"], environment: environment).status == 36)
    #expect(Self.agents(serving: socket) == agents)
    if let pid = agents.first {
      #expect(getsid(pid) == pid, "the agent leads a session of its own")
    }
    #expect(FileManager.default.fileExists(atPath: runtime.path + "/keychain-bridge/keychaind.log"))
  }

  @Test func autoThatCannotStartAnAgentAnswersNotAvailableWithTheReason() throws {
    let tool = SecurityToolTests.Harness()
    // A runtime "directory" that is a file: the socket's folder cannot be made.
    let file = "/tmp/kcr-\(UUID().uuidString.prefix(8))"
    #expect(FileManager.default.createFile(atPath: file, contents: Data()))
    defer { try? FileManager.default.removeItem(atPath: file) }
    let result = try tool.run(
      ["find-generic-password", "-a", "a", "-s", "s"],
      environment: ["KEYCHAIN_BRIDGE_AGENT": "auto", "XDG_RUNTIME_DIR": file])
    #expect(result.status == errSecNotAvailable & 0xff, "\(result.errors)")
    #expect(result.errors.contains("could not start keychaind"), "\(result.errors)")
    #expect(!FileManager.default.fileExists(atPath: tool.directory.path), "no fallback to a store in the process")
  }

  @Test(.enabled(if: getuid() == 0, "needs root, to run a client as another user (CI's tests run as root)"))
  func anotherUsersProgramIsRefusedBeforeItSendsAByte() throws {
    let agent = try RunningAgent()
    defer { agent.stop() }
    // The agent's folder is closed to others (it refuses to serve from one that is not), so the
    // other user reaches the socket through a hard link in an open folder, its mode opened too:
    // what stops that user is the agent's SO_PEERCRED check alone.
    let open = URL(fileURLWithPath: "/tmp/kcu-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(
      at: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
    defer { try? FileManager.default.removeItem(at: open) }
    let link = open.appendingPathComponent("agent.sock").path
    #expect(Glibc.link(agent.socketPath, link) == 0, "link: \(String(cString: strerror(errno)))")
    #expect(chmod(link, 0o666) == 0)
    let (status, message) = try SecurityToolTests.runCollectingErrors(
      "/usr/bin/setpriv",
      [
        "--reuid=65534", "--regid=65534", "--clear-groups", SecurityToolTests.binary.path, "find-generic-password",
        "-a", "alice", "-s", "svc",
      ], environment: ["KEYCHAIN_BRIDGE_AGENT": link, "HOME": "/nonexistent"])
    #expect(status == errSecNotAvailable & 0xff, "\(message)")
    #expect(agent.log.contains("refused a connection") && agent.log.contains("uid=65534"), "\(agent.log)")
  }

  /// The keychaind processes whose command line names `socket`.
  static func agents(serving socket: String) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { pid_t($0) }.filter { pid in
      guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
      let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      return arguments.first?.hasSuffix("keychaind") == true && arguments.contains(socket)
    }.sorted()
  }

  /// Runs `executable` (the tool under another name) against the agent, with `groups` as the
  /// access groups it asks for.
  static func run(
    _ executable: URL, _ arguments: [String], agent: RunningAgent, groups: String = "*"
  ) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ["KEYCHAIN_BRIDGE_AGENT": agent.socketPath, "KEYCHAIN_BRIDGE_ACCESS_GROUPS": groups]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  /// Access groups come from who is calling, as entitlements do: two programs whose policy grants
  /// different groups cannot read each other's items though both ask for every group ("*"), nor
  /// by naming the other's group; a program no rule names has a group of its own; the agent
  /// narrows a raw request that asks for every group, whatever the client's engine would do.
  @Test func aPinnedProgramIsGrantedItsGroupsOnlyWhileItsBytesAreThePinnedOnes() throws {
    let programs = URL(fileURLWithPath: "/tmp/kcp-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(
      at: programs, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: programs) }
    let app = programs.appendingPathComponent("pinned-app")
    try FileManager.default.copyItem(at: SecurityToolTests.binary, to: app)
    // The pin is computed by another implementation (coreutils), not by the agent's own code.
    let digest = try SecurityToolTests.runCollectingOutput("/usr/bin/sha256sum", [app.path])
    let hex = String(digest.prefix(64))
    let agent = try RunningAgent(policy: "\(app.path) sha256:\(hex) = org.example.pinned\n")
    defer { agent.stop() }
    let add = ["add-generic-password", "-a", "alice", "-s", "svc", "-w", "pinned secret"]
    let find = ["find-generic-password", "-a", "alice", "-s", "svc", "-w"]
    #expect(try Self.run(app, add, agent: agent, groups: "org.example.pinned").status == 0)
    #expect(try Self.run(app, find, agent: agent).output == "pinned secret\n")
    // The same path with other bytes (an ELF file runs the same with bytes after its end): the pin
    // no longer matches, so the program is one no rule names and gets a group of its own. The
    // digest the agent kept for the file's earlier version must not be used for it.
    let handle = try FileHandle(forWritingTo: app)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("changed".utf8))
    try handle.close()
    let changed = try Self.run(app, find, agent: agent)
    #expect(changed.status == 44 && changed.output.isEmpty, "the changed program read the pinned group's item")
  }

  @Test func programsThePolicyGrantsDifferentGroupsCannotReadEachOthersItems() throws {
    let programs = URL(fileURLWithPath: "/tmp/kcp-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(
      at: programs, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: programs) }
    // The same tool under three names: the policy tells programs apart by their executable.
    let names = ["app-a", "app-b", "app-c"]
    for name in names {
      let copy = programs.appendingPathComponent(name)
      do {
        try FileManager.default.linkItem(at: SecurityToolTests.binary, to: copy)
      } catch {
        try FileManager.default.copyItem(at: SecurityToolTests.binary, to: copy)
      }
    }
    let (a, b, c) = (
      programs.appendingPathComponent("app-a"), programs.appendingPathComponent("app-b"),
      programs.appendingPathComponent("app-c")
    )
    // The test runner is not named: it gets a group of its own, as app-c does.
    let agent = try RunningAgent(policy: "\(a.path) = org.example.a\n\(b.path) = org.example.b, org.example.shared\n")
    defer { agent.stop() }
    #expect(
      try Self.run(a, ["add-generic-password", "-a", "alice", "-s", "svc", "-w", "secret-a"], agent: agent).status == 0)
    #expect(
      try Self.run(b, ["add-generic-password", "-a", "bob", "-s", "svc", "-w", "secret-b"], agent: agent).status == 0)
    #expect(
      try Self.run(c, ["add-generic-password", "-a", "carol", "-s", "svc", "-w", "secret-c"], agent: agent).status == 0)
    let find = { (account: String) in ["find-generic-password", "-a", account, "-s", "svc", "-w"] }
    #expect(try Self.run(a, find("alice"), agent: agent).output == "secret-a\n")
    #expect(try Self.run(b, find("bob"), agent: agent).output == "secret-b\n")
    #expect(try Self.run(c, find("carol"), agent: agent).output == "secret-c\n")
    for (program, account) in [(a, "bob"), (a, "carol"), (b, "alice"), (b, "carol"), (c, "alice"), (c, "bob")] {
      let other = try Self.run(program, find(account), agent: agent)
      #expect(other.status == 44 && other.output.isEmpty, "\(program.lastPathComponent) read \(account)'s item")
    }
    // Naming the other's group does not help: it is not granted.
    let named = try Self.run(b, find("alice"), agent: agent, groups: "org.example.a")
    #expect(named.status != 0 && named.output.isEmpty)
    // Requests as a client that skips the narrowing of its groups would send them: a search as a
    // caller of every group, the replicator's read of every row, and an add into another program's
    // group. The agent answers only what this program's grant reaches, whatever the request says.
    let raw = try agent.connect()
    let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    #expect(raw.grantedAccessGroups == [runner])
    let search: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
      kSecReturnData as String: true,
    ]
    let everyGroup = raw.service(accessGroups: ["*", "org.example.a", "org.example.b"])
    #expect(throws: SecStatus.missingEntitlement) {
      try everyGroup.matchingItems(try ItemRequest.reading(search as NSDictionary))
    }
    var everything = ItemFilter(itemClass: .genericPassword)
    everything.accessGroups = nil
    #expect(throws: SecStatus.missingEntitlement) {
      try raw.replica.find(everything, limit: nil, fetch: ItemFetch(attributes: true, data: true))
    }
    let intruder: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "mallory",
      kSecAttrService as String: "svc", kSecAttrAccessGroup as String: "org.example.a",
      kSecValueData as String: Data("x".utf8),
    ]
    #expect(throws: SecStatus.missingEntitlement) {
      try raw.service(accessGroups: [runner, "org.example.a"]).add(try ItemRequest.reading(intruder as NSDictionary))
    }
    #expect(try Self.run(a, find("mallory"), agent: agent).status == 44)
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
    // A traced program is not the program a rule trusts (issue 49, case 4): the agent gives the
    // tool under strace its own group only, its executable's path.
    let ownGroup = SecurityToolTests.binary.resolvingSymlinksInPath().path
    process.environment = ["KEYCHAIN_BRIDGE_AGENT": agent.socketPath, "KEYCHAIN_BRIDGE_ACCESS_GROUPS": ownGroup]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let opened = try String(contentsOf: trace, encoding: .utf8)
    #expect(opened.contains("openat"), "strace recorded the client's opens")
    #expect(!opened.contains("keychain.key") && !opened.contains("keychain.db"), "\(opened)")
    #expect(!opened.contains(agent.storeDirectory.path))
  }
}

import AgentProcess
import Foundation
import KeychainAgentWire
import KeychainStorageAgent
import TestTools
import Testing

@testable import Security

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 49: the agent's promises, tried by real processes as the attacker did (python3 and perl
/// speak the wire protocol; the agent is paused with SIGSTOP where a race must be won every time).
/// Each test names the attack; the note on the issue says which of them succeeded before the fix.
@Suite(.serialized) struct AgentAttacks {
  @Test("Case 2: a socket connected by a process that then runs a trusted program is not served to its parent")
  func theExecRaceIsLost() throws {
    let agent = try AgentAttackers.agentGuarding("trusted-group", for: AgentAttackers.trustedProgram)
    defer { agent.stop() }
    let frame = AgentAttackers.findFrame(group: "trusted-group")
    // The parent sends on the socket its child connected (the attacker's 1/1 with SIGSTOP).
    let parent = try AgentAttackers.attack("parent-sends", agent, frame: frame, extra: [AgentAttackers.trustedProgram])
    #expect(parent == nil, "the agent answered the parent")
    // The child sends first, then runs the trusted program; its parent reads the answer.
    let child = try AgentAttackers.attack("child-sends", agent, frame: frame, extra: [AgentAttackers.trustedProgram])
    #expect(child == nil, "the agent answered the child's request")
    #expect(agent.logs("not the process that connected"), "\(agent.log)")
    #expect(agent.logs("a request sent before the agent greeted the connection"), "\(agent.log)")
    // The trusted program itself, connecting on its own, is served: the rule still works.
    let honest = try AgentAttackers.attack("plain", agent, frame: frame)
    #expect(honest != nil)
  }

  @Test("Case 4: a trusted program that hands its connection to another program across exec loses it")
  func aConnectionHandedAcrossExecIsClosed() throws {
    let agent = try AgentAttackers.agentGuarding("python-group", for: AgentAttackers.pythonExecutable)
    defer { agent.stop() }
    let frame = AgentAttackers.findFrame(group: "python-group")
    let handed = try AgentAttackers.attack("hand-over", agent, frame: frame, extra: [AgentAttackers.perlClient])
    #expect(handed == nil, "the agent answered perl")
    #expect(agent.logs("now runs another program"), "\(agent.log)")
    // python3 asking for itself is served: the rule holds for the program it names.
    let honest = try #require(try AgentAttackers.attack("plain", agent, frame: frame))
    #expect(try AgentAttackers.secrets(in: honest) == ["the guarded secret"])
  }

  @Test("Case 4: a trusted program started with LD_PRELOAD gets its own group only")
  func aPreloadedProgramGetsItsOwnGroupOnly() throws {
    let agent = try AgentAttackers.agentGuarding("python-group", for: AgentAttackers.pythonExecutable)
    defer { agent.stop() }
    let frame = AgentAttackers.findFrame(group: "python-group")
    // A library every system has: what it does does not matter, only that the loader was told to.
    let library = try #require(
      ["/lib/x86_64-linux-gnu/libm.so.6", "/lib/aarch64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6"].first {
        FileManager.default.fileExists(atPath: $0)
      })
    let preloaded = try #require(
      try AgentAttackers.attack("plain", agent, frame: frame, environment: ["LD_PRELOAD": library]))
    #expect(try AgentAttackers.secrets(in: preloaded).isEmpty)
    #expect(agent.log.contains("because it was started with LD_PRELOAD"), "\(agent.log)")
  }

  @Test(
    "Case 7: headers announcing 64 MiB cost nothing until the bytes come, and idle connections cannot shut others out")
  func connectionsCannotExhaustTheAgent() throws {
    let agent = try AgentAttackers.agentGuarding("g", for: AgentAttackers.trustedProgram)
    defer { agent.stop() }
    let before = try AgentAttackers.residentKilobytes(agent)
    // 24 connections announce the longest frame and send nothing more (the attacker's +1,536 MiB).
    var header: [UInt8] = []
    TaggedBinaryForm.appendLength(AgentFrame.maximumFrameLength, to: &header)
    var announcing: [Int32] = []
    defer { announcing.forEach { close($0) } }
    for _ in 0..<24 {
      let descriptor = try AgentHandshake.connect(to: agent.socketPath)
      _ = header.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      announcing.append(descriptor)
    }
    // The agent has read every header once a later connection is served (one thread each, in turn).
    let store = try AgentTests.client(agent)
    withKeychainContext(store: store, accessGroups: ["g"]) { #expect(AgentTests.add("after headers") == errSecSuccess) }
    sleep(1)  // time for every connection's thread to read its header (before the fix: allocate)
    let grown = try AgentAttackers.residentKilobytes(agent) - before
    #expect(grown < 64 * 1024, "the agent grew by \(grown) KiB for 24 announced frames")
    // 1,200 idle connections from 12 other processes: past the agent's bound the idlest are
    // closed, and a program connecting afterwards is served.
    let holders = (0..<12).map { _ -> Process in
      let process = Process()
      process.executableURL = URL(fileURLWithPath: AgentAttackers.python)
      process.arguments = [
        "-c",
        "import socket, sys\nheld = []\nfor _ in range(100):\n    s = socket.socket(socket.AF_UNIX)\n"
          + "    s.connect(sys.argv[1]); held.append(s)\nprint('held', flush=True)\nsys.stdin.read()\n",
        agent.socketPath,
      ]
      let output = Pipe()
      process.standardOutput = output
      // It holds its connections until its standard input closes (the test's end, or its crash).
      process.standardInput = Pipe()
      process.standardError = FileHandle.nullDevice
      try? process.run()
      _ = output.fileHandleForReading.availableData  // "held": its 100 connections are accepted or queued
      return process
    }
    defer {
      // SIGKILL: a process started from a test's thread inherits its blocked signals, SIGTERM among them.
      for holder in holders where holder.isRunning {
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
      }
    }
    let late = try AgentTests.client(agent)
    withKeychainContext(store: late, accessGroups: ["g"]) {
      #expect(AgentTests.read("after headers").1 == Data("secret of after headers".utf8))
    }
    #expect(!agent.log.contains("accept failed"), "\(agent.log)")
    // Bounded: the agent holds at most its connection limit (512) and a few files of its own.
    let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(agent.process.processIdentifier)/fd").count
    #expect(open < 600, "the agent holds \(open) descriptors for 1,224 connections")
  }

  @Test("Case 9: a program no rule names cannot lock the store, and wrong passphrases sent to unlock are counted")
  func lockAndUnlockAreForNamedProgramsAndGuessesCount() throws {
    let agent = try RunningAgent(passphrase: "right one")
    defer { agent.stop() }
    // python3 is named by no rule: its lock is refused and the store stays open.
    let lock = AgentAttackers.framed(AgentFrame.request(.lock))
    let answer = try #require(try AgentAttackers.attack("plain", agent, frame: lock))
    #expect(throws: SecStatus.missingEntitlement) { _ = try AgentFrame.readAnswer(answer) }
    let store = try AgentTests.client(agent)
    #expect(!store.isLocked)
    // The test runner is named (`*`): it may lock, and its guesses are counted like the prompt's.
    store.lock()
    #expect(store.isLocked)
    var last = SecStatus(errSecSuccess)
    for _ in 0..<5 {
      do throws(SecStatus) {
        try store.keys.unlock(passphrase: "a guess")
      } catch {
        last = error
      }
    }
    #expect(last.code == errSecAuthFailed)
    #expect(last.detail?.contains("5 in a row") == true, "\(last)")
    // Locked out now: even the right passphrase waits.
    do throws(SecStatus) {
      try store.keys.unlock(passphrase: "right one")
      Issue.record("the right passphrase was taken during the lockout")
    } catch {
      #expect(error.detail?.contains("Too many wrong passphrases") == true, "\(error)")
    }
    let ledger = try String(
      contentsOf: agent.storeDirectory.appendingPathComponent("authentication-failures"), encoding: .utf8)
    #expect(ledger.hasPrefix("KBAF1 5 "))
  }

  @Test("Case 6: an agent started on demand gets none of the starting program's loader variables")
  func anAgentStartedOnDemandHasACleanEnvironment() throws {
    let runtime = URL(fileURLWithPath: "/tmp/kcr-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(
      at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    let socket = runtime.path + "/keychain-bridge/agent.sock"
    defer {
      for pid in AgentAttackers.agents(serving: socket) { kill(pid, SIGKILL) }
      try? FileManager.default.removeItem(at: runtime)
    }
    let tool = Process()
    tool.executableURL = RunningAgent.executable.deletingLastPathComponent().appendingPathComponent("security")
    tool.arguments = ["show-keychain-info"]
    tool.environment = [
      "KEYCHAIN_BRIDGE_AGENT": "auto", "XDG_RUNTIME_DIR": runtime.path,
      "KEYCHAIN_BRIDGE_HOME": runtime.appendingPathComponent("store").path,
      "LD_PRELOAD": try #require(AgentAttackers.preloadedLibrary), "PYTHONPATH": "/tmp/evil", "HOME": runtime.path,
    ]
    tool.standardOutput = FileHandle.nullDevice
    tool.standardError = FileHandle.nullDevice
    try tool.run()
    tool.waitUntilExit()
    #expect(tool.terminationStatus == 0)
    let agent = try #require(AgentAttackers.agents(serving: socket).first, "no agent was started at \(socket)")
    let environment = try AgentAttackers.environment(of: agent)
    #expect(!environment.contains { $0.hasPrefix("LD_PRELOAD=") || $0.hasPrefix("PYTHONPATH=") }, "\(environment)")
    #expect(environment.contains("KEYCHAIN_BRIDGE_HOME=\(runtime.path)/store"))
    #expect(environment.contains("SWIFT_BACKTRACE=enable=no"))
  }

  @Test(
    "Cases 6 and 8: keychaind refuses loader variables, wipes the passphrase from its environment, and a crash reports no memory"
  )
  func theAgentsOwnEnvironment() throws {
    let refused = Process()
    refused.executableURL = RunningAgent.executable
    refused.arguments = ["--socket", "/tmp/kcr-never/s"]
    refused.environment = ["LD_PRELOAD": try #require(AgentAttackers.preloadedLibrary)]
    let errors = Pipe()
    refused.standardError = errors
    try refused.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    refused.waitUntilExit()
    #expect(refused.terminationStatus == 78)
    #expect(message.contains("started with LD_PRELOAD set"), "\(message)")

    let agent = try RunningAgent(passphrase: "a passphrase in the environment")
    defer { agent.stop() }
    let pid = agent.process.processIdentifier
    let environment = try AgentAttackers.environment(of: pid)
    #expect(!environment.contains { $0.contains("a passphrase in the environment") })
    #expect(environment.contains("SWIFT_BACKTRACE=enable=no"))
    kill(pid, SIGSEGV)
    agent.process.waitUntilExit()
    #expect(agent.process.terminationReason == .uncaughtSignal)
    #expect(!agent.log.contains("crashed") && !agent.log.contains("Registers"), "\(agent.log)")
  }

  @Test(
    "Case 3: a program in another mount and user namespace, bound over a rule's path, gets a group of its own",
    .enabled(if: InstalledTool.runs(needing: "/usr/bin/unshare"), "needs util-linux's unshare"))
  func aCallerInAnotherNamespaceIsNotTheRulesProgram() throws {
    let agent = try AgentAttackers.agentGuarding("trusted-group", for: AgentAttackers.trustedProgram)
    defer { agent.stop() }
    let frame = AgentAttackers.findFrame(group: "trusted-group")
    // As the attacker did, without privilege: a user and mount namespace of its own, python3
    // bound over the rule's path, run by that path.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
    process.arguments = [
      "-Urm", "/bin/sh", "-c",
      "mount --bind \(AgentAttackers.pythonExecutable) \(AgentAttackers.trustedProgram) && exec \(AgentAttackers.trustedProgram) -c \"$0\" \"$@\"",
      AgentAttackers.attacker, "plain", agent.socketPath, "\(agent.process.processIdentifier)",
      AgentAttackers.hex(frame),
    ]
    let output = Pipe()
    process.standardOutput = output
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let problems = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "unshare: \(problems)")
    let answer = text.trimmingCharacters(in: .whitespacesAndNewlines)
    try #require(answer != "closed" && !answer.isEmpty, "\(problems)")
    #expect(
      try AgentAttackers.secrets(in: AgentAttackers.bytes(fromHex: answer)).isEmpty,
      "the program in another namespace read the rule's group")
  }

  @Test(
    "Case 12: without a runtime folder the automatic socket is in the home, not in a /tmp folder another user can take")
  func theAutomaticSocketIsNotInAFolderAnotherUserCanMakeFirst() {
    #expect(
      KeychainStore.automaticAgentSocketPath(["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/ann"])
        == "/run/user/1000/keychain-bridge/agent.sock")
    #expect(KeychainStore.automaticAgentSocketPath(["HOME": "/home/ann"]) == "/home/ann/.keychain-bridge/agent.sock")
    #expect(
      KeychainStore.automaticAgentSocketPath(["HOME": "/home/ann/", "XDG_RUNTIME_DIR": "relative"])
        == "/home/ann/.keychain-bridge/agent.sock")
    let deep = "/" + String(repeating: "d", count: 120)
    #expect(KeychainStore.automaticAgentSocketPath(["HOME": deep]) == "/tmp/keychain-bridge-\(getuid())/agent.sock")
  }

  @Test("Case 5: a client sends no passphrase to a relay another program put at the socket's path")
  func aRelayAtTheSocketPathGetsNoPassphrase() throws {
    let agent = try RunningAgent(passphrase: "the right passphrase")
    defer { agent.stop() }
    let real = agent.folder.appendingPathComponent("real.sock").path
    let capture = agent.folder.appendingPathComponent("captured")
    let relay = Process()
    relay.executableURL = URL(fileURLWithPath: AgentAttackers.python)
    relay.arguments = ["-c", AgentAttackers.relay, real, agent.socketPath, capture.path]
    let output = Pipe()
    relay.standardOutput = output
    relay.standardError = FileHandle.nullDevice
    try relay.run()
    defer {
      kill(relay.processIdentifier, SIGKILL)
      relay.waitUntilExit()
    }
    _ = output.fileHandleForReading.availableData  // "ready"
    // The real agent, reached at its new path, is locked by a program the policy names.
    let direct = try AgentClient(socketPath: real, backend: try SecurityBackends.required())
    direct.lock()
    #expect(direct.isLocked)
    // A client at the usual path finds the relay there and sends it nothing: no request (whose
    // answers would carry the secrets it reads), no passphrase.
    do throws(SecStatus) {
      let client = try AgentClient(socketPath: agent.socketPath, backend: try SecurityBackends.required())
      try client.unlock(passphrase: "the right passphrase")
      Issue.record("the client unlocked through the relay")
    } catch {
      #expect(error.code == errSecNotAvailable)
      #expect(error.detail?.contains("not the keychain agent") == true, "\(error)")
    }
    let captured = (try? Data(contentsOf: capture)) ?? Data()
    #expect(captured.isEmpty, "the relay captured \(captured.count) bytes")
    #expect(direct.isLocked)
    // The real agent, checked the same way, gets it.
    try direct.unlock(passphrase: "the right passphrase")
    #expect(!direct.isLocked)
  }

  @Test(
    "Case 8: no copy of the passphrase stays in the agent's memory after a start, unlocks and a lock",
    .enabled(if: getuid() == 0, "reading a non-dumpable process's memory needs root"))
  func thePassphraseLeavesNoCopyInTheAgent() throws {
    let passphrase = "zebra quartz violin 42"
    let agent = try RunningAgent(passphrase: passphrase)
    defer { agent.stop() }
    // An existing store: the agent unlocks it with the environment's bytes, then wipes them.
    agent.terminate()
    try agent.start()
    let pid = agent.process.processIdentifier
    #expect(try AgentAttackers.copies(of: passphrase, inMemoryOf: pid) == 0, "after the start")
    let client = try AgentClient(socketPath: agent.socketPath, backend: try SecurityBackends.required())
    for _ in 0..<3 {
      client.lock()
      try client.unlock(passphrase: passphrase)
      #expect(try AgentAttackers.copies(of: passphrase, inMemoryOf: pid) == 0, "after an unlock")
    }
    client.lock()
    #expect(try AgentAttackers.copies(of: passphrase, inMemoryOf: pid) == 0, "after a lock")
  }
}

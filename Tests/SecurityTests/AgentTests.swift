import AgentProcess
import Foundation
import KeychainAgentWire
import KeychainStorageAgent
import Synchronization
import Testing

@testable import Security

#if canImport(Glibc)
  import Glibc
#endif

/// keychaind as a real process (issue 31): one lock for every client, errSecNotAvailable when it
/// is gone, clients that reconnect to a restarted agent, and a socket that survives hostile frames.
@Suite struct AgentTests {
  /// A SecItem store over a new connection to `agent`.
  static func client(_ agent: RunningAgent) throws -> KeychainStore {
    try agent.connectStore()
  }

  static func add(_ account: String, accessible: CFString = kSecAttrAccessibleWhenUnlocked) -> OSStatus {
    SecItemAdd(
      [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "agent",
        kSecAttrAccount as String: account,
        kSecAttrAccessible as String: accessible, kSecValueData as String: Data("secret of \(account)".utf8),
      ] as CFDictionary, nil)
  }

  static func read(_ account: String) -> (OSStatus, Data?) {
    var result: CFTypeRef?
    let status = SecItemCopyMatching(
      [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "agent",
        kSecAttrAccount as String: account,
        kSecReturnData as String: true,
      ] as CFDictionary, &result)
    return (status, result as? Data)
  }

  @Test func aLockByOneClientHoldsForEveryClient() throws {
    let agent = try RunningAgent()
    defer { agent.stop() }
    let first = try Self.client(agent)
    let second = try Self.client(agent)
    withKeychainContext(store: first, accessGroups: ["g"]) {
      #expect(Self.add("locked") == errSecSuccess)
      #expect(Self.add("always", accessible: kSecAttrAccessibleAfterFirstUnlock) == errSecSuccess)
    }
    first.lock()
    #expect(second.isLocked)
    withKeychainContext(store: second, accessGroups: ["g"]) {
      #expect(Self.read("locked").0 == errSecInteractionNotAllowed)
      // AfterFirstUnlock data stays readable while locked, as on Apple.
      #expect(Self.read("always").1 == Data("secret of always".utf8))
    }
    #expect(second.unlock() == errSecSuccess)
    #expect(!first.isLocked)
    withKeychainContext(store: first, accessGroups: ["g"]) {
      #expect(Self.read("locked").1 == Data("secret of locked".utf8))
    }
  }

  @Test func aClientOfAnAgentThatIsGoneGetsNotAvailableSayingHowToStartIt() throws {
    let agent = try RunningAgent()
    let store = try Self.client(agent)
    agent.stop()
    withKeychainContext(store: store, accessGroups: ["g"]) {
      #expect(Self.add("orphan") == errSecNotAvailable)
    }
    #expect(throws: SecStatus.self) {
      try AgentClient(socketPath: agent.socketPath, backend: try SecurityBackends.required())
    }
    do {
      _ = try AgentClient(socketPath: agent.socketPath, backend: try SecurityBackends.required())
    } catch {
      #expect(error.code == errSecNotAvailable)
      #expect(error.detail?.contains("keychaind --socket \(agent.socketPath)") == true, "\(error)")
    }
  }

  @Test func theDefaultStoreIsTheAgentsWhenKEYCHAIN_BRIDGE_AGENTNamesIt() throws {
    let agent = try RunningAgent()
    defer { agent.stop() }
    let store = try KeychainStore.agentStore(socketPath: agent.socketPath)
    guard case .agent(let link) = store.holder else {
      Issue.record("the store is not the agent's")
      return
    }
    #expect(link is AgentClient)
    #expect(store.storage == nil, "this process holds no row of the agent's store")
    #expect(store.directory.path == agent.socketPath)
    agent.terminate()
    #expect(throws: KeychainStoreError.self) { try KeychainStore.agentStore(socketPath: agent.socketPath) }
  }

  @Test func aClientReconnectsToARestartedAgentAndNothingAcknowledgedIsLost() throws {
    let agent = try RunningAgent()
    defer { agent.stop() }
    let store = try Self.client(agent)
    withKeychainContext(store: store, accessGroups: ["g"]) {
      for index in 0..<20 { #expect(Self.add("before-\(index)") == errSecSuccess) }
    }
    agent.kill()
    try agent.start()
    withKeychainContext(store: store, accessGroups: ["g"]) {
      for index in 0..<20 { #expect(Self.read("before-\(index)").1 == Data("secret of before-\(index)".utf8)) }
      #expect(Self.add("after") == errSecSuccess)
    }
  }

  @Test func hostileFramesEndTheirConnectionAndTheAgentServesOn() throws {
    let agent = try RunningAgent()
    defer { agent.stop() }
    let frames: [[UInt8]] = [
      [],  // no version
      [9, 1],  // another version
      [AgentFrame.version, 0xEE],  // an unknown operation
      [AgentFrame.version, AgentFrame.Operation.add.rawValue, 1, 2, 3],  // arguments cut short
      AgentFrame.request(.state) + [0],  // bytes after the arguments
    ]
    for frame in frames {
      let descriptor = try AgentHandshake.connect(to: agent.socketPath)
      defer { close(descriptor) }
      try FrameSocket.send(frame, on: descriptor)
      #expect(try FrameSocket.receive(on: descriptor) == nil, "the agent answered \(frame)")
    }
    // A length beyond the bound is refused before the agent reads or allocates the body.
    let descriptor = try AgentHandshake.connect(to: agent.socketPath)
    var header: [UInt8] = []
    TaggedBinaryForm.appendLength(Int(UInt32.max), to: &header)
    _ = header.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    #expect(try FrameSocket.receive(on: descriptor) == nil)
    close(descriptor)
    // Half-closed: the length only.
    let half = try AgentHandshake.connect(to: agent.socketPath)
    _ = [UInt8]([8, 0, 0, 0]).withUnsafeBytes { send(half, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    shutdown(half, Int32(SHUT_WR))
    #expect(try FrameSocket.receive(on: half) == nil)
    close(half)
    // The agent serves on.
    let store = try Self.client(agent)
    withKeychainContext(store: store, accessGroups: ["g"]) { #expect(Self.add("still") == errSecSuccess) }
    #expect(agent.log.contains("a malformed request"), "\(agent.log)")
  }

  /// Random frames (and random cuts of real ones) at the socket: every one ends its connection or
  /// gets an answer, and the agent never stops: 20,000 frames in `make test` (CI's 20-minute
  /// budget; 100,000 took 16-25 s of a core), 1,000,000 with `KEYCHAIN_BRIDGE_LONG=1`.
  @Test func randomFramesNeverStopTheAgent() throws {
    let agent = try RunningAgent()
    defer { agent.stop() }
    let count = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_LONG"] == "1" ? 1_000_000 : 20_000
    var generator = SystemRandomNumberGenerator()
    var answered = 0
    var closed = 0
    var descriptor = try AgentHandshake.connect(to: agent.socketPath)
    for _ in 0..<count {
      var frame = AgentFrame.request(AgentFrame.Operation.allCases.randomElement(using: &generator)!)
      for _ in 0..<Int.random(in: 0...24, using: &generator) {
        frame.append(UInt8.random(in: 0...255, using: &generator))
      }
      if Bool.random(using: &generator) && frame.count > 2 {
        frame[Int.random(in: 0..<frame.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
      }
      try FrameSocket.send(frame, on: descriptor)
      let answer = (try? FrameSocket.receive(on: descriptor)) ?? nil
      if answer != nil {
        answered += 1
      } else {
        closed += 1
        close(descriptor)
        descriptor = try AgentHandshake.connect(to: agent.socketPath)
      }
    }
    close(descriptor)
    #expect(agent.process.isRunning)
    #expect(answered + closed == count)
    print("keychaind fuzz: \(count) random frames, \(answered) answered, \(closed) connections closed, 0 crashes")
    let store = try Self.client(agent)
    // A random frame may have been a well-formed lock.
    #expect(store.unlock() == errSecSuccess)
    withKeychainContext(store: store, accessGroups: ["g"]) { #expect(Self.add("after fuzz") == errSecSuccess) }
  }

  @Test func sixtyFourClientsAtOnceEachReadTheirOwnWrites() throws {
    let agent = try RunningAgent()
    defer { agent.stop() }
    let failures = Mutex<[String]>([])
    let started = Date()
    DispatchQueue.concurrentPerform(iterations: 64) { client in
      do {
        let store = try Self.client(agent)
        withKeychainContext(store: store, accessGroups: ["g"]) {
          for index in 0..<10 {
            let account = "client-\(client)-\(index)"
            let added = Self.add(account)
            let read = Self.read(account)
            if added != errSecSuccess || read.1 != Data("secret of \(account)".utf8) {
              failures.withLock { $0.append("\(account): add \(added), read \(read.0)") }
            }
          }
        }
      } catch {
        failures.withLock { $0.append("client \(client): \(error)") }
      }
    }
    #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
    print("keychaind: 64 clients x 10 adds and reads in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
  }

  /// SIGKILL while a client writes: every write the agent acknowledged is there after a restart,
  /// and the write in flight answered errSecNotAvailable rather than success.
  @Test func aKillDuringWritesLosesNoAcknowledgedWrite() throws {
    let agent = try RunningAgent()
    defer { agent.stop() }
    let acknowledged = Mutex<[String]>([])
    let lastStatus = Mutex<OSStatus>(errSecSuccess)
    let store = try Self.client(agent)
    let writer = Thread {
      withKeychainContext(store: store, accessGroups: ["g"]) {
        for index in 0..<100_000 {
          let status = Self.add("written-\(index)")
          guard status == errSecSuccess else {
            lastStatus.withLock { $0 = status }
            return
          }
          acknowledged.withLock { $0.append("written-\(index)") }
        }
      }
    }
    writer.start()
    while acknowledged.withLock({ $0.count }) < 50 { usleep(5_000) }
    agent.kill()
    while lastStatus.withLock({ $0 }) == errSecSuccess { usleep(5_000) }
    #expect(lastStatus.withLock { $0 } == errSecNotAvailable)
    try agent.start()
    let written = acknowledged.withLock { $0 }
    let reader = try Self.client(agent)
    withKeychainContext(store: reader, accessGroups: ["g"]) {
      for account in written { #expect(Self.read(account).1 == Data("secret of \(account)".utf8), "\(account)") }
    }
    print("keychaind: killed with SIGKILL after \(written.count) acknowledged writes; all \(written.count) read back")
  }

  /// A policy the agent cannot read as written stops it, naming the place; so does a policy file
  /// another user may write (it would decide what this user's programs read).
  @Test(
    arguments: [
      ("/usr/bin/tool = g\nrelative/tool = g\n", 0o600, "agent-policy:2:1: name the executable by its absolute path"),
      ("/usr/bin/tool sha256:12ab = g\n", 0o600, "agent-policy:1:15: a pin is sha256: and 64 hexadecimal digits"),
      ("/usr/bin/tool =\n", 0o600, "agent-policy:1:16: list the granted groups"),
      ("/usr/bin/tool = g\n", 0o666, "may be written by other users"),
    ])
  func aPolicyTheAgentCannotTrustStopsItWithThePlace(policy: String, mode: Int, problem: String) throws {
    let folder = URL(fileURLWithPath: "/tmp/kca-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("agent-policy")
    try Data(policy.utf8).write(to: file)
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
    let process = Process()
    process.executableURL = RunningAgent.executable
    process.arguments = [
      "--socket", folder.appendingPathComponent("s").path, "--store", folder.appendingPathComponent("store").path,
      "--policy", file.path,
    ]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 1)
    #expect(message.contains(problem), "\(message)")
  }

  /// Socket activation as systemd does it, by systemd's own tool: systemd-socket-activate listens,
  /// the first connection starts keychaind with the listening socket as descriptor 3, and the
  /// agent serves that connection on it; stopping the agent leaves the socket to systemd.
  @Test func systemdSocketActivationStartsTheAgentOnTheSocketSystemdMade() throws {
    let folder = URL(fileURLWithPath: "/tmp/kca-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: folder) }
    let socket = folder.appendingPathComponent("agent.sock").path
    let policy = folder.appendingPathComponent("agent-policy")
    try Data(RunningAgent.defaultPolicy.utf8).write(to: policy)
    let log = folder.appendingPathComponent("agent.log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let activator = Process()
    activator.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
    activator.arguments = [
      "-l", socket, RunningAgent.executable.path, "--store", folder.appendingPathComponent("store").path,
      "--policy", policy.path,
    ]
    activator.standardError = try FileHandle(forWritingTo: log)
    try activator.run()
    defer {
      if activator.isRunning {
        activator.terminate()
        activator.waitUntilExit()
      }
    }
    let deadline = Date().addingTimeInterval(30)
    while !FileManager.default.fileExists(atPath: socket) && Date() < deadline { usleep(20_000) }
    // The first connection starts the agent; it answers once it has opened the store.
    let store = KeychainStore(
      socketPath: socket, agent: try AgentClient(socketPath: socket, backend: try SecurityBackends.required()))
    withKeychainContext(store: store, accessGroups: ["g"]) {
      #expect(Self.add("activated") == errSecSuccess)
      #expect(Self.read("activated").1 == Data("secret of activated".utf8))
    }
    let written = try String(contentsOf: log, encoding: .utf8)
    #expect(written.contains("Execing") && written.contains("activated=true"), "\(written)")
    activator.terminate()
    activator.waitUntilExit()
    #expect(FileManager.default.fileExists(atPath: socket), "the socket is systemd's, not the agent's to remove")
  }

  @Test func installUnitsWritesSystemdUserUnitsForThisExecutable() throws {
    let folder = URL(fileURLWithPath: "/tmp/kca-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: folder) }
    let process = Process()
    process.executableURL = RunningAgent.executable
    process.arguments = ["--install-units", "--unit-directory", folder.path]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let socketUnit = try String(contentsOf: folder.appendingPathComponent("keychaind.socket"), encoding: .utf8)
    let serviceUnit = try String(contentsOf: folder.appendingPathComponent("keychaind.service"), encoding: .utf8)
    #expect(socketUnit.contains("ListenStream=%t/keychain-bridge/agent.sock"))
    #expect(socketUnit.contains("SocketMode=0600") && socketUnit.contains("DirectoryMode=0700"))
    #expect(serviceUnit.contains("ExecStart=\"\(RunningAgent.executable.resolvingSymlinksInPath().path)\"\n"))
    #expect(serviceUnit.contains("LimitCORE=0"))
  }

  /// A passphrase store the agent serves locks itself after the idle timeout; requests that use
  /// the store keep it open, and asking for its state (a program may poll it every second) does
  /// not (issue 49, case 9: such pings kept a 4 s timeout from locking for 20 s); a key-file store
  /// has no timeout (its lock would protect nothing its key file does not give back).
  @Test func anIdlePassphraseStoreLocksItselfAndRequestsKeepItOpen() throws {
    let agent = try RunningAgent(passphrase: "idle", arguments: ["--idle-timeout", "2"])
    defer { agent.stop() }
    let store = try Self.client(agent)
    #expect(store.idleLockTimeout == 2)
    let search: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
    for _ in 0..<6 {
      usleep(500_000)
      withKeychainContext(store: store, accessGroups: ["g"]) { _ = SecItemCopyMatching(search as CFDictionary, nil) }
      #expect(!store.isLocked, "a search every half second keeps the store open")
    }
    // Only state pings from now on: they must not hold the lock off.
    let pingsUntil = Date().addingTimeInterval(4)
    while Date() < pingsUntil && !store.isLocked { usleep(250_000) }
    #expect(store.isLocked)
    #expect(agent.log.contains("locked the store after an idle period"))
    #expect(store.unlock(passphrase: "idle") == errSecSuccess)
    let keyFile = try RunningAgent(arguments: ["--idle-timeout", "2"])
    defer { keyFile.stop() }
    #expect(try Self.client(keyFile).idleLockTimeout == nil)
  }

  @Test func theAgentHoldsItsKeysInLockedMemoryLeftOutOfCoreDumps() throws {
    let agent = try RunningAgent(passphrase: "locked memory")
    defer { agent.stop() }
    let pid = agent.process.processIdentifier
    #expect(agent.log.contains("Key memory: 64 KiB secure heap, locked and excluded from core dumps"))
    // /proc/PID/status is readable whatever the process's dumpable flag: the kernel counts the
    // locked pages there.
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let lockedKilobytes = status.split(separator: "\n").first { $0.hasPrefix("VmLck:") }
      .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
    #expect((lockedKilobytes ?? 0) >= 64, "VmLck of keychaind: \(lockedKilobytes.map(String.init) ?? "missing")")
    // smaps names each mapping's flags (lo: locked, dd: not dumped); a non-dumpable process's is
    // readable by root, as CI's tests run, and by no one else of its user.
    // Read to the end: /proc's files report a size of 0, and a read of that size stops short.
    guard let mapsData = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/smaps")).readToEnd() else {
      #expect(getuid() != 0, "root could not read keychaind's smaps")
      return
    }
    let maps = String(decoding: mapsData, as: UTF8.self)
    let heap = maps.components(separatedBy: "\nVmFlags:").dropFirst().contains { flags in
      let names = flags.prefix { $0 != "\n" }.split(separator: " ")
      return names.contains("lo") && names.contains("dd")
    }
    #expect(
      heap, "no mapping of keychaind is both locked (lo) and left out of dumps (dd) in \(maps.count) bytes of smaps")
  }

  @Test func startingOnDemandNeverRunsAKeychaindFromARelativeSearchFolder() throws {
    let folder = URL(fileURLWithPath: "/tmp/kcx-\(UUID().uuidString.prefix(8))", isDirectory: true)
    let empty = folder.appendingPathComponent("empty", isDirectory: true)
    let planted = folder.appendingPathComponent("planted", isDirectory: true)
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let keychaind = planted.appendingPathComponent("keychaind")
    #expect(FileManager.default.createFile(atPath: keychaind.path, contents: Data("#!/bin/sh\n".utf8)))
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: keychaind.path)
    // The planted folder, named relative to the working directory, as "." or "bin" in PATH would.
    let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
    let relative = String(repeating: "../", count: depth) + planted.path.dropFirst()
    #expect(AgentLauncher.executable(beside: empty, searchPath: relative) == nil)
    #expect(AgentLauncher.executable(beside: empty, searchPath: "\(relative):\(planted.path)") == keychaind.path)
    #expect(AgentLauncher.executable(beside: planted, searchPath: "") == keychaind.path)
  }

  @Test func theAgentRefusesASocketFolderOthersMayEnter() throws {
    let folder = URL(fileURLWithPath: "/tmp/kca-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
    defer { try? FileManager.default.removeItem(at: folder) }
    let process = Process()
    process.executableURL = RunningAgent.executable
    process.arguments = [
      "--socket", folder.appendingPathComponent("s").path, "--store", folder.appendingPathComponent("store").path,
    ]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    process.waitUntilExit()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus == 1)
    #expect(message.contains("may be entered by other users"), "\(message)")
  }
}

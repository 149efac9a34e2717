import AgentProcess
import Foundation
import KeychainAgentWire
import KeychainCrypto
import KeychainStorageMemory
import Synchronization
import Testing

@testable import KeychainAgent

#if canImport(Glibc)
  import Glibc
#endif

/// OpenSSH's agent protocol as keychaind speaks it (issue 65): crafted and malformed messages fed
/// to the service without a socket, and the real agent's socket against announcements it must not
/// believe. ssh, ssh-add, ssh-keygen and sshd drive it in scripts/check-ordinary-user.sh.
@Suite("The ssh-agent's protocol")
struct SSHAgentTests {
  static let caller = SSHAgentCaller(executable: "/usr/bin/ssh", parent: "/usr/bin/git")

  static func service() throws -> SSHAgentService {
    SSHAgentService(agent: try AgentServices.make(over: InMemoryItemStorage()))
  }

  static func message(_ type: UInt8, _ build: (inout SSHWriter) -> Void = { _ in }) -> [UInt8] {
    var writer = SSHWriter()
    writer.byte(type)
    build(&writer)
    return writer.bytes
  }

  /// An Ed25519 key ssh-keygen made, in the agent protocol's form (type, fields, comment), read
  /// from its unencrypted openssh-key-v1 file.
  static func ed25519Key(comment: String) throws -> (added: [UInt8], publicBlob: [UInt8]) {
    try key(["-t", "ed25519"], comment: comment)
  }

  /// A key ssh-keygen made with `options`, as `ed25519Key` reads it.
  static func key(_ options: [String], comment: String) throws -> (added: [UInt8], publicBlob: [UInt8]) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-ssh-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("key").path
    let keygen = Process()
    keygen.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-keygen")
    keygen.arguments = ["-q"] + options + ["-N", "", "-C", comment, "-f", path]
    try keygen.run()
    keygen.waitUntilExit()
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let base64 = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    let file = try #require(Data(base64Encoded: base64)).map { $0 }
    let magic = Array("openssh-key-v1\0".utf8)
    #expect(Array(file.prefix(magic.count)) == magic)
    var reader = SSHReader(Array(file.dropFirst(magic.count)))
    #expect(try reader.text() == "none")  // cipher
    _ = try reader.text()  // kdf
    _ = try reader.string()  // kdf options
    #expect(try reader.uint32() == 1)
    let publicBlob = try reader.string()
    var section = SSHReader(try reader.string())
    #expect(try section.uint32() == (try section.uint32()))  // the check integers
    let start = section.position
    _ = try SSHAgentKey(reading: &section, checking: false)
    _ = try section.string()  // comment
    return (section.read(since: start), publicBlob)
  }

  @Test("Malformed, unknown and over-long messages are failures, never a crash")
  func malformedMessagesFail() throws {
    let service = try Self.service()
    let failure: [UInt8] = [SSHAgentMessage.failure]
    #expect(service.answer([], from: Self.caller) == failure)
    #expect(service.answer([200], from: Self.caller) == failure)
    // A string that announces more than the message holds.
    #expect(service.answer([13, 0xFF, 0xFF, 0xFF, 0xF0, 1, 2], from: Self.caller) == failure)
    // An add of a type this agent does not hold, an Ed25519 key whose halves do not match, a
    // negative mpint.
    #expect(
      service.answer(
        Self.message(17) {
          $0.string("ssh-dss"); $0.string("x")
        }, from: Self.caller) == failure)
    let mismatched = Self.message(17) { writer in
      writer.string("ssh-ed25519")
      writer.string([UInt8](repeating: 1, count: 32))
      writer.string([UInt8](repeating: 2, count: 64))
      writer.string("bad")
    }
    #expect(service.answer(mismatched, from: Self.caller) == failure)
    let negative = Self.message(17) { writer in
      writer.string("ssh-rsa")
      writer.string([0x80, 1])
    }
    #expect(service.answer(negative, from: Self.caller) == failure)
    // Nothing was stored by any of them.
    #expect(service.answer([11], from: Self.caller) == [12, 0, 0, 0, 0])
  }

  @Test("An ECDSA key whose scalar is another key's is refused; one that belongs together signs")
  func mismatchedECDSAHalvesAreRefused() throws {
    let service = try Self.service()
    func fields(_ added: [UInt8]) throws -> (curve: String, point: [UInt8], scalar: [UInt8]) {
      var reader = SSHReader(added)
      _ = try reader.text()
      return (try reader.text(), try reader.string(), try reader.mpint())
    }
    let first = try Self.key(["-t", "ecdsa", "-b", "256"], comment: "first")
    let second = try fields(try Self.key(["-t", "ecdsa", "-b", "256"], comment: "second").added)
    let mixed = Self.message(17) { writer in
      writer.string("ecdsa-sha2-nistp256")
      writer.string(second.curve)
      writer.string((try? fields(first.added))?.point ?? [])
      writer.mpint(second.scalar)
      writer.string("mixed")
    }
    #expect(service.answer(mixed, from: Self.caller) == [SSHAgentMessage.failure])
    #expect(service.answer([17] + first.added, from: Self.caller) == [SSHAgentMessage.success])
    let sign = Self.message(13) { writer in
      writer.string(first.publicBlob)
      writer.string(Array("data".utf8))
      writer.uint32(0)
    }
    var signed = SSHReader(service.answer(sign, from: Self.caller))
    #expect(try signed.byte() == 14)
    var signature = SSHReader(try signed.string())
    #expect(try signature.text() == "ecdsa-sha2-nistp256")
  }

  @Test("A key is added, listed, signs with Ed25519, and is removed; a constraint it cannot enforce is refused")
  func aKeysLife() throws {
    let service = try Self.service()
    let (added, publicBlob) = try Self.ed25519Key(comment: "work key")
    #expect(service.answer([17] + added, from: Self.caller) == [SSHAgentMessage.success])
    var listed = SSHReader(service.answer([11], from: Self.caller))
    #expect(try listed.byte() == 12 && listed.uint32() == 1)
    #expect(try listed.string() == publicBlob && listed.text() == "work key" && listed.isAtEnd)
    let sign = Self.message(13) { writer in
      writer.string(publicBlob)
      writer.string(Array("data".utf8))
      writer.uint32(0)
    }
    var signed = SSHReader(service.answer(sign, from: Self.caller))
    #expect(try signed.byte() == 14)
    var signature = SSHReader(try signed.string())
    #expect(try signature.text() == "ssh-ed25519" && signature.string().count == 64)
    // restrict-destination (an extension constraint, 255) is refused rather than ignored.
    let restricted =
      [25] + added + [255] + Self.message(0) { $0.string("restrict-destination-v00@openssh.com") }.dropFirst()
    #expect(service.answer(restricted, from: Self.caller) == [SSHAgentMessage.failure])
    // Locked, nothing is listed or signed; a wrong passphrase does not unlock it.
    let lock = Self.message(22) { $0.string("words") }
    #expect(service.answer(lock, from: Self.caller) == [6])
    #expect(service.answer(lock, from: Self.caller) == [5])
    #expect(service.answer([11], from: Self.caller) == [12, 0, 0, 0, 0])
    #expect(service.answer(sign, from: Self.caller) == [5])
    #expect(service.answer(Self.message(23) { $0.string("other") }, from: Self.caller) == [5])
    #expect(service.answer(Self.message(23) { $0.string("words") }, from: Self.caller) == [6])
    let remove = Self.message(18) { $0.string(publicBlob) }
    #expect(service.answer(remove, from: Self.caller) == [6])
    #expect(service.answer(remove, from: Self.caller) == [5])
    #expect(service.answer([11], from: Self.caller) == [12, 0, 0, 0, 0])
  }

  @Test("The agent's socket refuses a 64 MiB announcement by closing it, and serves the next connection")
  func overLongAnnouncementsCloseTheConnection() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kb-sshsock-\(UUID().uuidString.prefix(8))")
    let socket = "/tmp/kbs-\(UUID().uuidString.prefix(8))/agent.sock"
    defer {
      try? FileManager.default.removeItem(at: folder)
      try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: socket).deletingLastPathComponent().path)
    }
    let agent = try RunningAgent(arguments: ["--ssh-agent", socket])
    defer { agent.stop() }
    while !FileManager.default.fileExists(atPath: socket) { usleep(20_000) }
    func exchange(_ bytes: [UInt8]) throws -> [UInt8] {
      let descriptor = try FrameSocket.connect(to: socket)
      defer { close(descriptor) }
      _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      var answer: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = recv(descriptor, &buffer, buffer.count, 0)
        if count <= 0 { break }
        answer += buffer.prefix(count)
        if answer.count >= 4, answer.count >= 4 + Int(answer.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) {
          break
        }
      }
      return answer
    }
    // 64 MiB announced: closed without an answer, nothing allocated for it.
    #expect(try exchange([0x04, 0, 0, 0, 11]) == [])
    #expect(try exchange([0, 0, 0, 0]) == [])
    // The next connection is served.
    #expect(try exchange([0, 0, 0, 1, 11]) == [0, 0, 0, 5, 12, 0, 0, 0, 0])
  }

  @Test("A policy that names the keys' group confines them to the programs it grants them")
  func thePolicyConfinesTheKeys() throws {
    let unconfined = AgentPolicy()
    #expect(SSHAgentService.mayUseKeys(.ownGroup(of: "/usr/bin/ssh-keygen"), policy: unconfined))
    let confined = AgentPolicy(rules: try AgentPolicy.parse("/usr/bin/ssh = org.openssh.agent\n", path: "policy"))
    #expect(!SSHAgentService.mayUseKeys(.ownGroup(of: "/usr/bin/ssh-keygen"), policy: confined))
    #expect(SSHAgentService.mayUseKeys(AccessGrant(groups: ["org.openssh.agent"], namedByRule: true), policy: confined))
    #expect(SSHAgentService.mayUseKeys(AccessGrant(groups: nil, namedByRule: true), policy: confined))
    let service = try Self.service()
    let (added, publicBlob) = try Self.ed25519Key(comment: "confined")
    #expect(service.answer([17] + added, from: Self.caller) == [SSHAgentMessage.success])
    let kept = SSHAgentCaller(executable: "/usr/bin/ssh-keygen", parent: nil, mayUseKeys: false)
    #expect(service.answer([11], from: kept) == [12, 0, 0, 0, 0])
    let sign = Self.message(13) { writer in
      writer.string(publicBlob)
      writer.string(Array("data".utf8))
      writer.uint32(0)
    }
    #expect(service.answer(sign, from: kept) == [SSHAgentMessage.failure])
    #expect(service.answer([19], from: kept) == [SSHAgentMessage.failure])
    #expect(service.answer(sign, from: Self.caller).first == 14)
  }
}

/// The ssh-agent's socket under systemd (issue 65): `--install-units --ssh-agent` writes its socket
/// unit, and an agent started by socket activation with both sockets serves ssh on the second.
@Suite("The ssh-agent's systemd socket")
struct SSHAgentActivationTests {
  @Test("--install-units --ssh-agent writes keychaind-ssh.socket for the same service")
  func installUnitsWritesTheSSHSocketUnit() throws {
    let folder = URL(fileURLWithPath: "/tmp/kbu-\(UUID().uuidString.prefix(8))")
    defer { try? FileManager.default.removeItem(at: folder) }
    let process = Process()
    process.executableURL = RunningAgent.executable
    process.arguments = ["--install-units", "--ssh-agent", "--unit-directory", folder.path]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let socket = try String(contentsOf: folder.appendingPathComponent("keychaind-ssh.socket"), encoding: .utf8)
    #expect(socket.contains("ListenStream=%t/keychain-bridge/ssh.sock") && socket.contains("Service=keychaind.service"))
    #expect(socket.contains("FileDescriptorName=ssh") && socket.contains("SocketMode=0600"))
    let agentSocket = try String(contentsOf: folder.appendingPathComponent("keychaind.socket"), encoding: .utf8)
    #expect(agentSocket.contains("FileDescriptorName=agent"))
    let service = try String(contentsOf: folder.appendingPathComponent("keychaind.service"), encoding: .utf8)
    #expect(service.contains("Requires=keychaind.socket keychaind-ssh.socket"))
  }

  @Test(
    "Socket activation with both sockets: the first ssh client starts the agent, which serves ssh on systemd's socket")
  func activationServesTheSSHSocket() throws {
    let folder = URL(fileURLWithPath: "/tmp/kbu-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: folder) }
    let agentSocket = folder.appendingPathComponent("agent.sock").path
    let sshSocket = folder.appendingPathComponent("ssh.sock").path
    let policy = folder.appendingPathComponent("agent-policy")
    try Data(RunningAgent.defaultPolicy.utf8).write(to: policy)
    let log = folder.appendingPathComponent("agent.log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let activator = Process()
    activator.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
    activator.arguments = [
      "-l", agentSocket, "-l", sshSocket, "--fdname=agent:ssh", RunningAgent.executable.path, "--store",
      folder.appendingPathComponent("store").path, "--policy", policy.path,
    ]
    activator.standardError = try FileHandle(forWritingTo: log)
    try activator.run()
    defer {
      if activator.isRunning {
        activator.terminate()
        activator.waitUntilExit()
      }
    }
    while !FileManager.default.fileExists(atPath: sshSocket) {
      guard activator.isRunning else { break }
      usleep(20_000)
    }
    // The first connection to the ssh socket starts the agent, which answers an identities request.
    let descriptor = try FrameSocket.connect(to: sshSocket)
    defer { close(descriptor) }
    let request: [UInt8] = [0, 0, 0, 1, 11]
    _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var answer = [UInt8](repeating: 0, count: 9)
    var filled = 0
    while filled < answer.count {
      let count = answer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + filled, $0.count - filled, 0) }
      guard count > 0 else { break }
      filled += count
    }
    #expect(answer == [0, 0, 0, 5, 12, 0, 0, 0, 0], "\(answer)")
    let written = try String(contentsOf: log, encoding: .utf8)
    #expect(written.contains("activated=true") && written.contains("serving the ssh-agent"), "\(written)")
    activator.terminate()
    activator.waitUntilExit()
    #expect(FileManager.default.fileExists(atPath: sshSocket), "the socket is systemd's, not the agent's to remove")
  }
}

extension SSHAgentService {
  /// The answer to `message`, waited for: a test's thread may wait for a prompt's answer, the
  /// agent's threads never do.
  func answer(_ message: [UInt8], from caller: SSHAgentCaller) -> [UInt8] {
    let later = Mutex<[UInt8]?>(nil)
    let answered = DispatchSemaphore(value: 0)
    if let now = answer(
      message, from: caller,
      later: { bytes in
        later.withLock { $0 = bytes }
        answered.signal()
      })
    {
      return now
    }
    answered.wait()
    return later.withLock { $0 } ?? []
  }
}

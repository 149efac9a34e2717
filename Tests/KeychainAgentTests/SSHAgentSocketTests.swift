import AgentProcess
import Foundation
import KeychainAgentWire
import KeychainCrypto
import Testing

@testable import KeychainAgent

#if canImport(Glibc)
  import Glibc
#endif

/// The ssh-agent's socket served by the agent's event loop (issue 64): keychaind as a process, its
/// askpass helper a script that waits until the test lets it answer, and the threads counted in
/// /proc. Before the loop, each connection had a thread of its own and a confirmation waited on it.
@Suite("The ssh-agent's socket holds no thread per connection or per prompt")
struct SSHAgentSocketTests {
  /// A connection to the ssh-agent socket at `path` whose reads give up after 60 s, so that an
  /// agent that never answers fails the test instead of hanging it.
  static func connect(to path: String) throws -> Int32 {
    let descriptor = try FrameSocket.connect(to: path)
    var patience = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
    return descriptor
  }

  static func send(_ message: [UInt8], on descriptor: Int32) throws {
    try FrameSocket.sendSSHAgentMessage(message, on: descriptor)
  }

  /// The next message's body; empty when the connection ended or the read gave up.
  static func receive(on descriptor: Int32) -> [UInt8] {
    func fill(_ count: Int) -> [UInt8]? {
      var bytes = [UInt8](repeating: 0, count: count)
      var filled = 0
      while filled < count {
        let result = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + filled, count - filled, 0) }
        if result < 0 && errno == EINTR { continue }
        guard result > 0 else { return nil }
        filled += result
      }
      return bytes
    }
    guard let header = fill(4) else { return [] }
    return fill(Int(header.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })) ?? []
  }

  static func threads(of pid: Int32) throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count
  }

  /// A new folder of this user's alone (0700), short enough for a socket's path; the caller
  /// removes it.
  static func privateFolder() throws -> URL {
    let folder = URL(fileURLWithPath: "/tmp/kbq-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    return folder
  }

  /// Waits (bounded, not timed: the condition decides) until `condition` holds.
  static func wait(_ what: String, until condition: () -> Bool) {
    for _ in 0..<6000 where !condition() { usleep(10_000) }
    #expect(condition(), "waited a minute for \(what)")
  }

  @Test("Confirmations waiting for the user hold no thread each, and another client is served meanwhile")
  func confirmationsHoldNoThread() throws {
    let folder = try Self.privateFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    // The askpass helper notes each question, then waits until the test creates `open`: allowed.
    let asked = folder.appendingPathComponent("asked").path
    let gate = folder.appendingPathComponent("open").path
    let askpass = folder.appendingPathComponent("askpass")
    try Data(
      "#!/bin/sh\necho \"$1\" >> '\(asked)'\nwhile [ ! -e '\(gate)' ]; do sleep 0.05; done\nexit 0\n".utf8
    ).write(to: askpass)
    chmod(askpass.path, 0o700)
    let sshSocket = folder.appendingPathComponent("ssh.sock").path
    let agent = try RunningAgent(
      arguments: ["--ssh-agent", sshSocket], environment: ["KEYCHAIN_BRIDGE_ASKPASS": askpass.path])
    defer { agent.stop() }
    Self.wait("the ssh-agent's socket") { FileManager.default.fileExists(atPath: sshSocket) }

    // A key added with ssh-add -c: each signature asks.
    let (added, publicBlob) = try SSHAgentTests.ed25519Key(comment: "confirmed")
    let adder = try Self.connect(to: sshSocket)
    defer { close(adder) }
    try Self.send([SSHAgentMessage.addConstrainedIdentity] + added + [2], on: adder)
    #expect(Self.receive(on: adder) == [SSHAgentMessage.success])
    let before = try Self.threads(of: agent.process.processIdentifier)

    let signers = try (0..<(SocketEventLoop.workerThreads + 4)).map { _ in try Self.connect(to: sshSocket) }
    defer { for signer in signers { close(signer) } }
    let sign = SSHAgentTests.message(SSHAgentMessage.signRequest) { writer in
      writer.string(publicBlob)
      writer.string(Array("the data".utf8))
      writer.uint32(0)
    }
    for signer in signers { try Self.send(sign, on: signer) }
    // One more that leaves while its question waits: its answer finds the connection gone.
    let leaver = try Self.connect(to: sshSocket)
    try Self.send(sign, on: leaver)
    func questions() -> Int {
      ((try? String(contentsOfFile: asked, encoding: .utf8)) ?? "").split(separator: "\n").count
    }
    Self.wait("every signature's question") { questions() == signers.count + 1 }
    close(leaver)
    // A thread per waiting confirmation would be one per signer.
    let waiting = try Self.threads(of: agent.process.processIdentifier)
    #expect(waiting - before < 4, "threads: \(before) before, \(waiting) with \(signers.count) confirmations waiting")

    // Another client is served while they wait.
    let lister = try Self.connect(to: sshSocket)
    defer { close(lister) }
    try Self.send([SSHAgentMessage.requestIdentities], on: lister)
    #expect(Self.receive(on: lister).prefix(5) == [SSHAgentMessage.identitiesAnswer, 0, 0, 0, 1])

    // Allowed: every signer gets its signature.
    _ = FileManager.default.createFile(atPath: gate, contents: nil)
    for signer in signers { #expect(Self.receive(on: signer).first == SSHAgentMessage.signResponse) }
    #expect(questions() == signers.count + 1)
    // The agent still serves, the leaver's answer dropped.
    try Self.send([SSHAgentMessage.requestIdentities], on: lister)
    #expect(Self.receive(on: lister).prefix(5) == [SSHAgentMessage.identitiesAnswer, 0, 0, 0, 1])
  }

  @Test("A hundred connections to the ssh-agent cost no thread each, and each is answered")
  func connectionsCostNoThreadEach() throws {
    let folder = try Self.privateFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let sshSocket = folder.appendingPathComponent("ssh.sock").path
    let agent = try RunningAgent(arguments: ["--ssh-agent", sshSocket])
    defer { agent.stop() }
    Self.wait("the ssh-agent's socket") { FileManager.default.fileExists(atPath: sshSocket) }
    let first = try Self.connect(to: sshSocket)
    try Self.send([SSHAgentMessage.requestIdentities], on: first)
    #expect(Self.receive(on: first) == [SSHAgentMessage.identitiesAnswer, 0, 0, 0, 0])
    let before = try Self.threads(of: agent.process.processIdentifier)
    var clients = [first]
    defer { for client in clients { close(client) } }
    for _ in 1..<100 { clients.append(try Self.connect(to: sshSocket)) }
    for client in clients { try Self.send([SSHAgentMessage.requestIdentities], on: client) }
    for client in clients {
      #expect(Self.receive(on: client) == [SSHAgentMessage.identitiesAnswer, 0, 0, 0, 0])
    }
    let after = try Self.threads(of: agent.process.processIdentifier)
    #expect(after - before < 4, "threads: \(before) before, \(after) with 100 connections")
  }
}

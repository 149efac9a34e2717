import Foundation
import KeychainAgentWire
import KeychainCrypto
import Security
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The ssh-agent's socket (`keychaind --ssh-agent PATH`, the path `SSH_AUTH_SOCK` names): a Unix
/// socket 0600 in a folder of the user's alone, served by a thread per connection (ssh keeps its
/// connection for a session, and a confirmation holds its connection's thread only), at most
/// `maximumConnections` at once. Each connection is of this user (SO_PEERCRED) and its program is
/// identified as the agent's socket identifies one; a message is a 32-bit big-endian length and at
/// most 256 KiB, bounded before anything is allocated for it.
package final class SSHAgentServer: Sendable {
  package static let maximumConnections = 64

  package let socketPath: String
  private let listener: Int32
  private let service: SSHAgentService
  private let agent: AgentService
  private let open = Atomic<Int>(0)
  /// Whether systemd made the socket (it then stays when the agent stops).
  private let activated: Bool

  /// Listens at `socketPath`, replacing a socket no program serves any more; fails with a sentence
  /// when the folder is not the user's alone or another agent serves the path.
  package init(socketPath: String, agent: AgentService, service: SSHAgentService) throws(AgentStartError) {
    do {
      try SocketFolder.prepare(for: socketPath)
    } catch {
      throw AgentStartError("the ssh-agent socket: \(error.description)")
    }
    try AgentSocketServer.removeStaleSocket(at: socketPath)
    do {
      listener = try FrameSocket.listen(at: socketPath)
    } catch {
      throw AgentStartError("cannot listen at \(socketPath): \(error.description)")
    }
    self.socketPath = socketPath
    activated = false
    self.agent = agent
    self.service = service
  }

  /// Serves the listening socket systemd passed (`keychaind-ssh.socket`), after checking that it
  /// is one; the socket stays systemd's when the agent stops.
  package init(activatedListener: Int32, agent: AgentService, service: SSHAgentService) throws(AgentStartError) {
    do {
      socketPath = try FrameSocket.listeningPath(of: activatedListener)
      try SocketFolder.prepare(for: socketPath)
    } catch let error as FrameSocketError {
      throw AgentStartError("the ssh-agent socket systemd passed: \(error.description)")
    } catch {
      throw AgentStartError("the ssh-agent socket systemd passed: \(error)")
    }
    listener = activatedListener
    activated = true
    self.agent = agent
    self.service = service
  }

  /// Accepts connections until the process ends (on a thread of its own).
  package func run() {
    agent.logger.info("serving the ssh-agent", metadata: ["socket": .string(socketPath)])
    while true {
      let descriptor: Int32
      let peer: PeerCredentials
      do {
        (descriptor, peer) = try FrameSocket.accept(on: listener)
      } catch {
        agent.logger.error("the ssh-agent socket stopped accepting: \(error.description)")
        return
      }
      guard peer.uid == getuid(), open.add(1, ordering: .relaxed).newValue <= Self.maximumConnections,
        let acceptedAt = ProcessInspection.ticksSinceBoot(),
        let caller = agent.identify(pid: peer.pid, acceptedAt: acceptedAt)
      else {
        if peer.uid != getuid() { agent.count("an ssh-agent client of another user") }
        close(descriptor)
        if peer.uid == getuid() { open.subtract(1, ordering: .relaxed) }
        continue
      }
      let session = SSHAgentCaller(
        executable: caller.executable, parent: ProcessInspection.parentExecutable(of: peer.pid),
        mayUseGroup: { [grant = caller.grant, policy = agent.policy] group in
          SSHAgentService.mayUseKeys(of: group, grant, policy: policy)
        })
      let thread = Thread { [self] in
        serve(descriptor, session, caller)
        close(descriptor)
        open.subtract(1, ordering: .relaxed)
      }
      thread.name = "keychaind ssh-agent connection"
      thread.start()
    }
  }

  /// Removes the socket it made (SIGTERM); systemd's stays.
  package func stop() { if !activated { unlink(socketPath) } }

  private func serve(_ descriptor: Int32, _ session: SSHAgentCaller, _ caller: AgentCaller) {
    while let message = read(descriptor) {
      // A process that ran another program since it connected is not the program identified.
      guard agent.isStillRunning(caller) else { return }
      var answer = service.answer(message, from: session)
      var framed: [UInt8] = []
      let length = UInt32(answer.count)
      framed += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
      framed += answer
      Secrets.wipe(&answer)
      defer { Secrets.wipe(&framed) }
      guard write(framed, to: descriptor) else { return }
    }
  }

  /// The next message, or nil at the end of the connection or for one longer than the bound.
  private func read(_ descriptor: Int32) -> [UInt8]? {
    var header = [UInt8](repeating: 0, count: 4)
    guard fill(&header, from: descriptor) else { return nil }
    let length = Int(header.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    guard length > 0, length <= SSHAgentService.maximumMessageLength else {
      agent.count("an ssh-agent message of more than 256 KiB, or empty")
      return nil
    }
    var body = [UInt8](repeating: 0, count: length)
    guard fill(&body, from: descriptor) else {
      Secrets.wipe(&body)
      return nil
    }
    return body
  }

  private func fill(_ buffer: inout [UInt8], from descriptor: Int32) -> Bool {
    var filled = 0
    while filled < buffer.count {
      let count = buffer.count
      let result = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + filled, count - filled, 0) }
      if result < 0 && errno == EINTR { continue }
      guard result > 0 else { return false }
      filled += result
    }
    return true
  }

  private func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    var sent = 0
    while sent < bytes.count {
      let result = bytes.withUnsafeBytes {
        send(descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
      }
      if result < 0 && errno == EINTR { continue }
      guard result > 0 else { return false }
      sent += result
    }
    return true
  }
}

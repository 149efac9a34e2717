import Foundation
import KeychainAgentWire
import Security

#if canImport(Glibc)
  import Glibc
#endif

/// The ssh-agent's socket (`keychaind --ssh-agent PATH`, the path `SSH_AUTH_SOCK` names): a Unix
/// socket 0600 in a folder of the user's alone, served by the agent's event loop beside its own
/// socket (`AgentSocketServer`), so a connection costs no thread and a confirmation or an unlock
/// prompt holds none while the user answers. Each connection is of this user (SO_PEERCRED) and
/// its program is identified as the agent's socket identifies one; a message is a 32-bit
/// big-endian length and at most 256 KiB, bounded before anything is allocated for it.
///
/// Its connections are not closed for idleness: ssh keeps its connection for a session.
package final class SSHAgentSocket: SocketFrontEnd {
  package let socketPath: String
  let listener: Int32
  private let service: SSHAgentService
  private let agent: AgentService
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

  /// Removes the socket it made; systemd's stays.
  package func stop() { if !activated { unlink(socketPath) } }

  // MARK: SocketFrontEnd

  var closesIdleConnections: Bool { false }

  func makeAssembler() -> FrameAssembler {
    .sshAgentMessages(maximumLength: SSHAgentService.maximumMessageLength)
  }

  /// Identifies the caller as the agent's socket does, and names the program that started it
  /// (ssh's parent) for the confirmations.
  func accepted(_ connection: SocketConnection, loop: SocketEventLoop) {
    let peer = connection.peer
    guard let acceptedAt = ProcessInspection.ticksSinceBoot(),
      let caller = agent.identify(pid: peer.pid, acceptedAt: acceptedAt)
    else { return loop.end(connection, nil) }
    connection.caller = caller
    connection.sshCaller = SSHAgentCaller(
      executable: caller.executable, parent: ProcessInspection.parentExecutable(of: peer.pid),
      session: caller.session,
      mayUseGroup: { [grant = caller.grant, policy = agent.policy] group in
        SSHAgentService.mayUseKeys(of: group, grant, policy: policy)
      })
    loop.release(connection, adding: true)
  }

  /// Answers a whole message; one that waits for the user answers from the prompt's completion,
  /// which hands the connection back to the loop.
  func readable(_ connection: SocketConnection, loop: SocketEventLoop) {
    let message: FrameBytes
    switch loop.read(connection, sender: nil) {
    case .frame(let body)?: message = FrameBytes(body)
    case .waiting?: return loop.release(connection)
    case .closed?, nil: return
    }
    // Wiped (an add carries a private key, a lock its passphrase) and given back to the budget.
    defer {
      loop.frameBudget.release(message.bytes.count)
      message.wipe()
    }
    guard let caller = connection.caller, let sshCaller = connection.sshCaller else {
      return loop.end(connection, "an ssh-agent message before its caller was known")
    }
    guard !message.bytes.isEmpty else { return loop.end(connection, "an empty ssh-agent message") }
    // A process that ran another program since it connected is not the program identified.
    guard agent.isStillRunning(caller) else {
      return loop.end(connection, "the process that connected now runs another program")
    }
    loop.touch(connection)
    let answer = service.answer(message.bytes, from: sshCaller) { [self] later in
      guard send(later, on: connection, loop: loop) else { return }
      loop.release(connection)
    }
    guard let answer else { return }
    guard send(answer, on: connection, loop: loop) else { return }
    loop.release(connection)
  }

  /// Sends an answer as an ssh-agent message; false when the connection ended (it is closed).
  private func send(_ answer: [UInt8], on connection: SocketConnection, loop: SocketEventLoop) -> Bool {
    loop.send(on: connection) { descriptor throws(FrameSocketError) in
      try FrameSocket.sendSSHAgentMessage(answer, on: descriptor)
    }
  }
}

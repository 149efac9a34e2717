import Foundation
import KeychainAgentWire
import Security

#if canImport(Glibc)
  import Glibc
#endif

/// The agent's sockets: its own (`KEYCHAIN_BRIDGE_AGENT`, `AgentSocketFrontEnd`) and, when given,
/// the ssh-agent's (`SSHAgentSocket`), both served by one event loop (`SocketEventLoop`): who may
/// connect, bounds on connections and memory, and no thread per connection or per prompt.
package final class AgentSocketServer: Sendable {
  /// The socket's path.
  package let socketPath: String
  /// The service whose callers the socket serves.
  package let service: AgentService
  /// The ssh-agent's socket, served by the same loop.
  package let sshAgent: SSHAgentSocket?
  private let listener: Int32
  /// Whether the socket was handed over by systemd, which owns its file.
  private let activated: Bool
  private let loop: SocketEventLoop

  /// How many connections are open, on either socket.
  package var openConnections: Int { loop.openConnections }

  /// Listens at `socketPath` for `service`'s clients, and serves `sshAgent`'s socket too; the
  /// socket's folder must be the user's alone.
  package init(socketPath: String, service: AgentService, sshAgent: SSHAgentSocket? = nil) throws(AgentStartError) {
    self.socketPath = socketPath
    self.service = service
    self.sshAgent = sshAgent
    try Self.prepareFolder(of: socketPath)
    try Self.removeStaleSocket(at: socketPath)
    do {
      listener = try FrameSocket.listen(at: socketPath)
    } catch {
      throw AgentStartError("cannot listen at \(socketPath): \(error)")
    }
    activated = false
    loop = try Self.makeLoop(listener, service, sshAgent)
  }

  /// Serves on `listener`, a socket systemd created and handed over (socket activation); its
  /// folder must be the user's alone all the same (the units set DirectoryMode=0700).
  package init(activatedListener listener: Int32, service: AgentService, sshAgent: SSHAgentSocket? = nil)
    throws(AgentStartError)
  {
    do {
      socketPath = try FrameSocket.listeningPath(of: listener)
    } catch {
      throw AgentStartError(
        "the socket systemd passed (descriptor \(listener)) is not a Unix listening socket: \(error)")
    }
    try Self.prepareFolder(of: socketPath)
    self.listener = listener
    self.service = service
    self.sshAgent = sshAgent
    activated = true
    loop = try Self.makeLoop(listener, service, sshAgent)
  }

  private static func makeLoop(_ listener: Int32, _ service: AgentService, _ sshAgent: SSHAgentSocket?)
    throws(AgentStartError) -> SocketEventLoop
  {
    var listeners: [Int32: any SocketFrontEnd] = [listener: AgentSocketFrontEnd(service: service)]
    if let sshAgent { listeners[sshAgent.listener] = sshAgent }
    return try SocketEventLoop(service: service, listeners: listeners)
  }

  /// The socket's folder: created 0700 when missing, refused when another user owns it or others
  /// may enter it (a socket there could be replaced by someone else's).
  static func prepareFolder(of socketPath: String) throws(AgentStartError) {
    do throws(SocketFolderError) {
      try SocketFolder.prepare(for: socketPath)
    } catch {
      throw AgentStartError(error.description)
    }
  }

  /// A socket left by an agent that is gone is removed; one an agent still serves, or any other
  /// file, is not.
  static func removeStaleSocket(at socketPath: String) throws(AgentStartError) {
    var status = stat()
    guard lstat(socketPath, &status) == 0 else { return }
    guard status.st_mode & S_IFMT == S_IFSOCK else {
      throw AgentStartError("\(socketPath) exists and is not a socket")
    }
    if let descriptor = try? FrameSocket.connect(to: socketPath) {
      close(descriptor)
      throw AgentStartError("an agent already serves \(socketPath)")
    }
    unlink(socketPath)
  }

  /// How long a thread polls for the client's next request before it arms the connection again
  /// and waits on the set: a program making calls in a row sends the next within a few tens of
  /// µs, and a sleeping thread costs a wake-up from another CPU (FrameSocket.receive). An idle
  /// connection costs this much CPU time once per answer, and on a busy machine the connection
  /// stops polling (AdaptivePoll).
  package static let pollMicroseconds = 100

  /// Accepts and serves connections until the process ends.
  package func run() -> Never {
    serve()
    exit(0)
  }

  /// Asks `serve` to return: within a second, every connection is closed and the threads end.
  /// The store keeps its keys (`stop` drops them).
  package func stopServing() { loop.stopServing() }

  /// Accepts and serves connections on both sockets until `stopServing`, on this thread and
  /// `SocketEventLoop.workerThreads - 1` others; then the sockets this server made are removed.
  package func serve() {
    service.logger.info(
      "serving", metadata: ["socket": .string(socketPath), "activated": .stringConvertible(activated)])
    if let sshAgent {
      service.logger.info("serving the ssh-agent", metadata: ["socket": .string(sshAgent.socketPath)])
    }
    loop.serve()
    if !activated {
      close(listener)
      unlink(socketPath)
    }
    sshAgent?.stop()
  }

  /// Stops serving: the sockets go, and the store drops its keys.
  package func stop() {
    // An activated socket is systemd's: it stays, so the next connection starts the agent again.
    if !activated { unlink(socketPath) }
    sshAgent?.stop()
    // Every key, not only the WhenUnlocked ones a lock drops: the process exits next.
    service.stop()
    service.logger.info("stopped", metadata: ["socket": .string(socketPath)])
  }
}

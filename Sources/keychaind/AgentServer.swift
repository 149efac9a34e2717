import Foundation
import KeychainAgentWire
import Logging
import Security
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The agent's socket: who may connect, and one thread per connection serving requests.
final class AgentServer: Sendable {
  let socketPath: String
  let storage: any ItemStorage
  /// Who asks the user to prove their presence (the store's prompt and failure count).
  let authenticator: any UserAuthenticating
  let policy: AgentPolicy
  let idleLock: IdleLock
  let logger: Logger
  private let listener: Int32
  /// Whether the socket was handed over by systemd, which owns its file.
  private let activated: Bool
  /// Why connections ended other than by their client closing them, by reason: the figures the
  /// fuzz test and an operator read (`closedConnections`).
  private let endings = Mutex<[String: Int]>([:])

  /// Listens at `socketPath` for `storage`'s clients; the socket's folder must be the user's alone.
  init(
    socketPath: String, storage: any ItemStorage, authenticator: any UserAuthenticating, policy: AgentPolicy,
    idleLock: IdleLock, logger: Logger
  ) throws(AgentStartError) {
    self.socketPath = socketPath
    self.storage = storage
    self.authenticator = authenticator
    self.policy = policy
    self.idleLock = idleLock
    self.logger = logger
    try Self.prepareFolder(of: socketPath)
    try Self.removeStaleSocket(at: socketPath)
    do {
      listener = try FrameSocket.listen(at: socketPath)
    } catch {
      throw AgentStartError("cannot listen at \(socketPath): \(error)")
    }
    activated = false
  }

  /// Serves on `listener`, a socket systemd created and handed over (socket activation); its
  /// folder must be the user's alone all the same (the units set DirectoryMode=0700).
  init(
    activatedListener listener: Int32, storage: any ItemStorage, authenticator: any UserAuthenticating,
    policy: AgentPolicy, idleLock: IdleLock, logger: Logger
  ) throws(AgentStartError) {
    do {
      socketPath = try FrameSocket.listeningPath(of: listener)
    } catch {
      throw AgentStartError(
        "the socket systemd passed (descriptor \(listener)) is not a Unix listening socket: \(error)")
    }
    try Self.prepareFolder(of: socketPath)
    self.listener = listener
    self.storage = storage
    self.authenticator = authenticator
    self.policy = policy
    self.idleLock = idleLock
    self.logger = logger
    activated = true
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

  /// Accepts connections until the process ends.
  func run() -> Never {
    logger.info("serving", metadata: ["socket": .string(socketPath), "activated": .stringConvertible(activated)])
    while true {
      let descriptor: Int32
      let peer: PeerCredentials
      do {
        (descriptor, peer) = try FrameSocket.accept(on: listener)
      } catch {
        logger.error("accept failed", metadata: ["reason": .string(error.description)])
        sleep(1)
        continue
      }
      // Another user's process is refused before it can send a byte: the agent is per user.
      guard peer.uid == getuid() else {
        count("another user (uid \(peer.uid))")
        logger.warning("refused a connection", metadata: ["uid": .stringConvertible(peer.uid)])
        close(descriptor)
        continue
      }
      // Who is calling decides the groups, as entitlements do: the executable behind the pid the
      // kernel reported, checked against the moment of the accept (PeerIdentity).
      guard let acceptedAt = PeerIdentity.ticksSinceBoot(),
        let executable = PeerIdentity.executable(of: peer.pid, acceptedAt: acceptedAt)
      else {
        count("an executable that cannot be known")
        logger.warning("refused a connection", metadata: ["pid": .stringConvertible(peer.pid)])
        close(descriptor)
        continue
      }
      let grant = AccessGrant(
        groups: policy.groups(for: executable) { PeerIdentity.sha256(of: peer.pid, acceptedAt: acceptedAt) })
      logger.debug(
        "connected",
        metadata: [
          "executable": .string(executable), "groups": .string(grant.groups?.joined(separator: ",") ?? "*"),
        ])
      let authentication = ConnectionAuthentication(authenticator: authenticator, executable: executable)
      let thread = Thread { [self] in serve(descriptor, peer: peer, grant: grant, authentication: authentication) }
      thread.name = "keychaind connection"
      thread.start()
    }
  }

  /// How long a connection's thread polls for the client's next request before it sleeps: a
  /// program making calls in a row sends the next within a few tens of µs, and a sleeping thread
  /// costs a wake-up from another CPU (FrameSocket.receive). An idle connection costs this much
  /// CPU time once per answer.
  static let pollMicroseconds = 100

  /// Serves one connection until its client closes it or breaks the protocol.
  private func serve(
    _ descriptor: Int32, peer: PeerCredentials, grant: AccessGrant, authentication: ConnectionAuthentication
  ) {
    defer { close(descriptor) }
    while true {
      let body: [UInt8]
      do {
        guard let received = try FrameSocket.receive(on: descriptor, spinning: Self.pollMicroseconds) else { return }
        body = received
      } catch {
        if error != .closed { ended(error.description, peer) }
        return
      }
      let answer: [UInt8]
      do {
        idleLock.touch()
        answer = try AgentDispatch.answer(
          body, storage: storage, grant: grant, idleTimeout: idleLock.timeout, authentication: authentication)
      } catch {
        ended("a malformed request: \(error.detail ?? "errSecDecode")", peer)
        return
      }
      do {
        try FrameSocket.send(answer, on: descriptor)
      } catch {
        if error != .closed { ended(error.description, peer) }
        return
      }
    }
  }

  private func ended(_ reason: String, _ peer: PeerCredentials) {
    count(reason)
    logger.notice("closed a connection", metadata: ["reason": .string(reason), "pid": .stringConvertible(peer.pid)])
  }

  private func count(_ reason: String) { endings.withLock { $0[reason, default: 0] += 1 } }

  /// How many connections ended for each reason other than their client closing them.
  var closedConnections: [String: Int] { endings.withLock { $0 } }

  /// Stops serving: the socket goes, and the store drops its keys.
  func stop() {
    // An activated socket is systemd's: it stays, so the next connection starts the agent again.
    if !activated { unlink(socketPath) }
    // Every key, not only the WhenUnlocked ones a lock drops: the process exits next.
    storage.dropKeys()
    logger.info("stopped", metadata: ["socket": .string(socketPath)])
  }
}

/// Why the agent cannot start, in a sentence for its standard error.
struct AgentStartError: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) { self.description = description }
}

import Foundation
import KeychainAgentWire
import Logging
import Security
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The agent's socket: who may connect, and one thread per connection serving requests, the
/// connections and the memory their frames hold bounded.
package final class AgentServer: Sendable {
  package let socketPath: String
  let storage: any ItemStorage
  /// Who asks the user to prove their presence (the store's prompt and failure count).
  let authenticator: any UserAuthenticating
  let policy: AgentPolicy
  let idleLock: IdleLock
  /// The count of wrong passphrases, the one the store's prompts keep: `unlock` requests count too.
  let ledger: FailedAttemptLedger
  let logger: Logger
  private let listener: Int32
  /// Whether the socket was handed over by systemd, which owns its file.
  private let activated: Bool
  /// Why connections ended other than by their client closing them, by reason: the figures the
  /// fuzz test and an operator read (`closedConnections`).
  private let endings = Mutex<[String: Int]>([:])
  /// The open connections, bounded.
  private let connections = ConnectionRegistry(limit: connectionLimit, perProcess: connectionsPerProcess)
  /// The memory every connection's frames may hold at once.
  private let frameBudget = FrameBudget(limit: frameMemory)

  /// Listens at `socketPath` for `storage`'s clients; the socket's folder must be the user's alone.
  package init(
    socketPath: String, storage: any ItemStorage, authenticator: any UserAuthenticating, policy: AgentPolicy,
    idleLock: IdleLock, ledger: FailedAttemptLedger, logger: Logger
  ) throws(AgentStartError) {
    self.socketPath = socketPath
    self.ledger = ledger
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
  package init(
    activatedListener listener: Int32, storage: any ItemStorage, authenticator: any UserAuthenticating,
    policy: AgentPolicy, idleLock: IdleLock, ledger: FailedAttemptLedger, logger: Logger
  ) throws(AgentStartError) {
    self.ledger = ledger
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

  /// At most this many connections are open at once, below the descriptor limit the agent raises
  /// itself to (`raiseDescriptorLimit`); past it the longest-idle one is closed.
  static let connectionLimit = 512
  /// At most this many from one process (a program with a pool of connections uses a few).
  static let connectionsPerProcess = 128
  /// A connection on which nothing comes for this long is closed (its client reconnects when it
  /// next calls), as is one whose frame stops coming half-way.
  static let idleSeconds = 300
  /// The memory all connections' frames may hold at once: four of the longest frames.
  static let frameMemory = 4 * AgentFrame.maximumFrameLength

  /// Accepts connections until the process ends.
  package func run() -> Never {
    logger.info("serving", metadata: ["socket": .string(socketPath), "activated": .stringConvertible(activated)])
    Self.raiseDescriptorLimit()
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
      let evicted = connections.register(descriptor, pid: peer.pid)
      if evicted > 0 { count("closed to make room for another connection", evicted) }
      let thread = Thread { [self] in
        defer { connections.close(descriptor) }
        guard let caller = identify(descriptor, peer) else { return }
        serve(descriptor, caller)
      }
      thread.name = "keychaind connection"
      thread.start()
    }
  }

  /// Who is calling, which decides the groups as entitlements do: the executable behind the pid
  /// the kernel reported, checked against the moment of the accept (ProcessInspection). Then the
  /// greeting, once no byte has come yet: every request is sent after this reading
  /// (AgentHandshake). nil, the connection refused and the reason counted, otherwise.
  private func identify(_ descriptor: Int32, _ peer: PeerCredentials) -> Caller? {
    do throws(FrameSocketError) {
      try FrameSocket.passCredentials(on: descriptor)
    } catch {
      ended(error.description, peer)
      return nil
    }
    guard let acceptedAt = ProcessInspection.ticksSinceBoot(), let file = ProcessInspection.runningFile(of: peer.pid),
      let path = ProcessInspection.executable(of: peer.pid, acceptedAt: acceptedAt),
      ProcessInspection.runningFile(of: peer.pid) == file
    else {
      count("an executable that cannot be known")
      logger.warning("refused a connection", metadata: ["pid": .stringConvertible(peer.pid)])
      return nil
    }
    var executable = path
    var grant: AccessGrant
    if let namespace = ProcessInspection.foreignNamespace(of: peer.pid) {
      // Its path names nothing the agent can trust (a bind mount may put any file there): no rule
      // applies, and its own group is told apart from that path's own group here.
      executable = "\(executable) (in another \(namespace == "mnt" ? "mount" : "user") namespace)"
      count("a program in another namespace: its own group only")
      grant = .ownGroup(of: executable)
    } else {
      grant = policy.grant(for: executable) { ProcessInspection.sha256(of: peer.pid, acceptedAt: acceptedAt) }
    }
    if grant.namedByRule, let alteration = ProcessInspection.alteration(of: peer.pid) {
      // The rule trusts the program, not code put into it: its own group only, as a program no
      // rule names.
      count("a program the policy names, altered: its own group only")
      logger.warning(
        "gave a program the policy names its own group only, because \(alteration)",
        metadata: ["executable": .string(executable), "pid": .stringConvertible(peer.pid)])
      grant = .ownGroup(of: executable)
    }
    do throws(FrameSocketError) {
      guard try FrameSocket.pendingBytes(on: descriptor) == 0 else {
        ended("a request sent before the agent greeted the connection", peer)
        return nil
      }
      try FrameSocket.send(AgentFrame.greeting, on: descriptor)
    } catch {
      if error != .closed { ended(error.description, peer) }
      return nil
    }
    logger.debug(
      "connected",
      metadata: [
        "executable": .string(executable), "groups": .string(grant.groups?.joined(separator: ",") ?? "*"),
      ])
    return Caller(
      peer: peer, file: file, grant: grant,
      authentication: ConnectionAuthentication(authenticator: authenticator, executable: executable))
  }

  /// A connection's caller, as `identify` found it.
  private struct Caller {
    let peer: PeerCredentials
    /// The file it ran when identified: each request checks it still does.
    let file: RunningFile
    let grant: AccessGrant
    let authentication: ConnectionAuthentication
  }

  /// How long a connection's thread polls for the client's next request before it sleeps: a
  /// program making calls in a row sends the next within a few tens of µs, and a sleeping thread
  /// costs a wake-up from another CPU (FrameSocket.receive). An idle connection costs this much
  /// CPU time once per answer.
  static let pollMicroseconds = 100

  /// Serves one connection until its client closes it, breaks the protocol, stays idle too long,
  /// or is found not to be the caller it was identified as: bytes from another process (the
  /// socket shared or handed on), or a process that has run another program since.
  private func serve(_ descriptor: Int32, _ caller: Caller) {
    var idle = timeval(tv_sec: Self.idleSeconds, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
    let peer = caller.peer
    while true {
      var body: [UInt8]
      do {
        guard
          let received = try FrameSocket.receive(
            on: descriptor, spinning: Self.pollMicroseconds, sender: peer.pid, budget: frameBudget)
        else { return }
        body = received
      } catch {
        if case .system(_, let code) = error, code == EAGAIN || code == EWOULDBLOCK {
          count("idle for \(Self.idleSeconds) s")
        } else if error != .closed {
          ended(error.description, peer)
        }
        return
      }
      // Wiped (a request may carry a secret or a passphrase) and given back to the budget once used.
      defer {
        frameBudget.release(body.count)
        Secrets.wipe(&body)
      }
      guard ProcessInspection.runningFile(of: peer.pid) == caller.file else {
        ended("the process that connected now runs another program", peer)
        return
      }
      connections.touch(descriptor)
      var answer: [UInt8]
      do {
        if AgentDispatch.isUseOfTheStore(body) { idleLock.touch() }
        answer = try AgentDispatch.answer(
          body, storage: storage, grant: caller.grant, idleTimeout: idleLock.timeout,
          authentication: caller.authentication, ledger: ledger)
      } catch {
        ended("a malformed request: \(error.detail ?? "errSecDecode")", peer)
        return
      }
      defer { Secrets.wipe(&answer) }
      do {
        try FrameSocket.send(answer, on: descriptor)
      } catch {
        if error != .closed { ended(error.description, peer) }
        return
      }
    }
  }

  /// The soft limit on open descriptors raised to the hard one: the connection limit needs room.
  private static func raiseDescriptorLimit() {
    var limits = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0, limits.rlim_cur < limits.rlim_max else { return }
    limits.rlim_cur = limits.rlim_max
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
  }

  private func ended(_ reason: String, _ peer: PeerCredentials) {
    count(reason)
    logger.notice("closed a connection", metadata: ["reason": .string(reason), "pid": .stringConvertible(peer.pid)])
  }

  private func count(_ reason: String, _ times: Int = 1) { endings.withLock { $0[reason, default: 0] += times } }

  /// How many connections ended for each reason other than their client closing them.
  package var closedConnections: [String: Int] { endings.withLock { $0 } }

  /// Stops serving: the socket goes, and the store drops its keys.
  package func stop() {
    // An activated socket is systemd's: it stays, so the next connection starts the agent again.
    if !activated { unlink(socketPath) }
    // Every key, not only the WhenUnlocked ones a lock drops: the process exits next.
    storage.dropKeys()
    logger.info("stopped", metadata: ["socket": .string(socketPath)])
  }
}

/// Why the agent cannot start, in a sentence for its standard error.
package struct AgentStartError: Error, CustomStringConvertible {
  /// The sentence.
  package let description: String

  /// The error saying `description`.
  package init(_ description: String) { self.description = description }
}

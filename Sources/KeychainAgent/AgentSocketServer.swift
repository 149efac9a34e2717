import CKeychainAgent
import Foundation
import KeychainAgentWire
import Security
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The agent's socket front end: who may connect, and one epoll set that waits on every
/// connection at once, served by a fixed number of threads (issue 50). A connection costs its
/// descriptor and the bytes of the frame it is sending, not a thread: each event goes to exactly
/// one of the threads waiting on the set (EPOLLONESHOT), which reads what arrived without waiting
/// (`FrameAssembler`), answers a whole request itself, polls a moment for the next, and arms the
/// connection again. A client that waits for the user (a prompt) holds no thread either
/// (`CallerSession`).
///
/// The threads share the set rather than one loop handing frames to a pool: a handoff is a second
/// wake-up of a sleeping thread, tens of µs on a virtual machine, on every request that comes after
/// the poll (measured: the agent's lookups fell from 0.54 to 0.46 of the DSL's with a handoff).
///
/// Why epoll here rather than SwiftNIO: every read must say which process sent its bytes
/// (SCM_CREDENTIALS, the check that defeats a socket handed to another program, issue 49), and
/// NIO's stream channels deliver no control messages; the loop is a few hundred lines over four C
/// calls (CKeychainAgent), and the frames are the agent's own.
package final class AgentSocketServer: Sendable {
  /// The socket's path.
  package let socketPath: String
  /// The service whose callers the socket serves.
  package let service: AgentService
  private let listener: Int32
  /// Whether the socket was handed over by systemd, which owns its file.
  private let activated: Bool
  private let epoll: Int32
  /// The open connections, bounded.
  private let registry = ConnectionRegistry(limit: connectionLimit, perProcess: connectionsPerProcess)
  /// The memory every connection's frames may hold at once.
  private let frameBudget = FrameBudget(limit: frameMemory)
  /// The connections by descriptor; a connection's `busy` flag and its arming in epoll change
  /// together under this lock, so exactly one thread owns a connection at a time.
  private let connections = Mutex<[Int32: SocketConnection]>([:])
  private let stopping = Atomic<Bool>(false)
  /// The second of the last sweep for idle connections (one thread sweeps each second).
  private let lastSweep = Atomic<UInt64>(0)

  /// How many connections are open.
  package var openConnections: Int { connections.withLock { $0.count } }

  /// Listens at `socketPath` for `service`'s clients; the socket's folder must be the user's alone.
  package init(socketPath: String, service: AgentService) throws(AgentStartError) {
    self.socketPath = socketPath
    self.service = service
    try Self.prepareFolder(of: socketPath)
    try Self.removeStaleSocket(at: socketPath)
    do {
      listener = try FrameSocket.listen(at: socketPath)
    } catch {
      throw AgentStartError("cannot listen at \(socketPath): \(error)")
    }
    activated = false
    epoll = try Self.makeEpoll()
  }

  /// Serves on `listener`, a socket systemd created and handed over (socket activation); its
  /// folder must be the user's alone all the same (the units set DirectoryMode=0700).
  package init(activatedListener listener: Int32, service: AgentService) throws(AgentStartError) {
    do {
      socketPath = try FrameSocket.listeningPath(of: listener)
    } catch {
      throw AgentStartError(
        "the socket systemd passed (descriptor \(listener)) is not a Unix listening socket: \(error)")
    }
    try Self.prepareFolder(of: socketPath)
    self.listener = listener
    self.service = service
    activated = true
    epoll = try Self.makeEpoll()
  }

  private static func makeEpoll() throws(AgentStartError) -> Int32 {
    let epoll = keychain_epoll_create()
    guard epoll >= 0 else { throw AgentStartError("cannot make an event loop: \(String(cString: strerror(errno)))") }
    return epoll
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
  /// A connection on which no whole request comes for this long is closed (its client reconnects
  /// when it next calls), as is one whose frame stops coming half-way.
  static let idleSeconds: UInt64 = 300
  /// The memory all connections' frames may hold at once: four of the longest frames.
  static let frameMemory = 4 * AgentFrame.maximumFrameLength
  /// The threads that wait on the set and run requests: enough to keep both cores busy while some
  /// wait on the disk, few enough that a flood of requests queues instead of multiplying threads.
  static let workerThreads = max(4, min(16, 2 * ProcessInfo.processInfo.activeProcessorCount))
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
  package func stopServing() { stopping.store(true, ordering: .relaxed) }

  /// Accepts and serves connections until `stopServing`, on this thread and `workerThreads - 1`
  /// others.
  package func serve() {
    service.logger.info(
      "serving", metadata: ["socket": .string(socketPath), "activated": .stringConvertible(activated)])
    Self.raiseDescriptorLimit()
    _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
    guard keychain_epoll_arm(epoll, listener, 1) == 0 else {
      service.logger.critical("cannot watch the socket", metadata: ["errno": .stringConvertible(errno)])
      exit(1)
    }
    lastSweep.store(Self.seconds(), ordering: .relaxed)
    let finished = DispatchGroup()
    for _ in 1..<Self.workerThreads {
      finished.enter()
      let thread = Thread { [self] in
        waitForEvents()
        finished.leave()
      }
      thread.name = "keychaind"
      thread.start()
    }
    waitForEvents()
    finished.wait()
    for connection in connections.withLock({ Array($0.values) }) { end(connection, nil) }
    close(epoll)
    if !activated {
      close(listener)
      unlink(socketPath)
    }
  }

  /// One thread's loop: an event of the set (a connection, or the listener), served here; once a
  /// second, one thread closes the idle connections.
  private func waitForEvents() {
    var descriptor: [Int32] = [-1]
    var hangUp: [Int32] = [0]
    while !stopping.load(ordering: .relaxed) {
      let count = keychain_epoll_wait(epoll, &descriptor, &hangUp, 1, 1000)
      if count < 0 && errno != EINTR {
        service.logger.error("waiting for events failed", metadata: ["errno": .stringConvertible(errno)])
        sleep(1)
      }
      if count == 1 {
        if descriptor[0] == listener {
          acceptOne()
        } else {
          readable(descriptor[0])
        }
      }
      let now = Self.seconds()
      let last = lastSweep.load(ordering: .relaxed)
      if now != last, lastSweep.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged {
        closeIdle(now: now)
      }
    }
  }

  /// Accepts one connection, arms the listener for the next (another thread may take it), then
  /// identifies the caller on this thread.
  private func acceptOne() {
    let accepted: (Int32, PeerCredentials)?
    do {
      accepted = try FrameSocket.accept(on: listener)
    } catch {
      if case .system(_, let code) = error, code == EAGAIN || code == EWOULDBLOCK {
        accepted = nil
      } else {
        // Out of descriptors, say: the listener stays readable, so waiting a moment keeps the
        // threads from spinning on it.
        service.logger.error("accept failed", metadata: ["reason": .string(error.description)])
        accepted = nil
        usleep(100_000)
      }
    }
    _ = keychain_epoll_arm(epoll, listener, 0)
    guard let (descriptor, peer) = accepted else { return }
    // Another user's process is refused before it can send a byte: the agent is per user.
    guard peer.uid == getuid() else {
      service.count("another user (uid \(peer.uid))")
      service.logger.warning("refused a connection", metadata: ["uid": .stringConvertible(peer.uid)])
      close(descriptor)
      return
    }
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    let evicted = registry.register(descriptor, pid: peer.pid)
    if evicted > 0 { service.count("closed to make room for another connection", evicted) }
    let connection = SocketConnection(descriptor: descriptor, peer: peer, now: Self.seconds())
    connections.withLock { $0[descriptor] = connection }
    identify(connection)
  }

  /// Who is calling (AgentService.identify), then the greeting, once no byte has come yet: every
  /// request is sent after this reading (AgentHandshake). The connection ends, the reason counted,
  /// otherwise.
  private func identify(_ connection: SocketConnection) {
    let peer = connection.peer
    do throws(FrameSocketError) {
      try FrameSocket.passCredentials(on: connection.descriptor)
    } catch {
      return end(connection, error.description)
    }
    guard let acceptedAt = ProcessInspection.ticksSinceBoot(),
      let caller = service.identify(pid: peer.pid, acceptedAt: acceptedAt)
    else { return end(connection, nil) }
    do throws(FrameSocketError) {
      guard try FrameSocket.pendingBytes(on: connection.descriptor) == 0 else {
        return end(connection, "a request sent before the agent greeted the connection")
      }
      try FrameSocket.send(AgentFrame.greeting, on: connection.descriptor)
    } catch {
      return end(connection, error == .closed ? nil : error.description)
    }
    service.logger.debug(
      "connected",
      metadata: [
        "executable": .string(caller.executable), "groups": .string(caller.grant.groups?.joined(separator: ",") ?? "*"),
      ])
    connection.caller = caller
    release(connection, adding: true)
  }

  /// Bytes (or the end) arrived on a connection the set held: this thread owns it now.
  private func readable(_ descriptor: Int32) {
    let connection: SocketConnection? = connections.withLock { open in
      guard let connection = open[descriptor], !connection.busy else { return nil }
      connection.busy = true
      return connection
    }
    guard let connection else { return }
    switch read(connection) {
    case .frame(let body)?:
      serve(connection, FrameBytes(body))
    case .waiting?:
      release(connection)
    case .closed?, nil:
      break
    }
  }

  /// What has arrived on the connection, read without waiting; nil when it ended (it is closed).
  private func read(_ connection: SocketConnection) -> FrameAssembler.Progress? {
    do {
      let progress = try connection.assembler.read(
        on: connection.descriptor, sender: connection.peer.pid, budget: frameBudget)
      if case .closed = progress { end(connection, nil) }
      return progress
    } catch {
      end(connection, error == .closed ? nil : error.description)
      return nil
    }
  }

  /// Answers `first`, then the requests that follow at once, then arms the connection again. A
  /// request that waits for the user answers from the prompt's completion, which arms it.
  private func serve(_ connection: SocketConnection, _ first: FrameBytes) {
    guard let caller = connection.caller else { return end(connection, "a request before the greeting") }
    var next: FrameBytes? = first
    while let frame = next {
      next = nil
      connection.lastActive = Self.seconds()
      var answer: [UInt8]?
      do {
        // Wiped (a request may carry a secret or a passphrase) and given back to the budget once used.
        defer {
          frameBudget.release(frame.bytes.count)
          frame.wipe()
        }
        guard service.isStillRunning(caller) else {
          return end(connection, "the process that connected now runs another program")
        }
        registry.touch(connection.descriptor)
        answer = try service.answer(frame.bytes, from: caller) { [self] later in
          defer { Secrets.wipe(&later) }
          guard send(later, on: connection) else { return }
          release(connection)
        }
      } catch {
        return end(connection, "a malformed request: \(error.detail ?? "errSecDecode")")
      }
      // nil: the answer comes from a prompt's completion, which hands the connection back.
      guard answer != nil else { return }
      // Wiped in place: the optional holds the one reference to the bytes.
      defer { Secrets.wipe(&answer!) }
      guard send(answer!, on: connection) else { return }
      let budget = connection.polling.budget()
      guard budget > 0 else { break }
      let (polled, outcome) = AdaptivePoll.poll(forMicroseconds: budget) { () -> PolledFrame? in
        switch read(connection) {
        case .frame(let body)?: .frame(body)
        case .waiting?: connection.assembler.isBetweenFrames ? nil : .partial
        case .closed?, nil: .ended
        }
      }
      connection.polling.record(outcome)
      switch polled {
      case .frame(let body)?: next = FrameBytes(body)
      case .ended?: return
      case .partial?, nil: break
      }
    }
    release(connection)
  }

  /// What a poll for the next request found: a whole frame, the connection's end, or part of a
  /// frame (the rest is awaited in the set).
  private enum PolledFrame {
    case frame([UInt8])
    case ended
    case partial
  }

  /// Sends an answer; false when the connection ended (it is closed).
  private func send(_ answer: [UInt8], on connection: SocketConnection) -> Bool {
    do {
      try FrameSocket.send(answer, on: connection.descriptor)
      return true
    } catch {
      end(connection, error == .closed ? nil : error.description)
      return false
    }
  }

  /// Hands `connection` back to the set: armed in epoll (added, the first time).
  private func release(_ connection: SocketConnection, adding: Bool = false) {
    connections.withLock { _ in
      connection.busy = false
      _ = keychain_epoll_arm(epoll, connection.descriptor, adding ? 1 : 0)
    }
  }

  /// Connections the set holds (no thread owns them) on which no whole request came for
  /// `idleSeconds` are closed.
  private func closeIdle(now: UInt64) {
    let idle = connections.withLock { open in
      let idle = open.values.filter { !$0.busy && now >= $0.lastActive + Self.idleSeconds }
      // Owned by this thread from here: an event that comes for one meanwhile is ignored.
      for connection in idle { connection.busy = true }
      return idle
    }
    for connection in idle { end(connection, "idle for \(Self.idleSeconds) s") }
  }

  /// Ends a connection: forgotten, its unfinished frame wiped, its descriptor closed; `reason`
  /// (nil: the client closed it) counted and logged.
  private func end(_ connection: SocketConnection, _ reason: String?) {
    let wasOpen = connections.withLock { open in
      guard open[connection.descriptor] === connection else { return false }
      open[connection.descriptor] = nil
      return true
    }
    guard wasOpen else { return }
    // Counted and logged before the client can see the end.
    if let reason {
      service.count(reason)
      service.logger.notice(
        "closed a connection", metadata: ["reason": .string(reason), "pid": .stringConvertible(connection.peer.pid)])
    }
    connection.assembler.discard(budget: frameBudget)
    registry.close(connection.descriptor)
  }

  /// The soft limit on open descriptors raised to the hard one: the connection limit needs room.
  private static func raiseDescriptorLimit() {
    var limits = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0, limits.rlim_cur < limits.rlim_max else { return }
    limits.rlim_cur = limits.rlim_max
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits)
  }

  private static func seconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000_000 }

  /// Stops serving: the socket goes, and the store drops its keys.
  package func stop() {
    // An activated socket is systemd's: it stays, so the next connection starts the agent again.
    if !activated { unlink(socketPath) }
    // Every key, not only the WhenUnlocked ones a lock drops: the process exits next.
    service.stop()
    service.logger.info("stopped", metadata: ["socket": .string(socketPath)])
  }
}

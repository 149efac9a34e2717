import CKeychainAgent
import Foundation
import KeychainAgentWire
import Security
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A protocol the agent serves on a listening socket of its event loop: the agent's own requests
/// (`AgentSocketServer`) and OpenSSH's agent protocol (`SSHAgentSocket`). The loop accepts, bounds
/// and times out connections; a front end identifies each caller, reads its messages without
/// waiting and answers them, then hands the connection back to the loop (`release`) or ends it.
protocol SocketFrontEnd: Sendable {
  /// Whether a connection on which no whole request comes for `SocketEventLoop.idleSeconds` is
  /// closed (its client reconnects when it next calls).
  var closesIdleConnections: Bool { get }

  /// The reader of a new connection's messages.
  func makeAssembler() -> FrameAssembler

  /// A connection just accepted from a process of this user, owned by the calling thread: it is
  /// identified here, then released to the loop (`release(_:adding: true)`) or ended.
  func accepted(_ connection: SocketConnection, loop: SocketEventLoop)

  /// Bytes (or the end) arrived on `connection`, now owned by the calling thread: they are read
  /// and answered, then the connection is released or ended. An answer that waits for the user
  /// holds no thread: the prompt's completion sends it and releases the connection.
  func readable(_ connection: SocketConnection, loop: SocketEventLoop)
}

/// One epoll set that waits on every connection of every listening socket at once, served by a
/// fixed number of threads (issue 50). A connection costs its descriptor and the bytes of the
/// frame it is sending, not a thread: each event goes to exactly one of the threads waiting on the
/// set (EPOLLONESHOT), which reads what arrived without waiting (`FrameAssembler`), answers a whole
/// request itself, and arms the connection again. A client that waits for the user (a prompt)
/// holds no thread either (`CallerSession`).
///
/// The threads share the set rather than one loop handing frames to a pool: a handoff is a second
/// wake-up of a sleeping thread, tens of µs on a virtual machine, on every request that comes after
/// the poll (measured: the agent's lookups fell from 0.54 to 0.46 of the DSL's with a handoff).
///
/// Why epoll here rather than SwiftNIO: every read of the agent's socket must say which process
/// sent its bytes (SCM_CREDENTIALS, the check that defeats a socket handed to another program,
/// issue 49), and NIO's stream channels deliver no control messages; the loop is a few hundred
/// lines over four C calls (CKeychainAgent).
final class SocketEventLoop: Sendable {
  /// The service whose callers every front end serves: its counts and its log.
  let service: AgentService
  /// The listening sockets and the protocol each serves.
  private let listeners: [Int32: any SocketFrontEnd]
  private let epoll: Int32
  /// The open connections of every front end, bounded together.
  let registry = ConnectionRegistry(limit: connectionLimit, perProcess: connectionsPerProcess)
  /// The memory every connection's frames may hold at once.
  let frameBudget = FrameBudget(limit: frameMemory)
  /// The connections by descriptor; a connection's `busy` flag and its arming in epoll change
  /// together under this lock, so exactly one thread owns a connection at a time.
  private let connections = Mutex<[Int32: SocketConnection]>([:])
  private let stopping = Atomic<Bool>(false)
  /// The second of the last sweep for idle connections (one thread sweeps each second).
  private let lastSweep = Atomic<UInt64>(0)

  /// At most this many connections are open at once, below the descriptor limit the agent raises
  /// itself to (`raiseDescriptorLimit`); past it the longest-idle one is closed.
  static let connectionLimit = 512
  /// At most this many from one process (a program with a pool of connections uses a few).
  static let connectionsPerProcess = 128
  /// A connection on which no whole request comes for this long is closed, when its front end
  /// closes idle connections, as is one whose frame stops coming half-way.
  static let idleSeconds: UInt64 = 300
  /// The memory all connections' frames may hold at once: four of the longest frames.
  static let frameMemory = 4 * AgentFrame.maximumFrameLength
  /// The threads that wait on the set and run requests: enough to keep both cores busy while some
  /// wait on the disk, few enough that a flood of requests queues instead of multiplying threads.
  static let workerThreads = max(4, min(16, 2 * ProcessInfo.processInfo.activeProcessorCount))

  /// How many connections are open.
  var openConnections: Int { connections.withLock { $0.count } }

  /// A loop over `listeners` (made non-blocking here), for `service`'s callers.
  init(service: AgentService, listeners: [Int32: any SocketFrontEnd]) throws(AgentStartError) {
    self.service = service
    self.listeners = listeners
    epoll = keychain_epoll_create()
    guard epoll >= 0 else { throw AgentStartError("cannot make an event loop: \(String(cString: strerror(errno)))") }
  }

  /// Asks `serve` to return: within a second, every connection is closed and the threads end.
  func stopServing() { stopping.store(true, ordering: .relaxed) }

  /// Accepts and serves connections until `stopServing`, on this thread and `workerThreads - 1`
  /// others; then every connection is closed (the listeners are their owners').
  func serve() {
    Self.raiseDescriptorLimit()
    for listener in listeners.keys {
      _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
      guard keychain_epoll_arm(epoll, listener, 1) == 0 else {
        service.logger.critical("cannot watch the socket", metadata: ["errno": .stringConvertible(errno)])
        exit(1)
      }
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
  }

  /// One thread's loop: an event of the set (a connection, or a listener), served here; once a
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
        if let frontEnd = listeners[descriptor[0]] {
          acceptOne(on: descriptor[0], for: frontEnd)
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
  /// has the front end identify the caller on this thread.
  private func acceptOne(on listener: Int32, for frontEnd: any SocketFrontEnd) {
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
    let connection = SocketConnection(
      descriptor: descriptor, peer: peer, frontEnd: frontEnd, assembler: frontEnd.makeAssembler(),
      now: Self.seconds())
    connections.withLock { $0[descriptor] = connection }
    frontEnd.accepted(connection, loop: self)
  }

  /// Bytes (or the end) arrived on a connection the set held: this thread owns it now.
  private func readable(_ descriptor: Int32) {
    let connection: SocketConnection? = connections.withLock { open in
      guard let connection = open[descriptor], !connection.busy else { return nil }
      connection.busy = true
      return connection
    }
    guard let connection else { return }
    connection.frontEnd.readable(connection, loop: self)
  }

  /// What has arrived on the connection, read without waiting (from its caller's process only, when
  /// `sender` names it); nil when it ended (it is closed).
  func read(_ connection: SocketConnection, sender: Int32?) -> FrameAssembler.Progress? {
    do {
      let progress = try connection.assembler.read(on: connection.descriptor, sender: sender, budget: frameBudget)
      if case .closed = progress { end(connection, nil) }
      return progress
    } catch {
      end(connection, error == .closed ? nil : error.description)
      return nil
    }
  }

  /// Writes an answer on `connection` through `write` (the front end's framing); false when the
  /// connection ended, which is then closed (a reason other than the client's close counted).
  func send(on connection: SocketConnection, _ write: (Int32) throws(FrameSocketError) -> Void) -> Bool {
    do {
      try write(connection.descriptor)
      return true
    } catch {
      end(connection, error == .closed ? nil : error.description)
      return false
    }
  }

  /// A whole request came on `connection`: it is not idle.
  func touch(_ connection: SocketConnection) {
    connection.lastActive = Self.seconds()
    registry.touch(connection.descriptor)
  }

  /// Hands `connection` back to the set: armed in epoll (added, the first time).
  func release(_ connection: SocketConnection, adding: Bool = false) {
    connections.withLock { _ in
      connection.busy = false
      _ = keychain_epoll_arm(epoll, connection.descriptor, adding ? 1 : 0)
    }
  }

  /// Connections the set holds (no thread owns them) on which no whole request came for
  /// `idleSeconds` are closed, where their front end closes idle connections; one whose frame stopped
  /// half-way is closed whatever its front end, so that it holds the frame budget no longer.
  private func closeIdle(now: UInt64) {
    let idle = connections.withLock { open in
      let idle = open.values.filter {
        // `assembler` is read without its owner: a connection that is not busy has none.
        !$0.busy && ($0.frontEnd.closesIdleConnections || !$0.assembler.isBetweenFrames)
          && now >= $0.lastActive + Self.idleSeconds
      }
      // Owned by this thread from here: an event that comes for one meanwhile is ignored.
      for connection in idle { connection.busy = true }
      return idle
    }
    for connection in idle { end(connection, "idle for \(Self.idleSeconds) s") }
  }

  /// Ends a connection: forgotten, its unfinished frame wiped, its descriptor closed; `reason`
  /// (nil: the client closed it) counted and logged.
  func end(_ connection: SocketConnection, _ reason: String?) {
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

  /// Seconds on a clock that only goes forward.
  static func seconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds / 1_000_000_000 }
}

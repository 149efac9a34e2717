import Foundation
import KeychainAgentWire
import Security
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A program's connection to `keychaind` over its Unix socket: the store the agent holds, as this
/// program reaches it (`KeychainAgentLink`).
///
/// The client never opens the store or its key file: every SecItem call is handed to the agent
/// whole (`AgentItemService`), which runs its engine for this program, and the lock is the agent's,
/// so a lock by one process is a lock for all of them. One connection, one request at a time. A
/// call made while the agent cannot be reached answers errSecNotAvailable with a sentence saying
/// how to start it; a connection found broken when a call begins is made again once, while one
/// that breaks during a call is not retried (the agent may have done the write), and answers
/// errSecNotAvailable too.
package final class AgentClient: KeychainAgentLink {
  /// The agent's socket.
  package let socketPath: String
  private let connection = Mutex(AgentConnectionState())
  private let generation = Atomic<UInt64>(0)
  private let state: (hasPassphrase: Bool, isReadOnly: Bool)
  /// Whether an agent that does not answer is started (KEYCHAIN_BRIDGE_AGENT=auto).
  private let startsOnDemand: Bool
  /// Makes the refs of results in this process.
  let backend: any SecurityBackend

  /// Connects to the agent at `socketPath` and reads the store's state; errSecNotAvailable (with
  /// how to start the agent) when nothing answers there. With `startingOnDemand`, an agent that
  /// does not answer is started (`AgentLauncher`), now and whenever a later call finds it gone.
  package init(socketPath: String, startingOnDemand: Bool = false, backend: any SecurityBackend) throws(SecStatus) {
    self.socketPath = socketPath
    self.backend = backend
    startsOnDemand = startingOnDemand
    var reader = try Self.exchange(
      AgentFrame.request(.state), socketPath: socketPath, connection: connection, retrying: false,
      startingOnDemand: startingOnDemand)
    _ = try reader.flag()
    state = (try reader.flag(), try reader.flag())
    let granted = try reader.optional { reader throws(SecStatus) in
      try reader.list { reader throws(SecStatus) in try reader.string() }
    }
    grantedAccessGroups = granted ?? ["*"]
    let timeout = try reader.nonNegativeInt()
    idleLockTimeout = timeout > 0 ? timeout : nil
  }

  /// The seconds after which the agent locks the store when no request comes, or nil.
  package let idleLockTimeout: Int?

  /// The access groups the agent's policy grants this program (["*"] for every group): the agent
  /// decides them from the executable behind the connection, and its engine runs with no others.
  package let grantedAccessGroups: [String]?

  /// The SecItem calls of a caller with `accessGroups`, handed to the agent.
  package func service(accessGroups: [String]) -> any SecItemService {
    AgentItemService(client: self, accessGroups: accessGroups)
  }

  /// The rows and feed a replicator reads, through the agent.
  package var replica: any ItemRowReader & ChangeFeedStorage { AgentReplica(client: self) }

  package func importGnomeKeyring(_ contents: [UInt8], password: [UInt8]?, accessGroups: [String])
    throws(SecStatus) -> (label: String, added: Int, duplicates: Int)
  {
    try AgentItemService(client: self, accessGroups: accessGroups).send(
      .importGnomeKeyring, [], writing: true,
      { writer in
        writer.data(Data(contents))
        writer.optional(password) { $0.data(Data($1)) }
      }
    ) { reader throws(SecStatus) in (try reader.string(), try reader.nonNegativeInt(), try reader.nonNegativeInt()) }
  }

  deinit {
    connection.withLock { state in
      if let open = state.descriptor { close(open) }
    }
  }

  /// The status a call answers when the agent is gone, and how to bring it back.
  static func unreachable(_ socketPath: String, _ problem: FrameSocketError) -> SecStatus {
    SecStatus(
      errSecNotAvailable,
      detail: "no keychain agent answers at \(socketPath) (KEYCHAIN_BRIDGE_AGENT; \(problem)): start it with "
        + "`keychaind --socket \(socketPath)`, or unset KEYCHAIN_BRIDGE_AGENT to use the store in this process")
  }

  /// How long a call may poll for the agent's answer before its thread sleeps: a lookup is
  /// answered in about 20 µs and a write in about 100, and a sleeping thread costs a wake-up from
  /// another CPU (FrameSocket.receive). A longer call (a list of many items) sleeps after this, and
  /// on a busy machine the connection stops polling (AdaptivePoll).
  package static let answerPollMicroseconds = 200

  /// Sends `request` and returns a reader over the result, or throws the status the agent answered.
  private static func exchange(
    _ request: [UInt8], socketPath: String, connection: borrowing Mutex<AgentConnectionState>, retrying: Bool,
    startingOnDemand: Bool
  ) throws(SecStatus) -> WireReader {
    let answer: Result<[UInt8], SecStatus> = connection.withLock { state in
      // A connection that the agent closed since the last call (it restarted) is made again,
      // once: the request was not sent on it, so nothing can happen twice.
      for attempt in 0..<2 {
        let open: Int32
        if let existing = state.descriptor {
          open = existing
        } else {
          do throws(SecStatus) {
            open = try connect(to: socketPath, startingOnDemand: startingOnDemand)
          } catch {
            return .failure(error)
          }
          state.descriptor = open
        }
        do throws(FrameSocketError) {
          try FrameSocket.send(request, on: open)
        } catch {
          close(open)
          state.descriptor = nil
          if attempt == 0 && retrying { continue }
          return .failure(unreachable(socketPath, error))
        }
        do throws(FrameSocketError) {
          guard let body = try FrameSocket.receive(on: open, polling: &state.polling) else {
            throw .closed
          }
          return .success(body)
        } catch {
          close(open)
          state.descriptor = nil
          return .failure(unreachable(socketPath, error))
        }
      }
      return .failure(unreachable(socketPath, .closed))
    }
    switch answer {
    case .success(let body): return try AgentFrame.readAnswer(body)
    case .failure(let status): throw status
    }
  }

  /// A new connection to the agent, started first when it does not answer and `startingOnDemand`.
  ///
  /// Where this program finds the `keychaind` it would start (`AgentLauncher`), the process
  /// serving the socket must run that file, or nothing is sent (issue 49, case 5): a relay another
  /// program of the user put at the socket's path would see every request and every answer, the
  /// secrets read included. A program that finds no keychaind cannot check; its connections are
  /// taken as they are (the Authentication article's table says so).
  private static func connect(to socketPath: String, startingOnDemand: Bool) throws(SecStatus) -> Int32 {
    let expected = AgentLauncher.executable()
    do throws(FrameSocketError) {
      return try AgentHandshake.connect(to: socketPath, expectedAgent: expected)
    } catch {
      guard startingOnDemand, case .system = error else { throw unreachable(socketPath, error) }
    }
    try AgentLauncher.ensureRunning(at: socketPath)
    do throws(FrameSocketError) {
      return try AgentHandshake.connect(to: socketPath, expectedAgent: expected)
    } catch {
      throw unreachable(socketPath, error)
    }
  }

  func call(
    _ operation: AgentFrame.Operation, _ arguments: (inout WireWriter) -> Void = { _ in }
  ) throws(SecStatus) -> WireReader {
    var request = AgentFrame.request(operation, arguments)
    defer { Secrets.wipe(&request) }
    return try Self.exchange(
      request, socketPath: socketPath, connection: connection, retrying: true, startingOnDemand: startsOnDemand)
  }

  /// A call that changes the store: counted for `writeGeneration` when it succeeds.
  func write(
    _ operation: AgentFrame.Operation, _ arguments: (inout WireWriter) -> Void
  ) throws(SecStatus) -> WireReader {
    let reader = try call(operation, arguments)
    generation.add(1, ordering: .releasing)
    return reader
  }

  /// A number that grows with every write this process made through the agent.
  var writeGeneration: UInt64 { generation.load(ordering: .acquiring) }

  package var hasPassphrase: Bool { state.hasPassphrase }

  package var isReadOnly: Bool { state.isReadOnly }

  /// Asked of the agent each time: another process may have locked or unlocked it. An agent that
  /// cannot be reached counts as locked, so nothing is promised that cannot be read.
  package var isLocked: Bool {
    do {
      var reader = try call(.state)
      return try reader.flag()
    } catch {
      return true
    }
  }

  package func lock() {
    // The contract's lock cannot fail; an agent that is gone holds no keys to drop.
    _ = try? call(.lock)
  }

  /// Nothing: the keys are the agent's, and a client that exits must not lock every other
  /// client's store.
  package func dropKeys() {}

  /// A passphrase goes only to a connection whose agent was checked (`connect`): where this
  /// program finds no keychaind to check against, it is not sent at all (issue 49, case 5).
  package func unlock(passphrase: String?) throws(SecStatus) {
    if passphrase != nil && AgentLauncher.executable() == nil {
      throw SecStatus(
        errSecNotAvailable,
        detail: "the passphrase was not sent: no keychaind beside this program or on PATH to check the "
          + "process serving \(socketPath) against")
    }
    _ = try call(.unlock) { writer in writer.optional(passphrase) { $0.string($1) } }
  }

  package func checkIntegrity() throws(SecStatus) -> KeychainIntegrityReport {
    var reader = try call(.checkIntegrity)
    return KeychainIntegrityReport(
      checkedItems: try reader.nonNegativeInt(), damagedItems: try reader.nonNegativeInt(),
      skippedSinceOpen: try reader.nonNegativeInt())
  }

}

/// A client's connection to the agent: its socket once connected, and how long it polls for answers.
struct AgentConnectionState {
  var descriptor: Int32?
  var polling = AdaptivePoll(microseconds: AgentClient.answerPollMicroseconds)
}

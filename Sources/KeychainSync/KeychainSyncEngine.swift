import Foundation
import Logging
import PostgresNIO
import Security

/// Keeps a store's synchronizable items in sync with its group, in the background.
///
/// SecItem calls never wait for it: they commit to the local store, whose change feed records
/// each change in the same transaction. The engine pushes those changes and pulls other stores' as
/// sealed records; it wakes on the server's LISTEN/NOTIFY, on local changes (checked every
/// `Options.localCheckInterval`, so changes by other processes of the same store are seen too),
/// and on a timer, and after the server or the network was away it reconnects and catches up.
///
/// Conflicts converge by one deterministic rule on every store: the later version wins (a version
/// is the change's time in microseconds, raised above every version the store had seen of the
/// item), and between equal versions the greater store identifier.
public actor KeychainSyncEngine {
  /// How the engine runs.
  public struct Options: Sendable {
    /// How long tombstones are kept, locally and on the server, before they are purged. A store
    /// away for longer than this may bring a deleted item back.
    public var tombstoneAge: TimeInterval = 30 * 24 * 3600
    /// How often `run()` looks in the store's change feed for changes another process made.
    public var localCheckInterval: Duration = .milliseconds(100)
    /// How often `run()` looks for writes this process made through the same store.
    public var writeCheckInterval: Duration = .milliseconds(2)
    /// How often `run()` does a full round even without a notification.
    public var fullRoundInterval: Duration = .seconds(10)
    /// The longest wait between reconnection attempts.
    public var maximumRetryDelay: Duration = .seconds(5)
    /// Records per push or pull query.
    public var batchSize = 500
    /// The longest a round may take before the engine drops its connection and starts again (a
    /// server that stopped answering without closing the connection).
    public var roundTimeout: Duration = .seconds(30)

    /// The defaults: tombstones kept 30 days, this process's writes noticed within 2 ms, other
    /// processes' within 100 ms, a full round every 10 s.
    public init() {}
  }

  private let store: KeychainStore
  private let backend: SyncReplica
  private let options: Options
  private var lastPurge: ContinuousClock.Instant?

  /// An engine for `store`, which must be in a group (see `KeychainSyncGroup`) when it runs.
  public init(store: KeychainStore, options: Options = Options()) throws(KeychainSyncError) {
    self.store = store
    backend = try KeychainSyncGroup.syncable(store)
    self.options = options
  }

  /// One push-and-pull round, for short-lived processes: every change made here goes to the
  /// server, then every record the server holds after this store's position is applied.
  ///
  /// - Throws: errSecNoSuchKeychain when the store is in no group, errSecNotAvailable when the
  ///   server cannot be reached, errSecInteractionNotAllowed while the store is sealed.
  public func syncOnce() async throws(KeychainSyncError) -> KeychainSyncReport {
    let address = try SyncServerAddress(try currentMembership().server)
    return try await SyncServer.with(address) { server throws(KeychainSyncError) in try await round(server) }
  }

  /// Syncs until the task is cancelled: a round at start, then one on each notification, local
  /// change or timer tick. Failures (the server away, the store locked) are logged and retried with
  /// growing delays; they never end the loop.
  public func run() async {
    var retryDelay = Duration.milliseconds(100)
    var failures = SyncFailureLog()
    while !Task.isCancelled {
      do throws(KeychainSyncError) {
        let address = try SyncServerAddress(try currentMembership().server)
        try await SyncServer.with(address) { server throws(KeychainSyncError) in
          retryDelay = .milliseconds(100)
          if let attempts = failures.recovered() {
            syncLogger.notice("Sync resumed", metadata: ["failedAttempts": .stringConvertible(attempts)])
          }
          try await runConnected(server)
        }
      } catch {
        if Task.isCancelled { break }
        switch failures.failed(error.message, at: .now) {
        case .first:
          syncLogger.notice(
            "Sync failed; retrying",
            metadata: ["reason": .string(error.message), "status": .stringConvertible(error.status)])
        case .stillFailing(let attempts):
          syncLogger.notice(
            "Sync still failing; retrying",
            metadata: ["reason": .string(error.message), "attempts": .stringConvertible(attempts)])
        case .quiet:
          break
        }
        try? await Task.sleep(for: retryDelay)
        retryDelay = min(retryDelay * 2, options.maximumRetryDelay)
      }
    }
  }

  /// The loop of `run()` on one connection: ends by throwing when the server goes away.
  private func runConnected(_ server: SyncServer) async throws(KeychainSyncError) {
    let membership = try currentMembership()
    let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let address = server.address
    let group = membership.groupID.hexString
    // Notifications arrive on a connection of their own, which only listens.
    let listener = Task {
      do throws(KeychainSyncError) {
        try await SyncServer.with(address) { listening throws(KeychainSyncError) in
          do {
            try await listening.connection.listen(on: SyncServer.channel) { notifications in
              wake.yield()
              for try await notification in notifications where notification.payload == group {
                wake.yield()
              }
            }
          } catch {
            throw KeychainSyncError(
              status: errSecNotAvailable, message: "Lost the notification connection (\(SyncServer.describe(error))).")
          }
        }
      } catch {
        syncLogger.notice("Sync notifications stopped", metadata: ["reason": .string(error.message)])
      }
      wake.finish()
    }
    defer { listener.cancel() }
    // Local changes: this process's writes show in the store's write counter at once; other
    // processes' only in the change feed, which is looked at less often.
    let ticker = Task {
      var sinceJournalCheck = Duration.zero
      var sinceRound = Duration.zero
      var seenGeneration = backend.writeGeneration
      while !Task.isCancelled {
        try? await Task.sleep(for: options.writeCheckInterval)
        sinceJournalCheck += options.writeCheckInterval
        sinceRound += options.writeCheckInterval
        let generation = backend.writeGeneration
        var wakes = sinceRound >= options.fullRoundInterval
        if generation != seenGeneration || sinceJournalCheck >= options.localCheckInterval {
          seenGeneration = generation
          sinceJournalCheck = .zero
          wakes = wakes || ((try? backend.hasPendingChanges()) ?? false)
        }
        if wakes {
          sinceRound = .zero
          wake.yield()
        }
      }
    }
    defer { ticker.cancel() }
    _ = try await round(server)
    for await _ in wakes {
      if Task.isCancelled { return }
      _ = try await round(server)
    }
    if !Task.isCancelled {
      throw KeychainSyncError(
        status: errSecNotAvailable, message: "The sync server closed the notification connection.")
    }
  }

  private func currentMembership() throws(KeychainSyncError) -> SyncMembership {
    try SyncRound.membership(backend)
  }

  /// One round, given up after `Options.roundTimeout` (the connection is then dropped by the caller).
  private func round(_ server: SyncServer) async throws(KeychainSyncError) -> KeychainSyncReport {
    let now = ContinuousClock.now
    let purges = lastPurge.map { now - $0 >= .seconds(3600) } ?? true
    if purges { lastPurge = now }
    let round = SyncRound(server: server, backend: backend, options: options, purgesTombstones: purges)
    return try await withinDeadline(options.roundTimeout) { () throws(KeychainSyncError) in try await round.run() }
  }
}

/// One push-and-pull round: every pending change to the server, then every record after the
/// store's position into the store.
private struct SyncRound: Sendable {
  let server: SyncServer
  let backend: SyncReplica
  let options: KeychainSyncEngine.Options
  let purgesTombstones: Bool

  static func membership(_ backend: SyncReplica) throws(KeychainSyncError) -> SyncMembership {
    let membership = try storeCall("Cannot read the store's sync state") { () throws(SecStatus) in
      try backend.syncMembership()
    }
    guard let membership else {
      throw KeychainSyncError(status: errSecNoSuchKeychain, message: "The store is in no sync group.")
    }
    return membership
  }

  static func storeCall<T>(_ what: String, _ body: () throws(SecStatus) -> T) throws(KeychainSyncError) -> T {
    do { return try body() } catch { throw KeychainSyncError(error, what) }
  }

  func run() async throws(KeychainSyncError) -> KeychainSyncReport {
    let membership = try Self.membership(backend)
    var report = KeychainSyncReport()
    while true {
      let batch = try Self.storeCall("Cannot read the store's changes") { () throws(SecStatus) in
        try backend.outgoingRecords(limit: options.batchSize)
      }
      report.damagedJournalEntries += batch.damagedEntries
      let outgoing = batch.records
      if !outgoing.isEmpty {
        try await server.push(outgoing, group: membership.groupID)
        try Self.storeCall("Cannot record what the server acknowledged") { () throws(SecStatus) in
          try backend.acknowledge(outgoing)
        }
      }
      report.pushed += outgoing.count
      // Fewer entries than asked for: the feed is drained.
      if batch.entriesRead < options.batchSize { break }
    }
    // Pushing does not move the cursor: the membership read above still holds it.
    var position = membership.cursor
    while true {
      let page = try await server.pull(group: membership.groupID, after: position, limit: options.batchSize)
      guard let last = page.last else { break }
      let applied = try Self.storeCall("Cannot apply the server's records") { () throws(SecStatus) in
        try backend.applyIncoming(page, through: last.position)
      }
      report.applied += applied.applied
      report.unchanged += applied.stale
      report.rejected += applied.rejected
      report.rejections += applied.rejections
      for rejection in applied.rejections {
        syncLogger.warning("Refused a record from the sync server", metadata: ["reason": .string(rejection)])
      }
      if applied.stoppedLocked {
        report.waitingForUnlock = true
        break
      }
      position = last.position
      if page.count < options.batchSize { break }
    }
    try await server.recordSeen(store: membership.storeID, group: membership.groupID)
    if purgesTombstones {
      let age = options.tombstoneAge
      _ = try Self.storeCall("Cannot purge tombstones") { () throws(SecStatus) in
        try backend.purgeTombstones(before: Date().addingTimeInterval(-age))
      }
      try await server.purgeTombstones(group: membership.groupID, olderThan: age)
    }
    return report
  }
}

/// What one sync round did.
public struct KeychainSyncReport: Sendable, Equatable {
  /// Changes of this store sent to the server.
  public var pushed = 0
  /// Records from the server applied to the store.
  public var applied = 0
  /// Records no newer than the store's version (its own changes coming back, lost conflicts).
  public var unchanged = 0
  /// Records refused: altered, moved to another item, replayed, or of another group.
  public var rejected = 0
  /// Why each record was refused, by server position (never a value).
  public var rejections: [String] = []
  /// Whether applying stopped at a record that needs a key the store's lock state withholds.
  public var waitingForUnlock = false
  /// This store's own change feed entries (its sync journal) that failed authentication (changed
  /// on disk) and were set aside instead of pushed; the rest of the feed still synced.
  public var damagedJournalEntries = 0

  /// An empty report.
  public init() {}
}

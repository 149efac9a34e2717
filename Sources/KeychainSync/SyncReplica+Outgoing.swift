import Foundation
import Security

/// What `outgoingRecords` made and `acknowledge` settles: each record's item, the feed sequence it
/// was made from and the mark it leaves once the server has it; and the feed position reached.
struct OutgoingBatch: Sendable {
  var pushed: [Data: (identity: ItemIdentity, sequence: Int64, mark: ReplicaMark)] = [:]
  /// The feed position the batch was read from, and the one it reaches.
  var start: Int64
  var cursor: Int64
  /// The sequences of the damaged entries read, to be set aside.
  var damaged: [Int64] = []
}

extension SyncReplica {
  /// This store's changes after its feed position, sealed, at most `limit` entries read. Entries
  /// that fail authentication are skipped and counted; an item whose secret the lock state
  /// withholds is pushed once the store is unlocked (the position stays before it).
  func outgoingRecords(limit: Int) throws(SecStatus) -> SyncOutgoing {
    let (_, keys, origin) = try requireCurrent()
    let start = try counter(SyncStateNames.feedCursor)
    let entries = try storage.changes(after: start, limit: limit)
    var result = SyncOutgoing()
    result.entriesRead = entries.count
    var batch = OutgoingBatch(start: start, cursor: start)
    var blocked = false
    let liveItems = try liveItems(entries)
    for entry in entries {
      guard case .change(let change) = entry else {
        // An entry changed on disk (a forged deletion, a sequence) is never pushed: it is set
        // aside and counted, as a damaged item row is, and the rest of the feed still syncs. Its
        // sequence is not trusted to move the position.
        batch.damaged.append(entry.sequence)
        continue
      }
      if Self.isPending(change), let push = Self.push(for: change) {
        let plaintext: [UInt8]
        switch push {
        case .tombstone:
          plaintext = change.identity.encoded()
        case .live:
          do throws(SecStatus) {
            guard let item = try liveItems.item(for: change) else {
              // The row changed since the feed was read: its next entry is further on.
              if !blocked { batch.cursor = entry.sequence }
              continue
            }
            plaintext = [UInt8](try SyncPayload.encode(item))
          } catch .interactionNotAllowed {
            blocked = true
            continue
          }
        }
        let version = Self.version(of: change)
        let recordID = try keys.recordID(change.identity)
        let record = try keys.seal(
          plaintext, recordID: recordID, version: version, origin: origin, deleted: push == .tombstone)
        result.records.append(record)
        batch.pushed[recordID] = (
          change.identity, change.sequence,
          ReplicaMark(
            version: version, origin: origin, deleted: push == .tombstone, versionedSequence: change.sequence,
            settled: true)
        )
      }
      if !blocked { batch.cursor = entry.sequence }
    }
    result.damagedEntries = batch.damaged.count
    if result.records.isEmpty {
      // Nothing for the server to acknowledge: the position moves now.
      try settle(batch, acknowledged: [])
    } else {
      outgoing.withLock { $0 = batch }
    }
    return result
  }

  /// Marks these records' versions as kept by the server (an item changed since stays pending,
  /// with its pushed version remembered so the next one is later), and moves the feed position.
  func acknowledge(_ records: [SyncRecord]) throws(SecStatus) {
    guard !records.isEmpty, let batch = outgoing.withLock({ $0 }) else { return }
    try settle(batch, acknowledged: records.compactMap { batch.pushed[$0.recordID] })
    outgoing.withLock { $0 = nil }
  }

  private func settle(
    _ batch: OutgoingBatch, acknowledged: [(identity: ItemIdentity, sequence: Int64, mark: ReplicaMark)]
  ) throws(SecStatus) {
    guard batch.cursor > batch.start || !acknowledged.isEmpty || !batch.damaged.isEmpty else { return }
    // Most often no item changed while its record was on its way: try that first, with no read.
    var optimistic = ReplicationBatch()
    optimistic.steps = acknowledged.map { pushed in (.mark(pushed.identity, pushed.mark), .sequence(pushed.sequence)) }
    try addPosition(batch, to: &optimistic)
    if try storage.applyReplication(optimistic) == .applied { return }
    for _ in 0..<Self.attempts {
      var replication = ReplicationBatch()
      let entries = try storage.changes(of: acknowledged.map(\.identity))
      for (pushed, entry) in zip(acknowledged, entries) {
        guard let entry else {
          // Deleted while on its way, before any mark: the mark records the deletion, so that the
          // tombstone follows the version the server now has.
          replication.steps.append((.mark(pushed.identity, pushed.mark), .absent))
          continue
        }
        guard case .change(let current) = entry else { continue }
        let mark = pushed.mark
        if current.sequence != pushed.sequence {
          // Changed since: by this store (still pending, its next version passes the pushed one),
          // or by a newer record from the group (which stays).
          if let held = current.mark, held.version > mark.version { continue }
        }
        replication.steps.append((.mark(pushed.identity, mark), .sequence(current.sequence)))
      }
      try addPosition(batch, to: &replication)
      if try storage.applyReplication(replication) == .applied { return }
    }
    throw Self.contended
  }

  /// The feed position the batch reached and the damaged entries it set aside, as values of
  /// `replication`.
  private func addPosition(_ batch: OutgoingBatch, to replication: inout ReplicationBatch) throws(SecStatus) {
    let position = max(try counter(SyncStateNames.feedCursor), batch.cursor)
    replication.values[SyncStateNames.feedCursor] = Self.counterValue(position)
    if !batch.damaged.isEmpty {
      replication.discarding = batch.damaged
      replication.values[SyncStateNames.damaged] = Self.counterValue(
        Self.saturatingSum(try counter(SyncStateNames.damaged), batch.damaged.count))
    }
  }

  /// The live items of a page of entries: read in one go, or, when the lock state withholds a
  /// secret among them or a row fails authentication, one by one, so that only the items held
  /// back wait and only the damaged ones are skipped.
  private func liveItems(_ entries: [ChangeFeedEntry]) throws(SecStatus) -> LiveItems {
    var rows: [LiveItems.Row] = []
    for case .change(let change) in entries where Self.isPending(change) && Self.push(for: change) == .live {
      if let row = LiveItems.Row(change) { rows.append(row) }
    }
    do {
      let found = try storage.find(each: rows.map(\.filter), limit: 1, fetch: LiveItems.fetch)
      return LiveItems(storage: storage, read: Dictionary(zip(rows, found.map(\.first))) { first, _ in first })
    } catch .interactionNotAllowed, .decode {
      return LiveItems(storage: storage, read: nil)
    }
  }
}

/// The live items `outgoingRecords` pushes, as read for its page.
private struct LiveItems {
  /// The row a change names: its class and persistent reference.
  struct Row: Hashable {
    var itemClass: ItemClass
    var persistentID: Data

    /// Nil when the change names no row (a deletion).
    init?(_ change: FeedChange) {
      guard let persistentID = change.persistentID else { return nil }
      itemClass = change.identity.itemClass
      self.persistentID = persistentID
    }

    var filter: ItemFilter {
      var filter = ItemFilter(itemClass: itemClass)
      filter.reference = .uuid(itemClass, persistentID)
      return filter
    }
  }

  static let fetch = ItemFetch(attributes: true, data: true)

  let storage: any ItemRowReader & ChangeFeedStorage
  /// What the page's read found (nil for a row gone); nil when the items are read one by one.
  let read: [Row: StoredItem?]?

  /// The live item a change names, with its attributes and secret; nil when the row is gone or
  /// fails authentication. errSecInteractionNotAllowed when the lock state withholds its secret.
  func item(for change: FeedChange) throws(SecStatus) -> StoredItem? {
    guard let row = Row(change) else { return nil }
    if let read, let found = read[row] { return found }
    do {
      return try storage.find(row.filter, limit: 1, fetch: Self.fetch).first
    } catch .decode {
      // A damaged row is skipped, as a search skips it (the storage counts and logs it): it can be
      // neither read nor pushed, and it must not hold back every other item. Its next write
      // (an add replaces a row that fails authentication) feeds it again.
      return nil
    }
  }
}

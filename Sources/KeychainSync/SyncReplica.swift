import Foundation
import KeychainCrypto
import Security
import Synchronization

/// A store's side of sync, over the storage contract's change feed: membership, what is pushed,
/// what is applied. Every sync rule lives here, above the storage: which items may leave the
/// device (decision 4), versions and their order, tombstones as the group knows them, record
/// sealing, replays and conflicts. The storage only records each change of a synchronizable row in
/// the change's own transaction, keeps this type's marks and values (sealed, in a sealing storage),
/// and applies batches whose view of each item still holds.
///
/// State, in the replicator's namespace (`SyncStateNames`): the membership (group key and server),
/// this store's origin, the server position applied so far, the feed position pushed so far, and
/// the counts of refused records and damaged entries. Per item, in its feed entry's mark: the
/// version the group last had from or gave to this store.
final class SyncReplica: Sendable {
  /// The two capabilities replication needs: rows, and the change feed (never the keys or the lock).
  let storage: any ItemRowReader & ChangeFeedStorage
  /// Completes the items records carry (their fingerprints), as the SecItem engine's backend does.
  let backend: any SecurityBackend
  /// The records the last `outgoingRecords` made, by record identifier, until acknowledged.
  let outgoing = Mutex<OutgoingBatch?>(nil)

  init(storage: any ItemRowReader & ChangeFeedStorage, backend: any SecurityBackend) {
    self.storage = storage
    self.backend = backend
  }

  struct Membership: Codable {
    var groupKey: [UInt8]
    var server: String
  }

  /// The membership, the group's keys and this store's origin, or nil when in no group.
  func current() throws(SecStatus) -> (membership: Membership, keys: SyncKeys, origin: Data)? {
    guard let plaintext = try storage.replicationValue(SyncStateNames.membership) else { return nil }
    let membership: Membership
    do {
      membership = try PropertyListDecoder().decode(Membership.self, from: plaintext)
    } catch {
      throw SecStatus(errSecDecode, detail: "Sync: the store's group membership is damaged")
    }
    guard let origin = try storage.replicationValue(SyncStateNames.origin), origin.count == SyncKeys.originLength
    else { throw SecStatus(errSecDecode, detail: "Sync: the store's origin is damaged") }
    return (membership, try SyncKeys(groupKey: membership.groupKey), origin)
  }

  /// `current()`, or errSecNoSuchKeychain when the store is in no group.
  func requireCurrent() throws(SecStatus) -> (membership: Membership, keys: SyncKeys, origin: Data) {
    guard let current = try current() else {
      throw SecStatus(errSecNoSuchKeychain, detail: "Sync: the store is in no sync group")
    }
    return current
  }

  func counter(_ name: String) throws(SecStatus) -> Int64 {
    guard let value = try storage.replicationValue(name), value.count == 8 else { return 0 }
    return value.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
  }

  static func counterValue(_ value: Int64) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }

  /// A counter plus `count`, saturating: a count is never worth a trap.
  static func saturatingSum(_ counted: Int64, _ count: Int) -> Int64 {
    let (sum, overflow) = counted.addingReportingOverflow(Int64(count))
    return overflow ? .max : max(sum, 0)
  }

  // MARK: Membership

  func syncMembership() throws(SecStatus) -> SyncMembership? {
    guard let (membership, keys, origin) = try current() else { return nil }
    return SyncMembership(
      groupID: keys.groupID, server: membership.server, storeID: origin,
      cursor: try counter(SyncStateNames.serverCursor))
  }

  func createSyncGroup(server: String, passphrase: String, cost: SyncKeyWrappingCost) throws(SecStatus)
    -> WrappedSyncKey
  {
    let groupKey: [UInt8]
    do { groupKey = try SecureBytes.random(count: KeyFile.keyLength) } catch {
      throw SecStatus(errSecInternalComponent, detail: "the random generator failed")
    }
    let keys = try SyncKeys(groupKey: groupKey)
    let wrapped = try keys.wrapped(passphrase: passphrase, cost: cost == .standard ? .syncGroup : .storeKey)
    try join(keys, server: server)
    return wrapped
  }

  func joinSyncGroup(server: String, wrappedKey: WrappedSyncKey, passphrase: String) throws(SecStatus) {
    try join(try SyncKeys.unwrapped(wrappedKey, passphrase: passphrase), server: server)
  }

  func joinSyncGroup(server: String, keyFile: Data) throws(SecStatus) -> Data {
    let keys = try SyncKeys.fromKeyFile(keyFile)
    try join(keys, server: server)
    return keys.groupID
  }

  func exportSyncKey() throws(SecStatus) -> Data { try requireCurrent().keys.keyFile }

  /// Joins the group of `keys`: records the membership, starts from the beginning of the server's
  /// records, and feeds every synchronizable item again, so that each is pushed (the group may not
  /// have it yet): the rows the storage holds, and the deletions its feed remembers.
  private func join(_ keys: SyncKeys, server: String) throws(SecStatus) {
    let membership: Data
    do {
      let encoder = PropertyListEncoder()
      encoder.outputFormat = .binary
      membership = try encoder.encode(Membership(groupKey: keys.groupKey, server: server))
    } catch {
      throw SecStatus(errSecInternalComponent, detail: "Sync: the membership could not be encoded")
    }
    var origin = try storage.replicationValue(SyncStateNames.origin)
    if origin?.count != SyncKeys.originLength {
      do { origin = Data(try SecureBytes.random(count: SyncKeys.originLength)) } catch {
        throw SecStatus(errSecInternalComponent, detail: "the random generator failed")
      }
    }
    for _ in 0..<Self.attempts {
      var batch = ReplicationBatch()
      for (identity, expecting) in try everyItem() { batch.steps.append((.refeed(identity), expecting)) }
      batch.values = [
        SyncStateNames.membership: membership, SyncStateNames.origin: origin,
        SyncStateNames.serverCursor: nil, SyncStateNames.feedCursor: nil, SyncStateNames.rejected: nil,
        SyncStateNames.damaged: nil,
      ]
      if try storage.applyReplication(batch) == .applied { return }
    }
    throw Self.contended
  }

  /// Every item the feed or the storage knows as synchronizable, with its entry's sequence.
  private func everyItem() throws(SecStatus) -> [(ItemIdentity, ChangeExpectation)] {
    var items: [ItemIdentity: ChangeExpectation] = [:]
    var after: Int64 = 0
    while true {
      let page = try storage.changes(after: after, limit: 500)
      for case .change(let change) in page { items[change.identity] = .sequence(change.sequence) }
      guard let last = page.last else { break }
      after = last.sequence
    }
    // Rows written before the feed existed have no entry yet.
    for itemClass in ItemClass.allCases where itemClass.isImplemented {
      var filter = ItemFilter(itemClass: itemClass)
      filter.synchronizable = 1
      for item in try storage.find(filter, limit: nil, fetch: ItemFetch(attributes: true, data: false)) {
        let identity = ItemIdentity(itemClass, try ItemRows.index(itemClass, item.attributes))
        if items[identity] == nil {
          items[identity] = try storage.change(of: identity).map { .sequence($0.sequence) } ?? .absent
        }
      }
    }
    return items.map { ($0.key, $0.value) }
  }

  /// Leaves the group: its key, positions and counters are forgotten, and so are the deletions the
  /// feed remembers; the items stay.
  func leaveSyncGroup() throws(SecStatus) {
    var batch = ReplicationBatch()
    for name in SyncStateNames.membershipValues { batch.values[name] = .some(nil) }
    _ = try storage.applyReplication(batch)
    try storage.purgeDeletions(changedBefore: .max, through: .max)
  }

  // MARK: Housekeeping

  /// Forgets tombstones made before `date` that the server has (the feed position is past them).
  @discardableResult
  func purgeTombstones(before date: Date) throws(SecStatus) -> Int {
    try storage.purgeDeletions(
      changedBefore: SyncVersion.microseconds(date), through: try counter(SyncStateNames.feedCursor))
  }

  func syncSummary() throws(SecStatus) -> SyncJournalSummary {
    var summary = SyncJournalSummary(liveItems: 0, tombstones: 0, pending: 0, rejected: 0)
    var after: Int64 = 0
    while true {
      let page = try storage.changes(after: after, limit: 500)
      for case .change(let change) in page {
        if change.deleted {
          summary.tombstones += 1
        } else if SyncPayload.mayLeaveDevice(protection: change.protection ?? "") {
          summary.liveItems += 1
        }
        if Self.isPending(change) && Self.push(for: change) != nil { summary.pending += 1 }
      }
      guard let last = page.last else { break }
      after = last.sequence
    }
    summary.rejected = Int(try counter(SyncStateNames.rejected))
    summary.damaged = Int(try counter(SyncStateNames.damaged))
    return summary
  }

  /// Whether the feed after this store's position holds something for a round to push or set
  /// aside.
  ///
  /// The entries an incoming batch writes are the group's already, and they lie after the position
  /// until a round passes them: answering yes for them would cost the receiving engine a round (a
  /// pull and a seen-mark on the server) after each batch it applied, in the way of the next
  /// notification. So a few entries are read and judged; a longer backlog is left to a round,
  /// which moves the position past it.
  func hasPendingChanges() throws(SecStatus) -> Bool {
    let position = try counter(SyncStateNames.feedCursor)
    guard try storage.hasChanges(after: position) else { return false }
    let entries = try storage.changes(after: position, limit: Self.pendingScanLimit)
    guard entries.count < Self.pendingScanLimit else { return true }
    return entries.contains { entry in
      guard case .change(let change) = entry else { return true }
      return Self.isPending(change) && Self.push(for: change) != nil
    }
  }

  /// How many feed entries `hasPendingChanges` reads before it leaves the judging to a round.
  static let pendingScanLimit = 32

  var writeGeneration: UInt64 { storage.writeGeneration }

  // MARK: Rules

  /// What a change makes this store push: the live item, a tombstone, or nothing.
  enum Push { case live, tombstone }

  /// Whether a change is this store's and not yet settled with the group.
  static func isPending(_ change: FeedChange) -> Bool {
    guard change.source == .local, let mark = change.mark else { return change.source == .local }
    return !(mark.versionedSequence == change.sequence && mark.settled)
  }

  /// What a pending change sends: a live item that may leave the device; a tombstone when the
  /// item is gone (or may no longer leave the device) and the group had a live version of it from
  /// or through this store; otherwise nothing (the group never knew it).
  static func push(for change: FeedChange) -> Push? {
    if let protection = change.protection, SyncPayload.mayLeaveDevice(protection: protection) { return .live }
    guard let mark = change.mark else { return nil }
    // A mark made for this very change already holds the decision: a pending entry of a converted
    // legacy journal (its tombstone is pushed as the journal would have), or a settled one.
    if mark.versionedSequence == change.sequence { return mark.deleted ? .tombstone : nil }
    return mark.deleted ? nil : .tombstone
  }

  /// The version this store gives a pending change: when it was made, or one past the last
  /// version the store knew of the item when that is later (another store's clock may run ahead).
  static func version(of change: FeedChange) -> Int64 {
    if let mark = change.mark, mark.versionedSequence == change.sequence { return mark.version }
    return SyncVersion.next(after: change.mark?.version, at: change.changedAt)
  }

  /// How often a batch is read and tried again when a local write changed an item in between.
  static let attempts = 16
  static let contended = SecStatus(
    errSecInternalComponent, detail: "Sync: the store kept changing under the sync state; try again")
}

/// The names of the sync state in the storage's replicator namespace. The legacy journal's
/// conversion (KeychainStorageSQLite) writes the same names.
enum SyncStateNames {
  static let membership = "sync.membership"
  static let origin = "sync.origin"
  static let serverCursor = "sync.server-cursor"
  static let feedCursor = "sync.feed-cursor"
  static let rejected = "sync.rejected"
  static let damaged = "sync.damaged"

  /// What leaving a group forgets (the origin stays: it names this store in every record it made).
  static let membershipValues = [membership, serverCursor, feedCursor, rejected, damaged]
}

/// Versions: microseconds since 1970, bounded so that no version read from disk or the network
/// makes `+ 1` trap.
enum SyncVersion {
  /// The latest version accepted: the first of January 9999.
  static let maximum: Int64 = 253_370_764_800_000_000

  static func microseconds(_ date: Date) -> Int64 {
    let value = (date.timeIntervalSince1970 * 1_000_000).rounded(.down)
    return value >= Double(maximum) ? maximum : Int64(max(value, 0))
  }

  /// Whether `version` is one a store could have made: after 1970 and before `maximum`.
  static func isPlausible(_ version: Int64) -> Bool { version > 0 && version <= maximum }

  /// `changedAt`, or one past `last` when that is later.
  static func next(after last: Int64?, at changedAt: Int64) -> Int64 {
    let now = min(max(changedAt, 1), maximum)
    guard let last else { return now }
    return max(now, min(max(last, 0), maximum - 1) + 1)
  }
}

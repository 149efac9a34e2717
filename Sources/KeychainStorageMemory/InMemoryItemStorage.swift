import Foundation
import Security
import Synchronization

/// The storage contract (`ItemStorage`) kept in memory: the second implementation that keeps the
/// contract honest. `StoreContractTests` runs against it and the SQLite storage alike, and the
/// storage differential test runs the same SecItem calls over both and compares every answer.
///
/// It keeps what the contract asks a storage to keep and nothing more: rows in insertion order,
/// the uniqueness of the primary key it is given, atomic changes and the lock state's effect on
/// secrets. It applies no Apple rule of its own: constraints no comparison here decides are left
/// to the API's verdict (`ItemFilter.matches`), as the SQLite storage leaves them. Nothing is
/// sealed: nothing leaves the process.
package final class InMemoryItemStorage: ItemStorage {
  private struct Row {
    var id: Int64
    var itemClass: ItemClass
    var persistentID: Data
    var attributes: SortedAttributes
    var accessControl: SecAccessControl?
    var data: Data?
    var index: ItemIndex
    /// Set from the storage's counter at every write of the row.
    var version: UInt64

    var item: StoredItem {
      StoredItem(
        itemClass: itemClass, persistentID: persistentID, attributes: attributes, accessControl: accessControl,
        data: data)
    }
  }

  private struct State {
    var rows: [Row] = []
    var nextID: Int64 = 1
    var writes: UInt64 = 0
    /// Changes committed, for `writeGeneration`.
    var committed: UInt64 = 0
    var locked = false
    var everUnlocked = true
    /// The change feed: the latest change of each synchronizable item, by its key.
    var feed: [ItemIdentity: FeedChange] = [:]
    var sequence: Int64 = 0
    /// The replicator's namespace.
    var values: [String: Data] = [:]

    /// Records a change of the item under a new sequence, keeping its mark unless one is given.
    mutating func feedChange(
      _ identity: ItemIdentity, live row: (persistentID: Data, protection: String)?, source: ChangeSource,
      mark: ReplicaMark?? = .none
    ) {
      let key = identity
      sequence += 1
      feed[key] = FeedChange(
        sequence: sequence, identity: identity, persistentID: row?.persistentID, protection: row?.protection,
        changedAt: Int64((Date().timeIntervalSince1970 * 1_000_000).rounded(.down)), source: source,
        mark: mark ?? feed[key]?.mark)
    }

    /// Records the API's write of a row, when it is synchronizable.
    mutating func feedWrite(_ itemClass: ItemClass, _ index: ItemIndex, persistentID: Data) {
      guard index.synchronizable == 1 else { return }
      feedChange(ItemIdentity(itemClass, index), live: (persistentID, index.protection), source: .local)
    }

    /// Records the API's removal of a row, when it is synchronizable and has an entry; an entry no
    /// replicator marked goes with its row.
    mutating func feedRemoval(_ itemClass: ItemClass, _ index: ItemIndex) {
      let key = ItemIdentity(itemClass, index)
      guard index.synchronizable == 1, let current = feed[key] else { return }
      guard current.mark != nil else {
        feed[key] = nil
        return
      }
      feedChange(current.identity, live: nil, source: .local)
    }
  }

  private let state = Mutex(State())
  private let passphrase: String?

  /// A new, empty, unlocked storage; with a passphrase, unlocking it after `lock()` needs it.
  package init(passphrase: String? = nil) {
    self.passphrase = passphrase
  }

  package var hasPassphrase: Bool { passphrase != nil }
  package var isReadOnly: Bool { false }
  package var isLocked: Bool { state.withLock { $0.locked } }

  package func lock() { state.withLock { $0.locked = true } }

  package func unlock(passphrase given: String?) throws(SecStatus) {
    switch (passphrase, given) {
    case (nil, nil): break
    case (nil, .some):
      throw SecStatus(errSecAuthFailed, detail: "the storage was created without a passphrase, but one was given")
    case (.some, nil): throw .interactionNotAllowed
    case (.some(let expected), .some(let given)):
      guard expected == given else { throw .authFailed }
    }
    state.withLock {
      $0.locked = false
      $0.everUnlocked = true
    }
  }

  // MARK: Writes

  package func insert(_ item: NewItem) throws(SecStatus) -> StoredItem {
    try change { state throws(SecStatus) in try Self.insert(item, into: &state) }
  }

  package func insertBatch(_ items: [NewItem], skippingDuplicates: Bool) throws(SecStatus) -> Int {
    try change { state throws(SecStatus) in
      var added = 0
      for item in items {
        do throws(SecStatus) {
          _ = try Self.insert(item, into: &state)
          added += 1
        } catch .duplicateItem where skippingDuplicates {
          continue
        }
      }
      return added
    }
  }

  package func replace(_ replacements: [ItemReplacement]) throws(SecStatus) -> ReplacementOutcome {
    try change { state throws(SecStatus) in
      var positions: [Int] = []
      for replacement in replacements {
        guard
          let position = state.rows.firstIndex(where: {
            $0.persistentID == replacement.persistentID && $0.itemClass == replacement.itemClass
          }), Self.version(state.rows[position]) == replacement.expected
        else { return .changedSinceRead }
        positions.append(position)
      }
      for (position, replacement) in zip(positions, replacements) {
        let row = state.rows[position]
        let revision = replacement.revision
        // The secret is re-sealed under the new protection in a sealing storage: both keys must be
        // available, so a WhenUnlocked item cannot be changed while locked.
        try Self.requireSecretKey(row.index.protection, state)
        try Self.requireSecretKey(revision.index.protection, state)
        let key = ItemIdentity(row.itemClass, revision.index)
        guard !state.rows.contains(where: { $0.id != row.id && ItemIdentity($0.itemClass, $0.index) == key }) else {
          throw .duplicateItem
        }
        if ItemIdentity(row.itemClass, row.index) != key { state.feedRemoval(row.itemClass, row.index) }
        state.feedWrite(row.itemClass, revision.index, persistentID: row.persistentID)
        state.writes += 1
        state.rows[position].attributes = revision.attributes
        state.rows[position].accessControl = revision.accessControl
        state.rows[position].index = revision.index
        state.rows[position].version = state.writes
        if let data = revision.data { state.rows[position].data = data }
      }
      return .replaced(replacements.count)
    }
  }

  package func delete(_ filter: ItemFilter) throws(SecStatus) -> Int {
    try change { state throws(SecStatus) in
      let positions = Self.matches(filter, in: state)
      guard !positions.isEmpty else { throw .itemNotFound }
      for position in positions { state.feedRemoval(state.rows[position].itemClass, state.rows[position].index) }
      let matches = Set(positions.map { state.rows[$0].id })
      state.rows.removeAll { matches.contains($0.id) }
      return matches.count
    }
  }

  /// Runs `body` on a copy of the state and keeps the copy only when it succeeds: every change is
  /// all or nothing, as a transaction is.
  private func change<T>(_ body: (inout State) throws(SecStatus) -> T) throws(SecStatus) -> T {
    try state.withLock { current throws(SecStatus) in
      var working = current
      let result = try body(&working)
      working.committed += 1
      current = working
      return result
    }
  }

  private static func insert(_ item: NewItem, into state: inout State) throws(SecStatus) -> StoredItem {
    try requireSecretKey(item.index.protection, state)
    let key = ItemIdentity(item.itemClass, item.index)
    guard !state.rows.contains(where: { ItemIdentity($0.itemClass, $0.index) == key }) else { throw .duplicateItem }
    let persistentID = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
    state.writes += 1
    let row = Row(
      id: state.nextID, itemClass: item.itemClass, persistentID: persistentID,
      attributes: SortedAttributes(item.attributes),
      accessControl: item.accessControl, data: item.data, index: item.index, version: state.writes)
    state.nextID += 1
    state.rows.append(row)
    state.feedWrite(item.itemClass, item.index, persistentID: persistentID)
    return row.item
  }

  // MARK: The change feed

  package func changes(after sequence: Int64, limit: Int) throws(SecStatus) -> [ChangeFeedEntry] {
    state.withLock { state in
      state.feed.values.filter { $0.sequence > sequence }.sorted { $0.sequence < $1.sequence }.prefix(max(limit, 0))
        .map { .change($0) }
    }
  }

  package func changes(of identities: [ItemIdentity]) throws(SecStatus) -> [ChangeFeedEntry?] {
    state.withLock { state in identities.map { state.feed[$0].map { .change($0) } } }
  }

  package func hasChanges(after sequence: Int64) throws(SecStatus) -> Bool {
    state.withLock { $0.feed.values.contains { $0.sequence > sequence } }
  }

  package func replicationValue(_ name: String) throws(SecStatus) -> Data? {
    state.withLock { $0.values[name] }
  }

  package var writeGeneration: UInt64 { state.withLock { $0.committed } }

  package func applyReplication(_ batch: ReplicationBatch) throws(SecStatus) -> ReplicationOutcome {
    try change { state throws(SecStatus) in
      for (step, expecting) in batch.steps {
        let current = state.feed[step.identity]?.sequence
        switch expecting {
        case .absent: if current != nil { return .changedSinceRead }
        case .sequence(let sequence): if current != sequence { return .changedSinceRead }
        }
      }
      for (step, _) in batch.steps { try Self.apply(step, to: &state) }
      for (name, value) in batch.values { state.values[name] = value }
      return .applied
    }
  }

  private static func apply(_ step: ReplicationStep, to state: inout State) throws(SecStatus) {
    let key = step.identity
    let position = state.rows.firstIndex { ItemIdentity($0.itemClass, $0.index) == key }
    switch step {
    case .store(let item, let mark):
      try requireSecretKey(item.index.protection, state)
      state.writes += 1
      let persistentID: Data
      if let position {
        persistentID = state.rows[position].persistentID
        state.rows[position].attributes = SortedAttributes(item.attributes)
        state.rows[position].accessControl = item.accessControl
        state.rows[position].data = item.data
        state.rows[position].index = item.index
        state.rows[position].version = state.writes
      } else {
        persistentID = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        state.rows.append(
          Row(
            id: state.nextID, itemClass: item.itemClass, persistentID: persistentID,
            attributes: SortedAttributes(item.attributes),
            accessControl: item.accessControl, data: item.data, index: item.index, version: state.writes))
        state.nextID += 1
      }
      state.feedChange(step.identity, live: (persistentID, item.index.protection), source: .replica, mark: mark)
    case .remove(let identity, let mark):
      if let position { state.rows.remove(at: position) }
      state.feedChange(identity, live: nil, source: .replica, mark: mark)
    case .mark(let identity, let mark):
      guard var change = state.feed[key] else {
        guard position == nil else {
          throw SecStatus(errSecDecode, detail: "the change feed entry to mark is gone")
        }
        state.feedChange(identity, live: nil, source: .local, mark: mark)
        return
      }
      change.identity = identity
      change.mark = mark
      state.feed[key] = change
    case .refeed(let identity):
      let row = position.map { (state.rows[$0].persistentID, state.rows[$0].index.protection) }
      guard row != nil || state.feed[key] != nil else { return }
      state.feedChange(identity, live: row, source: .local)
    }
  }

  package func purgeDeletions(changedBefore: Int64, through sequence: Int64) throws(SecStatus) -> Int {
    try change { state throws(SecStatus) in
      let purged = state.feed.filter {
        $0.value.deleted && $0.value.changedAt < changedBefore && $0.value.sequence <= sequence
      }
      for key in purged.keys { state.feed[key] = nil }
      return purged.count
    }
  }

  // MARK: Reads

  package func find(each filters: [ItemFilter], limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [[StoredItem]] {
    try state.withLock { state throws(SecStatus) in
      try filters.map { filter throws(SecStatus) in try Self.find(filter, limit: limit, fetch: fetch, in: state) }
    }
  }

  package func find(_ filter: ItemFilter, limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [StoredItem] {
    try state.withLock { state throws(SecStatus) in try Self.find(filter, limit: limit, fetch: fetch, in: state) }
  }

  private static func find(_ filter: ItemFilter, limit: Int?, fetch: ItemFetch, in state: State) throws(SecStatus)
    -> [StoredItem]
  {
    var found: [StoredItem] = []
    for position in Self.matches(filter, in: state) {
      if let limit, found.count >= limit { break }
      let row = state.rows[position]
      if fetch.data && row.data != nil { try Self.requireSecretKey(row.index.protection, state) }
      found.append(
        StoredItem(
          itemClass: row.itemClass, persistentID: row.persistentID,
          attributes: fetch.attributes ? row.attributes : [:],
          accessControl: fetch.attributes || fetch.accessControl ? row.accessControl : nil,
          data: fetch.data ? row.data : nil, version: fetch.version ? Self.version(row) : nil))
    }
    return found
  }

  package func checkIntegrity() throws(SecStatus) -> KeychainIntegrityReport {
    KeychainIntegrityReport(checkedItems: state.withLock { $0.rows.count }, damagedItems: 0, skippedSinceOpen: 0)
  }

  /// The positions of the rows `filter` addresses, in insertion order.
  private static func matches(_ filter: ItemFilter, in state: State) -> [Int] {
    state.rows.indices.filter { position in
      let row = state.rows[position]
      guard row.itemClass == filter.itemClass else { return false }
      switch filter.reference {
      case .none: break
      case .uuid(_, let uuid)?: guard row.persistentID == uuid else { return false }
      case .rowID(_, let id)?: guard row.id == id else { return false }
      }
      if let groups = filter.accessGroups, !groups.contains(row.index.accessGroup) { return false }
      if let synchronizable = filter.synchronizable, row.index.synchronizable != synchronizable { return false }
      return filter.matches(withoutSecret(row.item))
    }
  }

  private static func version(_ row: Row) -> ItemVersion {
    ItemVersion(withUnsafeBytes(of: row.version.littleEndian) { Data($0) })
  }

  /// What a storage hands the API's verdict: the attributes, not the secret.
  private static func withoutSecret(_ item: StoredItem) -> StoredItem {
    var item = item
    item.data = nil
    return item
  }

  /// errSecInteractionNotAllowed when the lock state withholds the key of this protection's secrets.
  private static func requireSecretKey(_ protection: String, _ state: State) throws(SecStatus) {
    guard let accessibility = ItemIndex.protectionClasses[protection] else { throw .decode }
    guard accessibility.isAvailable(locked: state.locked, everUnlocked: state.everUnlocked) else {
      throw .interactionNotAllowed
    }
  }
}

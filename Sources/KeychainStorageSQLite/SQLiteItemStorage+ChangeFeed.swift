import Foundation
import KeychainCrypto
import Security

// The change feed (ChangeFeed.swift in Security): the entries each write of a synchronizable row
// leaves in its own transaction, their reads, replication batches and the replicator's values.
extension SQLiteItemStorage {
  // MARK: Entries written with the rows

  /// The item's entry, as read on `db` (inside a write transaction, or a reader's snapshot).
  func feedEntry(_ db: SQLiteConnection, _ key: LocalItemKey, _ ring: KeyRing) throws(SecStatus) -> ChangeFeedEntry? {
    let statement = try SQLiteErrors.database {
      try db.statement(
        "SELECT \(ChangeFeedTable.selectColumns) FROM item_change WHERE class = ? AND pk = ? AND spi = ?")
    }
    var found: ChangeFeedEntry?
    try forEachRow(of: statement, arguments: key.arguments) { row throws(SecStatus) in
      found = try ChangeFeedTable.entry(row, ring).1
      return false
    }
    return found
  }

  /// The next sequence: one past the counter, or, when an entry already holds that (a counter set
  /// back on disk), one past every entry. An entry whose sequence was set forward on disk fails
  /// authentication and holds nothing back.
  private func nextSequence(_ db: SQLiteConnection) throws(SecStatus) -> Int64 {
    let counted = try db.blob("SELECT value FROM store_info WHERE name = 'change_sequence'").map(Self.integer) ?? 0
    var (next, overflow) = max(counted, 0).addingReportingOverflow(1)
    if !overflow, try db.integer("SELECT 1 FROM item_change WHERE seq = ?", [.integer(next)]) != nil {
      let highest = try db.integer("SELECT COALESCE(MAX(seq), 0) FROM item_change") ?? 0
      (next, overflow) = highest.addingReportingOverflow(1)
    }
    guard !overflow else { throw SecStatus(errSecDecode, detail: "the change feed's sequence is exhausted") }
    try SQLiteErrors.database {
      try db.run(
        "INSERT OR REPLACE INTO store_info (name, value) VALUES ('change_sequence', ?)", [.blob(Self.bytes(next))])
    }
    return next
  }

  /// Records a change of the row with `key` under a new sequence; the entry's mark stays unless
  /// `mark` replaces it.
  func feedChange(
    _ db: SQLiteConnection, _ key: LocalItemKey, identity: ItemIdentity,
    live row: (persistentID: Data, protection: String)?,
    source: ChangeSource, mark newMark: ReplicaMark?? = .none, _ ring: KeyRing
  ) throws(SecStatus) {
    var mark: ReplicaMark?
    if let newMark {
      mark = newMark
    } else if case .change(let current)? = try feedEntry(db, key, ring) {
      mark = current.mark
    }
    let change = FeedChange(
      sequence: try nextSequence(db), identity: identity, persistentID: row?.persistentID, protection: row?.protection,
      changedAt: ChangeFeedTable.microseconds(Date()), source: source, mark: mark)
    try SQLiteErrors.database { try db.run(ChangeFeedTable.upsertSQL, try ChangeFeedTable.row(change, key, ring)) }
  }

  /// Records the API's write of a live synchronizable row.
  func feedLocalWrite(
    _ db: SQLiteConnection, _ identity: RowIdentity, _ index: ItemIndex, _ ring: KeyRing
  ) throws(SecStatus) {
    guard identity.synchronizable == 1 else { return }
    try feedChange(
      db, LocalItemKey(identity), identity: ItemIdentity(identity.itemClass, index),
      live: (identity.persistentID, identity.protection), source: .local, ring)
  }

  /// Records the removal of a synchronizable row by the API. The item's identity comes from its
  /// entry: a row with no sound entry (written before the feed, or whose entry was damaged) leaves
  /// none. An entry no replicator marked goes with its row (the contract's rule: nothing beyond this
  /// storage holds the item), so a store that never replicates keeps no deletions.
  func feedLocalRemoval(_ db: SQLiteConnection, _ identity: RowIdentity, _ ring: KeyRing) throws(SecStatus) {
    guard identity.synchronizable == 1 else { return }
    let key = LocalItemKey(identity)
    guard case .change(let current)? = try feedEntry(db, key, ring) else { return }
    guard current.mark != nil else {
      try SQLiteErrors.database {
        try db.run("DELETE FROM item_change WHERE class = ? AND pk = ? AND spi = ?", key.arguments)
      }
      return
    }
    try feedChange(db, key, identity: current.identity, live: nil, source: .local, mark: current.mark, ring)
  }

  // MARK: Reads

  func changes(after sequence: Int64, limit: Int) throws(SecStatus) -> [ChangeFeedEntry] {
    let ring = try keyRing()
    var entries: [ChangeFeedEntry] = []
    try readers.withStatement(
      "SELECT \(ChangeFeedTable.selectColumns) FROM item_change WHERE seq > ? ORDER BY seq LIMIT ?"
    ) { statement throws(SecStatus) in
      try forEachRow(of: statement, arguments: [.integer(sequence), .integer(Int64(max(limit, 0)))]) {
        row throws(SecStatus) in
        entries.append(try ChangeFeedTable.entry(row, ring).1)
        return true
      }
    }
    return entries
  }

  func changes(of identities: [ItemIdentity]) throws(SecStatus) -> [ChangeFeedEntry?] {
    let ring = try keyRing()
    let keys = try identities.map { identity throws(SecStatus) in try localKey(identity, ring) }
    // One read transaction for the page: one snapshot, and the cost of taking it paid once.
    return try readers.withSnapshot { db throws(SecStatus) in
      try keys.map { key throws(SecStatus) in try self.feedEntry(db, key, ring) }
    }
  }

  func hasChanges(after sequence: Int64) throws(SecStatus) -> Bool {
    var found = false
    try readers.withStatement("SELECT 1 FROM item_change WHERE seq > ? LIMIT 1") { statement throws(SecStatus) in
      try forEachRow(of: statement, arguments: [.integer(sequence)]) { _ throws(SecStatus) in
        found = true
        return false
      }
    }
    return found
  }

  func replicationValue(_ name: String) throws(SecStatus) -> Data? {
    let ring = try keyRing()
    guard
      let sealed = try readers.withStatement(
        "SELECT value FROM replication_value WHERE name = ?",
        {
          statement throws(SecStatus) -> Data? in
          var value: Data?
          try forEachRow(of: statement, arguments: [.text(name)]) { row throws(SecStatus) in
            value = try row.blob(0)
            return false
          }
          return value
        })
    else { return nil }
    return try ChangeFeedTable.openValue(sealed, name: name, ring)
  }

  var writeGeneration: UInt64 { committedWrites.load(ordering: .relaxed) }

  // MARK: Replication

  func applyReplication(_ batch: ReplicationBatch) throws(SecStatus) -> ReplicationOutcome {
    let ring = try keyRing()
    return try write { db throws(SecStatus) in
      // Every expectation is checked before any step is applied.
      var targets: [(key: LocalItemKey, entry: FeedChange?)] = []
      targets.reserveCapacity(batch.steps.count)
      var named = Set<LocalItemKey>()
      for step in batch.steps {
        guard var target = try self.expectedTarget(step.step.identity, step.expecting, db, ring) else {
          return .changedSinceRead
        }
        // A second step on the same item reads the entry the first one left.
        if !named.insert(target.key).inserted { target.entry = nil }
        targets.append(target)
      }
      for (target, step) in zip(targets, batch.steps) {
        try apply(step.step, target.key, entry: target.entry, db, ring)
      }
      for sequence in batch.discarding { try discardDamaged(sequence, db, ring) }
      for (name, value) in batch.values {
        try SQLiteErrors.database {
          if let value {
            try db.run(
              "INSERT OR REPLACE INTO replication_value (name, value) VALUES (?, ?)",
              [.text(name), .blob(try ChangeFeedTable.sealValue(value, name: name, ring))])
          } else {
            try db.run("DELETE FROM replication_value WHERE name = ?", [.text(name)])
          }
        }
      }
      return .applied
    }
  }

  /// The key of the item a step names and, when it was read on the way, its sound entry; nil when
  /// the item's entry does not meet `expectation`.
  ///
  /// An expected sequence is looked up by the feed's unique sequence column: when the entry there
  /// opens and names this identity, that is the item's entry and its key, found without computing
  /// the identity's digests (a settled push marks a whole page this way). Otherwise (a damaged entry,
  /// another item's) the identity's key decides, as it does for `.absent`.
  private func expectedTarget(
    _ identity: ItemIdentity, _ expectation: ChangeExpectation, _ db: SQLiteConnection, _ ring: KeyRing
  ) throws(SecStatus) -> (key: LocalItemKey, entry: FeedChange?)? {
    switch expectation {
    case .absent:
      let key = try localKey(identity, ring)
      let statement = try SQLiteErrors.database {
        try db.statement("SELECT 1 FROM item_change WHERE class = ? AND pk = ? AND spi = ?")
      }
      var present = false
      try forEachRow(of: statement, arguments: key.arguments) { _ throws(SecStatus) in
        present = true
        return false
      }
      return present ? nil : (key, nil)
    case .sequence(let sequence):
      let statement = try SQLiteErrors.database {
        try db.statement("SELECT \(ChangeFeedTable.selectColumns) FROM item_change WHERE seq = ?")
      }
      var found: (LocalItemKey?, ChangeFeedEntry)?
      try forEachRow(of: statement, arguments: [.integer(sequence)]) { row throws(SecStatus) in
        found = try ChangeFeedTable.entry(row, ring)
        return false
      }
      guard let (rowKey, entry) = found else { return nil }
      if case .change(let change) = entry, change.identity == identity, let rowKey { return (rowKey, change) }
      let key = try localKey(identity, ring)
      return rowKey == key ? (key, nil) : nil
    }
  }

  private func apply(
    _ step: ReplicationStep, _ key: LocalItemKey, entry knownEntry: FeedChange?, _ db: SQLiteConnection,
    _ ring: KeyRing
  ) throws(SecStatus) {
    switch step {
    case .store(let item, let mark):
      let persistentID = try storeReplicated(item, replacing: try existingRow(key, db), db, ring)
      try feedChange(
        db, key, identity: ItemIdentity(item.itemClass, item.index), live: (persistentID, item.index.protection),
        source: .replica, mark: mark, ring)
    case .remove(let identity, let mark):
      if let existing = try existingRow(key, db) {
        try SQLiteErrors.database { try db.run("DELETE FROM item WHERE id = ?", [.integer(existing.id)]) }
      }
      try feedChange(db, key, identity: identity, live: nil, source: .replica, mark: mark, ring)
    case .mark(let identity, let mark):
      var entry = knownEntry.map { ChangeFeedEntry.change($0) }
      if entry == nil { entry = try feedEntry(db, key, ring) }
      if entry == nil, try existingRow(key, db) == nil {
        try feedChange(db, key, identity: identity, live: nil, source: .local, mark: mark, ring)
        return
      }
      guard case .change(var change)? = entry else {
        throw SecStatus(errSecDecode, detail: "the change feed entry to mark is damaged or gone")
      }
      change.identity = identity
      change.mark = mark
      try SQLiteErrors.database { try db.run(ChangeFeedTable.upsertSQL, try ChangeFeedTable.row(change, key, ring)) }
    case .refeed(let identity):
      let row = try existingRow(key, db)
      if row == nil, try feedEntry(db, key, ring) == nil { return }
      try feedChange(
        db, key, identity: identity, live: row.map { ($0.persistentID, $0.protection) }, source: .local, ring)
    }
  }

  /// Removes the entry at `sequence` if it fails authentication.
  private func discardDamaged(_ sequence: Int64, _ db: SQLiteConnection, _ ring: KeyRing) throws(SecStatus) {
    let statement = try SQLiteErrors.database {
      try db.statement("SELECT \(ChangeFeedTable.selectColumns) FROM item_change WHERE seq = ?")
    }
    var damaged = false
    try forEachRow(of: statement, arguments: [.integer(sequence)]) { row throws(SecStatus) in
      if case .damaged = try ChangeFeedTable.entry(row, ring).1 { damaged = true }
      return false
    }
    if damaged {
      try SQLiteErrors.database { try db.run("DELETE FROM item_change WHERE seq = ?", [.integer(sequence)]) }
    }
  }

  private func existingRow(_ key: LocalItemKey, _ db: SQLiteConnection) throws(SecStatus) -> (
    id: Int64, persistentID: Data, protection: String
  )? {
    let statement = try SQLiteErrors.database {
      try db.statement("SELECT id, persistref, pdmn FROM item WHERE class = ? AND pk = ? AND spi = ?")
    }
    var found: (Int64, Data, String)?
    try forEachRow(of: statement, arguments: key.arguments) { row throws(SecStatus) in
      found = (try row.integer(0), try row.blob(1), try row.text(2))
      return false
    }
    return found
  }

  /// Writes a replicated item: over the row with its key (keeping that row's persistent
  /// reference, as an update does), or as a new row.
  private func storeReplicated(
    _ item: NewItem, replacing existing: (id: Int64, persistentID: Data, protection: String)?, _ db: SQLiteConnection,
    _ ring: KeyRing
  ) throws(SecStatus) -> Data {
    let persistentID: Data
    if let existing {
      persistentID = existing.persistentID
    } else {
      do { persistentID = Data(try SecureBytes.random(count: 16)) } catch { throw error.status }
    }
    let identity = try digests(ring).identity(
      item.itemClass, item.index, persistentID: persistentID, hasSecret: item.data != nil,
      accessControl: item.accessControl)
    let sealed = try RowCodec.seal(ring, identity, attributes: SortedAttributes(item.attributes), data: item.data)
    let columns = Self.rowColumns(identity, sealed)
    try SQLiteErrors.database {
      if let existing {
        try db.run(ItemTable.updateSQL, columns + [.integer(existing.id)])
      } else {
        try db.run(ItemTable.insertSQL, [.text(item.itemClass.rawValue), .blob(persistentID)] + columns)
      }
    }
    return persistentID
  }

  func purgeDeletions(changedBefore: Int64, through sequence: Int64) throws(SecStatus) -> Int {
    try write(freesSpace: true) { db throws(SecStatus) in
      let arguments: [SQLArgument] = [.integer(changedBefore), .integer(sequence)]
      let condition = "FROM item_change WHERE deleted = 1 AND changed < ? AND seq <= ?"
      let count = try db.integer("SELECT COUNT(*) \(condition)", arguments) ?? 0
      try SQLiteErrors.database { try db.run("DELETE \(condition)", arguments) }
      return Int(count)
    }
  }

  /// The key of an item with this identity in this store.
  func localKey(_ identity: ItemIdentity, _ ring: KeyRing) throws(SecStatus) -> LocalItemKey {
    let digests = digests(ring)
    return LocalItemKey(
      itemClass: identity.itemClass,
      primaryKey: try digests.primaryKey(
        identity.itemClass, identity.primaryKey, group: identity.accessGroup, synchronizable: identity.synchronizable
      ).data,
      spiKey: try digests.spiKey(identity.spiKey).data)
  }

  static func integer(_ data: Data) -> Int64 {
    guard data.count == 8 else { return 0 }
    return data.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
  }

  static func bytes(_ value: Int64) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
}

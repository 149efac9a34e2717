import Foundation
import KeychainCrypto
import Security

/// The store's side of sync (SyncableStorage): membership, outgoing records and incoming ones.
///
/// Membership lives in `store_info`: the group key and server sealed under the metadata key
/// (`sync_group`), the server position applied so far (`sync_cursor`) and the count of refused
/// records (`sync_rejected`).
extension SQLiteItemStorage: SyncableStorage {
  private struct Membership: Codable {
    var groupKey: [UInt8]
    var server: String
  }

  private static let membershipLabel = Array("keychain-bridge/sync/membership/v1".utf8)

  /// The membership and the group's keys, or nil when the store is in no group.
  private func membership(_ db: SQLiteConnection?, _ ring: KeyRing) throws(SecStatus) -> (
    Membership, SyncKeys
  )? {
    let sealed: Data?
    if let db {
      sealed = try db.blob("SELECT value FROM store_info WHERE name = 'sync_group'")
    } else {
      sealed = try readers.storeInfo("sync_group")
    }
    guard let sealed else { return nil }
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    let membership: Membership
    do {
      let plaintext = try AES.GCM.open(
        combined: [UInt8](sealed), using: metadataKey, authenticating: Self.membershipLabel)
      membership = try PropertyListDecoder().decode(Membership.self, from: Data(plaintext))
    } catch {
      throw SecStatus(errSecDecode, detail: "Sync: the store's group membership is damaged")
    }
    return (membership, try SyncKeys(groupKey: membership.groupKey))
  }

  func syncMembership() throws(SecStatus) -> SyncMembership? {
    let ring = try keyRing()
    guard let (membership, keys) = try membership(nil, ring) else { return nil }
    return SyncMembership(
      groupID: keys.groupID, server: membership.server, storeID: storeID,
      cursor: try readers.storeInfo("sync_cursor").map(Self.integer) ?? 0)
  }

  func createSyncGroup(server: String, passphrase: String, cost: SyncKeyWrappingCost) throws(SecStatus)
    -> WrappedSyncKey
  {
    let groupKey: [UInt8]
    do { groupKey = try SecureBytes.random(count: StoreKeys.keyLength) } catch { throw error.status }
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

  func exportSyncKey() throws(SecStatus) -> Data {
    guard let (_, keys) = try membership(nil, try keyRing()) else {
      throw SecStatus(errSecNoSuchKeychain, detail: "Sync: the store is in no sync group")
    }
    return keys.keyFile
  }

  /// Joins the group of `keys`: records the membership, starts from the beginning of the server's
  /// records, and marks every synchronizable item for pushing (the group may not have it yet).
  private func join(_ keys: SyncKeys, server: String) throws(SecStatus) {
    let ring = try keyRing()
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    let plaintext: Data
    do {
      let encoder = PropertyListEncoder()
      encoder.outputFormat = .binary
      plaintext = try encoder.encode(Membership(groupKey: keys.groupKey, server: server))
    } catch {
      throw SecStatus(errSecInternalComponent, detail: "Sync: the membership could not be encoded")
    }
    let sealed: [UInt8]
    do {
      sealed = try AES.GCM.seal([UInt8](plaintext), using: metadataKey, authenticating: Self.membershipLabel)
    } catch {
      throw error.status
    }
    try write { db throws(SecStatus) in
      try SQLiteErrors.database {
        try db.run("INSERT OR REPLACE INTO store_info (name, value) VALUES ('sync_group', ?)", [.blob(Data(sealed))])
        try db.run("DELETE FROM store_info WHERE name IN ('sync_cursor', 'sync_rejected', 'sync_damaged')")
      }
      try self.journalUntrackedItems(db, ring)
      try SQLiteErrors.database { try db.run("UPDATE sync_state SET pending = 1") }
    }
  }

  /// Gives every synchronizable item without a journal entry (one written before the journal
  /// existed) its entry, versioned by its modification date.
  private func journalUntrackedItems(_ db: SQLiteConnection, _ ring: KeyRing) throws(SecStatus) {
    let statement = try SQLiteErrors.database {
      try db.statement(
        """
        SELECT \(ItemTable.selectList) FROM item WHERE sync = 1
        AND NOT EXISTS (SELECT 1 FROM sync_state s WHERE s.class = item.class AND s.pk = item.pk AND s.spi = item.spi)
        """)
    }
    var untracked: [(RowIdentity, StoredItem)] = []
    try forEachRow(of: statement, arguments: []) { row throws(SecStatus) in
      do throws(SecStatus) {
        let record = try RowCodec.decode(row, fetch: ItemFetch(attributes: true, data: false), ring)
        untracked.append((record.identity, record.item))
      } catch .decode {
        // A damaged row is reported by searches and checkIntegrity; it cannot be synced.
      }
      return true
    }
    for (identity, item) in untracked where SyncJournal.isSyncable(identity) {
      var version = SyncJournal.microseconds(Date())
      if case .date(let modified)? = item.attributes[SecConstantValue.attrModificationDate] {
        version = SyncJournal.microseconds(modified)
      }
      try SyncJournal.write(
        db, LocalItemKey(identity),
        identity: SyncIdentity(item.itemClass, try ItemRows.index(item.itemClass, item.attributes)),
        version: version, origin: storeID, deleted: false, pending: true, ring)
    }
  }

  func leaveSyncGroup() throws(SecStatus) {
    try write { db throws(SecStatus) in
      try SQLiteErrors.database {
        try db.run(
          "DELETE FROM store_info WHERE name IN ('sync_group', 'sync_cursor', 'sync_rejected', 'sync_damaged')")
        try db.run("DELETE FROM sync_state WHERE deleted = 1")
      }
    }
  }

  // MARK: Outgoing

  func outgoingRecords(limit: Int) throws(SecStatus) -> SyncOutgoing {
    let ring = try keyRing()
    guard let (_, keys) = try membership(nil, ring) else {
      throw SecStatus(errSecNoSuchKeychain, detail: "Sync: the store is in no sync group")
    }
    var entries: [(key: LocalItemKey, version: Int64, origin: Data, deleted: Int64, identity: [UInt8])] = []
    // The journal keys (class as written, pk, spi) of entries that fail authentication.
    var damaged: [[SQLArgument]] = []
    try readers.withStatement(
      "SELECT class, pk, spi, version, origin, deleted, identity FROM sync_state WHERE pending = 1 LIMIT ?"
    ) { statement throws(SecStatus) in
      try forEachRow(of: statement, arguments: [.integer(Int64(limit))]) { row throws(SecStatus) in
        let className = try row.text(0)
        // A class name no store writes is damage too: it is taken out of the pending set below.
        guard let itemClass = ItemClass(rawValue: className) else {
          damaged.append([.text(className), .blob(try row.blob(1)), .blob(try row.blob(2))])
          return true
        }
        let key = LocalItemKey(itemClass: itemClass, primaryKey: try row.blob(1), spiKey: try row.blob(2))
        entries.append((key, try row.integer(3), try row.blob(4), try row.integer(5), try row.bytes(6)))
        return true
      }
    }
    var outgoing = SyncOutgoing()
    for entry in entries {
      let journal: JournalEntry
      do throws(SecStatus) {
        journal = try SyncJournal.authenticated(
          entry.key, version: entry.version, origin: entry.origin, deleted: entry.deleted, sealed: entry.identity, ring)
      } catch .decode {
        // An entry changed on disk (a forged deletion, a version, an origin) is never pushed: it is
        // skipped and counted, as a damaged item row is, and the rest of the journal still syncs.
        damaged.append(entry.key.arguments)
        continue
      }
      let plaintext: [UInt8]
      if journal.deleted {
        plaintext = try journal.identity.encoded()
      } else {
        guard let item = try liveItem(entry.key, ring) else { continue }
        plaintext = [UInt8](try SyncPayload.encode(item))
      }
      let record = try keys.seal(
        plaintext, recordID: try keys.recordID(journal.identity), version: journal.version, origin: journal.origin,
        deleted: journal.deleted)
      outgoing.records.append(record)
      outgoingKeys.withLock { $0[record.recordID] = entry.key }
    }
    if !damaged.isEmpty {
      try setAsideDamagedEntries(damaged)
      outgoing.damagedEntries = damaged.count
      storeLogger.warning(
        "Skipped sync journal entries that failed authentication",
        metadata: ["database": .string(files.databasePath), "entries": .stringConvertible(damaged.count)])
    }
    return outgoing
  }

  /// Takes damaged journal entries out of the pending set (so they cannot hold back the entries
  /// behind them) and adds them to the store's count of damaged entries.
  private func setAsideDamagedEntries(_ damaged: [[SQLArgument]]) throws(SecStatus) {
    try write { db throws(SecStatus) in
      for key in damaged {
        try SQLiteErrors.database {
          try db.run("UPDATE sync_state SET pending = 0 WHERE class = ? AND pk = ? AND spi = ?", key)
        }
      }
      let counted = try db.blob("SELECT value FROM store_info WHERE name = 'sync_damaged'").map(Self.integer) ?? 0
      try SQLiteErrors.database {
        try db.run(
          "INSERT OR REPLACE INTO store_info (name, value) VALUES ('sync_damaged', ?)",
          [.blob(Self.bytes(Self.saturatingSum(counted, damaged.count)))])
      }
    }
  }

  /// The item with this key, with its attributes and secret; nil when its secret's key is withheld
  /// by the lock state (it is pushed once the store is unlocked) or the row is gone.
  private func liveItem(_ key: LocalItemKey, _ ring: KeyRing) throws(SecStatus) -> StoredItem? {
    var item: StoredItem?
    try readers.withStatement("SELECT \(ItemTable.selectList) FROM item WHERE class = ? AND pk = ? AND spi = ?") {
      statement throws(SecStatus) in
      try forEachRow(of: statement, arguments: key.arguments) { row throws(SecStatus) in
        do throws(SecStatus) {
          item = try RowCodec.decode(row, fetch: ItemFetch(attributes: true, data: true), ring).item
        } catch .interactionNotAllowed {
          item = nil
        }
        return false
      }
    }
    return item
  }

  func acknowledge(_ records: [SyncRecord]) throws(SecStatus) {
    guard !records.isEmpty else { return }
    // The rows these records were made from, as outgoingRecords noted them: finding them again by
    // record identifier would open every pending entry's identity, for every batch.
    let keys = outgoingKeys.withLock { known in records.map { known.removeValue(forKey: $0.recordID) } }
    try write { db throws(SecStatus) in
      for (record, key) in zip(records, keys) {
        guard let key else { continue }
        try SQLiteErrors.database {
          try db.run(
            "UPDATE sync_state SET pending = 0 WHERE class = ? AND pk = ? AND spi = ? AND version = ? AND origin = ?",
            key.arguments + [.integer(record.version), .blob(record.origin)])
        }
      }
    }
  }

  // MARK: Incoming

  func applyIncoming(_ records: [(position: Int64, record: SyncRecord)], through cursor: Int64) throws(SecStatus)
    -> SyncApplyReport
  {
    let ring = try keyRing()
    return try write { db throws(SecStatus) in
      guard let (_, keys) = try self.membership(db, ring) else {
        throw SecStatus(errSecNoSuchKeychain, detail: "Sync: the store is in no sync group")
      }
      var report = SyncApplyReport()
      var reached = cursor
      for (position, record) in records {
        do throws(SecStatus) {
          if try self.apply(record, keys, db, ring) {
            report.applied += 1
          } else {
            report.stale += 1
          }
        } catch .interactionNotAllowed {
          report.stoppedLocked = true
          reached = position - 1
          break
        } catch {
          report.rejected += 1
          report.rejections.append("record at server position \(position): \(error.detail ?? error.description)")
        }
      }
      let previous = try db.blob("SELECT value FROM store_info WHERE name = 'sync_cursor'").map(Self.integer) ?? 0
      try SQLiteErrors.database {
        try db.run(
          "INSERT OR REPLACE INTO store_info (name, value) VALUES ('sync_cursor', ?)",
          [.blob(Self.bytes(max(previous, reached)))])
        if report.rejected > 0 {
          let rejected = try db.blob("SELECT value FROM store_info WHERE name = 'sync_rejected'").map(Self.integer) ?? 0
          try db.run(
            "INSERT OR REPLACE INTO store_info (name, value) VALUES ('sync_rejected', ?)",
            [.blob(Self.bytes(Self.saturatingSum(rejected, report.rejected)))])
        }
      }
      return report
    }
  }

  /// Applies one record when it is newer than the store's version of its item. Returns false for
  /// a record that is not newer; throws errSecDecode (with the reason) for one that must be refused.
  private func apply(_ record: SyncRecord, _ keys: SyncKeys, _ db: SQLiteConnection, _ ring: KeyRing)
    throws(SecStatus) -> Bool
  {
    guard SyncJournal.isPlausible(version: record.version) else {
      throw SecStatus(errSecDecode, detail: "its version is outside the range any store makes")
    }
    let plaintext = try keys.open(record)
    let identity: SyncIdentity
    var item: NewItem?
    if record.deleted {
      identity = try SyncIdentity.decoded(plaintext)
    } else {
      let decoded = try SyncPayload.decode(Data(plaintext))
      identity = SyncIdentity(decoded.itemClass, decoded.index)
      item = decoded
    }
    // The contents must be the item the identifier names: a server that moved a record to another
    // item's identifier (or of another group) is caught here even when the seal holds.
    guard try keys.recordID(identity) == record.recordID else {
      throw SecStatus(errSecDecode, detail: "its contents are another item's")
    }
    guard identity.synchronizable == 1 else {
      throw SecStatus(errSecDecode, detail: "it names an item that is not synchronizable")
    }
    let localKey = try identity.localKey(digests(ring))
    // The journal's entry, authenticated: one that fails is as good as none, and the group's
    // authenticated record replaces it.
    let current = try SyncJournal.entry(db, localKey, ring)
    if let current, !record.supersedes(version: current.version, origin: current.origin) {
      let sameVersion = record.version == current.version && record.origin == current.origin
      let pending =
        try db.integer(
          "SELECT pending FROM sync_state WHERE class = ? AND pk = ? AND spi = ?", localKey.arguments) == 1
      // The server keeps the newest version of each item, so once it has given or acknowledged a
      // version it can never hand out an older one: such a record is a replay (a server restored
      // from a backup, or one that lies). An older record while this store's newer version is
      // still unpushed is an ordinary lost conflict.
      if !sameVersion && !pending {
        // The newer version goes to the server again, so that stores which took the replay (one
        // that joined since, say) converge on it instead of keeping the stale one.
        try SQLiteErrors.database {
          try db.run("UPDATE sync_state SET pending = 1 WHERE class = ? AND pk = ? AND spi = ?", localKey.arguments)
        }
        throw SecStatus(errSecDecode, detail: "it is older than a version the server already gave (a replay)")
      }
      return false
    }

    let existing = try existingRow(localKey, db)
    if let item {
      try storeIncoming(item, replacing: existing, db, ring)
    } else if let existing {
      try SQLiteErrors.database { try db.run("DELETE FROM item WHERE id = ?", [.integer(existing.id)]) }
    }
    try SyncJournal.write(
      db, localKey, identity: identity, version: record.version, origin: record.origin, deleted: record.deleted,
      pending: false, ring)
    return true
  }

  private func existingRow(_ key: LocalItemKey, _ db: SQLiteConnection) throws(SecStatus) -> (
    id: Int64, persistentID: Data
  )? {
    let statement = try SQLiteErrors.database {
      try db.statement("SELECT id, persistref FROM item WHERE class = ? AND pk = ? AND spi = ?")
    }
    var found: (Int64, Data)?
    try forEachRow(of: statement, arguments: key.arguments) { row throws(SecStatus) in
      found = (try row.integer(0), try row.blob(1))
      return false
    }
    return found
  }

  /// Writes an incoming item: over the row with its key (keeping that row's persistent reference,
  /// as an update does), or as a new row.
  private func storeIncoming(
    _ item: NewItem, replacing existing: (id: Int64, persistentID: Data)?, _ db: SQLiteConnection, _ ring: KeyRing
  ) throws(SecStatus) {
    let persistentID: Data
    if let existing {
      persistentID = existing.persistentID
    } else {
      do { persistentID = Data(try SecureBytes.random(count: 16)) } catch { throw error.status }
    }
    let identity = try digests(ring).identity(
      item.itemClass, item.index, persistentID: persistentID, hasSecret: item.data != nil)
    let sealed = try RowCodec.seal(
      ring, identity, attributes: item.attributes, accessControl: item.accessControl, data: item.data)
    let columns = Self.rowColumns(identity, sealed)
    try SQLiteErrors.database {
      if let existing {
        try db.run(ItemTable.updateSQL, columns + [.integer(existing.id)])
      } else {
        try db.run(ItemTable.insertSQL, [.text(item.itemClass.rawValue), .blob(persistentID)] + columns)
      }
    }
  }

  // MARK: Housekeeping

  func purgeTombstones(before date: Date) throws(SecStatus) -> Int {
    try write { db throws(SecStatus) in
      let arguments: [SQLArgument] = [.integer(SyncJournal.microseconds(date))]
      let condition = "FROM sync_state WHERE deleted = 1 AND pending = 0 AND changed < ?"
      let count = try db.integer("SELECT COUNT(*) \(condition)", arguments) ?? 0
      try SQLiteErrors.database { try db.run("DELETE \(condition)", arguments) }
      return Int(count)
    }
  }

  func syncSummary() throws(SecStatus) -> SyncJournalSummary {
    var summary = SyncJournalSummary(liveItems: 0, tombstones: 0, pending: 0, rejected: 0)
    try readers.withStatement(
      "SELECT COALESCE(SUM(deleted = 0), 0), COALESCE(SUM(deleted = 1), 0), COALESCE(SUM(pending), 0) FROM sync_state"
    ) { statement throws(SecStatus) in
      try forEachRow(of: statement, arguments: []) { row throws(SecStatus) in
        summary.liveItems = Int(try row.integer(0))
        summary.tombstones = Int(try row.integer(1))
        summary.pending = Int(try row.integer(2))
        return false
      }
    }
    summary.rejected = Int(try readers.storeInfo("sync_rejected").map(Self.integer) ?? 0)
    summary.damaged = Int(try readers.storeInfo("sync_damaged").map(Self.integer) ?? 0)
    return summary
  }

  func hasPendingChanges() throws(SecStatus) -> Bool {
    var pending = false
    try readers.withStatement("SELECT 1 FROM sync_state WHERE pending = 1 LIMIT 1") { statement throws(SecStatus) in
      try forEachRow(of: statement, arguments: []) { _ throws(SecStatus) in
        pending = true
        return false
      }
    }
    return pending
  }

  var writeGeneration: UInt64 { committedWrites.load(ordering: .relaxed) }

  private static func integer(_ data: Data) -> Int64 {
    guard data.count == 8 else { return 0 }
    return data.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
  }

  private static func bytes(_ value: Int64) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }

  /// A counter read from disk plus `count`, saturating: a count is never worth a trap.
  private static func saturatingSum(_ counted: Int64, _ count: Int) -> Int64 {
    let (sum, overflow) = counted.addingReportingOverflow(Int64(count))
    return overflow ? .max : max(sum, 0)
  }
}

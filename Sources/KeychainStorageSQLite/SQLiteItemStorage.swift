import CSQLite
import Dispatch
import Foundation
import KeychainCrypto
import Logging
import Security
import Synchronization

/// The item store on SQLite with every row sealed by AES-256-GCM.
///
/// Row layout: plain columns only for what the query planner must compare (class, sync flag,
/// protection class) and HMAC-SHA-256 digests for searchable values (access group, primary key,
/// account, service, server, label); the attributes themselves live in `meta` and the secret in
/// `secret`, each sealed with associated data that binds it to its row (RowIdentity), so a moved,
/// altered or foreign ciphertext is detected.
///
/// This file holds the ItemStorage operations and their transactions. Opening and migration are in
/// StoreOpening.swift, the format-1 upgrade in RowFormatUpgrade.swift, sealing in RowCodec.swift,
/// digests in SearchDigests.swift, query planning in QueryPlanner.swift, the SQLite error mapping
/// in SQLiteErrors.swift, the connections in SQLiteConnection.swift and checkpoints in
/// WALCheckpointer.swift.
final class SQLiteItemStorage: ItemStorage {
  let files: StoreFiles
  let hasPassphrase: Bool
  /// The one writing connection; nil for a read-only store.
  let writer: SQLiteWriter?
  /// Whether the store was opened read-only (every change is errSecReadOnly).
  let isReadOnly: Bool
  let readers: ReadConnections
  private let keyFileContents: [UInt8]
  private let keys: Mutex<KeyRing>
  private let checkpointer: WALCheckpointer
  let integrity: IntegrityMonitor
  /// This store's identifier in the sync records it makes (random, made with the store).
  let storeID: Data
  /// Write transactions committed through this object: a sync engine's cue to look for changes.
  let committedWrites = Atomic<UInt64>(0)
  /// The journal rows of the records outgoingRecords made and the server has not acknowledged yet.
  let outgoingKeys = Mutex<[Data: LocalItemKey]>([:])
  private let groupDigests = GroupDigestCache()
  private let plans = PlanCache()

  /// Opens (creating if needed) the store in `directory`.
  ///
  /// A new store is protected by `passphrase` when one is given, else by a key file. An existing
  /// passphrase store opened without its passphrase stays sealed until `unlock(passphrase:)`. A
  /// store this process cannot write (a read-only mount or directory) is opened read-only: searches
  /// work, and every change is errSecReadOnly.
  init(directory: URL, passphrase: String?) throws(KeychainStoreError) {
    files = StoreFiles(directory: directory)
    try files.prepareDirectory()
    isReadOnly = files.isReadOnly
    checkpointer = WALCheckpointer(path: files.databasePath)
    let opened = try files.whileLockedForOpening { [files, isReadOnly, checkpointer] () throws(KeychainStoreError) in
      try Self.openDatabase(files, readOnly: isReadOnly, checkpointer: checkpointer, passphrase: passphrase)
    }
    writer = opened.writer
    readers = opened.readers
    keyFileContents = opened.keyFile
    hasPassphrase = opened.protection == .passphrase
    // A process that gives a passphrase asked for a passphrase store: handing it one without (made
    // by another process a moment earlier, or planted) would be a silent downgrade.
    if !hasPassphrase && passphrase != nil { throw Self.noPassphrase(files) }
    var ring = KeyRing.sealed
    if let created = opened.createdRing {
      ring = created
    } else if !hasPassphrase || passphrase != nil {
      ring = try Self.unlockedRing(keyFileContents, passphrase: passphrase, files: files)
      try Self.verify(ring, against: opened.keyCheck, readers: readers, in: writer, files: files)
    }
    keys = Mutex(ring)
    integrity = IntegrityMonitor(databasePath: files.databasePath)
    do {
      storeID = try readers.storeInfo("store_id") ?? Data(count: SyncKeys.originLength)
    } catch {
      throw KeychainStoreError(
        status: error.code, message: "Cannot read the store identifier of \(files.databasePath).")
    }
    if ring.metadataKey != nil {
      try upgradeRowFormat(ring)
      try upgradeJournalFormat(ring)
    }
  }

  deinit {
    // The writer's WAL hook points at the checkpointer: remove it while both are alive.
    writer?.withConnection { connection in checkpointer.unwatch(connection) }
  }

  // MARK: Lock state

  var isLocked: Bool { keys.withLock { $0.locked } }

  /// Whether the store key itself is in memory (false after lock), for tests.
  var holdsStoreKey: Bool { keys.withLock { $0.storeKey != nil } }

  func lock() {
    keys.withLock { $0.lock() }
  }

  /// The refusal of a passphrase for a store that was created without one.
  static func noPassphrase(_ files: StoreFiles) -> KeychainStoreError {
    KeychainStoreError(
      status: errSecAuthFailed,
      message:
        "The store in \(files.directory.path) was created without a passphrase, but one was given: open it without one."
    )
  }

  func unlock(passphrase: String?) throws(SecStatus) {
    if !hasPassphrase && passphrase != nil {
      throw SecStatus(errSecAuthFailed, detail: Self.noPassphrase(files).message)
    }
    let ring: KeyRing
    do {
      ring = try Self.unlockedRing(keyFileContents, passphrase: passphrase, files: files)
      let stored = try readers.storeInfo("key_check")
      try Self.verify(ring, against: stored.map { [UInt8]($0) }, readers: readers, in: writer, files: files)
    } catch let error as KeychainStoreError {
      throw SecStatus(error.status)
    } catch {
      throw .notAvailable
    }
    do {
      try upgradeRowFormat(ring)
      try upgradeJournalFormat(ring)
    } catch {
      throw SecStatus(error.status)
    }
    keys.withLock { $0 = ring }
  }

  /// The keys for one call: errSecInteractionNotAllowed while the store is sealed.
  func keyRing() throws(SecStatus) -> KeyRing {
    let ring = keys.withLock { $0 }
    guard ring.metadataKey != nil, ring.indexKey != nil else { throw .interactionNotAllowed }
    return ring
  }

  func digests(_ ring: KeyRing) -> SearchDigests { SearchDigests(ring: ring, groups: groupDigests) }

  private func planner(_ ring: KeyRing) -> QueryPlanner { QueryPlanner(digests: digests(ring), cache: plans) }

  // MARK: ItemStorage

  func insert(_ item: NewItem) throws(SecStatus) -> StoredItem {
    let ring = try keyRing()
    return try write { db throws(SecStatus) in try self.insertRow(db, item, ring) }
  }

  func insertBatch(_ items: [NewItem], skippingDuplicates: Bool) throws(SecStatus) -> Int {
    let ring = try keyRing()
    return try write { db throws(SecStatus) in
      var added = 0
      for item in items {
        do throws(SecStatus) {
          _ = try self.insertRow(db, item, ring)
          added += 1
        } catch .duplicateItem where skippingDuplicates {
          // A failed INSERT undoes only itself in SQLite: the transaction goes on.
          continue
        }
      }
      return added
    }
  }

  func find(_ filter: ItemFilter, limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [StoredItem] {
    let ring = try keyRing()
    let plan = try planner(ring).plan(filter)
    // One SELECT, which SQLite runs as one implicit read transaction on a WAL snapshot.
    return try readers.withStatement(plan.sql) { statement throws(SecStatus) in
      try self.select(statement, plan, filter, limit: limit, fetch: fetch, ring).map(\.item)
    }
  }

  func replace(_ replacements: [ItemReplacement]) throws(SecStatus) -> ReplacementOutcome {
    let ring = try keyRing()
    return try write { db throws(SecStatus) in try self.replaceRows(db, replacements, ring) }
  }

  func delete(_ filter: ItemFilter) throws(SecStatus) -> Int {
    let ring = try keyRing()
    return try write(freesSpace: true) { db throws(SecStatus) in
      let rows = try self.select(db, filter, limit: nil, fetch: ItemFetch(attributes: false, data: false), ring)
      guard !rows.isEmpty else { throw .itemNotFound }
      for row in rows where SyncJournal.isSyncable(row.identity) {
        try SyncJournal.noteDeleted(db, row.identity, origin: self.storeID, ring) { () throws(SecStatus) in
          try self.index(ofRow: row.id, db, ring)
        }
      }
      let ids = rows.map(\.id)
      if ids.count == 1 {
        try SQLiteErrors.database { try db.run("DELETE FROM item WHERE id = ?", [.integer(ids[0])]) }
        return 1
      }
      for start in stride(from: 0, to: ids.count, by: 500) {
        let chunk = Array(ids[start..<min(start + 500, ids.count)])
        let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
        try SQLiteErrors.database { try db.run("DELETE FROM item WHERE id IN (\(marks))", chunk.map { .integer($0) }) }
      }
      return ids.count
    }
  }

  // MARK: Integrity

  /// Authenticates every row of the store: its columns, metadata and, where its class key is in
  /// memory, its secret.
  func checkIntegrity() throws(SecStatus) -> KeychainIntegrityReport {
    let ring = try keyRing()
    var checked = 0
    var damaged = 0
    try readers.withStatement("SELECT \(ItemTable.selectList) FROM item ORDER BY id") { statement throws(SecStatus) in
      try forEachRow(of: statement, arguments: []) { row throws(SecStatus) in
        checked += 1
        do throws(SecStatus) {
          let record = try RowCodec.decode(row, fetch: ItemFetch(attributes: true, data: false), ring)
          if let sealedSecret = record.sealedSecret, (try? ring.classKey(for: record.identity.protection)) != nil {
            _ = try RowCodec.openSecret(sealedSecret, of: record.identity, ring)
          }
        } catch .decode {
          damaged += 1
        }
        return true
      }
    }
    return KeychainIntegrityReport(
      checkedItems: checked, damagedItems: damaged, skippedSinceOpen: integrity.skippedRows)
  }

  // MARK: Rows

  /// The values of `ItemTable.writtenColumns`, in their order: what both row writes set.
  static func rowColumns(_ identity: RowIdentity, _ sealed: (meta: Data, secret: Data?)) -> [SQLArgument] {
    [
      .blob(identity.accessGroup), .integer(identity.synchronizable), .text(identity.protection),
      .blob(identity.primaryKey), .blob(identity.spiKey),
    ] + identity.searchDigests.map(SQLArgument.optionalBlob) + [.blob(sealed.meta), .optionalBlob(sealed.secret)]
  }

  private func insertRow(_ db: SQLiteConnection, _ item: NewItem, _ ring: KeyRing) throws(SecStatus) -> StoredItem {
    let persistentID: Data
    do { persistentID = Data(try SecureBytes.random(count: 16)) } catch { throw error.status }
    let identity = try digests(ring).identity(
      item.itemClass, item.index, persistentID: persistentID, hasSecret: item.data != nil)
    let sealed = try RowCodec.seal(
      ring, identity, attributes: item.attributes, accessControl: item.accessControl, data: item.data)
    let arguments = [.text(item.itemClass.rawValue), .blob(persistentID)] + Self.rowColumns(identity, sealed)
    try executeReplacingCorruptRow(db, ItemTable.insertSQL, arguments, identity, ring)
    try SyncJournal.noteLive(db, identity, item.index, origin: storeID, ring)
    return StoredItem(
      itemClass: item.itemClass, persistentID: persistentID, attributes: item.attributes,
      accessControl: item.accessControl, data: item.data)
  }

  /// Runs an insert or update of a row with `identity`'s key. On a clash with a row that no longer
  /// decrypts, that row is removed and the statement run again: a damaged row must not make its
  /// key unusable for ever. A clash with a sound row is errSecDuplicateItem.
  private func executeReplacingCorruptRow(
    _ db: SQLiteConnection, _ sql: String, _ arguments: [SQLArgument], _ identity: RowIdentity,
    _ ring: KeyRing
  ) throws(SecStatus) {
    do {
      try db.run(sql, arguments)
    } catch  where SQLiteErrors.isConstraint(error) {
      try removeCorruptRow(db, identity, ring)
      try SQLiteErrors.database { try db.run(sql, arguments) }
    } catch {
      throw SQLiteErrors.status(for: error)
    }
  }

  /// Deletes the row holding `identity`'s key if it is corrupt; errSecDuplicateItem if it is sound.
  private func removeCorruptRow(_ db: SQLiteConnection, _ identity: RowIdentity, _ ring: KeyRing) throws(SecStatus) {
    let statement = try SQLiteErrors.database {
      try db.statement("SELECT \(ItemTable.selectList) FROM item WHERE class = ? AND pk = ? AND spi = ?")
    }
    var corruptID: Int64?
    var found = false
    try forEachRow(
      of: statement,
      arguments: [.text(identity.itemClass.rawValue), .blob(identity.primaryKey), .blob(identity.spiKey)]
    ) { row throws(SecStatus) in
      found = true
      do throws(SecStatus) {
        _ = try RowCodec.decode(row, fetch: ItemFetch(attributes: true, data: false), ring)
      } catch .decode {
        corruptID = try row.integer(ItemColumn.id.rawValue)
      }
      return false
    }
    guard found, let corruptID else { throw .duplicateItem }
    try SQLiteErrors.database { try db.run("DELETE FROM item WHERE id = ?", [.integer(corruptID)]) }
  }

  /// Runs a search plan inside a write transaction.
  private func select(_ db: SQLiteConnection, _ filter: ItemFilter, limit: Int?, fetch: ItemFetch, _ ring: KeyRing)
    throws(SecStatus) -> [RowRecord]
  {
    let plan = try planner(ring).plan(filter)
    let statement = try SQLiteErrors.database { try db.statement(plan.sql) }
    return try select(statement, plan, filter, limit: limit, fetch: fetch, ring)
  }

  /// Runs a search plan over the rows, authenticating each and decrypting what `fetch` and the
  /// API's verdict need.
  ///
  /// A row that fails authentication is skipped and reported, as Apple skips corrupt rows (rule
  /// 3.8), so one damaged row does not deny access to every other item. When the search found only
  /// damaged rows it answers errSecDecode: the item it targets exists but cannot be trusted.
  private func select(
    _ statement: OpaquePointer, _ plan: SearchPlan, _ filter: ItemFilter, limit: Int?, fetch: ItemFetch,
    _ ring: KeyRing
  ) throws(SecStatus) -> [RowRecord] {
    var rowFetch = fetch
    rowFetch.attributes = fetch.attributes || plan.needsPostFilter
    // A secret is opened only for a row that is part of the answer: one the API's verdict drops, or
    // one past the limit once the rows are in insertion order, must neither cost a decryption nor,
    // while locked, turn the answer into errSecInteractionNotAllowed. Where neither can happen
    // (the common case), `decode` opens it with the metadata, sharing the associated data.
    let opensSecretsLater = fetch.data && (plan.needsPostFilter || plan.sortsInMemory)
    if opensSecretsLater { rowFetch.data = false }
    var records: [RowRecord] = []
    var damaged = 0
    /// Opens a later-opened row's secret; false when it fails authentication (counted).
    func openSecret(_ record: inout RowRecord) throws(SecStatus) -> Bool {
      guard let sealedSecret = record.sealedSecret else { return true }
      do throws(SecStatus) {
        record.item.data = try RowCodec.openSecret(sealedSecret, of: record.identity, ring)
        return true
      } catch .decode {
        damaged += 1
        return false
      }
    }
    try forEachRow(of: statement, arguments: plan.arguments) { row throws(SecStatus) in
      var record: RowRecord
      do throws(SecStatus) {
        record = try RowCodec.decode(row, fetch: rowFetch, ring)
      } catch .decode {
        damaged += 1
        return true
      }
      // An authentic row that does not carry the values SQLite selected it by was reached through a
      // damaged index entry.
      guard plan.expected.admit(record.identity) else {
        damaged += 1
        return true
      }
      if plan.needsPostFilter && !filter.matches(record.item) { return true }
      if opensSecretsLater && !plan.sortsInMemory {
        guard try openSecret(&record) else { return true }
      }
      records.append(record)
      if let limit, !plan.sortsInMemory { return records.count < limit }
      return true
    }
    if plan.sortsInMemory {
      records.sort { $0.id < $1.id }
      if opensSecretsLater {
        var answer: [RowRecord] = []
        for var record in records {
          if let limit, answer.count >= limit { break }
          if try openSecret(&record) { answer.append(record) }
        }
        records = answer
      } else if let limit, records.count > limit {
        records.removeSubrange(limit...)
      }
    }
    if damaged > 0 {
      integrity.report(damagedRows: damaged, itemClass: filter.itemClass)
      if records.isEmpty { throw .decode }
    }
    return records
  }

  /// SQLite's query plan for a search, for tests that prove the indexes are used.
  func queryPlan(for filter: ItemFilter) throws(SecStatus) -> [String] {
    let ring = try keyRing()
    let plan = try planner(ring).plan(filter)
    var details: [String] = []
    try readers.withStatement("EXPLAIN QUERY PLAN " + plan.sql) { statement throws(SecStatus) in
      try forEachRow(of: statement, arguments: plan.arguments) { row throws(SecStatus) in
        details.append(try row.text(3))
        return true
      }
    }
    return details
  }

  /// Replaces rows at their expected versions: every row is read and checked before any is
  /// written, so a row that changed since the caller read it leaves the transaction empty.
  private func replaceRows(_ db: SQLiteConnection, _ replacements: [ItemReplacement], _ ring: KeyRing)
    throws(SecStatus) -> ReplacementOutcome
  {
    let statement = try SQLiteErrors.database {
      try db.statement("SELECT \(ItemTable.selectList) FROM item WHERE persistref = ? AND class = ?")
    }
    var current: [RowRecord] = []
    current.reserveCapacity(replacements.count)
    for replacement in replacements {
      var found: RowRecord?
      try forEachRow(
        of: statement, arguments: [.blob(replacement.persistentID), .text(replacement.itemClass.rawValue)]
      ) { row throws(SecStatus) in
        found = try RowCodec.decode(row, fetch: ItemFetch(attributes: true, data: false, version: true), ring)
        return false
      }
      guard let found, found.item.version == replacement.expected else { return .changedSinceRead }
      current.append(found)
    }
    var replaced = 0
    var damaged = 0
    for (record, replacement) in zip(current, replacements) {
      let revision = replacement.revision
      // A secret sealed under the old identity or protection is reopened to be sealed again: this
      // also makes WhenUnlocked items unchangeable while locked.
      var data = revision.data
      if data == nil, let sealedSecret = record.sealedSecret {
        do throws(SecStatus) {
          data = try RowCodec.openSecret(sealedSecret, of: record.identity, ring)
        } catch .decode {
          // Its metadata is sound but its secret is not: the row is left as it is, like any
          // damaged row a search meets.
          damaged += 1
          continue
        }
      } else {
        _ = try ring.classKey(for: record.identity.protection)
      }
      let identity = try digests(ring).identity(
        record.item.itemClass, revision.index, persistentID: record.item.persistentID, hasSecret: data != nil)
      let sealed = try RowCodec.seal(
        ring, identity, attributes: revision.attributes, accessControl: revision.accessControl, data: data)
      let arguments = Self.rowColumns(identity, sealed) + [.integer(record.id)]
      try executeReplacingCorruptRow(db, ItemTable.updateSQL, arguments, identity, ring)
      try journalRevision(db, before: record, after: identity, revision.index, ring)
      replaced += 1
    }
    if damaged > 0 {
      integrity.report(damagedRows: damaged, itemClass: current[0].item.itemClass)
      if replaced == 0 { throw .decode }
    }
    return .replaced(replaced)
  }

  /// Journals an update: a tombstone for the old item when it stops being the same synchronizable
  /// item (its primary key, sync flag or accessibility changed), and a new version of the new one.
  private func journalRevision(
    _ db: SQLiteConnection, before: RowRecord, after: RowIdentity, _ index: ItemIndex, _ ring: KeyRing
  ) throws(SecStatus) {
    let wasSyncable = SyncJournal.isSyncable(before.identity)
    if wasSyncable && (!SyncJournal.isSyncable(after) || LocalItemKey(before.identity) != LocalItemKey(after)) {
      try SyncJournal.noteDeleted(db, before.identity, origin: storeID, ring) { () throws(SecStatus) in
        try ItemRows.index(before.item.itemClass, before.item.attributes)
      }
    }
    try SyncJournal.noteLive(db, after, index, origin: storeID, ring)
  }

  /// The index values of the row with this id, read from its metadata.
  func index(ofRow id: Int64, _ db: SQLiteConnection, _ ring: KeyRing) throws(SecStatus) -> ItemIndex {
    let statement = try SQLiteErrors.database {
      try db.statement("SELECT \(ItemTable.selectList) FROM item WHERE id = ?")
    }
    var found: StoredItem?
    try forEachRow(of: statement, arguments: [.integer(id)]) { row throws(SecStatus) in
      found = try RowCodec.decode(row, fetch: ItemFetch(attributes: true, data: false), ring).item
      return false
    }
    guard let found else { throw .itemNotFound }
    return try ItemRows.index(found.itemClass, found.attributes)
  }

  // MARK: Transactions

  /// Runs `body` in one `BEGIN IMMEDIATE` transaction; any thrown status rolls everything back.
  ///
  /// A transaction that fails for want of space is tried once more after a truncating checkpoint:
  /// the WAL holds every commit since the last checkpoint, and moving it into the database file
  /// (whose freed pages are reused) gives its space back. A transaction that frees space (a delete)
  /// may also use the space reserve for that checkpoint; adds and updates may not, so the reserve is
  /// still there when the disk is full and only a delete can help.
  func write<T>(freesSpace: Bool = false, _ body: (SQLiteConnection) throws(SecStatus) -> T) throws(SecStatus) -> T {
    guard let writer else { throw SecStatus(errSecReadOnly) }
    func transaction() throws -> T {
      let value = try writer.transaction { connection in try body(connection) }
      committedWrites.add(1, ordering: .relaxed)
      return value
    }
    do {
      return try transaction()
    } catch  where SQLiteErrors.isOutOfSpace(error) {
      storeLogger.notice(
        "A write ran out of space; checkpointing the WAL and trying once more",
        metadata: ["database": .string(files.databasePath), "freesSpace": .stringConvertible(freesSpace)])
      // The reserve file gives the checkpoint room to move the WAL's last pages into the database.
      if freesSpace { _ = files.releaseSpaceReserve() }
      do {
        _ = writer.withConnection { connection in WALCheckpointer.checkpointTruncating(connection) }
        let value = try transaction()
        files.createSpaceReserve()
        return value
      } catch {
        throw SQLiteErrors.status(for: error)
      }
    } catch {
      throw SQLiteErrors.status(for: error)
    }
  }
}

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
/// This file holds the ItemStorage operations and their transactions; writing rows is in
/// SQLiteItemStorage+Rows.swift and searching them in SQLiteItemStorage+Search.swift. Opening and
/// migration are in StoreOpening.swift, the format-1 upgrade in RowFormatUpgrade.swift, the
/// table's columns in ItemTable.swift, sealing in RowCodec.swift,
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
  /// The key file as read at opening, for unlocking later: for a store without a passphrase it
  /// is the store key itself, so it is held as key material.
  private let keyFileContents: SecretKey
  private let keys: Mutex<KeyRing>
  private let checkpointer: WALCheckpointer
  let integrity: IntegrityMonitor
  /// Write transactions committed through this object: a replicator's cue to look for changes.
  let committedWrites = Atomic<UInt64>(0)
  private let groupDigests = GroupDigestCache()
  /// The rows of the writer's last read with versions, for the `replace` that follows it.
  let versionedReads = VersionedReadCache()

  /// Opens (creating if needed) the store in `directory`.
  ///
  /// A new store is protected by `passphrase` when one is given, else by a key file. An existing
  /// passphrase store opened without its passphrase stays sealed until `unlock(passphrase:)`. A
  /// store this process cannot write (a read-only mount or directory) is opened read-only: searches
  /// work, and every change is errSecReadOnly.
  /// `sealing` opens a key file sealed to this machine's TPM, and seals a new store's when it says so.
  init(directory: URL, passphrase: String?, sealing: KeyFileSealing? = nil) throws(KeychainStoreError) {
    files = StoreFiles(directory: directory)
    try files.prepareDirectory()
    isReadOnly = files.isReadOnly
    checkpointer = WALCheckpointer(path: files.databasePath)
    let opened = try files.whileLockedForOpening { [files, isReadOnly, checkpointer] () throws(KeychainStoreError) in
      try Self.openDatabase(
        files, readOnly: isReadOnly, checkpointer: checkpointer, passphrase: passphrase, sealing: sealing)
    }
    writer = opened.writer
    readers = opened.readers
    var keyFile = opened.keyFile
    do {
      keyFileContents = try SecretKey(taking: &keyFile)
    } catch {
      throw KeychainStoreError(status: error.status.code, message: "Cannot hold the store's key file: \(error).")
    }
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
    if ring.metadataKey != nil {
      try upgradeRowFormat(ring)
      try migrateLegacyJournal(ring)
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

  /// Drops every key the store holds, for a process that is about to exit (keychaind on SIGTERM):
  /// they are wiped once no call in flight holds them, and the store answers as a sealed one.
  func dropKeys() {
    keys.withLock { $0.close() }
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
    var bytes = passphrase.map { Array($0.utf8) }
    defer { if bytes != nil { SecureBytes.wipe(&bytes!) } }
    try unlock(passphraseBytes: bytes)
  }

  func unlock(passphraseBytes passphrase: [UInt8]?) throws(SecStatus) {
    if !hasPassphrase && passphrase != nil {
      throw SecStatus(errSecAuthFailed, detail: Self.noPassphrase(files).message)
    }
    let ring: KeyRing
    do {
      ring = try Self.unlockedRing(keyFileContents, passphraseBytes: passphrase, files: files)
      let stored = try readers.storeInfo("key_check")
      try Self.verify(ring, against: stored.map { [UInt8]($0) }, readers: readers, in: writer, files: files)
    } catch let error as KeychainStoreError {
      throw SecStatus(error.status)
    } catch {
      throw .notAvailable
    }
    do {
      try upgradeRowFormat(ring)
      try migrateLegacyJournal(ring)
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

  func planner(_ ring: KeyRing) -> QueryPlanner { QueryPlanner(digests: digests(ring)) }

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
    if fetch.version, let writer {
      // A read with versions comes just before a `replace` of the same rows, so it runs where that
      // write will: SQLite empties a connection's page cache whenever another connection has
      // committed, so on a reader every update would read its rows' pages from the file again
      // (keychain-bench: about 80 µs of a 270 µs update), while the writer's cache holds them.
      let answer = writer.withConnection { db in
        Result { () throws(SecStatus) in
          let records = try self.select(db, filter, limit: limit, fetch: fetch, ring)
          // With its attributes, every row's metadata was authenticated: `replace` may take it.
          if fetch.attributes { self.versionedReads.remember(records, readBy: db) }
          return records.map(\.item)
        }
      }
      return try answer.get()
    }
    let plan = try planner(ring).plan(filter)
    // One SELECT, which SQLite runs as one implicit read transaction on a WAL snapshot.
    return try readers.withStatement(plan.sql) { statement throws(SecStatus) in
      try self.select(statement, plan, filter, limit: limit, fetch: fetch, ring).map(\.item)
    }
  }

  func find(each filters: [ItemFilter], limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [[StoredItem]] {
    let ring = try keyRing()
    return try readers.withSnapshot { db throws(SecStatus) in
      try filters.map { filter throws(SecStatus) in
        try self.select(db, filter, limit: limit, fetch: fetch, ring).map(\.item)
      }
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
      for row in rows { try self.feedLocalRemoval(db, row.identity, ring) }
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
          var record = try RowCodec.decode(row, fetch: ItemFetch(attributes: true, data: false), ring)
          if record.sealedSecret != nil, (try? ring.classKey(for: record.identity.protection)) != nil {
            try record.openSecret(ring)
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

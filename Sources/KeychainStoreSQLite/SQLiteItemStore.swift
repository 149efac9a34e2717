import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import Logging
import Security
import Synchronization

/// The item store on SQLite (through GRDB) with every row sealed by AES-256-GCM.
///
/// Row layout: plain columns only for what the query planner must compare (class, sync flag,
/// protection class) and HMAC-SHA-256 digests for searchable values (access group, primary key,
/// account, service, server, label); the attributes themselves live in `meta` and the secret in
/// `secret`, each sealed with associated data that binds it to its row (class, persistent id, the
/// digests and the protection class), so a moved, altered or foreign ciphertext is detected.
final class SQLiteItemStore: ItemStore {
  let files: StoreFiles
  let hasPassphrase: Bool
  /// The writer's connection pool; nil for a read-only store.
  private let pool: DatabasePool?
  /// Whether the store was opened read-only (every change is errSecReadOnly).
  let isReadOnly: Bool
  private let readers: ReadConnections
  private let keyFileContents: [UInt8]
  private let keys: Mutex<KeyRing>
  private let checkpointer: WALCheckpointer
  private let integrity: IntegrityMonitor

  /// Digest columns the planner can search by, besides the primary key.
  private static let searchColumns = [
    SecConstantValue.attrAccount, SecConstantValue.attrService, SecConstantValue.attrServer, SecConstantValue.attrLabel,
  ]
  /// Apple's SPI primary-key attributes (rule 2.1), compared as one digest in the `spi` column.
  private static let spiPrimaryKey = [
    SecConstantValue.attrSyncViewHint, SecConstantValue.attrTokenID, SecConstantValue.attrSharingGroup,
  ]
  private static let digestLength = 16

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
    pool = opened.pool
    readers = opened.readers
    keyFileContents = opened.keyFile
    do {
      hasPassphrase = try KeyFile.needsPassphrase(keyFileContents)
    } catch {
      throw KeychainStoreError(status: errSecDecode, message: "The key file \(files.keyFilePath) is damaged.")
    }
    var ring = KeyRing.sealed
    if !hasPassphrase || passphrase != nil {
      ring = try Self.unlockedRing(keyFileContents, passphrase: passphrase, files: files)
      try Self.verify(ring, against: opened.keyCheck, in: pool, files: files)
    }
    keys = Mutex(ring)
    integrity = IntegrityMonitor(databasePath: files.databasePath)
    if ring.metadataKey != nil { try upgradeRowFormat(ring) }
  }

  /// What opening a store's files gives: its connections, its key file and its key check.
  private struct OpenedDatabase {
    var pool: DatabasePool?
    var readers: ReadConnections
    var keyFile: [UInt8]
    var keyCheck: [UInt8]?
  }

  /// Opens, and for a new store creates, the database and the key file. Runs under the directory
  /// lock, so that concurrent first opens cannot see each other's half-made store.
  private static func openDatabase(
    _ files: StoreFiles, readOnly: Bool, checkpointer: WALCheckpointer, passphrase: String?
  ) throws(KeychainStoreError) -> OpenedDatabase {
    let pool: DatabasePool?
    let readers: ReadConnections
    let keyCheck: [UInt8]?
    if readOnly {
      guard FileManager.default.fileExists(atPath: files.databasePath) else {
        throw KeychainStoreError(
          status: errSecNoSuchKeychain,
          message: "\(files.directory.path) is read-only and holds no keychain store to open.")
      }
      try files.checkPrivate(files.databasePath, what: "database")
      pool = nil
      // A cleanly closed store has no WAL; on a read-only file system SQLite could not create the
      // shared-memory file a WAL reader needs, so such a database is opened as immutable.
      readers = ReadConnections(path: files.databasePath, immutable: !files.hasWriteAheadLog)
      keyCheck = try readOnlySchemaCheck(readers, path: files.databasePath)
    } else {
      try files.prepareDatabaseFile()
      files.createSpaceReserve()
      let opened = try openPool(path: files.databasePath, checkpointer: checkpointer)
      keyCheck = try migrate(opened, path: files.databasePath)
      pool = opened
      readers = ReadConnections(path: files.databasePath, immutable: false)
    }
    if let existing = try files.readKeyFile() {
      return OpenedDatabase(pool: pool, readers: readers, keyFile: existing, keyCheck: keyCheck)
    }
    guard keyCheck == nil else {
      throw KeychainStoreError(
        status: errSecAuthFailed,
        message:
          "The key file \(files.keyFilePath) is missing; the items in \(files.databasePath) cannot be decrypted without it."
      )
    }
    guard !readOnly else {
      throw KeychainStoreError(
        status: errSecReadOnly, message: "\(files.directory.path) is read-only and has no key file yet.")
    }
    let storeKey: [UInt8]
    do { storeKey = try OpenSSLCrypto.randomBytes(OpenSSLCrypto.keyLength) } catch {
      throw KeychainStoreError(status: errSecAllocate, message: "The random number generator failed.")
    }
    let sealedKey: [UInt8]
    do {
      sealedKey = try KeyFile.encode(storeKey: storeKey, passphrase: passphrase)
    } catch {
      throw KeychainStoreError(status: error.code, message: "Cannot seal the new store key.")
    }
    let keyFile = try files.createKeyFile(sealedKey)
    return OpenedDatabase(pool: pool, readers: readers, keyFile: keyFile, keyCheck: keyCheck)
  }

  /// Checks that a database opened read-only is a keychain store in the current row format, and
  /// returns its key check.
  private static func readOnlySchemaCheck(_ readers: ReadConnections, path: String) throws(KeychainStoreError)
    -> [UInt8]?
  {
    let format: Data?
    let keyCheck: Data?
    do {
      let tables = try readers.strings("SELECT name FROM sqlite_master WHERE type = 'table'")
      guard tables.contains("store_info") else {
        throw KeychainStoreError(
          status: errSecInvalidKeychain,
          message: "\(path) is not a keychain store; it was opened read-only and left untouched.")
      }
      format = try readers.storeInfo("row_format")
      keyCheck = try readers.storeInfo("key_check")
    } catch let error as KeychainStoreError {
      throw error
    } catch let status as SecStatus {
      throw KeychainStoreError(status: status.code, message: "Cannot read \(path) (read-only): \(status).")
    } catch {
      throw KeychainStoreError(status: errSecNotAvailable, message: "Cannot read \(path) (read-only).")
    }
    guard format == Data([2]) else {
      throw KeychainStoreError(
        status: errSecReadOnly,
        message: "\(path) was written by an older version and is read-only here; open it once where it can be written.")
    }
    return keyCheck.map { [UInt8]($0) }
  }

  // MARK: Opening

  private static func openPool(path: String, checkpointer: WALCheckpointer) throws(KeychainStoreError)
    -> DatabasePool
  {
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    configuration.label = "keychain-bridge"
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = FULL")
      // Deleted rows are overwritten with zeros rather than left in free pages. SQLite's default for
      // this differs between builds, so it is set here.
      try db.execute(sql: "PRAGMA secure_delete = ON")
      // A WAL restarted after a checkpoint is cut back to this size, so one burst of writes does
      // not keep its space for ever.
      try db.execute(sql: "PRAGMA journal_size_limit = 4194304")
      // Checkpoints run on a background queue (WALCheckpointer), never in the caller's commit. This
      // pragma removes SQLite's own WAL hook, so the checkpointer's is installed after it.
      try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
      if !db.configuration.readonly { checkpointer.watch(db) }
    }
    do {
      return try DatabasePool(path: path, configuration: configuration)
    } catch {
      throw KeychainStoreError(
        status: Self.status(for: error).code, message: "Cannot open \(path) as a keychain database.")
    }
  }

  /// Creates the schema in a new database, refuses a foreign one, and returns the stored key check.
  private static func migrate(_ pool: DatabasePool, path: String) throws(KeychainStoreError) -> [UInt8]? {
    do {
      let isForeign = try pool.read { db in
        let tables = try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        return !tables.isEmpty && !tables.contains("store_info")
      }
      if isForeign {
        throw KeychainStoreError(
          status: errSecInvalidKeychain,
          message: "\(path) is an SQLite database of another program, not a keychain store; it was left untouched.")
      }
      var migrator = DatabaseMigrator()
      migrator.registerMigration("v1") { db in
        try db.execute(
          sql: """
            CREATE TABLE store_info (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL);
            CREATE TABLE item (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              class TEXT NOT NULL,
              persistref BLOB NOT NULL UNIQUE,
              agrp BLOB NOT NULL,
              sync INTEGER NOT NULL,
              pdmn TEXT NOT NULL,
              pk BLOB NOT NULL,
              spi BLOB NOT NULL,
              acct BLOB, svce BLOB, srvr BLOB, labl BLOB,
              meta BLOB NOT NULL,
              secret BLOB,
              UNIQUE (class, pk, spi)
            );
            CREATE INDEX item_acct ON item (class, acct);
            CREATE INDEX item_svce ON item (class, svce);
            CREATE INDEX item_srvr ON item (class, srvr);
            CREATE INDEX item_labl ON item (class, labl);
            """)
      }
      // Row format 2 binds the search digests and the secret's presence into each row's sealing.
      // Rows written before it are sealed again by upgradeRowFormat once the keys are at hand.
      migrator.registerMigration("v2-row-format") { db in
        let hasItems = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM item)") ?? false
        try db.execute(
          sql: "INSERT INTO store_info (name, value) VALUES ('row_format', ?)", arguments: [Data([hasItems ? 1 : 2])])
      }
      try migrator.migrate(pool)
      return try pool.read { db in
        try Data.fetchOne(db, sql: "SELECT value FROM store_info WHERE name = 'key_check'").map { [UInt8]($0) }
      }
    } catch let error as KeychainStoreError {
      throw error
    } catch {
      throw KeychainStoreError(
        status: Self.status(for: error).code,
        message: "\(path) is not a valid keychain database (\(Self.status(for: error))).")
    }
  }

  private static func unlockedRing(_ contents: [UInt8], passphrase: String?, files: StoreFiles)
    throws(KeychainStoreError) -> KeyRing
  {
    let storeKey: [UInt8]
    do {
      storeKey = try KeyFile.decode(contents, passphrase: passphrase)
    } catch let status {
      let reason =
        status == .authFailed
        ? "The passphrase is wrong." : "The key file \(files.keyFilePath) is damaged or unreadable."
      throw KeychainStoreError(status: status.code, message: reason)
    }
    do {
      return try KeyRing(storeKey: storeKey)
    } catch {
      throw KeychainStoreError(status: error.status.code, message: "Cannot derive the store's keys: \(error).")
    }
  }

  /// Records the key check of a new store, or refuses a key that is not the database's.
  private static func verify(_ ring: KeyRing, against stored: [UInt8]?, in pool: DatabasePool?, files: StoreFiles)
    throws(KeychainStoreError)
  {
    guard let check = ring.keyCheck else { return }
    if let stored {
      guard stored == check else {
        throw KeychainStoreError(
          status: errSecAuthFailed,
          message: "The key file \(files.keyFilePath) does not belong to the database \(files.databasePath).")
      }
      return
    }
    guard let pool else {
      throw KeychainStoreError(
        status: errSecReadOnly, message: "\(files.databasePath) is read-only and has no key check recorded yet.")
    }
    do {
      try pool.write { db in
        try db.execute(
          sql: "INSERT OR IGNORE INTO store_info (name, value) VALUES ('key_check', ?)", arguments: [Data(check)])
      }
      let winner = try pool.read { db in
        try Data.fetchOne(db, sql: "SELECT value FROM store_info WHERE name = 'key_check'").map { [UInt8]($0) }
      }
      guard winner == check else {
        throw KeychainStoreError(
          status: errSecAuthFailed, message: "Another key was installed for \(files.databasePath) concurrently.")
      }
    } catch let error as KeychainStoreError {
      throw error
    } catch {
      throw KeychainStoreError(
        status: Self.status(for: error).code, message: "Cannot record the store key check in \(files.databasePath).")
    }
  }

  deinit {
    // The writer's WAL hook points at the checkpointer: remove it while both are alive.
    pool?.writeWithoutTransaction { db in checkpointer.unwatch(db) }
  }

  // MARK: Row format

  /// Seals rows written in row format 1 again in format 2, in one transaction.
  ///
  /// A format-1 row bound only its identity columns; its search digests are accepted only when they
  /// are what its authenticated attributes give, so an upgrade never launders a column altered on
  /// disk. Rows that fail either check are left as they are, and count as damaged from then on.
  private func upgradeRowFormat(_ ring: KeyRing) throws(KeychainStoreError) {
    let formatSQL = "SELECT value FROM store_info WHERE name = 'row_format'"
    do {
      guard try readers.storeInfo("row_format") == Data([1]) else { return }
      try write { db throws(SecStatus) in
        guard try self.database({ try Data.fetchOne(db, sql: formatSQL) }) == Data([1]) else { return }
        var upgrades: [(id: Int64, identity: RowIdentity, meta: Data, secret: Data?)] = []
        try forEachRow(of: try self.grdbStatement(db, "SELECT \(Self.rowColumns) FROM item"), arguments: []) {
          row throws(SecStatus) in
          if let upgrade = try? self.formatOneUpgrade(row, ring) { upgrades.append(upgrade) }
          return true
        }
        storeLogger.notice(
          "Sealed rows again in row format 2",
          metadata: [
            "database": .string(self.files.databasePath), "rows": .stringConvertible(upgrades.count),
          ])
        for upgrade in upgrades {
          try self.database {
            try db.execute(
              sql: "UPDATE item SET meta = ?, secret = ? WHERE id = ?",
              arguments: [upgrade.meta, upgrade.secret, upgrade.id])
          }
        }
        try self.database {
          try db.execute(sql: "UPDATE store_info SET value = ? WHERE name = 'row_format'", arguments: [Data([2])])
        }
      }
    } catch {
      throw KeychainStoreError(
        status: error.code, message: "Cannot upgrade the rows of \(files.databasePath) to the current format.")
    }
  }

  /// A format-1 row opened with its old associated data and sealed again in format 2.
  private func formatOneUpgrade(_ row: StatementRow, _ ring: KeyRing) throws(SecStatus) -> (
    id: Int64, identity: RowIdentity, meta: Data, secret: Data?
  ) {
    let (stored, sealedSecret) = try plainColumns(row)
    let itemClass = stored.itemClass
    let attributes: [String: AttributeValue]
    let accessControl: SecAccessControl?
    var data: Data?
    do {
      let plaintext = try OpenSSLCrypto.open(
        try row.bytes(8), key: ring.metadataKey!, associatedData: stored.formatOneAssociatedData(.metadata))
      (attributes, accessControl) = try ItemCodec.decode(plaintext)
      if let sealedSecret {
        data = Data(
          try OpenSSLCrypto.open(
            sealedSecret, key: try ring.classKey(for: stored.protection),
            associatedData: stored.formatOneAssociatedData(.secret)))
      }
    } catch {
      throw .decode
    }
    guard stored.searchDigests == (try searchDigests(ring, itemClass, attributes)) else { throw .decode }
    let sealed = try seal(ring, stored, attributes: attributes, accessControl: accessControl, data: data)
    return (try row.integer(0), stored, sealed.meta, sealed.secret)
  }

  // MARK: Integrity

  /// Authenticates every row of the store: its columns, metadata and, where its class key is in
  /// memory, its secret.
  func checkIntegrity() throws(SecStatus) -> KeychainIntegrityReport {
    let ring = try keyRing()
    var checked = 0
    var damaged = 0
    try readers.withStatement("SELECT \(Self.rowColumns) FROM item ORDER BY id") { statement throws(SecStatus) in
      try forEachRow(of: statement, arguments: []) { row throws(SecStatus) in
        checked += 1
        do throws(SecStatus) {
          let record = try decodeRow(row, fetch: ItemFetch(attributes: true, data: false), ring)
          if let sealedSecret = record.sealedSecret, let key = try? ring.classKey(for: record.identity.protection) {
            do {
              _ = try OpenSSLCrypto.open(
                sealedSecret, key: key, associatedData: record.identity.associatedData(.secret))
            } catch {
              throw .decode
            }
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

  // MARK: Lock state

  var isLocked: Bool { keys.withLock { $0.locked } }

  /// Whether the store key itself is in memory (false after lock), for tests.
  var holdsStoreKey: Bool { keys.withLock { $0.storeKey != nil } }

  func lock() {
    keys.withLock { $0.lock() }
  }

  func unlock(passphrase: String?) throws(SecStatus) {
    let ring: KeyRing
    do {
      ring = try Self.unlockedRing(keyFileContents, passphrase: passphrase, files: files)
      let stored = try readers.storeInfo("key_check")
      try Self.verify(ring, against: stored.map { [UInt8]($0) }, in: pool, files: files)
    } catch let error as KeychainStoreError {
      throw SecStatus(error.status)
    } catch {
      throw .notAvailable
    }
    do {
      try upgradeRowFormat(ring)
    } catch {
      throw SecStatus(error.status)
    }
    keys.withLock { $0 = ring }
  }

  /// The keys for one call: errSecInteractionNotAllowed while the store is sealed.
  private func keyRing() throws(SecStatus) -> KeyRing {
    let ring = keys.withLock { $0 }
    guard ring.metadataKey != nil, ring.indexKey != nil else { throw .interactionNotAllowed }
    return ring
  }

  // MARK: ItemStore

  func insert(_ item: NewItem) throws(SecStatus) -> StoredItem {
    let ring = try keyRing()
    return try write { db throws(SecStatus) in try self.insertRow(db, item, ring) }
  }

  func insertBatch(_ items: [NewItem]) throws(SecStatus) {
    let ring = try keyRing()
    try write { db throws(SecStatus) in
      for item in items { _ = try self.insertRow(db, item, ring) }
    }
  }

  func find(_ filter: ItemFilter, limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [StoredItem] {
    let ring = try keyRing()
    let plan = try plan(filter, ring)
    // One SELECT, which SQLite runs as one implicit read transaction on a WAL snapshot.
    return try readers.withStatement(plan.sql) { statement throws(SecStatus) in
      try self.select(statement, plan, filter, limit: limit, fetch: fetch, ring).map(\.item)
    }
  }

  func update(_ filter: ItemFilter, with change: ItemChange) throws(SecStatus) -> Int {
    let ring = try keyRing()
    return try write { db throws(SecStatus) in try self.updateRows(db, filter, change, ring) }
  }

  func upsert(_ filter: ItemFilter, change: ItemChange, orInsert item: NewItem) throws(SecStatus) -> Int {
    let ring = try keyRing()
    return try write { db throws(SecStatus) in
      do throws(SecStatus) {
        return try self.updateRows(db, filter, change, ring)
      } catch .itemNotFound {
        _ = try self.insertRow(db, item, ring)
        return 1
      }
    }
  }

  func delete(_ filter: ItemFilter) throws(SecStatus) -> Int {
    let ring = try keyRing()
    return try write(freesSpace: true) { db throws(SecStatus) in
      let rows = try self.select(db, filter, limit: nil, fetch: ItemFetch(attributes: false, data: false), ring)
      guard !rows.isEmpty else { throw .itemNotFound }
      let ids = rows.map(\.id)
      if ids.count == 1 {
        try self.database { try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [ids[0]]) }
        return 1
      }
      for start in stride(from: 0, to: ids.count, by: 500) {
        let chunk = Array(ids[start..<min(start + 500, ids.count)])
        let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
        try self.database {
          try db.execute(sql: "DELETE FROM item WHERE id IN (\(marks))", arguments: StatementArguments(chunk))
        }
      }
      return ids.count
    }
  }

  // MARK: Rows

  /// A row as read and authenticated, with what the fetch asked for decrypted.
  private struct RowRecord {
    var id: Int64
    var item: StoredItem
    var identity: RowIdentity
    var sealedSecret: [UInt8]?
  }

  private func digest(_ ring: KeyRing, _ parts: [UInt8]) throws(SecStatus) -> Data {
    do throws(CryptoError) {
      let full: [UInt8]
      if let mac = ring.indexMAC {
        full = try mac.digest(parts)
      } else {
        full = try OpenSSLCrypto.hmacSHA256(key: ring.indexKey!, parts)
      }
      return Data(full.prefix(Self.digestLength))
    } catch {
      throw error.status
    }
  }

  /// Access groups are few and searched on every call: their digests are kept (the index key of a
  /// store never changes).
  private let groupDigests = Mutex<[String: Data]>([:])

  private func groupDigest(_ ring: KeyRing, _ group: String) throws(SecStatus) -> Data {
    if let cached = groupDigests.withLock({ $0[group] }) { return cached }
    let computed = try digest(ring, Array("agrp\u{0}".utf8) + Array(group.utf8))
    groupDigests.withLock { $0[group] = computed }
    return computed
  }

  private func attributeDigest(_ ring: KeyRing, _ key: String, _ value: AttributeValue, kind: AttributeKind)
    throws(SecStatus) -> Data
  {
    try digest(ring, Array("attr\u{0}\(key)\u{0}".utf8) + value.matchingBytes(as: kind))
  }

  /// One attribute of a class's documented primary key, looked up once instead of on every digest.
  private struct PrimaryKeyField {
    var key: String
    var kind: AttributeKind
    var fallback: AttributeValue
  }

  private static let primaryKeyFields: [ItemClass: [PrimaryKeyField]] = Dictionary(
    uniqueKeysWithValues: ItemClass.allCases.map { itemClass in
      let defaults = ItemSchema.primaryKeyDefaults(of: itemClass)
      let fields = ItemSchema.primaryKey(of: itemClass).compactMap { key -> PrimaryKeyField? in
        guard !spiPrimaryKey.contains(key), let definition = ItemSchema.attribute(key, of: itemClass),
          let fallback = defaults[key]
        else { return nil }
        return PrimaryKeyField(key: key, kind: definition.kind, fallback: fallback)
      }
      return (itemClass, fields)
    })

  private func primaryKeyDigest(
    _ ring: KeyRing, _ itemClass: ItemClass, _ attributes: [String: AttributeValue], group: String,
    synchronizable: Int64
  ) throws(SecStatus) -> Data {
    var parts: [UInt8] = []
    parts.reserveCapacity(128)
    parts += "pk\u{0}".utf8
    parts += itemClass.rawValue.utf8
    for field in Self.primaryKeyFields[itemClass] ?? [] {
      let bytes = (attributes[field.key] ?? field.fallback).matchingBytes(as: field.kind)
      parts += field.key.utf8
      withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { parts += $0 }
      parts += bytes
    }
    parts += "\u{0}agrp\u{0}".utf8
    parts += group.utf8
    parts += [0, UInt8(truncatingIfNeeded: synchronizable)]
    return try digest(ring, parts)
  }

  private func spiKeyDigest(_ ring: KeyRing, _ itemClass: ItemClass, _ attributes: [String: AttributeValue])
    throws(SecStatus) -> Data
  {
    var parts = Array("spi\u{0}".utf8)
    for key in Self.spiPrimaryKey {
      if let value = attributes[key] {
        let bytes = value.matchingBytes(as: ItemSchema.attribute(key, of: itemClass)!.kind)
        parts += [1] + withUnsafeBytes(of: UInt32(bytes.count).littleEndian, Array.init) + bytes
      } else {
        parts += [0]
      }
    }
    return try digest(ring, parts)
  }

  /// The plain columns of an item with these attributes.
  private func identity(
    _ ring: KeyRing, _ itemClass: ItemClass, _ attributes: [String: AttributeValue], persistentID: Data,
    hasSecret: Bool
  ) throws(SecStatus) -> RowIdentity {
    guard case .string(let group)? = attributes[SecConstantValue.attrAccessGroup],
      case .integer(let sync)? = attributes[SecConstantValue.attrSynchronizable],
      case .string(let protection)? = attributes[SecConstantValue.attrAccessible]
    else { throw .param }
    return RowIdentity(
      itemClass: itemClass, persistentID: persistentID, accessGroup: try groupDigest(ring, group),
      synchronizable: sync, protection: protection,
      primaryKey: try primaryKeyDigest(ring, itemClass, attributes, group: group, synchronizable: sync),
      spiKey: try spiKeyDigest(ring, itemClass, attributes),
      searchDigests: try searchDigests(ring, itemClass, attributes), hasSecret: hasSecret)
  }

  /// The SHA-1 fingerprint Apple keeps in `sha1`: here over the item's primary key and data-free
  /// attributes, excluding the dates.
  private func fingerprint(_ attributes: [String: AttributeValue]) throws(SecStatus) -> Data {
    var hashed = attributes
    for key in [SecConstantValue.attrCreationDate, SecConstantValue.attrModificationDate, SecConstantValue.attrSHA1] {
      hashed[key] = nil
    }
    do {
      return Data(try OpenSSLCrypto.sha1(ItemCodec.encode(hashed, accessControl: nil)))
    } catch {
      throw error.status
    }
  }

  private func searchDigests(_ ring: KeyRing, _ itemClass: ItemClass, _ attributes: [String: AttributeValue])
    throws(SecStatus) -> [Data?]
  {
    var digests: [Data?] = []
    digests.reserveCapacity(Self.searchColumns.count)
    for key in Self.searchColumns {
      guard let value = attributes[key], let definition = ItemSchema.attribute(key, of: itemClass) else {
        digests.append(nil)
        continue
      }
      digests.append(try attributeDigest(ring, key, value, kind: definition.kind))
    }
    return digests
  }

  private func seal(
    _ ring: KeyRing, _ identity: RowIdentity, attributes: [String: AttributeValue], accessControl: SecAccessControl?,
    data: Data?
  ) throws(SecStatus) -> (meta: Data, secret: Data?) {
    let classKey = try ring.classKey(for: identity.protection)
    do {
      let meta = try OpenSSLCrypto.seal(
        ItemCodec.encode(attributes, accessControl: accessControl), key: ring.metadataKey!,
        associatedData: identity.associatedData(.metadata))
      let secret = try data.map { plaintext throws(CryptoError) in
        Data(
          try OpenSSLCrypto.seal([UInt8](plaintext), key: classKey, associatedData: identity.associatedData(.secret)))
      }
      return (Data(meta), secret)
    } catch {
      throw error.status
    }
  }

  private func insertRow(_ db: Database, _ item: NewItem, _ ring: KeyRing) throws(SecStatus) -> StoredItem {
    var attributes = item.attributes
    let now = Date()
    attributes[SecConstantValue.attrCreationDate] = .date(now)
    attributes[SecConstantValue.attrModificationDate] = .date(now)
    attributes[SecConstantValue.attrTombstone] = .integer(0)
    attributes[SecConstantValue.attrMultiUser] = .data(Data())
    attributes[SecConstantValue.attrSHA1] = .data(try fingerprint(attributes))
    let persistentID: Data
    do { persistentID = Data(try OpenSSLCrypto.randomBytes(16)) } catch { throw error.status }
    let identity = try identity(
      ring, item.itemClass, attributes, persistentID: persistentID, hasSecret: item.data != nil)
    let sealed = try seal(ring, identity, attributes: attributes, accessControl: item.accessControl, data: item.data)
    let arguments: [(any DatabaseValueConvertible)?] =
      [
        item.itemClass.rawValue, persistentID, identity.accessGroup, identity.synchronizable, identity.protection,
        identity.primaryKey, identity.spiKey,
      ] + identity.searchDigests + [sealed.meta, sealed.secret]
    let sql = """
      INSERT INTO item (class, persistref, agrp, sync, pdmn, pk, spi, acct, svce, srvr, labl, meta, secret)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """
    do {
      try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
    } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
      // Rule 5.4: a row with the same key that no longer decrypts is replaced, not a duplicate.
      try replaceCorruptRow(db, identity, ring)
      try database { try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments)) }
    } catch {
      throw Self.status(for: error)
    }
    return StoredItem(
      itemClass: item.itemClass, persistentID: persistentID, attributes: attributes,
      accessControl: item.accessControl, data: item.data)
  }

  /// Deletes the row holding `identity`'s key if it is corrupt; errSecDuplicateItem if it is sound.
  private func replaceCorruptRow(_ db: Database, _ identity: RowIdentity, _ ring: KeyRing) throws(SecStatus) {
    let statement = try grdbStatement(
      db, "SELECT \(Self.rowColumns) FROM item WHERE class = ? AND pk = ? AND spi = ?")
    var corruptID: Int64?
    var found = false
    try forEachRow(
      of: statement,
      arguments: [.text(identity.itemClass.rawValue), .blob(identity.primaryKey), .blob(identity.spiKey)]
    ) { row throws(SecStatus) in
      found = true
      do throws(SecStatus) {
        _ = try decodeRow(row, fetch: ItemFetch(attributes: true, data: false), ring)
      } catch .decode {
        corruptID = try row.integer(0)
      }
      return false
    }
    guard found, let corruptID else { throw .duplicateItem }
    try database { try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [corruptID]) }
  }

  private static let updateSQL = """
    UPDATE item SET agrp = ?, sync = ?, pdmn = ?, pk = ?, spi = ?, acct = ?, svce = ?, srvr = ?, labl = ?,
    meta = ?, secret = ? WHERE id = ?
    """

  private static let rowColumns =
    "id, class, persistref, agrp, sync, pdmn, pk, spi, meta, secret, acct, svce, srvr, labl"

  /// A row's plain columns (in `rowColumns` order), as read: not yet proven authentic.
  private func plainColumns(_ row: StatementRow) throws(SecStatus) -> (identity: RowIdentity, sealedSecret: [UInt8]?) {
    guard let itemClass = ItemClass(rawValue: try row.text(1)) else { throw .decode }
    let sealedSecret = try row.optionalBytes(9)
    var searchDigests: [Data?] = []
    searchDigests.reserveCapacity(Self.searchColumns.count)
    for column in Int32(10)..<Int32(10 + Self.searchColumns.count) {
      searchDigests.append(try row.optionalBlob(column))
    }
    let identity = RowIdentity(
      itemClass: itemClass, persistentID: try row.blob(2), accessGroup: try row.blob(3),
      synchronizable: try row.integer(4), protection: try row.text(5), primaryKey: try row.blob(6),
      spiKey: try row.blob(7), searchDigests: searchDigests, hasSecret: sealedSecret != nil)
    return (identity, sealedSecret)
  }

  /// Reads one row's columns (in `rowColumns` order), proves them authentic and opens what `fetch`
  /// asks for; errSecDecode when any column or ciphertext is not what the row was sealed with.
  ///
  /// Every row is authenticated, whatever the fetch: opening the secret proves every plain column
  /// (they are its associated data), and otherwise the metadata is opened, which also proves whether
  /// the row has a secret. A search, a count or a delete therefore never acts on a row whose
  /// columns were altered.
  private func decodeRow(_ row: StatementRow, fetch: ItemFetch, _ ring: KeyRing) throws(SecStatus) -> RowRecord {
    let id = try row.integer(0)
    let (identity, sealedSecret) = try plainColumns(row)
    let itemClass = identity.itemClass
    var item = StoredItem(
      itemClass: itemClass, persistentID: identity.persistentID, attributes: [:], accessControl: nil, data: nil)
    let opensSecret = fetch.data && sealedSecret != nil
    if fetch.attributes || !opensSecret {
      let plaintext: [UInt8]
      do {
        plaintext = try OpenSSLCrypto.open(
          try row.bytes(8), key: ring.metadataKey!, associatedData: identity.associatedData(.metadata))
      } catch {
        throw .decode
      }
      if fetch.attributes {
        (item.attributes, item.accessControl) = try ItemCodec.decode(plaintext)
        guard item.attributes[SecConstantValue.attrAccessible] == .string(identity.protection) else { throw .decode }
      }
    }
    if opensSecret, let sealedSecret {
      let key = try ring.classKey(for: identity.protection)
      do {
        item.data = Data(
          try OpenSSLCrypto.open(sealedSecret, key: key, associatedData: identity.associatedData(.secret)))
      } catch {
        throw .decode
      }
    }
    return RowRecord(id: id, item: item, identity: identity, sealedSecret: sealedSecret)
  }

  /// A search as SQL: what the database compares, and what is left to check on decrypted metadata.
  private struct SearchPlan {
    var sql: String
    var arguments: [SQLArgument]
    /// The column values SQLite compared, checked again on every authenticated row.
    var expected: ExpectedColumns
    var remaining: [String: AttributeValue]
    var needsPostFilter: Bool
    /// The SQL leaves the order to `select`, which sorts by id itself.
    var sortsInMemory: Bool
  }

  /// The column values a search selected rows by. SQLite answers from its indexes, which are not
  /// authenticated (a flipped bit in an index entry can point at another row), so each row is
  /// checked against these once its own columns are proven authentic.
  private struct ExpectedColumns {
    var itemClass: ItemClass
    var persistentID: Data?
    var accessGroups: Set<Data>?
    var synchronizable: Int64?
    var primaryKeys: Set<Data>?
    /// Per search column, the digest compared, or nil when the column was not compared.
    var searchDigests: [Data?]

    func admit(_ identity: RowIdentity) -> Bool {
      guard identity.itemClass == itemClass else { return false }
      if let persistentID, identity.persistentID != persistentID { return false }
      if let accessGroups, !accessGroups.contains(identity.accessGroup) { return false }
      if let synchronizable, identity.synchronizable != synchronizable { return false }
      if let primaryKeys, !primaryKeys.contains(identity.primaryKey) { return false }
      for (wanted, stored) in zip(searchDigests, identity.searchDigests) {
        if let wanted, stored != wanted { return false }
      }
      return true
    }
  }

  /// What a search's SQL depends on. Searches of one shape share one SQL text, built once and
  /// prepared once per connection; only the bound values differ.
  private struct PlanShape: Hashable {
    enum Reference: Hashable { case none, uuid, rowID }
    var reference: Reference = .none
    /// nil when every group is searched.
    var groupCount: Int?
    var comparesSynchronizable = false
    /// How many primary-key digests the search compares (0: it does not use the primary key).
    var primaryKeyCount = 0
    /// Which of `searchColumns` the search compares, in that order.
    var searchColumns: [Bool] = []

    var sql: String {
      var sql = "SELECT \(SQLiteItemStore.rowColumns) FROM item WHERE class = ?"
      switch reference {
      case .none: break
      case .uuid: sql += " AND persistref = ?"
      case .rowID: sql += " AND id = ?"
      }
      if let groupCount { sql += " AND agrp IN (\(Self.marks(groupCount)))" }
      if comparesSynchronizable { sql += " AND sync = ?" }
      if primaryKeyCount > 0 { sql += " AND pk IN (\(Self.marks(primaryKeyCount)))" }
      for (key, compared) in zip(SQLiteItemStore.searchColumns, searchColumns) where compared {
        sql += " AND \(key) = ?"
      }
      // The primary-key index orders its few matches by spi, so ORDER BY id would cost SQLite a
      // temporary B-tree per search; select() sorts them instead. The other indexes end in the
      // rowid, so SQLite returns their rows in id order without sorting. There is no LIMIT:
      // select() stops stepping once it has enough rows that passed authentication.
      return primaryKeyCount > 0 ? sql : sql + " ORDER BY id"
    }

    private static func marks(_ count: Int) -> String {
      Array(repeating: "?", count: count).joined(separator: ",")
    }
  }

  private let planSQL = Mutex<[PlanShape: String]>([:])

  /// Plans a search: the primary-key index when the query names the whole key, else the digest
  /// columns it names; constraints no column covers are checked on the decrypted metadata.
  private func plan(_ filter: ItemFilter, _ ring: KeyRing) throws(SecStatus) -> SearchPlan {
    var shape = PlanShape()
    var arguments: [SQLArgument] = [.text(filter.itemClass.rawValue)]
    var expected = ExpectedColumns(
      itemClass: filter.itemClass, searchDigests: Array(repeating: nil, count: Self.searchColumns.count))
    var covered: Set<String> = []
    switch filter.reference {
    case .uuid(_, let uuid)?:
      shape.reference = .uuid
      arguments.append(.blob(uuid))
      expected.persistentID = uuid
    case .rowID(_, let rowID)?:
      shape.reference = .rowID
      arguments.append(.integer(rowID))
    case nil:
      break
    }
    if let groups = filter.accessGroups {
      shape.groupCount = groups.count
      var digests: [Data] = []
      for group in groups { digests.append(try groupDigest(ring, group)) }
      for digest in digests { arguments.append(.blob(digest)) }
      expected.accessGroups = Set(digests)
    }
    if let sync = filter.synchronizable {
      shape.comparesSynchronizable = true
      arguments.append(.integer(sync))
      expected.synchronizable = sync
    }
    let primaryKey = Self.primaryKeyFields[filter.itemClass] ?? []
    if let groups = filter.accessGroups, filter.reference == nil,
      primaryKey.allSatisfy({ filter.attributes[$0.key] != nil })
    {
      let syncValues: [Int64] = filter.synchronizable.map { [$0] } ?? [0, 1]
      var digests: Set<Data> = []
      for group in groups {
        for sync in syncValues {
          let digest = try primaryKeyDigest(
            ring, filter.itemClass, filter.attributes, group: group, synchronizable: sync)
          arguments.append(.blob(digest))
          digests.insert(digest)
        }
      }
      expected.primaryKeys = digests
      shape.primaryKeyCount = groups.count * syncValues.count
      for field in primaryKey { covered.insert(field.key) }
    } else {
      shape.searchColumns = Array(repeating: false, count: Self.searchColumns.count)
      for (index, key) in Self.searchColumns.enumerated() {
        guard let value = filter.attributes[key], let definition = ItemSchema.attribute(key, of: filter.itemClass)
        else { continue }
        let digest = try attributeDigest(ring, key, value, kind: definition.kind)
        arguments.append(.blob(digest))
        expected.searchDigests[index] = digest
        covered.insert(key)
        shape.searchColumns[index] = true
      }
    }
    // agrp and sync are columns; the plan already compared them exactly.
    let remaining = filter.attributes.filter {
      !covered.contains($0.key) && $0.key != SecConstantValue.attrAccessGroup
        && $0.key != SecConstantValue.attrSynchronizable
    }
    let needsPostFilter = !remaining.isEmpty || filter.hostOrSubdomain != nil
    let sql = planSQL.withLock { cache in
      if let cached = cache[shape] { return cached }
      let sql = shape.sql
      cache[shape] = sql
      return sql
    }
    return SearchPlan(
      sql: sql, arguments: arguments, expected: expected, remaining: remaining, needsPostFilter: needsPostFilter,
      sortsInMemory: shape.primaryKeyCount > 0)
  }

  /// A statement GRDB prepared and cached on a write connection, driven through SQLite's C API by
  /// the same row code as searches. Only the store's raw path uses these SQL texts, so GRDB's own
  /// argument bookkeeping for them is never relied on.
  private func grdbStatement(_ db: Database, _ sql: String) throws(SecStatus) -> OpaquePointer {
    try database { try db.cachedStatement(sql: sql).sqliteStatement }
  }

  /// Runs a search plan inside a write transaction.
  private func select(_ db: Database, _ filter: ItemFilter, limit: Int?, fetch: ItemFetch, _ ring: KeyRing)
    throws(SecStatus) -> [RowRecord]
  {
    let plan = try plan(filter, ring)
    return try select(try grdbStatement(db, plan.sql), plan, filter, limit: limit, fetch: fetch, ring)
  }

  /// Runs a search plan over the rows, authenticating each and decrypting what `fetch` and the
  /// remaining constraints need.
  ///
  /// A row that fails authentication is skipped and reported, as Apple skips corrupt rows (rule
  /// 3.8), so one damaged row does not deny access to every other item. When the search found only
  /// damaged rows it answers errSecDecode: the item it targets exists but cannot be trusted.
  private func select(
    _ statement: OpaquePointer, _ plan: SearchPlan, _ filter: ItemFilter, limit: Int?, fetch: ItemFetch,
    _ ring: KeyRing
  ) throws(SecStatus) -> [RowRecord] {
    let rowFetch = ItemFetch(attributes: fetch.attributes || plan.needsPostFilter, data: fetch.data)
    var records: [RowRecord] = []
    var damaged = 0
    try forEachRow(of: statement, arguments: plan.arguments) { row throws(SecStatus) in
      let record: RowRecord
      do throws(SecStatus) {
        record = try decodeRow(row, fetch: rowFetch, ring)
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
      if plan.needsPostFilter && !matches(record.item, plan.remaining, hostOrSubdomain: filter.hostOrSubdomain) {
        return true
      }
      records.append(record)
      if let limit, !plan.sortsInMemory { return records.count < limit }
      return true
    }
    if damaged > 0 {
      integrity.report(damagedRows: damaged, itemClass: filter.itemClass)
      if records.isEmpty { throw .decode }
    }
    if plan.sortsInMemory {
      records.sort { $0.id < $1.id }
      if let limit, records.count > limit { records.removeSubrange(limit...) }
    }
    return records
  }

  /// SQLite's query plan for a search, for tests that prove the indexes are used.
  func queryPlan(for filter: ItemFilter) throws(SecStatus) -> [String] {
    let ring = try keyRing()
    let plan = try plan(filter, ring)
    var details: [String] = []
    try readers.withStatement("EXPLAIN QUERY PLAN " + plan.sql) { statement throws(SecStatus) in
      try forEachRow(of: statement, arguments: plan.arguments) { row throws(SecStatus) in
        details.append(try row.text(3))
        return true
      }
    }
    return details
  }

  private func matches(_ item: StoredItem, _ constraints: [String: AttributeValue], hostOrSubdomain: String?) -> Bool {
    for (key, wanted) in constraints {
      guard let stored = item.attributes[key], let definition = ItemSchema.attribute(key, of: item.itemClass) else {
        return false
      }
      if stored.matchingBytes(as: definition.kind) != wanted.matchingBytes(as: definition.kind) { return false }
    }
    if let host = hostOrSubdomain {
      let server: String
      switch item.attributes[SecConstantValue.attrServer] {
      case .string(let value)?: server = value
      case .data(let value)?: server = String(decoding: value, as: UTF8.self)
      default: return false
      }
      return server == host || server.hasSuffix("." + host)
    }
    return true
  }

  private func updateRows(_ db: Database, _ filter: ItemFilter, _ change: ItemChange, _ ring: KeyRing) throws(SecStatus)
    -> Int
  {
    let records = try select(db, filter, limit: nil, fetch: ItemFetch(attributes: true, data: false), ring)
    guard !records.isEmpty else { throw .itemNotFound }
    let now = Date()
    var updated = 0
    var damaged = 0
    for record in records {
      var attributes = record.item.attributes.merging(change.attributes) { _, new in new }
      var accessControl = record.item.accessControl
      if let newAccessControl = change.accessControl {
        accessControl = newAccessControl
        attributes[SecConstantValue.attrAccessible] = .string(newAccessControl.protection)
      } else if case .string(let protection)? = change.attributes[SecConstantValue.attrAccessible],
        let current = accessControl
      {
        // A new protection replaces the protection inside the access control too (rule 12).
        accessControl = SecAccessControl(protection: protection, flags: current.flags)
      }
      try change.validate(attributes, accessControl)
      var modified = now
      if case .date(let previous)? = record.item.attributes[SecConstantValue.attrModificationDate], modified <= previous
      {
        modified = previous.addingTimeInterval(0.001)
      }
      attributes[SecConstantValue.attrModificationDate] = .date(modified)
      attributes[SecConstantValue.attrSHA1] = .data(try fingerprint(attributes))
      // Data sealed under the old identity or protection is reopened to be sealed again: this also
      // makes WhenUnlocked items unchangeable while locked.
      var data = change.data
      if data == nil, let sealedSecret = record.sealedSecret {
        let key = try ring.classKey(for: record.identity.protection)
        do {
          data = Data(
            try OpenSSLCrypto.open(sealedSecret, key: key, associatedData: record.identity.associatedData(.secret)))
        } catch {
          // Its metadata is sound but its secret is not: the row is left as it is, like any
          // damaged row a search meets.
          damaged += 1
          continue
        }
      } else {
        _ = try ring.classKey(for: record.identity.protection)
      }
      let identity = try identity(
        ring, record.item.itemClass, attributes, persistentID: record.item.persistentID, hasSecret: data != nil)
      let sealed = try seal(ring, identity, attributes: attributes, accessControl: accessControl, data: data)
      let arguments: [(any DatabaseValueConvertible)?] =
        [identity.accessGroup, identity.synchronizable, identity.protection, identity.primaryKey, identity.spiKey]
        + identity.searchDigests + [sealed.meta, sealed.secret, record.id]
      do {
        try db.cachedStatement(sql: Self.updateSQL).execute(arguments: StatementArguments(arguments))
      } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
        // Rule 7.10: a clash with a row that no longer decrypts replaces it; a sound one is a duplicate.
        try replaceCorruptRow(db, identity, ring)
        try database { try db.cachedStatement(sql: Self.updateSQL).execute(arguments: StatementArguments(arguments)) }
      } catch {
        throw Self.status(for: error)
      }
      updated += 1
    }
    if damaged > 0 {
      integrity.report(damagedRows: damaged, itemClass: filter.itemClass)
      if updated == 0 { throw .decode }
    }
    return updated
  }

  // MARK: Transactions and errors

  /// Runs `body` in one `BEGIN IMMEDIATE` transaction; any thrown status rolls everything back.
  ///
  /// A transaction that fails for want of space is tried once more after a truncating checkpoint:
  /// the WAL holds every commit since the last checkpoint, and moving it into the database file
  /// (whose freed pages are reused) gives its space back. A transaction that frees space (a delete)
  /// may also use the space reserve for that checkpoint; adds and updates may not, so the reserve is
  /// still there when the disk is full and only a delete can help.
  private func write<T>(freesSpace: Bool = false, _ body: @escaping (Database) throws(SecStatus) -> T)
    throws(SecStatus) -> T
  {
    guard let pool else { throw SecStatus(errSecReadOnly) }
    func transaction() throws -> T {
      try pool.writeWithoutTransaction { db in
        var value: T?
        try db.inTransaction(.immediate) {
          value = try body(db)
          return .commit
        }
        return value!
      }
    }
    do {
      return try transaction()
    } catch  where Self.isOutOfSpace(error) {
      storeLogger.notice(
        "A write ran out of space; checkpointing the WAL and trying once more",
        metadata: ["database": .string(files.databasePath), "freesSpace": .stringConvertible(freesSpace)])
      // The reserve file gives the checkpoint room to move the WAL's last pages into the database.
      if freesSpace { _ = files.releaseSpaceReserve() }
      do {
        _ = pool.writeWithoutTransaction { db in WALCheckpointer.checkpointTruncating(db) }
        let value = try transaction()
        files.createSpaceReserve()
        return value
      } catch {
        throw Self.status(for: error)
      }
    } catch {
      throw Self.status(for: error)
    }
  }

  /// Whether SQLite failed to write for want of space (ENOSPC is SQLITE_FULL; a file-size limit
  /// is an I/O error), as GRDB reports it or as the row code already mapped it (errSecIO).
  private static func isOutOfSpace(_ error: any Error) -> Bool {
    if let status = error as? SecStatus { return status == .io }
    guard let error = error as? DatabaseError else { return false }
    let code = error.resultCode.primaryResultCode
    return code == .SQLITE_FULL || code == .SQLITE_IOERR
  }

  private func database<T>(_ body: () throws -> T) throws(SecStatus) -> T {
    do {
      return try body()
    } catch {
      throw Self.status(for: error)
    }
  }

  /// SQLite's failures as errSec codes (the mapping of keychain-semantics.md 16.1).
  static func status(for error: any Error) -> SecStatus {
    if let status = error as? SecStatus { return status }
    guard let error = error as? DatabaseError else { return .notAvailable }
    return secStatus(sqliteResultCode: error.resultCode.primaryResultCode.rawValue)
  }
}

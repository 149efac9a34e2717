import Dispatch
import Foundation
import GRDB
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
  private let pool: DatabasePool
  private let keyFileContents: [UInt8]
  private let keys: Mutex<KeyRing>
  private let checkpointer: WALCheckpointer

  /// Digest columns the planner can search by, besides the primary key.
  private static let searchColumns = ["acct", "svce", "srvr", "labl"]
  /// Primary-key attributes beyond the documented ones (rule 2.1), compared as one digest.
  private static let systemPrimaryKey = ["vwht", "tkid", "ggrp"]
  private static let digestLength = 16

  /// Opens (creating if needed) the store in `directory`.
  ///
  /// A new store is protected by `passphrase` when one is given, else by a key file. An existing
  /// passphrase store opened without its passphrase stays sealed until `unlock(passphrase:)`.
  init(directory: URL, passphrase: String?) throws(KeychainStoreError) {
    files = StoreFiles(directory: directory)
    try files.prepareDirectory()
    try files.prepareDatabaseFile()
    pool = try Self.openPool(path: files.databasePath)
    let storedKeyCheck = try Self.migrate(pool, path: files.databasePath)

    var contents = try files.readKeyFile()
    if contents == nil {
      guard storedKeyCheck == nil else {
        throw KeychainStoreError(
          status: errSecAuthFailed,
          message:
            "The key file \(files.keyFilePath) is missing; the items in \(files.databasePath) cannot be decrypted without it."
        )
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
      contents = try files.createKeyFile(sealedKey)
    }
    keyFileContents = contents!
    do {
      hasPassphrase = try KeyFile.needsPassphrase(keyFileContents)
    } catch {
      throw KeychainStoreError(status: errSecDecode, message: "The key file \(files.keyFilePath) is damaged.")
    }
    var ring = KeyRing.sealed
    if !hasPassphrase || passphrase != nil {
      ring = try Self.unlockedRing(keyFileContents, passphrase: passphrase, files: files)
      try Self.verify(ring, against: storedKeyCheck, in: pool, files: files)
    }
    keys = Mutex(ring)
    checkpointer = WALCheckpointer(path: files.databasePath)
  }

  // MARK: Opening

  private static func openPool(path: String) throws(KeychainStoreError) -> DatabasePool {
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    configuration.label = "keychain-bridge"
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = FULL")
      // Checkpoints run on a background queue (WALCheckpointer), never in the caller's commit.
      try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
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
    do {
      return KeyRing(storeKey: try KeyFile.decode(contents, passphrase: passphrase))
    } catch let status {
      let reason =
        status == .authFailed
        ? "The passphrase is wrong." : "The key file \(files.keyFilePath) is damaged or unreadable."
      throw KeychainStoreError(status: status.code, message: reason)
    }
  }

  /// Records the key check of a new store, or refuses a key that is not the database's.
  private static func verify(_ ring: KeyRing, against stored: [UInt8]?, in pool: DatabasePool, files: StoreFiles)
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
      let stored = try database {
        try pool.read { db in try Data.fetchOne(db, sql: "SELECT value FROM store_info WHERE name = 'key_check'") }
      }
      try Self.verify(ring, against: stored.map { [UInt8]($0) }, in: pool, files: files)
    } catch let error as KeychainStoreError {
      throw SecStatus(error.status)
    } catch {
      throw .notAvailable
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
    // One SELECT, which SQLite runs as one implicit read transaction on a WAL snapshot: GRDB's
    // explicit BEGIN/COMMIT around it would only add two statements to every search.
    return try database {
      try pool.unsafeRead { db in try self.select(db, filter, limit: limit, fetch: fetch, ring).map(\.item) }
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
    return try write { db throws(SecStatus) in
      let rows = try self.select(db, filter, limit: nil, fetch: ItemFetch(attributes: false, data: false), ring)
      guard !rows.isEmpty else { throw .itemNotFound }
      let ids = rows.map(\.id)
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

  /// A row as read, with what the fetch asked for decrypted.
  private struct RowRecord {
    var id: Int64
    var item: StoredItem
    var protection: String
    var sealedSecret: Data?
  }

  /// The values that identify a row and bind its ciphertexts to it.
  private struct RowIdentity: Equatable {
    var itemClass: ItemClass
    var persistentID: Data
    var accessGroup: Data
    var synchronizable: Int64
    var protection: String
    var primaryKey: Data
    var systemKey: Data

    func associatedData(_ purpose: String) -> [UInt8] {
      var bytes = Array("keychain-bridge/\(purpose)/v1".utf8)
      bytes += itemClass.tag + persistentID + accessGroup + primaryKey + systemKey
      bytes.append(UInt8(truncatingIfNeeded: synchronizable))
      bytes += Array(protection.utf8)
      return bytes
    }
  }

  private func digest(_ ring: KeyRing, _ parts: [UInt8]) -> Data {
    let full = ring.indexMAC?.digest(parts) ?? OpenSSLCrypto.hmacSHA256(key: ring.indexKey!, parts)
    return Data(full.prefix(Self.digestLength))
  }

  /// Access groups are few and searched on every call: their digests are kept (the index key of a
  /// store never changes).
  private let groupDigests = Mutex<[String: Data]>([:])

  private func groupDigest(_ ring: KeyRing, _ group: String) -> Data {
    if let cached = groupDigests.withLock({ $0[group] }) { return cached }
    let computed = digest(ring, Array("agrp\u{0}".utf8) + Array(group.utf8))
    groupDigests.withLock { $0[group] = computed }
    return computed
  }

  private func attributeDigest(_ ring: KeyRing, _ key: String, _ value: AttributeValue, kind: AttributeKind) -> Data {
    digest(ring, Array("attr\u{0}\(key)\u{0}".utf8) + value.matchingBytes(as: kind))
  }

  private func documentedPrimaryKey(of itemClass: ItemClass) -> [String] {
    ItemSchema.primaryKey(of: itemClass).filter { !Self.systemPrimaryKey.contains($0) }
  }

  private func primaryKeyDigest(
    _ ring: KeyRing, _ itemClass: ItemClass, _ attributes: [String: AttributeValue], group: String,
    synchronizable: Int64
  ) -> Data {
    var parts = Array("pk\u{0}".utf8) + itemClass.tag
    for key in documentedPrimaryKey(of: itemClass) {
      let kind = ItemSchema.attribute(key, of: itemClass)!.kind
      let bytes = (attributes[key] ?? ItemSchema.primaryKeyDefaults(of: itemClass)[key]!).matchingBytes(as: kind)
      parts += Array(key.utf8) + withUnsafeBytes(of: UInt32(bytes.count).littleEndian, Array.init) + bytes
    }
    parts += Array("\u{0}agrp\u{0}".utf8) + Array(group.utf8) + [0, UInt8(truncatingIfNeeded: synchronizable)]
    return digest(ring, parts)
  }

  private func systemKeyDigest(_ ring: KeyRing, _ itemClass: ItemClass, _ attributes: [String: AttributeValue]) -> Data
  {
    var parts = Array("spi\u{0}".utf8)
    for key in Self.systemPrimaryKey {
      if let value = attributes[key] {
        let bytes = value.matchingBytes(as: ItemSchema.attribute(key, of: itemClass)!.kind)
        parts += [1] + withUnsafeBytes(of: UInt32(bytes.count).littleEndian, Array.init) + bytes
      } else {
        parts += [0]
      }
    }
    return digest(ring, parts)
  }

  private func identity(
    _ ring: KeyRing, _ itemClass: ItemClass, _ attributes: [String: AttributeValue], persistentID: Data
  ) throws(SecStatus) -> RowIdentity {
    guard case .string(let group)? = attributes["agrp"], case .integer(let sync)? = attributes["sync"],
      case .string(let protection)? = attributes["pdmn"]
    else { throw .param }
    return RowIdentity(
      itemClass: itemClass, persistentID: persistentID, accessGroup: groupDigest(ring, group),
      synchronizable: sync, protection: protection,
      primaryKey: primaryKeyDigest(ring, itemClass, attributes, group: group, synchronizable: sync),
      systemKey: systemKeyDigest(ring, itemClass, attributes))
  }

  /// The SHA-1 fingerprint Apple keeps in `sha1`: here over the item's primary key and data-free
  /// attributes, excluding the dates.
  private func fingerprint(_ attributes: [String: AttributeValue]) -> Data {
    var hashed = attributes
    for key in ["cdat", "mdat", "sha1"] { hashed[key] = nil }
    return Data(OpenSSLCrypto.sha1(ItemCodec.encode(hashed, accessControl: nil)))
  }

  private func searchDigests(_ ring: KeyRing, _ itemClass: ItemClass, _ attributes: [String: AttributeValue]) -> [Data?]
  {
    Self.searchColumns.map { key in
      guard let value = attributes[key], let definition = ItemSchema.attribute(key, of: itemClass) else { return nil }
      return attributeDigest(ring, key, value, kind: definition.kind)
    }
  }

  private func seal(
    _ ring: KeyRing, _ identity: RowIdentity, attributes: [String: AttributeValue], accessControl: SecAccessControl?,
    data: Data?
  ) throws(SecStatus) -> (meta: Data, secret: Data?) {
    let classKey = try ring.classKey(for: identity.protection)
    do {
      let meta = try OpenSSLCrypto.seal(
        ItemCodec.encode(attributes, accessControl: accessControl), key: ring.metadataKey!,
        associatedData: identity.associatedData("meta"))
      let secret = try data.map { plaintext throws(CryptoError) in
        Data(
          try OpenSSLCrypto.seal([UInt8](plaintext), key: classKey, associatedData: identity.associatedData("secret")))
      }
      return (Data(meta), secret)
    } catch {
      throw SecStatus(errSecAllocate)
    }
  }

  private func insertRow(_ db: Database, _ item: NewItem, _ ring: KeyRing) throws(SecStatus) -> StoredItem {
    var attributes = item.attributes
    let now = Date()
    attributes["cdat"] = .date(now)
    attributes["mdat"] = .date(now)
    attributes["tomb"] = .integer(0)
    attributes["musr"] = .data(Data())
    attributes["sha1"] = .data(fingerprint(attributes))
    let persistentID: Data
    do { persistentID = Data(try OpenSSLCrypto.randomBytes(16)) } catch { throw SecStatus(errSecAllocate) }
    let identity = try identity(ring, item.itemClass, attributes, persistentID: persistentID)
    let sealed = try seal(ring, identity, attributes: attributes, accessControl: item.accessControl, data: item.data)
    let arguments: [(any DatabaseValueConvertible)?] =
      [
        item.itemClass.rawValue, persistentID, identity.accessGroup, identity.synchronizable, identity.protection,
        identity.primaryKey, identity.systemKey,
      ] + searchDigests(ring, item.itemClass, attributes) + [sealed.meta, sealed.secret]
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
    let existing = try database {
      try Row.fetchOne(
        db, sql: "SELECT \(Self.rowColumns) FROM item WHERE class = ? AND pk = ? AND spi = ?",
        arguments: [identity.itemClass.rawValue, identity.primaryKey, identity.systemKey])
    }
    guard let existing else { throw .duplicateItem }
    do throws(SecStatus) {
      _ = try decodeRow(existing, fetch: ItemFetch(attributes: true, data: false), ring)
      throw SecStatus.duplicateItem
    } catch .decode {
      try database { try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [existing[0] as Int64?]) }
    }
  }

  private static let updateSQL = """
    UPDATE item SET agrp = ?, sync = ?, pdmn = ?, pk = ?, spi = ?, acct = ?, svce = ?, srvr = ?, labl = ?,
    meta = ?, secret = ? WHERE id = ?
    """

  private static let rowColumns = "id, class, persistref, agrp, sync, pdmn, pk, spi, meta, secret"

  /// Reads one row's columns (in `rowColumns` order) and opens what `fetch` asks for.
  private func decodeRow(_ row: Row, fetch: ItemFetch, _ ring: KeyRing) throws(SecStatus) -> RowRecord {
    let id = try row.integer(0)
    guard let itemClass = ItemClass(rawValue: try row.text(1)) else { throw .decode }
    let identity = RowIdentity(
      itemClass: itemClass, persistentID: try row.blob(2), accessGroup: try row.blob(3),
      synchronizable: try row.integer(4), protection: try row.text(5), primaryKey: try row.blob(6),
      systemKey: try row.blob(7))
    let sealedSecret = try row.optionalBlob(9)
    var item = StoredItem(
      itemClass: itemClass, persistentID: identity.persistentID, attributes: [:], accessControl: nil, data: nil)
    if fetch.attributes {
      let plaintext: [UInt8]
      do {
        plaintext = try OpenSSLCrypto.open(
          [UInt8](try row.blob(8)), key: ring.metadataKey!, associatedData: identity.associatedData("meta"))
      } catch {
        throw .decode
      }
      (item.attributes, item.accessControl) = try ItemCodec.decode(plaintext)
      guard item.attributes["pdmn"] == .string(identity.protection) else { throw .decode }
    }
    if fetch.data, let sealedSecret {
      let key = try ring.classKey(for: identity.protection)
      do {
        item.data = Data(
          try OpenSSLCrypto.open([UInt8](sealedSecret), key: key, associatedData: identity.associatedData("secret")))
      } catch {
        throw .decode
      }
    }
    return RowRecord(id: id, item: item, protection: identity.protection, sealedSecret: sealedSecret)
  }

  /// A search as SQL: what the database compares, and what is left to check on decrypted metadata.
  private struct SearchPlan {
    var sql: String
    var arguments: [(any DatabaseValueConvertible)?]
    var remaining: [String: AttributeValue]
    var needsPostFilter: Bool
  }

  /// Plans a search: the primary-key index when the query names the whole key, else the digest
  /// columns it names; constraints no column covers are checked on the decrypted metadata.
  private func plan(_ filter: ItemFilter, limit: Int?, _ ring: KeyRing) -> SearchPlan {
    var sql = "SELECT \(Self.rowColumns) FROM item WHERE class = ?"
    var arguments: [(any DatabaseValueConvertible)?] = [filter.itemClass.rawValue]
    var covered: Set<String> = []
    switch filter.reference {
    case .uuid(_, let uuid)?:
      sql += " AND persistref = ?"
      arguments.append(uuid)
    case .rowID(_, let rowID)?:
      sql += " AND id = ?"
      arguments.append(rowID)
    case nil:
      break
    }
    if let groups = filter.accessGroups {
      sql += " AND agrp IN (\(Array(repeating: "?", count: groups.count).joined(separator: ",")))"
      arguments += groups.map { groupDigest(ring, $0) }
    }
    if let sync = filter.synchronizable {
      sql += " AND sync = ?"
      arguments.append(sync)
    }
    let primaryKey = documentedPrimaryKey(of: filter.itemClass)
    if let groups = filter.accessGroups, filter.reference == nil,
      primaryKey.allSatisfy({ filter.attributes[$0] != nil })
    {
      let syncValues: [Int64] = filter.synchronizable.map { [$0] } ?? [0, 1]
      var digests: [Data] = []
      for group in groups {
        for sync in syncValues {
          digests.append(
            primaryKeyDigest(ring, filter.itemClass, filter.attributes, group: group, synchronizable: sync))
        }
      }
      sql += " AND pk IN (\(Array(repeating: "?", count: digests.count).joined(separator: ",")))"
      arguments += digests
      covered.formUnion(primaryKey)
    } else {
      for key in Self.searchColumns {
        guard let value = filter.attributes[key], let definition = ItemSchema.attribute(key, of: filter.itemClass)
        else { continue }
        sql += " AND \(key) = ?"
        arguments.append(attributeDigest(ring, key, value, kind: definition.kind))
        covered.insert(key)
      }
    }
    // agrp and sync are columns; the plan already compared them exactly.
    let remaining = filter.attributes.filter { !covered.contains($0.key) && $0.key != "agrp" && $0.key != "sync" }
    let needsPostFilter = !remaining.isEmpty || filter.hostOrSubdomain != nil
    sql += " ORDER BY id"
    if let limit, !needsPostFilter { sql += " LIMIT \(limit)" }
    return SearchPlan(sql: sql, arguments: arguments, remaining: remaining, needsPostFilter: needsPostFilter)
  }

  /// Runs a search plan over the rows, decrypting what `fetch` and the remaining constraints need.
  private func select(_ db: Database, _ filter: ItemFilter, limit: Int?, fetch: ItemFetch, _ ring: KeyRing)
    throws(SecStatus) -> [RowRecord]
  {
    let plan = plan(filter, limit: limit, ring)
    let rowFetch = ItemFetch(attributes: fetch.attributes || plan.needsPostFilter, data: fetch.data)
    return try database {
      let cursor = try Row.fetchCursor(db.cachedStatement(sql: plan.sql), arguments: StatementArguments(plan.arguments))
      var records: [RowRecord] = []
      while let row = try cursor.next() {
        let record = try decodeRow(row, fetch: rowFetch, ring)
        if plan.needsPostFilter && !matches(record.item, plan.remaining, hostOrSubdomain: filter.hostOrSubdomain) {
          continue
        }
        records.append(record)
        if let limit, records.count >= limit { break }
      }
      return records
    }
  }

  /// SQLite's query plan for a search, for tests that prove the indexes are used.
  func queryPlan(for filter: ItemFilter) throws(SecStatus) -> [String] {
    let ring = try keyRing()
    let plan = plan(filter, limit: nil, ring)
    return try database {
      try pool.read { db in
        try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + plan.sql, arguments: StatementArguments(plan.arguments))
          .map { $0["detail"] as String? ?? "" }
      }
    }
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
      switch item.attributes["srvr"] {
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
    for record in records {
      var attributes = record.item.attributes.merging(change.attributes) { _, new in new }
      var accessControl = record.item.accessControl
      if let newAccessControl = change.accessControl {
        accessControl = newAccessControl
        attributes["pdmn"] = .string(newAccessControl.protection)
      } else if case .string(let protection)? = change.attributes["pdmn"], let current = accessControl {
        // A new protection replaces the protection inside the access control too (rule 12).
        accessControl = SecAccessControl(protection: protection, flags: current.flags)
      }
      try change.validate(attributes, accessControl)
      var modified = now
      if case .date(let previous)? = record.item.attributes["mdat"], modified <= previous {
        modified = previous.addingTimeInterval(0.001)
      }
      attributes["mdat"] = .date(modified)
      attributes["sha1"] = .data(fingerprint(attributes))
      // Data sealed under the old identity or protection is reopened to be sealed again: this also
      // makes WhenUnlocked items unchangeable while locked.
      var data = change.data
      if data == nil, let sealedSecret = record.sealedSecret {
        let oldIdentity = try identity(
          ring, record.item.itemClass, record.item.attributes, persistentID: record.item.persistentID)
        let key = try ring.classKey(for: record.protection)
        do {
          data = Data(
            try OpenSSLCrypto.open(
              [UInt8](sealedSecret), key: key, associatedData: oldIdentity.associatedData("secret")))
        } catch {
          throw .decode
        }
      } else {
        _ = try ring.classKey(for: record.protection)
      }
      let identity = try identity(ring, record.item.itemClass, attributes, persistentID: record.item.persistentID)
      let sealed = try seal(ring, identity, attributes: attributes, accessControl: accessControl, data: data)
      let arguments: [(any DatabaseValueConvertible)?] =
        [identity.accessGroup, identity.synchronizable, identity.protection, identity.primaryKey, identity.systemKey]
        + searchDigests(ring, record.item.itemClass, attributes) + [sealed.meta, sealed.secret, record.id]
      do {
        try db.cachedStatement(sql: Self.updateSQL).execute(arguments: StatementArguments(arguments))
      } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
        // Rule 7.10: a clash with a row that no longer decrypts replaces it; a sound one is a duplicate.
        try replaceCorruptRow(db, identity, ring)
        try database { try db.cachedStatement(sql: Self.updateSQL).execute(arguments: StatementArguments(arguments)) }
      } catch {
        throw Self.status(for: error)
      }
    }
    return records.count
  }

  // MARK: Transactions and errors

  /// Runs `body` in one `BEGIN IMMEDIATE` transaction; any thrown status rolls everything back.
  private func write<T>(_ body: @escaping (Database) throws(SecStatus) -> T) throws(SecStatus) -> T {
    let result: T = try database {
      try pool.writeWithoutTransaction { db in
        var value: T?
        try db.inTransaction(.immediate) {
          value = try body(db)
          return .commit
        }
        return value!
      }
    }
    checkpointer.noteCommit()
    return result
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
    switch error.resultCode {
    case .SQLITE_CONSTRAINT: return .duplicateItem
    case .SQLITE_READONLY: return SecStatus(errSecReadOnly)
    case .SQLITE_NOMEM: return SecStatus(errSecAllocate)
    case .SQLITE_IOERR, .SQLITE_FULL, .SQLITE_CANTOPEN: return .io
    case .SQLITE_CORRUPT, .SQLITE_NOTADB: return SecStatus(errSecInvalidKeychain)
    case .SQLITE_PERM, .SQLITE_AUTH: return SecStatus(errSecWrPerm)
    case .SQLITE_MISMATCH: return .noSuchAttribute
    case .SQLITE_INTERNAL: return SecStatus(errSecInternalComponent)
    default: return .notAvailable
    }
  }
}

/// Moves WAL checkpoints off the callers' commits: after enough commits, a background queue runs a
/// PASSIVE checkpoint on a connection of its own, which never blocks readers or writers.
private final class WALCheckpointer: Sendable {
  private static let commitsPerCheckpoint = 1000
  private let path: String
  private let state = Mutex<(commits: Int, running: Bool, connection: DatabaseQueue?)>((0, false, nil))
  private let queue = DispatchQueue(label: "keychain-bridge.checkpoint", qos: .utility)

  init(path: String) { self.path = path }

  func noteCommit() {
    let start = state.withLock { state -> Bool in
      state.commits += 1
      guard state.commits >= Self.commitsPerCheckpoint, !state.running else { return false }
      state.commits = 0
      state.running = true
      return true
    }
    guard start else { return }
    queue.async { [self] in
      let connection = state.withLock { state -> DatabaseQueue? in
        if state.connection == nil {
          var configuration = Configuration()
          configuration.busyMode = .timeout(1)
          state.connection = try? DatabaseQueue(path: path, configuration: configuration)
        }
        return state.connection
      }
      // A failed checkpoint is harmless: the WAL keeps the data and the next one catches up.
      try? connection?.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
      state.withLock { $0.running = false }
    }
  }
}

extension Row {
  /// Column accessors that report a wrongly typed value as errSecDecode instead of trapping, since
  /// the database file may have been altered.
  fileprivate func integer(_ index: Int) throws(SecStatus) -> Int64 {
    guard case .int64(let value) = (self[index] as DatabaseValue).storage else { throw .decode }
    return value
  }

  fileprivate func text(_ index: Int) throws(SecStatus) -> String {
    guard case .string(let value) = (self[index] as DatabaseValue).storage else { throw .decode }
    return value
  }

  fileprivate func blob(_ index: Int) throws(SecStatus) -> Data {
    guard case .blob(let value) = (self[index] as DatabaseValue).storage else { throw .decode }
    return value
  }

  fileprivate func optionalBlob(_ index: Int) throws(SecStatus) -> Data? {
    switch (self[index] as DatabaseValue).storage {
    case .null: return nil
    case .blob(let value): return value
    default: throw .decode
    }
  }
}

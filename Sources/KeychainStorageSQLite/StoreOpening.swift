import CSQLite
import Foundation
import KeychainCrypto
import Security

// Opening a store's files: creating a new store, refusing foreign or damaged ones, migrating the
// schema, and checking that the key file belongs to the database.
extension SQLiteItemStorage {
  /// How a store's key is protected: decided once, when the store is made, and recorded in the
  /// database (`store_info.protection`), so that a key file that says otherwise is refused.
  enum Protection: UInt8 {
    case keyFile = 0
    case passphrase = 1

    init(keyFile contents: [UInt8], path: String) throws(KeychainStoreError) {
      do {
        self = try KeyFile.needsPassphrase(contents) ? .passphrase : .keyFile
      } catch {
        throw KeychainStoreError(status: errSecDecode, message: "The key file \(path) is damaged.")
      }
    }

    var description: String { self == .passphrase ? "with a passphrase" : "without a passphrase" }
  }

  /// What opening a store's files gives: its connections, its key file, its key check and how its
  /// key is protected.
  struct OpenedDatabase {
    var writer: SQLiteWriter?
    var readers: ReadConnections
    var keyFile: [UInt8]
    var keyCheck: [UInt8]?
    var protection: Protection
    /// The keys of a store this open created: the caller uses them instead of opening the key file
    /// it just wrote again (a second scrypt for a passphrase store).
    var createdRing: KeyRing? = nil
  }

  /// What the database records about its key: the check value, the protection, and whether it
  /// holds items (a store with items and no key file is refused, never given a new key).
  struct KeyRecords {
    var keyCheck: [UInt8]?
    var protection: Protection?
    var hasItems: Bool
  }

  /// Opens, and for a new store creates, the database and the key file. Runs under the directory
  /// lock, so that concurrent first opens cannot see each other's half-made store: the first one
  /// makes the key file and records its check and protection; every later one finds them.
  static func openDatabase(
    _ files: StoreFiles, readOnly: Bool, checkpointer: WALCheckpointer, passphrase: String?,
    sealing: KeyFileSealing? = nil
  ) throws(KeychainStoreError) -> OpenedDatabase {
    let writer: SQLiteWriter?
    let readers: ReadConnections
    let records: KeyRecords
    if readOnly {
      guard FileManager.default.fileExists(atPath: files.databasePath) else {
        throw KeychainStoreError(
          status: errSecNoSuchKeychain,
          message: "\(files.directory.path) is read-only and holds no keychain store to open.")
      }
      try files.checkPrivate(files.databasePath, what: "database")
      writer = nil
      // A cleanly closed store has no WAL; on a read-only file system SQLite could not create the
      // shared-memory file a WAL reader needs, so such a database is opened as immutable.
      readers = ReadConnections(path: files.databasePath, immutable: !files.hasWriteAheadLog)
      records = try readOnlySchemaCheck(readers, path: files.databasePath)
    } else {
      try files.prepareDatabaseFile()
      files.createSpaceReserve()
      let opened = try openWriter(path: files.databasePath, checkpointer: checkpointer)
      records = try migrate(opened, path: files.databasePath)
      writer = opened
      readers = ReadConnections(path: files.databasePath, immutable: false)
    }
    if let read = try files.readKeyFile() {
      // A key file sealed to this machine's TPM is unsealed here; what it holds is kept in memory
      // only, and decides the protection as an unsealed key file would.
      let existing = try KeyFileSealing.inner(read, sealing, path: files.keyFilePath)
      let found = try Protection(keyFile: existing, path: files.keyFilePath)
      if let recorded = records.protection, recorded != found {
        throw KeychainStoreError(
          status: errSecAuthFailed,
          message:
            "The key file \(files.keyFilePath) is of a store \(found.description), but this store was created \(recorded.description): the key file was replaced, and is refused."
        )
      }
      if records.protection == nil, let writer {
        // A store made before the protection was recorded: its key file as first found decides.
        try record(protection: found, keyCheck: nil, in: writer, path: files.databasePath)
      }
      return OpenedDatabase(
        writer: writer, readers: readers, keyFile: existing, keyCheck: records.keyCheck, protection: found)
    }
    guard records.keyCheck == nil, records.protection == nil, !records.hasItems else {
      throw KeychainStoreError(
        status: errSecAuthFailed,
        message:
          "The key file \(files.keyFilePath) is missing; the items in \(files.databasePath) cannot be decrypted without it."
      )
    }
    guard let writer else {
      throw KeychainStoreError(
        status: errSecReadOnly, message: "\(files.directory.path) is read-only and has no key file yet.")
    }
    return try create(files, writer: writer, readers: readers, passphrase: passphrase, sealing: sealing)
  }

  /// Makes a new store's key, writes its key file, then records its check and protection (in that
  /// order: a crash between the two leaves a key file with no check, which the next open records).
  private static func create(
    _ files: StoreFiles, writer: SQLiteWriter, readers: ReadConnections, passphrase: String?,
    sealing: KeyFileSealing?
  ) throws(KeychainStoreError) -> OpenedDatabase {
    var storeKey: [UInt8]
    do { storeKey = try SecureBytes.random(count: StoreKeys.keyLength) } catch {
      throw KeychainStoreError(status: errSecAllocate, message: "The random number generator failed.")
    }
    defer { SecureBytes.wipe(&storeKey) }
    let sealedKey: [UInt8]
    let ring: KeyRing
    do {
      sealedKey = try KeyFile.encode(storeKey: storeKey, passphrase: passphrase)
      ring = try KeyRing(storeKey: try SecretKey(taking: &storeKey))
    } catch let error as KeyFileError {
      throw KeychainStoreError(status: error.status.code, message: "Cannot seal the new store key.")
    } catch {
      throw KeychainStoreError(status: errSecInternalComponent, message: "Cannot derive the new store's keys.")
    }
    var written = sealedKey
    if let sealing, sealing.sealsNewStores { written = try sealing.sealed(sealedKey) }
    let onDisk = try files.createKeyFile(written)
    let keyFile = onDisk == written ? sealedKey : try KeyFileSealing.inner(onDisk, sealing, path: files.keyFilePath)
    let protection = try Protection(keyFile: keyFile, path: files.keyFilePath)
    // Under the directory lock the key file is ours; another one is kept only if a process that
    // does not take the lock wrote it first, and then its own key must be read from it.
    guard keyFile == sealedKey else {
      try record(protection: protection, keyCheck: nil, in: writer, path: files.databasePath)
      return OpenedDatabase(writer: writer, readers: readers, keyFile: keyFile, keyCheck: nil, protection: protection)
    }
    try record(protection: protection, keyCheck: ring.keyCheck, in: writer, path: files.databasePath)
    return OpenedDatabase(
      writer: writer, readers: readers, keyFile: keyFile, keyCheck: ring.keyCheck, protection: protection,
      createdRing: ring)
  }

  /// Records a store's protection and key check where none is recorded yet.
  private static func record(protection: Protection, keyCheck: [UInt8]?, in writer: SQLiteWriter, path: String)
    throws(KeychainStoreError)
  {
    do {
      try writer.transaction { connection in
        try connection.run(
          "INSERT OR IGNORE INTO store_info (name, value) VALUES ('protection', ?)",
          [.blob(Data([protection.rawValue]))]
        )
        if let keyCheck {
          try connection.run(
            "INSERT OR IGNORE INTO store_info (name, value) VALUES ('key_check', ?)", [.blob(Data(keyCheck))])
        }
      }
    } catch {
      throw KeychainStoreError(
        status: SQLiteErrors.status(for: error).code, message: "Cannot record the store's key check in \(path).")
    }
  }

  /// The key records a database holds.
  private static func keyRecords(
    keyCheck: Data?, protection: Data?, hasItems: Bool, path: String
  ) throws(KeychainStoreError) -> KeyRecords {
    var recorded: Protection?
    if let protection {
      guard protection.count == 1, let value = Protection(rawValue: protection[protection.startIndex]) else {
        throw KeychainStoreError(
          status: errSecDecode, message: "\(path) records a store protection this version does not know.")
      }
      recorded = value
    }
    return KeyRecords(keyCheck: keyCheck.map { [UInt8]($0) }, protection: recorded, hasItems: hasItems)
  }

  /// Checks that a database opened read-only is a keychain store in the current row format, and
  /// returns its key check.
  private static func readOnlySchemaCheck(_ readers: ReadConnections, path: String) throws(KeychainStoreError)
    -> KeyRecords
  {
    let format: Data?
    let keyCheck: Data?
    let protection: Data?
    let hasItems: Bool
    do {
      let tables = try readers.strings("SELECT name FROM sqlite_master WHERE type = 'table'")
      guard tables.contains("store_info") else {
        throw KeychainStoreError(
          status: errSecInvalidKeychain,
          message: "\(path) is not a keychain store; it was opened read-only and left untouched.")
      }
      format = try readers.storeInfo("row_format")
      keyCheck = try readers.storeInfo("key_check")
      protection = try readers.storeInfo("protection")
      hasItems = try !readers.strings("SELECT 'x' FROM item LIMIT 1").isEmpty
    } catch let error as KeychainStoreError {
      throw error
    } catch let status as SecStatus {
      throw KeychainStoreError(status: status.code, message: "Cannot read \(path) (read-only): \(status).")
    } catch {
      throw KeychainStoreError(status: errSecNotAvailable, message: "Cannot read \(path) (read-only).")
    }
    guard RowFormat(recorded: format) != nil else { throw newerFormat(path) }
    guard RowFormat(recorded: format) == .current else {
      throw KeychainStoreError(
        status: errSecReadOnly,
        message: "\(path) was written by an older version and is read-only here; open it once where it can be written.")
    }
    return try keyRecords(keyCheck: keyCheck, protection: protection, hasItems: hasItems, path: path)
  }

  /// The refusal of a store whose rows are in a format a newer version wrote.
  private static func newerFormat(_ path: String) -> KeychainStoreError {
    KeychainStoreError(
      status: errSecInvalidKeychain,
      message:
        "\(path) was written by a newer version of KeychainBridge; open it with that version. It was left untouched.")
  }

  private static func openWriter(path: String, checkpointer: WALCheckpointer) throws(KeychainStoreError)
    -> SQLiteWriter
  {
    do {
      return try SQLiteWriter(path: path) { connection in checkpointer.watch(connection) }
    } catch {
      throw KeychainStoreError(
        status: SQLiteErrors.status(for: error).code, message: "Cannot open \(path) as a keychain database.")
    }
  }

  /// The schema of a new store. Stores created while GRDB managed the file also hold its
  /// `grdb_migrations` table, which nothing reads any more.
  private static let schema = """
    CREATE TABLE store_info (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL);
    """ + ItemTable.createSQL

  /// Creates the schema in a new database, refuses a foreign one, records the row format, and
  /// returns the stored key check. Each step looks at what the file holds, so running it again, or
  /// on a store of an earlier version, does only what is missing.
  private static func migrate(_ writer: SQLiteWriter, path: String) throws(KeychainStoreError) -> KeyRecords {
    let stored: (keyCheck: Data?, protection: Data?, hasItems: Bool)
    do {
      stored = try writer.transaction { connection in
        let tables = Set(try connection.strings("SELECT name FROM sqlite_master WHERE type = 'table'"))
        if !tables.isEmpty && !tables.contains("store_info") {
          throw KeychainStoreError(
            status: errSecInvalidKeychain,
            message: "\(path) is an SQLite database of another program, not a keychain store; it was left untouched.")
        }
        if tables.isEmpty { try connection.execute(schema) }
        // Rows of an earlier format are sealed again by upgradeRowFormat once the keys are at
        // hand; a store without a recorded format is of format 1 if it has rows. A format this
        // version does not know was written by a newer one, whose rows it would take for damaged.
        if let recorded = try connection.blob("SELECT value FROM store_info WHERE name = 'row_format'") {
          guard RowFormat(recorded: recorded) != nil else { throw Self.newerFormat(path) }
        } else {
          let hasItems = try !connection.strings("SELECT 'x' FROM item LIMIT 1").isEmpty
          try connection.run(
            "INSERT INTO store_info (name, value) VALUES ('row_format', ?)",
            [.blob(hasItems ? RowFormat.one.recorded : RowFormat.current.recorded)])
        }
        try ItemTable.makeDigestIndexesPartial(connection)
        try ItemTable.addAccessControlColumn(connection)
        // The change feed (ChangeFeedTable). A store made before it holds the sync journal the feed
        // replaced (`sync_state`, journal formats 1 and 2), which LegacyJournalMigration converts
        // once the keys are at hand; a store without one is in the feed's format from the start.
        let hadJournal = tables.contains("sync_state")
        try connection.execute(ChangeFeedTable.schema)
        let journalFormat = try connection.blob("SELECT value FROM store_info WHERE name = 'journal_format'")
        if !hadJournal && journalFormat != ChangeFeedTable.journalFormat {
          try connection.run(
            "INSERT OR REPLACE INTO store_info (name, value) VALUES ('journal_format', ?)",
            [.blob(ChangeFeedTable.journalFormat)])
        } else if hadJournal && journalFormat == nil {
          try connection.run("INSERT INTO store_info (name, value) VALUES ('journal_format', ?)", [.blob(Data([1]))])
        }
        return (
          try connection.blob("SELECT value FROM store_info WHERE name = 'key_check'"),
          try connection.blob("SELECT value FROM store_info WHERE name = 'protection'"),
          try !connection.strings("SELECT 'x' FROM item LIMIT 1").isEmpty
        )
      }
    } catch let error as KeychainStoreError {
      throw error
    } catch {
      throw KeychainStoreError(
        status: SQLiteErrors.status(for: error).code,
        message: "\(path) is not a valid keychain database (\(SQLiteErrors.status(for: error))).")
    }
    return try keyRecords(
      keyCheck: stored.keyCheck, protection: stored.protection, hasItems: stored.hasItems, path: path)
  }

  static func unlockedRing(_ keyFile: SecretKey, passphrase: String?, files: StoreFiles)
    throws(KeychainStoreError) -> KeyRing
  {
    var bytes = passphrase.map { Array($0.utf8) }
    defer { if bytes != nil { SecureBytes.wipe(&bytes!) } }
    return try unlockedRing(keyFile, passphraseBytes: bytes, files: files)
  }

  /// `unlockedRing` with the passphrase as bytes, which the caller wipes.
  static func unlockedRing(_ keyFile: SecretKey, passphraseBytes passphrase: [UInt8]?, files: StoreFiles)
    throws(KeychainStoreError) -> KeyRing
  {
    var storeKey: [UInt8]
    // The key file's bytes are in an array only for the time KeyFile reads them.
    var contents = keyFile.withKeyBytes { [UInt8]($0) }
    defer { SecureBytes.wipe(&contents) }
    do {
      storeKey = try KeyFile.decode(contents, passphraseBytes: passphrase)
    } catch {
      let status = error.status
      let reason =
        status == .authFailed
        ? "The passphrase is wrong." : "The key file \(files.keyFilePath) is damaged or unreadable."
      throw KeychainStoreError(status: status.code, message: reason)
    }
    do {
      return try KeyRing(storeKey: try SecretKey(taking: &storeKey))
    } catch {
      throw KeychainStoreError(status: error.status.code, message: "Cannot derive the store's keys: \(error).")
    }
  }

  /// Refuses a key that is not the database's, and records the key check of a store made before
  /// checks were recorded at creation.
  ///
  /// The check proves that the key file and the recorded check agree; the rows prove that the key is
  /// the one the items were sealed under. Someone who planted a key file of their own and recorded
  /// its check has a key that opens none of them, so the store is refused instead of answering
  /// "damaged" for every old item while sealing every new secret under the planted key.
  static func verify(
    _ ring: KeyRing, against stored: [UInt8]?, readers: ReadConnections, in writer: SQLiteWriter?, files: StoreFiles
  ) throws(KeychainStoreError) {
    guard let check = ring.keyCheck else { return }
    if let stored, stored != check {
      throw KeychainStoreError(
        status: errSecAuthFailed,
        message: "The key file \(files.keyFilePath) does not belong to the database \(files.databasePath).")
    }
    guard try opensAnItem(ring, readers: readers, files: files) else {
      // The recorded check cannot tell the two apart: a planted key file comes with its check.
      let why =
        stored == nil
        ? "it is not the key they were sealed under (the key file was replaced?)"
        : "either the key file and its recorded check were both replaced, or every item was damaged"
      throw KeychainStoreError(
        status: errSecAuthFailed,
        message:
          "The key file \(files.keyFilePath) opens none of the items in \(files.databasePath): \(why). The store is refused so that no new secret is sealed under a key that is not the store's."
      )
    }
    guard stored == nil else { return }
    guard let writer else {
      throw KeychainStoreError(
        status: errSecReadOnly, message: "\(files.databasePath) is read-only and has no key check recorded yet.")
    }
    do {
      let winner = try writer.transaction { connection in
        try connection.run(
          "INSERT OR IGNORE INTO store_info (name, value) VALUES ('key_check', ?)", [.blob(Data(check))])
        return try connection.blob("SELECT value FROM store_info WHERE name = 'key_check'").map { [UInt8]($0) }
      }
      guard winner == check else {
        throw KeychainStoreError(
          status: errSecAuthFailed, message: "Another key was installed for \(files.databasePath) concurrently.")
      }
    } catch let error as KeychainStoreError {
      throw error
    } catch {
      throw KeychainStoreError(
        status: SQLiteErrors.status(for: error).code,
        message: "Cannot record the store key check in \(files.databasePath).")
    }
  }

  /// Whether the store holds no item, or the metadata of at least one opens under `ring`. Rows are
  /// tried newest first and the first that opens ends the search: one row in a healthy store, every
  /// row only when none opens. Stores still in an earlier row format are checked by their upgrade instead.
  private static func opensAnItem(_ ring: KeyRing, readers: ReadConnections, files: StoreFiles)
    throws(KeychainStoreError) -> Bool
  {
    do {
      guard RowFormat(recorded: try readers.storeInfo("row_format")) == .current else { return true }
      var sawRow = false
      var opened = false
      try readers.withStatement("SELECT \(ItemTable.selectList) FROM item ORDER BY id DESC") {
        statement throws(SecStatus) in
        try forEachRow(of: statement, arguments: []) { row throws(SecStatus) in
          sawRow = true
          opened = (try? RowCodec.decode(row, fetch: ItemFetch(attributes: false, data: false), ring)) != nil
          return !opened
        }
      }
      return opened || !sawRow
    } catch {
      throw KeychainStoreError(status: error.code, message: "Cannot read the items of \(files.databasePath).")
    }
  }
}

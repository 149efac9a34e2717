import CSQLite
import Foundation
import Security

// Opening a store's files: creating a new store, refusing foreign or damaged ones, migrating the
// schema, and checking that the key file belongs to the database.
extension SQLiteItemStore {
  /// What opening a store's files gives: its connections, its key file and its key check.
  struct OpenedDatabase {
    var writer: SQLiteWriter?
    var readers: ReadConnections
    var keyFile: [UInt8]
    var keyCheck: [UInt8]?
  }

  /// Opens, and for a new store creates, the database and the key file. Runs under the directory
  /// lock, so that concurrent first opens cannot see each other's half-made store.
  static func openDatabase(
    _ files: StoreFiles, readOnly: Bool, checkpointer: WALCheckpointer, passphrase: String?
  ) throws(KeychainStoreError) -> OpenedDatabase {
    let writer: SQLiteWriter?
    let readers: ReadConnections
    let keyCheck: [UInt8]?
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
      keyCheck = try readOnlySchemaCheck(readers, path: files.databasePath)
    } else {
      try files.prepareDatabaseFile()
      files.createSpaceReserve()
      let opened = try openWriter(path: files.databasePath, checkpointer: checkpointer)
      keyCheck = try migrate(opened, path: files.databasePath)
      writer = opened
      readers = ReadConnections(path: files.databasePath, immutable: false)
    }
    if let existing = try files.readKeyFile() {
      return OpenedDatabase(writer: writer, readers: readers, keyFile: existing, keyCheck: keyCheck)
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
    return OpenedDatabase(writer: writer, readers: readers, keyFile: keyFile, keyCheck: keyCheck)
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
    """

  /// Creates the schema in a new database, refuses a foreign one, records the row format, and
  /// returns the stored key check. Each step looks at what the file holds, so running it again, or
  /// on a store of an earlier version, does only what is missing.
  private static func migrate(_ writer: SQLiteWriter, path: String) throws(KeychainStoreError) -> [UInt8]? {
    do {
      return try writer.transaction { connection in
        let tables = Set(try connection.strings("SELECT name FROM sqlite_master WHERE type = 'table'"))
        if !tables.isEmpty && !tables.contains("store_info") {
          throw KeychainStoreError(
            status: errSecInvalidKeychain,
            message: "\(path) is an SQLite database of another program, not a keychain store; it was left untouched.")
        }
        if tables.isEmpty { try connection.execute(schema) }
        // The sync journal (issue 16) and the store's identifier in the records it makes; stores
        // made before them gain both here.
        try connection.execute(SyncJournal.schema)
        // Old tombstones go at every open, so a store that never syncs does not keep them for ever
        // (an engine purges those of a store in a group as it runs, by its own age setting).
        try connection.run(
          """
          DELETE FROM sync_state WHERE deleted = 1 AND changed < ?
          AND (pending = 0 OR NOT EXISTS (SELECT 1 FROM store_info WHERE name = 'sync_group'))
          """,
          [.integer(SyncJournal.microseconds(Date().addingTimeInterval(-SyncJournal.defaultTombstoneAge)))])
        if try connection.blob("SELECT value FROM store_info WHERE name = 'store_id'") == nil {
          try connection.run(
            "INSERT INTO store_info (name, value) VALUES ('store_id', ?)",
            [.blob(Data(try OpenSSLCrypto.randomBytes(SyncKeys.originLength)))])
        }
        // Row format 2 binds the search digests and the secret's presence into each row's sealing.
        // Rows written before it are sealed again by upgradeRowFormat once the keys are at hand.
        if try connection.blob("SELECT value FROM store_info WHERE name = 'row_format'") == nil {
          let hasItems = try !connection.strings("SELECT 'x' FROM item LIMIT 1").isEmpty
          try connection.run(
            "INSERT INTO store_info (name, value) VALUES ('row_format', ?)", [.blob(Data([hasItems ? 1 : 2]))])
        }
        return try connection.blob("SELECT value FROM store_info WHERE name = 'key_check'").map { [UInt8]($0) }
      }
    } catch let error as KeychainStoreError {
      throw error
    } catch {
      throw KeychainStoreError(
        status: SQLiteErrors.status(for: error).code,
        message: "\(path) is not a valid keychain database (\(SQLiteErrors.status(for: error))).")
    }
  }

  static func unlockedRing(_ contents: [UInt8], passphrase: String?, files: StoreFiles)
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
  static func verify(_ ring: KeyRing, against stored: [UInt8]?, in writer: SQLiteWriter?, files: StoreFiles)
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
}

import Foundation
import KeychainCrypto
import Security

// Stores made before the change feed kept a sync journal (`sync_state`, journal formats 1 and 2)
// and their sync membership in `store_info`, both written by the storage itself. This converts
// them, once the keys are at hand, into the feed's entries and the replicator's namespace values
// under the names KeychainSync reads, in one transaction, and drops the old table. Entries that
// fail authentication (or hold an impossible version) are left out, as the journal skipped them.
extension SQLiteItemStorage {
  /// The namespace names the legacy membership rows move to (KeychainSync's `SyncStateNames`).
  private static let legacyValueNames: [(storeInfo: String, value: String)] = [
    ("store_id", "sync.origin"), ("sync_cursor", "sync.server-cursor"), ("sync_rejected", "sync.rejected"),
    ("sync_damaged", "sync.damaged"),
  ]
  private static let legacyMembershipLabel = Array("keychain-bridge/sync/membership/v1".utf8)
  /// The latest version the journal accepted (the first of January 9999, in microseconds).
  private static let legacyMaximumVersion: Int64 = 253_370_764_800_000_000

  /// Converts the legacy journal into the change feed; nothing to do for a store in format 3.
  func migrateLegacyJournal(_ ring: KeyRing) throws(KeychainStoreError) {
    guard writer != nil else { return }
    do {
      guard try readers.storeInfo("journal_format") != ChangeFeedTable.journalFormat else { return }
      try write { db throws(SecStatus) in
        guard let format = try db.blob("SELECT value FROM store_info WHERE name = 'journal_format'"),
          format != ChangeFeedTable.journalFormat
        else { return }
        let converted = try convertEntries(db, formatOne: format == Data([1]), ring)
        try moveMembership(db, ring)
        try SQLiteErrors.database {
          try db.run("DROP TABLE IF EXISTS sync_state")
          try db.run(
            "INSERT OR REPLACE INTO store_info (name, value) VALUES ('journal_format', ?)",
            [.blob(ChangeFeedTable.journalFormat)])
        }
        storeLogger.notice(
          "Converted the sync journal into the change feed",
          metadata: ["database": .string(self.files.databasePath), "entries": .stringConvertible(converted)])
      }
    } catch {
      throw KeychainStoreError(
        status: error.code, message: "Cannot convert the sync journal of \(files.databasePath) into the change feed.")
    }
  }

  private func convertEntries(_ db: SQLiteConnection, formatOne: Bool, _ ring: KeyRing) throws(SecStatus) -> Int {
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    let journal = try SQLiteErrors.database {
      try db.statement("SELECT class, pk, spi, version, origin, deleted, pending, identity, changed FROM sync_state")
    }
    var entries:
      [(
        key: LocalItemKey, identity: ItemIdentity, deleted: Bool, changedAt: Int64, mark: ReplicaMark,
        pending: Bool
      )] = []
    try forEachRow(of: journal, arguments: []) { row throws(SecStatus) in
      guard let itemClass = ItemClass(rawValue: try row.text(0)) else { return true }
      let key = LocalItemKey(itemClass: itemClass, primaryKey: try row.blob(1), spiKey: try row.blob(2))
      let version = try row.integer(3)
      let origin = try row.blob(4)
      let deleted = try row.integer(5)
      let associatedData =
        formatOne
        ? key.legacyFormatOneAssociatedData
        : key.legacyAssociatedData(version: version, origin: origin, deleted: deleted == 1)
      guard version > 0, version <= Self.legacyMaximumVersion, deleted == 0 || deleted == 1,
        let plaintext = try? AES.GCM.open(
          combined: try row.bytes(7), using: metadataKey, authenticating: associatedData),
        let identity = try? ItemIdentity.decoded(plaintext)
      else { return true }
      entries.append(
        (
          key, identity, deleted == 1, try row.integer(8),
          ReplicaMark(version: version, origin: origin, deleted: deleted == 1, versionedSequence: nil, settled: false),
          try row.integer(6) == 1
        ))
      return true
    }
    let rows = try SQLiteErrors.database {
      try db.statement("SELECT persistref, pdmn FROM item WHERE class = ? AND pk = ? AND spi = ?")
    }
    var sequence: Int64 = 0
    for entry in entries {
      // A live entry takes its row's protection; one whose row is gone is left out.
      var live: (persistentID: Data, protection: String)?
      if !entry.deleted {
        try forEachRow(of: rows, arguments: entry.key.arguments) { row throws(SecStatus) in
          live = (try row.blob(0), try row.text(1))
          return false
        }
        if live == nil { continue }
      }
      sequence += 1
      var mark = entry.mark
      // The journal's version was this change's; the server has it unless it was pending.
      mark.versionedSequence = sequence
      mark.settled = !entry.pending
      let change = FeedChange(
        sequence: sequence, identity: entry.identity, persistentID: live?.persistentID, protection: live?.protection,
        changedAt: entry.changedAt,
        source: .local, mark: mark)
      try SQLiteErrors.database {
        try db.run(ChangeFeedTable.upsertSQL, try ChangeFeedTable.row(change, entry.key, ring))
      }
    }
    try SQLiteErrors.database {
      try db.run(
        "INSERT OR REPLACE INTO store_info (name, value) VALUES ('change_sequence', ?)", [.blob(Self.bytes(sequence))])
    }
    return Int(sequence)
  }

  /// Moves the membership (sealed under the metadata key with its own label) and the counters
  /// into the namespace, sealed as namespace values.
  private func moveMembership(_ db: SQLiteConnection, _ ring: KeyRing) throws(SecStatus) {
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    var moves: [(String, Data)] = []
    if let sealed = try db.blob("SELECT value FROM store_info WHERE name = 'sync_group'"),
      let plaintext = try? AES.GCM.open(
        combined: [UInt8](sealed), using: metadataKey, authenticating: Self.legacyMembershipLabel)
    {
      moves.append(("sync.membership", Data(plaintext)))
    }
    for (name, value) in Self.legacyValueNames {
      if let stored = try db.blob("SELECT value FROM store_info WHERE name = ?", [.text(name)]) {
        moves.append((value, stored))
      }
    }
    for (name, value) in moves {
      try SQLiteErrors.database {
        try db.run(
          "INSERT OR REPLACE INTO replication_value (name, value) VALUES (?, ?)",
          [.text(name), .blob(try ChangeFeedTable.sealValue(value, name: name, ring))])
      }
    }
    try SQLiteErrors.database {
      try db.run(
        """
        DELETE FROM store_info WHERE name IN ('sync_group', 'store_id', 'sync_cursor', 'sync_rejected', 'sync_damaged')
        """)
    }
  }
}

extension LocalItemKey {
  /// The associated data of a journal entry's sealed identity in journal format 2: the entry's
  /// key, version, origin and deletion flag.
  func legacyAssociatedData(version: Int64, origin: Data, deleted: Bool) -> [UInt8] {
    var bytes = Array("keychain-bridge/sync-state/v2".utf8)
    for field in [Array(itemClass.rawValue.utf8), Array(primaryKey), Array(spiKey), Array(origin)] {
      withUnsafeBytes(of: UInt32(truncatingIfNeeded: field.count).littleEndian) { bytes += $0 }
      bytes += field
    }
    withUnsafeBytes(of: version.littleEndian) { bytes += $0 }
    bytes.append(deleted ? 1 : 0)
    return bytes
  }

  /// The associated data of journal format 1 (the key only).
  var legacyFormatOneAssociatedData: [UInt8] {
    Array("keychain-bridge/sync-state/v1".utf8) + Array(itemClass.rawValue.utf8) + [0] + Array(primaryKey)
      + Array(spiKey)
  }
}

import Foundation
import KeychainCrypto
import Security

// Journal format 1 sealed each entry's identity under its key only, so a version, an origin or a
// deletion flag changed on disk went unnoticed and was pushed to the whole group. Format 2 binds
// them (LocalItemKey.associatedData(version:origin:deleted:)). Stores written before it have their
// entries sealed again when their keys are first at hand.
extension SQLiteItemStorage {
  /// Seals format-1 journal entries again in format 2, in one transaction.
  ///
  /// Only entries that open with format 1's associated data, hold a plausible version and a
  /// deletion flag of 0 or 1 are sealed again; the others are left as they are and fail
  /// authentication from then on. Forcing the format back to 1 launders nothing: a format-2 entry
  /// does not open as format 1.
  func upgradeJournalFormat(_ ring: KeyRing) throws(KeychainStoreError) {
    guard writer != nil else { return }
    let formatSQL = "SELECT value FROM store_info WHERE name = 'journal_format'"
    do {
      guard try readers.storeInfo("journal_format") != SyncJournal.currentFormat else { return }
      try write { db throws(SecStatus) in
        guard try db.blob(formatSQL) != SyncJournal.currentFormat else { return }
        var upgrades: [(key: LocalItemKey, identity: [UInt8])] = []
        let rows = try SQLiteErrors.database {
          try db.statement("SELECT class, pk, spi, version, origin, deleted, identity FROM sync_state")
        }
        try forEachRow(of: rows, arguments: []) { row throws(SecStatus) in
          guard let itemClass = ItemClass(rawValue: try row.text(0)) else { return true }
          let key = LocalItemKey(itemClass: itemClass, primaryKey: try row.blob(1), spiKey: try row.blob(2))
          let version = try row.integer(3)
          let origin = try row.blob(4)
          let deleted = try row.integer(5)
          guard SyncJournal.isPlausible(version: version), deleted == 0 || deleted == 1,
            let identity = try? SyncJournal.openIdentity(
              try row.bytes(6), associatedData: key.formatOneAssociatedData, ring),
            let metadataKey = ring.metadataKey
          else { return true }
          let plaintext = try identity.encoded()
          do throws(CryptoError) {
            let sealed = try AES.GCM.seal(
              plaintext, using: metadataKey,
              authenticating: key.associatedData(version: version, origin: origin, deleted: deleted == 1))
            upgrades.append((key, sealed))
          } catch {
            throw error.status
          }
          return true
        }
        for upgrade in upgrades {
          try SQLiteErrors.database {
            try db.run(
              "UPDATE sync_state SET identity = ? WHERE class = ? AND pk = ? AND spi = ?",
              [.blob(Data(upgrade.identity))] + upgrade.key.arguments)
          }
        }
        try SQLiteErrors.database {
          try db.run(
            "INSERT OR REPLACE INTO store_info (name, value) VALUES ('journal_format', ?)",
            [.blob(SyncJournal.currentFormat)])
        }
        storeLogger.notice(
          "Sealed sync journal entries again in journal format 2",
          metadata: ["database": .string(self.files.databasePath), "entries": .stringConvertible(upgrades.count)])
      }
    } catch {
      throw KeychainStoreError(
        status: error.code, message: "Cannot upgrade the sync journal of \(files.databasePath) to the current format.")
    }
  }
}

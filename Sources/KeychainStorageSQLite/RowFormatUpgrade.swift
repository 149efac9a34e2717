import Foundation
import KeychainCrypto
import Security

// Row format 1 bound only a row's identity columns into its sealing; format 2 binds every plain
// column. Stores written before format 2 are sealed again when their keys are first at hand.
extension SQLiteItemStorage {
  /// Seals rows written in row format 1 again in format 2, in one transaction.
  ///
  /// A format-1 row bound only its identity columns; its search digests are accepted only when they
  /// are what its authenticated attributes give, so an upgrade never launders a column altered on
  /// disk. Rows that fail either check are left as they are, and count as damaged from then on.
  func upgradeRowFormat(_ ring: KeyRing) throws(KeychainStoreError) {
    let formatSQL = "SELECT value FROM store_info WHERE name = 'row_format'"
    do {
      guard try readers.storeInfo("row_format") == Data([1]) else { return }
      try write { db throws(SecStatus) in
        guard try db.blob(formatSQL) == Data([1]) else { return }
        var upgrades: [(id: Int64, identity: RowIdentity, meta: Data, secret: Data?)] = []
        let rows = try SQLiteErrors.database { try db.statement("SELECT \(ItemTable.selectList) FROM item") }
        try forEachRow(of: rows, arguments: []) {
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
          try SQLiteErrors.database {
            try db.run(
              "UPDATE item SET meta = ?, secret = ? WHERE id = ?",
              [.blob(upgrade.meta), .optionalBlob(upgrade.secret), .integer(upgrade.id)])
          }
        }
        try SQLiteErrors.database {
          try db.run("UPDATE store_info SET value = ? WHERE name = 'row_format'", [.blob(Data([2]))])
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
    let (stored, sealedSecret) = try RowCodec.plainColumns(row)
    let itemClass = stored.itemClass
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    let attributes: SortedAttributes
    let accessControl: SecAccessControl?
    var data: Data?
    do {
      let plaintext = try AES.GCM.open(
        combined: try row.bytes(ItemColumn.metadata.rawValue), using: metadataKey,
        authenticating: stored.formatOneAssociatedData(.metadata))
      (attributes, accessControl) = try MetadataCodec.decode(plaintext)
      if let sealedSecret {
        data = Data(
          try AES.GCM.open(
            combined: sealedSecret, using: try ring.classKey(for: stored.protection),
            authenticating: stored.formatOneAssociatedData(.secret)))
      }
    } catch {
      throw .decode
    }
    // The search digests the row's authenticated attributes give, by the API's own indexing.
    let index = try ItemIndex(of: itemClass, attributes: attributes)
    guard stored.searchDigests == (try digests(ring).search(index.attributes)) else { throw .decode }
    let sealed = try RowCodec.seal(ring, stored, attributes: attributes, accessControl: accessControl, data: data)
    return (try row.integer(ItemColumn.id.rawValue), stored, sealed.meta, sealed.secret)
  }
}

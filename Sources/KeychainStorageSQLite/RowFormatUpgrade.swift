import Foundation
import KeychainCrypto
import Security

// Rows written in an earlier row format (RowFormat) are sealed again in the current one when the
// store's keys are first at hand.
extension SQLiteItemStorage {
  /// Rows sealed again per statement batch: the upgrade holds this many in memory at once, whatever
  /// the size of the store.
  private static let upgradeBatch = 500

  /// Seals every row of an earlier row format again in the current one, in one transaction: a
  /// process killed during it leaves the store as it was, to be upgraded at the next opening.
  ///
  /// Each row is opened with its own format's associated data, so only what that format
  /// authenticated is carried over: a format-1 row's search digests are accepted only when they are
  /// what its authenticated attributes give, and a format-2 row's access control is the one in its
  /// sealed metadata, whatever its `acl` column holds. Rows that fail are left as they are, and count
  /// as damaged from then on; an upgrade never launders a column altered on disk.
  func upgradeRowFormat(_ ring: KeyRing) throws(KeychainStoreError) {
    let formatSQL = "SELECT value FROM store_info WHERE name = 'row_format'"
    do {
      guard RowFormat(recorded: try readers.storeInfo("row_format")) != .current else { return }
      try write { db throws(SecStatus) in
        guard let format = RowFormat(recorded: try db.blob(formatSQL)), format != .current else { return }
        let rows = try SQLiteErrors.database {
          try db.statement(
            "SELECT \(ItemTable.selectList) FROM item WHERE id > ? ORDER BY id LIMIT \(Self.upgradeBatch)")
        }
        var upgraded = 0
        var left = 0
        var lastID: Int64 = 0
        while true {
          var batch: [(id: Int64, identity: RowIdentity, sealed: (meta: Data, secret: Data?))] = []
          var read = 0
          try forEachRow(of: rows, arguments: [.integer(lastID)]) { row throws(SecStatus) in
            read += 1
            lastID = try row.integer(ItemColumn.id.rawValue)
            do throws(SecStatus) {
              let (identity, sealed) = try self.sealedAgain(row, from: format, ring)
              batch.append((lastID, identity, sealed))
            } catch .decode {
              left += 1
            }
            return true
          }
          for row in batch {
            try SQLiteErrors.database {
              try db.run(ItemTable.updateSealedSQL, Self.sealedColumns(row.identity, row.sealed) + [.integer(row.id)])
            }
          }
          upgraded += batch.count
          if read < Self.upgradeBatch { break }
        }
        try SQLiteErrors.database {
          try db.run("UPDATE store_info SET value = ? WHERE name = 'row_format'", [.blob(RowFormat.current.recorded)])
        }
        storeLogger.notice(
          "Sealed rows again in the current row format",
          metadata: [
            "database": .string(self.files.databasePath), "from": .stringConvertible(format.rawValue),
            "to": .stringConvertible(RowFormat.current.rawValue), "rows": .stringConvertible(upgraded),
            "damagedRowsLeft": .stringConvertible(left),
          ])
      }
    } catch {
      throw KeychainStoreError(
        status: error.code, message: "Cannot upgrade the rows of \(files.databasePath) to the current format.")
    }
  }

  /// A row of `format` opened with that format's associated data and sealed in the current one;
  /// errSecDecode when it does not open or its columns are not what it was sealed with.
  private func sealedAgain(_ row: StatementRow, from format: RowFormat, _ ring: KeyRing) throws(SecStatus) -> (
    RowIdentity, (meta: Data, secret: Data?)
  ) {
    var identity = try RowCodec.plainColumns(row)
    let sealedSecret = try row.optionalBytes(ItemColumn.secret.rawValue)
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    let fields = identity.associatedFields(.two)
    let metadataData: [UInt8] =
      format == .one ? identity.formatOneAssociatedData(.metadata) : fields.associatedData(for: .metadata)
    let secretData: [UInt8] =
      format == .one ? identity.formatOneAssociatedData(.secret) : fields.associatedData(for: .secret)
    let attributes: SortedAttributes
    var data: Data?
    do {
      let plaintext = try AES.GCM.open(
        combined: try row.bytes(ItemColumn.metadata.rawValue), using: metadataKey, authenticating: metadataData)
      (attributes, identity.accessControl) = try MetadataCodec.decode(plaintext)
      if let sealedSecret {
        data = Data(
          try AES.GCM.open(
            combined: sealedSecret, using: try ring.classKey(for: identity.protection), authenticating: secretData))
      }
    } catch {
      throw .decode
    }
    guard attributes[SecConstantValue.attrAccessible] == .string(identity.protection) else { throw .decode }
    if format == .one {
      // Format 1 did not bind the search digests: they must be what the row's authenticated
      // attributes give, by the API's own indexing.
      let index = try ItemIndex(of: identity.itemClass, attributes: attributes)
      guard identity.searchDigests == (try digests(ring).search(index.attributes)) else { throw .decode }
    }
    return (identity, try RowCodec.seal(ring, identity, attributes: attributes, data: data))
  }
}

import CSQLite
import Foundation
import KeychainCrypto
import Security

// Writing rows: inserts, replacements at their versions, the corrupt-row rule, and the change
// feed's entry of each change. The storage's operations (SQLiteItemStorage.swift) call these inside a transaction.
extension SQLiteItemStorage {
  // MARK: Rows

  /// The values of `ItemTable.writtenColumns`, in their order: what both row writes set.
  static func rowColumns(_ identity: RowIdentity, _ sealed: (meta: Data, secret: Data?)) -> [SQLArgument] {
    [
      .digest(identity.accessGroup), .integer(identity.synchronizable), .text(identity.protection),
      .digest(identity.primaryKey), .digest(identity.spiKey),
    ] + (0..<SearchDigestColumns.count).map { .optionalDigest(identity.searchDigests[$0]) }
      + sealedColumns(identity, sealed)
  }

  /// The values of what `ItemTable.updateSealedSQL` sets (the access control and the two
  /// ciphertexts), which end `rowColumns` too.
  static func sealedColumns(_ identity: RowIdentity, _ sealed: (meta: Data, secret: Data?)) -> [SQLArgument] {
    [
      .optionalBlob(identity.accessControl.map(AccessControlColumn.encode)), .blob(sealed.meta),
      .optionalBlob(sealed.secret),
    ]
  }

  func insertRow(_ db: SQLiteConnection, _ item: NewItem, _ ring: KeyRing) throws(SecStatus) -> StoredItem {
    let persistentID: Data
    do { persistentID = Data(try SecureBytes.random(count: 16)) } catch { throw error.status }
    let identity = try digests(ring).identity(
      item.itemClass, item.index, persistentID: persistentID, hasSecret: item.data != nil,
      accessControl: item.accessControl)
    let attributes = SortedAttributes(item.attributes)
    let sealed = try RowCodec.seal(ring, identity, attributes: attributes, data: item.data)
    let arguments = [.text(item.itemClass.rawValue), .blob(persistentID)] + Self.rowColumns(identity, sealed)
    try executeReplacingCorruptRow(db, ItemTable.insertSQL, arguments, identity, ring)
    try feedLocalWrite(db, identity, item.index, ring)
    return StoredItem(
      itemClass: item.itemClass, persistentID: persistentID, attributes: attributes,
      accessControl: item.accessControl, data: item.data)
  }

  /// Runs an insert or update of a row with `identity`'s key. On a clash with a row that no longer
  /// decrypts, that row is removed and the statement run again: a damaged row must not make its
  /// key unusable for ever. A clash with a sound row is errSecDuplicateItem.
  func executeReplacingCorruptRow(
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
  func removeCorruptRow(_ db: SQLiteConnection, _ identity: RowIdentity, _ ring: KeyRing) throws(SecStatus) {
    let statement = try SQLiteErrors.database {
      try db.statement("SELECT \(ItemTable.selectList) FROM item WHERE class = ? AND pk = ? AND spi = ?")
    }
    var corruptID: Int64?
    var found = false
    try forEachRow(
      of: statement,
      arguments: [.text(identity.itemClass.rawValue), .digest(identity.primaryKey), .digest(identity.spiKey)]
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

  /// Replaces rows at their expected versions: every row is read and checked before any is
  /// written, so a row that changed since the caller read it leaves the transaction empty. A row
  /// the caller's read left unchanged, with the whole file, is not read again (VersionedReadCache).
  func replaceRows(_ db: SQLiteConnection, _ replacements: [ItemReplacement], _ ring: KeyRing)
    throws(SecStatus) -> ReplacementOutcome
  {
    let unchanged = versionedReads.take(in: db)
    let statement = try SQLiteErrors.database {
      try db.statement("SELECT \(ItemTable.selectList) FROM item WHERE persistref = ? AND class = ?")
    }
    var current: [RowRecord] = []
    current.reserveCapacity(replacements.count)
    for replacement in replacements {
      var found = unchanged[replacement.persistentID]
      if let record = found, record.item.itemClass != replacement.itemClass { found = nil }
      if found == nil {
        try forEachRow(
          of: statement, arguments: [.blob(replacement.persistentID), .text(replacement.itemClass.rawValue)]
        ) { row throws(SecStatus) in
          found = try RowCodec.decode(row, fetch: ItemFetch(attributes: false, data: false, version: true), ring)
          return false
        }
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
      if data == nil, record.identity.hasSecret, let opened = record.item.data {
        // Opened when the row was read (a read of its data): nothing is sealed left to open.
        data = opened
      } else if data == nil, let sealedSecret = record.sealedSecret {
        do throws(SecStatus) {
          data = try RowCodec.openSecret(sealedSecret, of: record.identity, ring, fields: record.associatedFields)
        } catch .decode {
          // Its metadata is sound but its secret is not: the row is left as it is, like any
          // damaged row a search meets.
          damaged += 1
          continue
        }
      } else {
        _ = try ring.classKey(for: record.identity.protection)
      }
      let identity: RowIdentity
      if revision.keepsAttributes {
        // A new secret only: the row's key, group, protection and search digests stay what they
        // are (none covers the dates or the fingerprint), so they are not derived again (six HMACs).
        var kept = record.identity
        kept.hasSecret = data != nil
        kept.accessControl = revision.accessControl
        identity = kept
      } else {
        identity = try digests(ring).identity(
          record.item.itemClass, revision.index, persistentID: record.item.persistentID, hasSecret: data != nil,
          accessControl: revision.accessControl)
      }
      let sealed = try RowCodec.seal(ring, identity, attributes: revision.attributes, data: data)
      if revision.keepsAttributes {
        // Only the access control and the two ciphertexts change. Naming no indexed column keeps
        // SQLite from rewriting the row's entries in all six indexes, which it does for every
        // column a SET names, even to the same value: an update then writes about a third of the
        // pages (keychain-bench).
        try SQLiteErrors.database {
          try db.run(ItemTable.updateSealedSQL, Self.sealedColumns(identity, sealed) + [.integer(record.id)])
        }
      } else {
        let arguments = Self.rowColumns(identity, sealed) + [.integer(record.id)]
        try executeReplacingCorruptRow(db, ItemTable.updateSQL, arguments, identity, ring)
      }
      // The feed's entries: a deletion of the old item when the row stops being it (its key
      // changed), and the new item's change.
      if LocalItemKey(record.identity) != LocalItemKey(identity) { try feedLocalRemoval(db, record.identity, ring) }
      try feedLocalWrite(db, identity, revision.index, ring)
      replaced += 1
    }
    if damaged > 0 {
      integrity.report(damagedRows: damaged, itemClass: current[0].item.itemClass)
      if replaced == 0 { throw .decode }
    }
    return .replaced(replaced)
  }
}

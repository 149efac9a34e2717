import Foundation
import KeychainCrypto
import Security

/// A row as read and authenticated, with what the fetch asked for decrypted.
struct RowRecord {
  var id: Int64
  var item: StoredItem
  var identity: RowIdentity
  /// The row's sealed secret, kept when the read did not open it (for `openSecret(_:)`); nil when
  /// the row has none or its secret was opened as the row was read (it is then `item.data`).
  var sealedSecret: [UInt8]?
  /// The associated data's fields, built once per row: a secret opened after the row was read
  /// (`openSecret(_:)`) reuses them.
  var associatedFields: RowIdentity.AssociatedFields

  /// Opens the row's secret, if it has one, into `item.data`: errSecInteractionNotAllowed when the
  /// lock state withholds its key, errSecDecode when the secret is not this row's.
  mutating func openSecret(_ ring: KeyRing) throws(SecStatus) {
    guard let sealedSecret else { return }
    item.data = try RowCodec.openSecret(sealedSecret, of: identity, ring, fields: associatedFields)
  }
}

/// Seals item rows and reads them back: the one place that knows the columns' order and what each
/// ciphertext is bound to.
enum RowCodec {
  /// A row's plain columns (selected by `ItemTable.selectList`), as read: not yet proven authentic.
  /// Its secret is not read (`hasSecret` says whether there is one): a caller opens it in place or
  /// copies it only to open it later.
  static func plainColumns(_ row: StatementRow) throws(SecStatus) -> RowIdentity {
    guard let itemClass = ItemClass(rawValue: try row.text(ItemColumn.itemClass.rawValue)) else { throw .decode }
    let hasSecret = try row.isPresent(ItemColumn.secret.rawValue)
    var searchDigests = SearchDigestColumns()
    for (index, (column, _)) in ItemTable.digestColumns.enumerated() {
      searchDigests[index] = try row.optionalDigest(column.rawValue)
    }
    // The associated data binds the sync flag as one byte (row format 2); the column may hold only
    // 0 or 1, so a value that differs from those in any other bit is refused here.
    let synchronizable = try row.integer(ItemColumn.synchronizable.rawValue)
    guard synchronizable == 0 || synchronizable == 1 else { throw .decode }
    let accessControl = try row.withOptionalBlob(ItemColumn.accessControl.rawValue) {
      bytes throws(SecStatus) in try AccessControlColumn.decode(bytes)
    }
    let identity = RowIdentity(
      itemClass: itemClass, persistentID: try row.blob(ItemColumn.persistentReference.rawValue),
      accessGroup: try row.digest(ItemColumn.accessGroup.rawValue),
      synchronizable: synchronizable, protection: try row.text(ItemColumn.protection.rawValue),
      primaryKey: try row.digest(ItemColumn.primaryKey.rawValue),
      spiKey: try row.digest(ItemColumn.spiKey.rawValue), searchDigests: searchDigests, hasSecret: hasSecret,
      accessControl: accessControl)
    return identity
  }

  /// Reads one row's columns, proves them authentic and opens what `fetch` asks for; errSecDecode
  /// when any column or ciphertext is not what the row was sealed with.
  ///
  /// Every row is authenticated, whatever the fetch: opening the secret proves every plain column
  /// (they are its associated data), and otherwise the metadata is opened, which also proves whether
  /// the row has a secret. A search, a count or a delete therefore never acts on a row whose
  /// columns were altered. The access control is a plain column (row format 3), so a data lookup
  /// opens the secret alone.
  ///
  /// With `secretLater`, a row whose secret the fetch asks for is returned with that secret still
  /// sealed, for the caller to open (`RowRecord.openSecret`) only if the row is part of the answer;
  /// opening it then authenticates the row. Until then its plain columns are unproven, so the
  /// caller must not answer with a row whose secret it has not opened.
  static func decode(_ row: StatementRow, fetch: ItemFetch, _ ring: KeyRing, secretLater: Bool = false)
    throws(SecStatus) -> RowRecord
  {
    let id = try row.integer(ItemColumn.id.rawValue)
    let identity = try plainColumns(row)
    var item = StoredItem(
      itemClass: identity.itemClass, persistentID: identity.persistentID, attributes: [:],
      accessControl: identity.accessControl, data: nil)
    let opensSecret = fetch.data && identity.hasSecret
    let associatedFields = identity.associatedFields()
    if fetch.attributes || !opensSecret {
      guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
      let plaintext: [UInt8]
      do {
        // Opened where SQLite holds the column: the ciphertext is not copied first.
        plaintext = try row.withBlob(ItemColumn.metadata.rawValue) { box throws(CryptoError) in
          try AES.GCM.open(
            combinedBytes: box, using: metadataKey, authenticating: associatedFields.label(for: .metadata),
            associatedFields.bytes(for: .metadata))
        }
      } catch {
        throw .decode
      }
      if fetch.attributes {
        let decoded = try MetadataCodec.decode(plaintext)
        // In row format 3 the access control is the `acl` column's alone.
        guard decoded.accessControl == nil,
          decoded.attributes[SecConstantValue.attrAccessible] == .string(identity.protection)
        else { throw .decode }
        item.attributes = decoded.attributes
      }
    }
    var sealedSecret: [UInt8]?
    if opensSecret && !secretLater {
      item.data = try row.withBlob(ItemColumn.secret.rawValue) { box throws(SecStatus) in
        try openSecret(box, of: identity, ring, fields: associatedFields)
      }
    } else if identity.hasSecret {
      sealedSecret = try row.bytes(ItemColumn.secret.rawValue)
    }
    if fetch.version {
      // The metadata's GCM tag: every write seals the metadata under a fresh nonce, so the tag
      // changes with every write of the row. `replace` reads and authenticates the row again
      // before it compares the version.
      item.version = ItemVersion(
        Data(try row.bytes(ItemColumn.metadata.rawValue).suffix(AES.GCM.tagByteCount)))
    }
    return RowRecord(
      id: id, item: item, identity: identity, sealedSecret: sealedSecret, associatedFields: associatedFields)
  }

  /// A row's secret, opened under its protection class's key: errSecInteractionNotAllowed when the
  /// lock state withholds that key, errSecDecode when the secret is not this row's.
  static func openSecret(
    _ sealedSecret: [UInt8], of identity: RowIdentity, _ ring: KeyRing, fields: RowIdentity.AssociatedFields
  ) throws(SecStatus) -> Data {
    try sealedSecret.withUnsafeBufferPointer { box throws(SecStatus) in
      try openSecret(UnsafeRawBufferPointer(box), of: identity, ring, fields: fields)
    }
  }

  /// `openSecret` over the sealed bytes where they are (a row's column, read in place).
  static func openSecret(
    _ sealedSecret: UnsafeRawBufferPointer, of identity: RowIdentity, _ ring: KeyRing,
    fields: RowIdentity.AssociatedFields
  ) throws(SecStatus) -> Data {
    let key = try ring.classKey(for: identity.protection)
    do {
      return Data(
        try AES.GCM.open(
          combinedBytes: sealedSecret, using: key, authenticating: fields.label(for: .secret),
          fields.bytes(for: .secret)))
    } catch {
      throw .decode
    }
  }

  /// The two ciphertexts of a row: its metadata, and its secret when it has one. The access
  /// control is `identity`'s, bound into both and stored in the clear.
  static func seal(_ ring: KeyRing, _ identity: RowIdentity, attributes: SortedAttributes, data: Data?)
    throws(SecStatus) -> (meta: Data, secret: Data?)
  {
    let classKey = try ring.classKey(for: identity.protection)
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    let fields = identity.associatedFields()
    do {
      let meta = try AES.GCM.seal(
        MetadataCodec.encode(attributes, accessControl: nil), using: metadataKey,
        authenticating: fields.associatedData(for: .metadata))
      let secret = try data.map { plaintext throws(CryptoError) in
        Data(
          try AES.GCM.seal([UInt8](plaintext), using: classKey, authenticating: fields.associatedData(for: .secret))
        )
      }
      return (Data(meta), secret)
    } catch {
      throw error.status
    }
  }
}

import Foundation
import Security

/// The plain columns of an item row: everything SQLite compares, and what the row's two ciphertexts
/// are bound to.
///
/// Every column a search can select a row by is part of the associated data of both ciphertexts,
/// so a row that opens is proven to carry exactly the column values it was sealed with: a digest
/// copied from another row, a swapped column or a changed protection class makes it fail to open.
/// Whether the row has a secret is bound into the metadata's associated data, so a secret set to
/// NULL on disk is detected too.
///
/// Row format 3 adds the access control to the plain columns (it was inside the metadata): the API
/// must know it before it hands out a secret, and reading it from a plain column bound into the
/// secret's associated data lets a data lookup open one ciphertext instead of two.
struct RowIdentity: Equatable {
  var itemClass: ItemClass
  var persistentID: Data
  var accessGroup: RowDigest
  var synchronizable: Int64
  var protection: String
  var primaryKey: RowDigest
  /// The digest of the SPI primary-key attributes (the `spi` column).
  var spiKey: RowDigest
  /// The digests of `SQLiteItemStorage.searchColumns`, in that order (nil where the item has none).
  var searchDigests: SearchDigestColumns
  /// Whether the row stores a secret (the `secret` column is not NULL).
  var hasSecret: Bool
  /// The item's access control (the `acl` column), nil for most items.
  var accessControl: SecAccessControl?

  enum Purpose {
    case metadata, secret

    /// The label that starts the purpose's associated data in `format` (2 or 3).
    func label(_ format: RowFormat) -> [UInt8] {
      switch (self, format) {
      case (.metadata, .three): Self.metadataLabel
      case (.secret, .three): Self.secretLabel
      case (.metadata, _): Self.formatTwoMetadataLabel
      case (.secret, _): Self.formatTwoSecretLabel
      }
    }
    private static let metadataLabel = Array("keychain-bridge/meta/v3".utf8)
    private static let secretLabel = Array("keychain-bridge/secret/v3".utf8)
    private static let formatTwoMetadataLabel = Array("keychain-bridge/meta/v2".utf8)
    private static let formatTwoSecretLabel = Array("keychain-bridge/secret/v2".utf8)
  }

  /// What follows the purpose's label in both ciphertexts' associated data, built once per row for
  /// its metadata and its secret.
  struct AssociatedFields {
    let format: RowFormat
    /// The fields, then the metadata's has-a-secret flag.
    fileprivate let bytesWithFlag: [UInt8]

    func bytes(for purpose: Purpose) -> ArraySlice<UInt8> {
      purpose == .metadata ? bytesWithFlag[...] : bytesWithFlag.dropLast()
    }

    /// The purpose's label in this format.
    func label(for purpose: Purpose) -> [UInt8] { purpose.label(format) }

    /// The whole associated data of the row's metadata or secret ciphertext: label, then fields.
    func associatedData(for purpose: Purpose) -> [UInt8] { purpose.label(format) + bytes(for: purpose) }
  }

  /// The fields of the associated data of the row's two ciphertexts, in row format 3 unless an
  /// upgrade reads a format-2 row.
  ///
  /// Each field is length-prefixed, and an absent digest or access control has a length no value
  /// has, so no two different rows can produce the same bytes.
  func associatedFields(_ format: RowFormat = .three) -> AssociatedFields {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(200)
    Self.append(itemClass.rawValue, to: &bytes)
    Self.append(persistentID, to: &bytes)
    Self.append(accessGroup, to: &bytes)
    Self.append(primaryKey, to: &bytes)
    Self.append(spiKey, to: &bytes)
    Self.append(protection, to: &bytes)
    bytes.append(UInt8(truncatingIfNeeded: synchronizable))
    for index in 0..<SearchDigestColumns.count {
      if let digest = searchDigests[index] {
        Self.append(digest, to: &bytes)
      } else {
        bytes += [0xFF, 0xFF, 0xFF, 0xFF]
      }
    }
    if format == .three {
      if let accessControl {
        Self.append(AccessControlColumn.encode(accessControl), to: &bytes)
      } else {
        bytes += [0xFF, 0xFF, 0xFF, 0xFF]
      }
    }
    bytes.append(hasSecret ? 1 : 0)
    return AssociatedFields(format: format, bytesWithFlag: bytes)
  }

  /// The associated data rows were sealed with before row format 2 (no search digests, no secret
  /// flag), read only to upgrade old stores.
  func formatOneAssociatedData(_ purpose: Purpose) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes += purpose == .metadata ? Array("keychain-bridge/meta/v1".utf8) : Array("keychain-bridge/secret/v1".utf8)
    bytes += itemClass.rawValue.utf8
    bytes += persistentID
    for digest in [accessGroup, primaryKey, spiKey] { digest.withUnsafeBytes { bytes += $0 } }
    bytes.append(UInt8(truncatingIfNeeded: synchronizable))
    bytes += protection.utf8
    return bytes
  }

  // Data and String each copy their contiguous bytes in one go: the generic Collection append
  // went element by element, a tenth of a listing's time.
  private static func append(_ field: Data, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: UInt32(field.count).littleEndian) { bytes += $0 }
    field.withUnsafeBytes { bytes.append(contentsOf: $0) }
  }

  private static func append(_ field: RowDigest, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: UInt32(RowDigest.byteCount).littleEndian) { bytes += $0 }
    field.withUnsafeBytes { bytes.append(contentsOf: $0) }
  }

  private static func append(_ field: String, to bytes: inout [UInt8]) {
    var field = field
    field.withUTF8 { utf8 in
      withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { bytes += $0 }
      bytes.append(contentsOf: utf8)
    }
  }
}

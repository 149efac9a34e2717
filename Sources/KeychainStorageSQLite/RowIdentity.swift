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
struct RowIdentity: Equatable {
  var itemClass: ItemClass
  var persistentID: Data
  var accessGroup: Data
  var synchronizable: Int64
  var protection: String
  var primaryKey: Data
  /// The digest of the SPI primary-key attributes (the `spi` column).
  var spiKey: Data
  /// The digests of `SQLiteItemStorage.searchColumns`, in that order (nil where the item has none).
  var searchDigests: [Data?]
  /// Whether the row stores a secret (the `secret` column is not NULL).
  var hasSecret: Bool

  enum Purpose {
    case metadata, secret

    var label: [UInt8] {
      switch self {
      case .metadata: Self.metadataLabel
      case .secret: Self.secretLabel
      }
    }
    private static let metadataLabel = Array("keychain-bridge/meta/v2".utf8)
    private static let secretLabel = Array("keychain-bridge/secret/v2".utf8)
  }

  /// What follows the purpose's label in both ciphertexts' associated data, built once per row for
  /// its metadata and its secret.
  struct AssociatedFields {
    /// The fields, then the metadata's has-a-secret flag.
    fileprivate let bytesWithFlag: [UInt8]

    func bytes(for purpose: Purpose) -> ArraySlice<UInt8> {
      purpose == .metadata ? bytesWithFlag[...] : bytesWithFlag.dropLast()
    }

    /// The whole associated data of the row's metadata or secret ciphertext: label, then fields.
    func associatedData(for purpose: Purpose) -> [UInt8] { purpose.label + bytes(for: purpose) }
  }

  /// The fields of the associated data of the row's two ciphertexts (row format 2).
  ///
  /// Each field is length-prefixed, and an absent digest has a length no digest has, so no two
  /// different rows can produce the same bytes.
  func associatedFields() -> AssociatedFields {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(200)
    Self.append(itemClass.rawValue, to: &bytes)
    Self.append(persistentID, to: &bytes)
    Self.append(accessGroup, to: &bytes)
    Self.append(primaryKey, to: &bytes)
    Self.append(spiKey, to: &bytes)
    Self.append(protection, to: &bytes)
    bytes.append(UInt8(truncatingIfNeeded: synchronizable))
    for digest in searchDigests {
      if let digest {
        Self.append(digest, to: &bytes)
      } else {
        bytes += [0xFF, 0xFF, 0xFF, 0xFF]
      }
    }
    bytes.append(hasSecret ? 1 : 0)
    return AssociatedFields(bytesWithFlag: bytes)
  }

  /// The associated data rows were sealed with before row format 2 (no search digests, no secret
  /// flag), read only to upgrade old stores.
  func formatOneAssociatedData(_ purpose: Purpose) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes += purpose == .metadata ? Array("keychain-bridge/meta/v1".utf8) : Array("keychain-bridge/secret/v1".utf8)
    bytes += itemClass.rawValue.utf8
    bytes += persistentID
    bytes += accessGroup
    bytes += primaryKey
    bytes += spiKey
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

  private static func append(_ field: String, to bytes: inout [UInt8]) {
    var field = field
    field.withUTF8 { utf8 in
      withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { bytes += $0 }
      bytes.append(contentsOf: utf8)
    }
  }
}

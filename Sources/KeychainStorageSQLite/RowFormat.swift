import Foundation
import Security

/// How a store's rows are sealed, recorded as `row_format` in `store_info`.
///
/// - 1: the ciphertexts bound only the row's identity columns.
/// - 2: they bind every plain column, the search digests and whether the row has a secret.
/// - 3: the access control moved out of the sealed metadata into the plain `acl` column, bound
///   into both ciphertexts, so a data lookup opens only the secret.
///
/// A store is upgraded to the current format, in one transaction, when its keys are first at hand
/// (RowFormatUpgrade.swift).
enum RowFormat: UInt8 {
  case one = 1
  case two = 2
  case three = 3

  /// The format this version writes.
  static let current = RowFormat.three

  /// The value `store_info` holds for it.
  var recorded: Data { Data([rawValue]) }

  /// The format a `store_info` value names; nil for one this version does not know (a newer one).
  init?(recorded: Data?) {
    guard let recorded, recorded.count == 1 else { return nil }
    self.init(rawValue: recorded[recorded.startIndex])
  }
}

/// The `acl` column: an item's access control in plain bytes, NULL for an item without one.
///
/// The flags as eight little-endian bytes, then the protection class in UTF-8. It reveals to a
/// reader of the file what the `pdmn` column already does (the protection class) and which
/// constraints an item has (user presence, biometry, a passcode), never a value; its integrity is
/// the row's, since both ciphertexts bind it.
enum AccessControlColumn {
  static func encode(_ accessControl: SecAccessControl) -> Data {
    var bytes = Data(capacity: 8 + accessControl.protection.utf8.count)
    withUnsafeBytes(of: UInt64(accessControl.flags.rawValue).littleEndian) { bytes.append(contentsOf: $0) }
    bytes.append(contentsOf: accessControl.protection.utf8)
    return bytes
  }

  /// What `encode` wrote; errSecDecode for anything else (the bytes come from disk and are not yet
  /// authenticated when they are parsed).
  static func decode(_ bytes: UnsafeRawBufferPointer) throws(SecStatus) -> SecAccessControl {
    guard bytes.count > 8, bytes.count <= 8 + 64 else { throw .decode }
    let flags = bytes.loadUnaligned(as: UInt64.self).littleEndian
    guard let protection = String(validating: bytes[8...], as: UTF8.self),
      let rawFlags = CFOptionFlags(exactly: flags)
    else { throw .decode }
    return SecAccessControl(protection: protection, flags: SecAccessControlCreateFlags(rawValue: rawFlags))
  }
}

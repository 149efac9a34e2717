import Foundation
import Security

/// The plaintext of a live sync record: one item in the form a backup keeps it (every attribute
/// with its stored type, the access control and the secret), in a small tagged binary form.
///
/// Decoding applies the rules a restore applies (the class's attributes only, a valid
/// accessibility, an access control matching it, the size limits), and the sync rules: the item
/// must be synchronizable and may not be ThisDeviceOnly. Dates travel with the item, so every store
/// of a group holds the same values. The bytes were authenticated before they get here, but they come
/// from another store: every length is checked, and anything malformed is errSecDecode.
enum SyncPayload {
  /// Format 2; format 1 (a property list) was never released.
  private static let formatVersion: UInt8 = 2

  /// The bytes a record seals for `item`, which must have been read with attributes and data.
  static func encode(_ item: StoredItem) throws(SecStatus) -> Data {
    let form = BackupPayload.Item(item)
    var out: [UInt8] = [formatVersion]
    out.reserveCapacity(512 + (form.data?.count ?? 0))
    TaggedBinaryForm.appendBytes(Array(form.itemClass.utf8), to: &out)
    TaggedBinaryForm.appendLength(form.attributes.count, to: &out)
    for key in form.attributes.keys.sorted() {
      TaggedBinaryForm.appendBytes(Array(key.utf8), to: &out)
      TaggedBinaryForm.append(form.attributes[key]!.attributeValue, to: &out)
    }
    if let protection = form.accessControlProtection {
      out.append(1)
      TaggedBinaryForm.appendBytes(Array(protection.utf8), to: &out)
      TaggedBinaryForm.appendUInt64(form.accessControlFlags ?? 0, to: &out)
    } else {
      out.append(0)
    }
    if let data = form.data {
      out.append(1)
      TaggedBinaryForm.appendBytes(Array(data), to: &out)
    } else {
      out.append(0)
    }
    return Data(out)
  }

  /// The item a record's plaintext holds, checked and completed as the store adds it.
  static func decode(_ plaintext: Data, backend: any SecurityBackend) throws(SecStatus) -> NewItem {
    let form: BackupPayload.Item
    do throws(SecStatus) {
      form = try read([UInt8](plaintext))
    } catch {
      throw SecStatus(errSecDecode, detail: "the record's contents are not an item this version can read")
    }
    // The sync engine runs beside the SecItem engine: it completes items with the backend it holds.
    let item = try form.newItem(backend: backend)
    guard item.index.synchronizable == 1 else {
      throw SecStatus(errSecDecode, detail: "the record holds an item that is not synchronizable")
    }
    return item
  }

  /// Whether items with this accessibility may leave the store (never the ThisDeviceOnly ones).
  static func mayLeaveDevice(protection: String) -> Bool {
    !BackupPayload.deviceOnlyProtections.contains(protection)
  }

  private static func read(_ bytes: [UInt8]) throws(SecStatus) -> BackupPayload.Item {
    var reader = TaggedBinaryForm.Reader(bytes)
    guard try reader.byte() == formatVersion else { throw .decode }
    let itemClass = try reader.string()
    let count = try reader.length()
    // No class has more attributes than this; a larger count is damage, not an item.
    guard count <= 256 else { throw .decode }
    var attributes: [String: BackupPayload.Value] = [:]
    attributes.reserveCapacity(count)
    for _ in 0..<count {
      let key = try reader.string()
      guard let tag = TaggedBinaryForm.Tag(rawValue: try reader.byte()) else { throw .decode }
      attributes[key] = BackupPayload.Value(try reader.value(after: tag))
    }
    var protection: String?
    var flags: UInt64?
    if try reader.flag() {
      protection = try reader.string()
      flags = try reader.uint64()
    }
    let data = try reader.flag() ? Data(try reader.block()) : nil
    guard reader.isAtEnd else { throw .decode }
    return BackupPayload.Item(
      itemClass: itemClass, attributes: attributes, accessControlProtection: protection, accessControlFlags: flags,
      data: data)
  }
}

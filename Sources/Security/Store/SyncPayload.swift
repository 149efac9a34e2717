import Foundation

/// The plaintext of a live sync record: one item in the form a backup keeps it (every attribute
/// with its stored type, the access control and the secret), in a small tagged binary form.
///
/// Decoding applies the rules a restore applies (the class's attributes only, a valid
/// accessibility, an access control matching it, the size limits), and the sync rules: the item
/// must be synchronizable and may not be ThisDeviceOnly. Dates travel with the item, so every store
/// of a group holds the same values. The bytes were authenticated before they get here, but they come
/// from another store: every length is checked, and anything malformed is errSecDecode.
package enum SyncPayload {
  /// Format 2; format 1 (a property list) was never released.
  private static let formatVersion: UInt8 = 2

  private enum Tag: UInt8 {
    case string = 0x73, data = 0x64, integer = 0x69, double = 0x66, date = 0x74
  }

  /// The bytes a record seals for `item`, which must have been read with attributes and data.
  package static func encode(_ item: StoredItem) throws(SecStatus) -> Data {
    let form = BackupPayload.Item(item)
    var out: [UInt8] = [formatVersion]
    out.reserveCapacity(512 + (form.data?.count ?? 0))
    appendBytes(Array(form.itemClass.utf8), to: &out)
    appendLength(form.attributes.count, to: &out)
    for key in form.attributes.keys.sorted() {
      appendBytes(Array(key.utf8), to: &out)
      switch form.attributes[key]! {
      case .string(let value):
        out.append(Tag.string.rawValue)
        appendBytes(Array(value.utf8), to: &out)
      case .data(let value):
        out.append(Tag.data.rawValue)
        appendBytes(Array(value), to: &out)
      case .integer(let value):
        out.append(Tag.integer.rawValue)
        append(UInt64(bitPattern: value), to: &out)
      case .double(let value):
        out.append(Tag.double.rawValue)
        append(value.bitPattern, to: &out)
      case .date(let value):
        out.append(Tag.date.rawValue)
        append(value.timeIntervalSinceReferenceDate.bitPattern, to: &out)
      }
    }
    if let protection = form.accessControlProtection {
      out.append(1)
      appendBytes(Array(protection.utf8), to: &out)
      append(form.accessControlFlags ?? 0, to: &out)
    } else {
      out.append(0)
    }
    if let data = form.data {
      out.append(1)
      appendBytes(Array(data), to: &out)
    } else {
      out.append(0)
    }
    return Data(out)
  }

  /// The item a record's plaintext holds, checked and completed as the store adds it.
  package static func decode(_ plaintext: Data) throws(SecStatus) -> NewItem {
    let form: BackupPayload.Item
    do throws(SecStatus) {
      form = try read([UInt8](plaintext))
    } catch {
      throw SecStatus(errSecDecode, detail: "the record's contents are not an item this version can read")
    }
    let item = try form.newItem(nil)
    guard item.index.synchronizable == 1 else {
      throw SecStatus(errSecDecode, detail: "the record holds an item that is not synchronizable")
    }
    return item
  }

  /// Whether items with this accessibility may leave the store (never the ThisDeviceOnly ones).
  package static func mayLeaveDevice(protection: String) -> Bool {
    !BackupPayload.deviceOnlyProtections.contains(protection)
  }

  private static func read(_ bytes: [UInt8]) throws(SecStatus) -> BackupPayload.Item {
    var reader = Reader(bytes: bytes)
    guard try reader.byte() == formatVersion else { throw .decode }
    let itemClass = try reader.string()
    let count = try reader.length()
    // No class has more attributes than this; a larger count is damage, not an item.
    guard count <= 256 else { throw .decode }
    var attributes: [String: BackupPayload.Value] = [:]
    attributes.reserveCapacity(count)
    for _ in 0..<count {
      let key = try reader.string()
      guard let tag = Tag(rawValue: try reader.byte()) else { throw .decode }
      switch tag {
      case .string: attributes[key] = .string(try reader.string())
      case .data: attributes[key] = .data(Data(try reader.block()))
      case .integer: attributes[key] = .integer(Int64(bitPattern: try reader.uint64()))
      case .double: attributes[key] = .double(Double(bitPattern: try reader.uint64()))
      case .date: attributes[key] = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.uint64())))
      }
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

  private static func appendLength(_ length: Int, to out: inout [UInt8]) {
    withUnsafeBytes(of: UInt32(length).littleEndian) { out.append(contentsOf: $0) }
  }

  private static func appendBytes(_ bytes: [UInt8], to out: inout [UInt8]) {
    appendLength(bytes.count, to: &out)
    out.append(contentsOf: bytes)
  }

  private static func append(_ value: UInt64, to out: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
  }

  /// A bounds-checked cursor over the payload.
  private struct Reader {
    let bytes: [UInt8]
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() throws(SecStatus) -> UInt8 {
      guard offset < bytes.count else { throw .decode }
      defer { offset += 1 }
      return bytes[offset]
    }

    mutating func flag() throws(SecStatus) -> Bool {
      switch try byte() {
      case 0: false
      case 1: true
      default: throw .decode
      }
    }

    mutating func fixed(_ count: Int) throws(SecStatus) -> ArraySlice<UInt8> {
      guard count >= 0, bytes.count - offset >= count else { throw .decode }
      defer { offset += count }
      return bytes[offset..<(offset + count)]
    }

    mutating func length() throws(SecStatus) -> Int {
      Int(try fixed(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
    }

    mutating func uint64() throws(SecStatus) -> UInt64 {
      try fixed(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    mutating func block() throws(SecStatus) -> ArraySlice<UInt8> { try fixed(try length()) }

    mutating func string() throws(SecStatus) -> String {
      let slice = try block()
      guard let value = slice.withUnsafeBufferPointer({ String(validating: $0, as: UTF8.self) }) else {
        throw .decode
      }
      return value
    }
  }
}

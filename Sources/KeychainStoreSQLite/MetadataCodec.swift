import Foundation
import Security

/// The plaintext of a row's sealed metadata (a store format, not an Apple rule): every attribute with its type, and the access control.
///
/// A small tagged binary format rather than a property list: it is read on every attribute query,
/// and it must reject any malformed input with an error rather than trap (the bytes come from disk).
enum MetadataCodec {
  private static let version: UInt8 = 1

  private enum Tag: UInt8 {
    case string = 0x73, data = 0x64, integer = 0x69, double = 0x66, date = 0x74, accessControl = 0x61
  }

  /// Serializes attributes (sorted by key, so equal items give equal bytes) and an access control.
  static func encode(_ attributes: [String: AttributeValue], accessControl: SecAccessControl?) -> [UInt8] {
    var out: [UInt8] = [version]
    out.reserveCapacity(256)
    let count = attributes.count + (accessControl == nil ? 0 : 1)
    appendLength(count, to: &out)
    for key in attributes.keys.sorted() {
      appendBytes(Array(key.utf8), to: &out)
      switch attributes[key]! {
      case .string(let value):
        out.append(Tag.string.rawValue)
        appendBytes(Array(value.utf8), to: &out)
      case .data(let value):
        out.append(Tag.data.rawValue)
        appendBytes(Array(value), to: &out)
      case .integer(let value):
        out.append(Tag.integer.rawValue)
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
      case .double(let value):
        out.append(Tag.double.rawValue)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { out.append(contentsOf: $0) }
      case .date(let value):
        out.append(Tag.date.rawValue)
        withUnsafeBytes(of: value.timeIntervalSinceReferenceDate.bitPattern.littleEndian) {
          out.append(contentsOf: $0)
        }
      }
    }
    if let accessControl {
      appendBytes(Array(SecConstantValue.attrAccessControl.utf8), to: &out)
      out.append(Tag.accessControl.rawValue)
      appendBytes(Array(accessControl.protection.utf8), to: &out)
      withUnsafeBytes(of: UInt64(accessControl.flags.rawValue).littleEndian) { out.append(contentsOf: $0) }
    }
    return out
  }

  /// Parses what `encode` wrote; anything else is errSecDecode.
  static func decode(_ bytes: [UInt8]) throws(SecStatus) -> (
    attributes: [String: AttributeValue], accessControl: SecAccessControl?
  ) {
    var reader = ByteReader(bytes)
    guard try reader.byte() == version else { throw .decode }
    let count = try reader.length()
    var attributes: [String: AttributeValue] = [:]
    // Sized once: growing a 30-entry dictionary from empty rehashes it five times, on every row read.
    attributes.reserveCapacity(min(count, 256))
    var accessControl: SecAccessControl?
    for _ in 0..<count {
      let key = try reader.string()
      guard let tag = Tag(rawValue: try reader.byte()) else { throw .decode }
      switch tag {
      case .string: attributes[key] = .string(try reader.string())
      case .data: attributes[key] = .data(Data(try reader.fixed(try reader.length())))
      case .integer: attributes[key] = .integer(Int64(bitPattern: try reader.uint64()))
      case .double: attributes[key] = .double(Double(bitPattern: try reader.uint64()))
      case .date:
        attributes[key] = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.uint64())))
      case .accessControl:
        let protection = try reader.string()
        let flags = SecAccessControlCreateFlags(rawValue: CFOptionFlags(try reader.uint64()))
        accessControl = SecAccessControl(protection: protection, flags: flags)
      }
    }
    guard reader.isAtEnd else { throw .decode }
    return (attributes, accessControl)
  }

  /// Only the access control of what `encode` wrote, stepping over the attributes without building
  /// them: a data read checks it on every row, and most rows have none.
  static func accessControl(in bytes: [UInt8]) throws(SecStatus) -> SecAccessControl? {
    var reader = ByteReader(bytes)
    guard try reader.byte() == version else { throw .decode }
    let count = try reader.length()
    var accessControl: SecAccessControl?
    for _ in 0..<count {
      _ = try reader.fixed(try reader.length())
      guard let tag = Tag(rawValue: try reader.byte()) else { throw .decode }
      switch tag {
      case .string, .data: _ = try reader.fixed(try reader.length())
      case .integer, .double, .date: _ = try reader.fixed(8)
      case .accessControl:
        let protection = try reader.string()
        let flags = SecAccessControlCreateFlags(rawValue: CFOptionFlags(try reader.uint64()))
        accessControl = SecAccessControl(protection: protection, flags: flags)
      }
    }
    guard reader.isAtEnd else { throw .decode }
    return accessControl
  }

  static func appendLength(_ length: Int, to out: inout [UInt8]) {
    withUnsafeBytes(of: UInt32(length).littleEndian) { out.append(contentsOf: $0) }
  }

  static func appendBytes(_ bytes: [UInt8], to out: inout [UInt8]) {
    appendLength(bytes.count, to: &out)
    out.append(contentsOf: bytes)
  }
}

/// A bounds-checked cursor over untrusted bytes.
struct ByteReader {
  private let bytes: [UInt8]
  private var offset = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var isAtEnd: Bool { offset == bytes.count }

  mutating func byte() throws(SecStatus) -> UInt8 {
    guard offset < bytes.count else { throw .decode }
    defer { offset += 1 }
    return bytes[offset]
  }

  mutating func fixed(_ count: Int) throws(SecStatus) -> ArraySlice<UInt8> {
    guard count >= 0, bytes.count - offset >= count else { throw .decode }
    defer { offset += count }
    return bytes[offset..<(offset + count)]
  }

  mutating func length() throws(SecStatus) -> Int {
    let slice = try fixed(4)
    return slice.reversed().reduce(0) { $0 << 8 | Int($1) }
  }

  mutating func uint64() throws(SecStatus) -> UInt64 {
    let slice = try fixed(8)
    return slice.reversed().reduce(0) { $0 << 8 | UInt64($1) }
  }

  mutating func string() throws(SecStatus) -> String {
    let slice = try fixed(try length())
    // Validated straight from the buffer, without copying the slice into an array first.
    let value = slice.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) }
    guard let value else { throw .decode }
    return value
  }
}

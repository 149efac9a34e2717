import Foundation

/// The small tagged binary form shared by the store's row metadata, the sync journal's item keys
/// and sync records: little-endian 32-bit lengths before strings and bytes, a one-byte tag before
/// each attribute value, eight bytes for numbers and dates. It is read on every attribute query, so
/// it is plain byte handling rather than an encoder, and everything it reads is bounds-checked: the
/// bytes come from disk or from another store, and anything malformed is errSecDecode, never a trap.
package enum TaggedBinaryForm {
  /// What follows an attribute's key.
  package enum Tag: UInt8 {
    case string = 0x73, data = 0x64, integer = 0x69, double = 0x66, date = 0x74, accessControl = 0x61
  }

  @inlinable
  package static func appendLength(_ length: Int, to out: inout [UInt8]) {
    withUnsafeBytes(of: UInt32(length).littleEndian) { out.append(contentsOf: $0) }
  }

  @inlinable
  package static func appendBytes(_ bytes: [UInt8], to out: inout [UInt8]) {
    appendLength(bytes.count, to: &out)
    out.append(contentsOf: bytes)
  }

  @inlinable
  package static func appendUInt64(_ value: UInt64, to out: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
  }

  /// Appends a value's tag and the value.
  @inlinable
  package static func append(_ value: AttributeValue, to out: inout [UInt8]) {
    switch value {
    case .string(let value):
      out.append(Tag.string.rawValue)
      appendBytes(Array(value.utf8), to: &out)
    case .data(let value):
      out.append(Tag.data.rawValue)
      appendBytes(Array(value), to: &out)
    case .integer(let value):
      out.append(Tag.integer.rawValue)
      appendUInt64(UInt64(bitPattern: value), to: &out)
    case .double(let value):
      out.append(Tag.double.rawValue)
      appendUInt64(value.bitPattern, to: &out)
    case .date(let value):
      out.append(Tag.date.rawValue)
      appendUInt64(value.timeIntervalSinceReferenceDate.bitPattern, to: &out)
    }
  }

  /// A bounds-checked cursor over untrusted bytes.
  package struct Reader {
    @usableFromInline let bytes: [UInt8]
    @usableFromInline var offset = 0

    @inlinable
    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    @inlinable
    package var isAtEnd: Bool { offset == bytes.count }

    @inlinable
    package mutating func byte() throws(SecStatus) -> UInt8 {
      guard offset < bytes.count else { throw .decode }
      defer { offset += 1 }
      return bytes[offset]
    }

    /// A presence byte: 0 or 1.
    @inlinable
    package mutating func flag() throws(SecStatus) -> Bool {
      switch try byte() {
      case 0: return false
      case 1: return true
      default: throw .decode
      }
    }

    @inlinable
    package mutating func fixed(_ count: Int) throws(SecStatus) -> ArraySlice<UInt8> {
      guard count >= 0, bytes.count - offset >= count else { throw .decode }
      defer { offset += count }
      return bytes[offset..<(offset + count)]
    }

    /// Moves past `count` bytes.
    @inlinable
    package mutating func skip(_ count: Int) throws(SecStatus) {
      guard count >= 0, bytes.count - offset >= count else { throw .decode }
      offset += count
    }

    /// `count` bytes (at most 8) as a little-endian number, read in place: every field of every
    /// row starts with a length, and a slice of the buffer per length cost a retain and a release.
    @inlinable
    mutating func littleEndian(_ count: Int) throws(SecStatus) -> UInt64 {
      guard bytes.count - offset >= count else { throw .decode }
      var value: UInt64 = 0
      for index in stride(from: offset + count - 1, through: offset, by: -1) {
        value = value << 8 | UInt64(bytes[index])
      }
      offset += count
      return value
    }

    @inlinable
    package mutating func length() throws(SecStatus) -> Int { Int(try littleEndian(4)) }

    @inlinable
    package mutating func uint64() throws(SecStatus) -> UInt64 { try littleEndian(8) }

    /// A length and that many bytes.
    @inlinable
    package mutating func block() throws(SecStatus) -> ArraySlice<UInt8> { try fixed(try length()) }

    /// Moves past a length and that many bytes.
    @inlinable
    package mutating func skipBlock() throws(SecStatus) { try skip(try length()) }

    @inlinable
    package mutating func string() throws(SecStatus) -> String {
      let slice = try block()
      // Read straight from the buffer, without copying the slice into an array first. ASCII, what
      // nearly every attribute holds, is valid UTF-8 as it is and is decoded without the generic
      // validation, whose metadata lookups were 7% of a listing; anything else is validated.
      let value = slice.withUnsafeBufferPointer { bytes -> String? in
        var combined: UInt8 = 0
        for byte in bytes { combined |= byte }
        if combined < 0x80 { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
      }
      guard let value else { throw .decode }
      return value
    }

    /// The value after `tag` (which must not be `.accessControl`).
    @inlinable
    package mutating func value(after tag: Tag) throws(SecStatus) -> AttributeValue {
      switch tag {
      case .string: return .string(try string())
      case .data: return .data(Data(try block()))
      case .integer: return .integer(Int64(bitPattern: try uint64()))
      case .double: return .double(Double(bitPattern: try uint64()))
      case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try uint64())))
      case .accessControl: throw .decode
      }
    }
  }
}

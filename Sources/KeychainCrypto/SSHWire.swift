import Foundation

/// Why an agent message or a key in it is refused, as a sentence (never a key's bytes).
struct SSHWireError: Error {
  let reason: String

  /// A message whose fields do not parse.
  static let malformed = SSHWireError(reason: "a message whose fields do not parse")
}

/// Reads the SSH wire encoding (RFC 4251 §5) of one agent message, bounded: a string is never
/// longer than what is left of the message, so a length field cannot make the agent allocate
/// more than the message it already holds.
struct SSHReader {
  private let bytes: [UInt8]
  private var offset = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var isAtEnd: Bool { offset == bytes.count }

  /// How many bytes were read so far.
  var position: Int { offset }

  /// The bytes from `start` to what was read so far.
  func read(since start: Int) -> [UInt8] { Array(bytes[start..<offset]) }

  mutating func byte() throws(SSHWireError) -> UInt8 {
    guard offset < bytes.count else { throw SSHWireError.malformed }
    defer { offset += 1 }
    return bytes[offset]
  }

  mutating func uint32() throws(SSHWireError) -> UInt32 {
    guard bytes.count - offset >= 4 else { throw SSHWireError.malformed }
    defer { offset += 4 }
    return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
  }

  mutating func string() throws(SSHWireError) -> [UInt8] {
    let length = Int(try uint32())
    guard length <= bytes.count - offset else { throw SSHWireError.malformed }
    defer { offset += length }
    return Array(bytes[offset..<offset + length])
  }

  mutating func text() throws(SSHWireError) -> String {
    let raw = try string()
    guard let text = String(validating: raw, as: UTF8.self) else { throw SSHWireError.malformed }
    return text
  }

  /// An mpint's magnitude (RFC 4251): a negative one is refused, leading zeros are dropped.
  mutating func mpint() throws(SSHWireError) -> [UInt8] {
    let raw = try string()
    if let first = raw.first, first & 0x80 != 0 { throw SSHWireError.malformed }
    return Array(raw.drop { $0 == 0 })
  }

  /// What is left of the message.
  mutating func rest() -> [UInt8] {
    defer { offset = bytes.count }
    return Array(bytes[offset...])
  }
}

/// Writes the SSH wire encoding.
struct SSHWriter {
  private(set) var bytes: [UInt8] = []

  mutating func byte(_ value: UInt8) { bytes.append(value) }

  mutating func uint32(_ value: UInt32) {
    bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }

  mutating func string(_ value: [UInt8]) {
    uint32(UInt32(value.count))
    bytes += value
  }

  mutating func string(_ value: String) { string(Array(value.utf8)) }

  /// A non-negative mpint from its big-endian magnitude.
  mutating func mpint(_ magnitude: [UInt8]) {
    var digits = Array(magnitude.drop { $0 == 0 })
    if let first = digits.first, first & 0x80 != 0 { digits.insert(0, at: 0) }
    string(digits)
  }
}

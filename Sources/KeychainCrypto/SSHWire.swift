import Foundation

/// Why an agent message or a key in it is refused, as a sentence (never a key's bytes).
package struct SSHWireError: Error {
  package let reason: String

  /// An error for `reason`.
  package init(reason: String) { self.reason = reason }

  /// A message whose fields do not parse.
  package static let malformed = SSHWireError(reason: "a message whose fields do not parse")
}

/// Reads the SSH wire encoding (RFC 4251 §5) of one agent message, bounded: a string is never
/// longer than what is left of the message, so a length field cannot make the agent allocate
/// more than the message it already holds.
package struct SSHReader {
  private let bytes: [UInt8]
  private var offset = 0

  package init(_ bytes: [UInt8]) { self.bytes = bytes }

  package var isAtEnd: Bool { offset == bytes.count }

  /// How many bytes were read so far.
  package var position: Int { offset }

  /// The bytes from `start` to what was read so far.
  package func read(since start: Int) -> [UInt8] { Array(bytes[start..<offset]) }

  package mutating func byte() throws(SSHWireError) -> UInt8 {
    guard offset < bytes.count else { throw SSHWireError.malformed }
    defer { offset += 1 }
    return bytes[offset]
  }

  package mutating func uint32() throws(SSHWireError) -> UInt32 {
    guard bytes.count - offset >= 4 else { throw SSHWireError.malformed }
    defer { offset += 4 }
    return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
  }

  package mutating func string() throws(SSHWireError) -> [UInt8] {
    let length = Int(try uint32())
    guard length <= bytes.count - offset else { throw SSHWireError.malformed }
    defer { offset += length }
    return Array(bytes[offset..<offset + length])
  }

  package mutating func text() throws(SSHWireError) -> String {
    let raw = try string()
    guard let text = String(validating: raw, as: UTF8.self) else { throw SSHWireError.malformed }
    return text
  }

  /// An mpint's magnitude (RFC 4251): a negative one is refused, leading zeros are dropped.
  package mutating func mpint() throws(SSHWireError) -> [UInt8] {
    let raw = try string()
    if let first = raw.first, first & 0x80 != 0 { throw SSHWireError.malformed }
    return Array(raw.drop { $0 == 0 })
  }

  /// What is left of the message.
  package mutating func rest() -> [UInt8] {
    defer { offset = bytes.count }
    return Array(bytes[offset...])
  }
}

/// Writes the SSH wire encoding.
package struct SSHWriter {
  package private(set) var bytes: [UInt8] = []

  /// An empty message.
  package init() {}

  package mutating func byte(_ value: UInt8) { bytes.append(value) }

  package mutating func uint32(_ value: UInt32) {
    bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }

  package mutating func string(_ value: [UInt8]) {
    uint32(UInt32(value.count))
    bytes += value
  }

  package mutating func string(_ value: String) { string(Array(value.utf8)) }

  /// A non-negative mpint from its big-endian magnitude.
  package mutating func mpint(_ magnitude: [UInt8]) {
    var digits = Array(magnitude.drop { $0 == 0 })
    if let first = digits.first, first & 0x80 != 0 { digits.insert(0, at: 0) }
    string(digits)
  }
}

/// OpenSSH's public key blobs (RFC 4253 §6.6, RFC 5656 §3.1) of keys given by their public parts,
/// as `ssh-add -L` and `authorized_keys` carry them.
package enum SSHPublicKeyBlob {
  /// OpenSSH's name for the NIST curve of `bits`, or nil for another size.
  package static func curve(bits: Int) -> String? {
    switch bits {
    case 256: "nistp256"
    case 384: "nistp384"
    case 521: "nistp521"
    default: nil
    }
  }

  /// An ECDSA key's blob from its uncompressed point (X9.63: 04, X, Y); nil for a curve OpenSSH
  /// has no name for.
  package static func ecdsa(point: [UInt8], bits: Int) -> [UInt8]? {
    guard let curve = curve(bits: bits), point.first == 4 else { return nil }
    var blob = SSHWriter()
    blob.string("ecdsa-sha2-" + curve)
    blob.string(curve)
    blob.string(point)
    return blob.bytes
  }

  /// An RSA key's blob from PKCS#1's RSAPublicKey (a SEQUENCE of the modulus and the exponent).
  package static func rsa(pkcs1 der: [UInt8]) -> [UInt8]? {
    guard let (modulus, exponent) = derIntegerPair(der) else { return nil }
    var blob = SSHWriter()
    blob.string("ssh-rsa")
    blob.mpint(exponent)
    blob.mpint(modulus)
    return blob.bytes
  }

  /// The blob of a key given by its public part as SecKey exports it (an EC point, or PKCS#1's
  /// RSAPublicKey); nil for a key ssh does not take (a curve it has no name for, RSA under 2048 bits).
  package static func of(rsa: Bool, bits: Int, publicBytes: [UInt8]) -> [UInt8]? {
    guard rsa else { return ecdsa(point: publicBytes, bits: bits) }
    return bits >= 2048 ? self.rsa(pkcs1: publicBytes) : nil
  }

  /// The line of an OpenSSH `.pub` file: the type, the blob in base64, the comment.
  package static func line(_ blob: [UInt8], comment: String) -> String? {
    var reader = SSHReader(blob)
    guard let type = try? reader.text() else { return nil }
    return "\(type) \(Data(blob).base64EncodedString()) \(comment)"
  }

  /// The two INTEGERs of a DER SEQUENCE of two (an ECDSA signature's r and s, an RSA public key's
  /// modulus and exponent), as magnitudes; nil when the bytes are not exactly that.
  package static func derIntegerPair(_ der: [UInt8]) -> ([UInt8], [UInt8])? {
    var offset = 0
    func length() -> Int? {
      guard offset < der.count else { return nil }
      let first = der[offset]
      offset += 1
      if first < 0x80 { return Int(first) }
      let count = Int(first & 0x7F)
      guard count >= 1, count <= 2, der.count - offset >= count else { return nil }
      defer { offset += count }
      return der[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }
    func integer() -> [UInt8]? {
      guard offset < der.count, der[offset] == 0x02 else { return nil }
      offset += 1
      guard let size = length(), der.count - offset >= size else { return nil }
      defer { offset += size }
      return Array(der[offset..<offset + size].drop { $0 == 0 })
    }
    guard der.first == 0x30 else { return nil }
    offset = 1
    guard let total = length(), total == der.count - offset, let first = integer(), let second = integer(),
      offset == der.count
    else { return nil }
    return (first, second)
  }
}

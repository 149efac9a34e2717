import Foundation
import Security
import Testing

/// Keys from outside are checked as Apple's import checks them (issue 27, defect 9): a key that
/// would fail later, or that Apple refuses, is refused at `SecKeyCreateWithData` with errSecParam
/// and a CFError framed as Apple frames it. Each refusal below was a key before the fix.
@Suite struct KeyImportValidation {
  /// DER of a non-negative INTEGER with these big-endian magnitude bytes.
  private static func integer(_ magnitude: [UInt8]) -> [UInt8] {
    var content = Array(magnitude.drop { $0 == 0 })
    if content.isEmpty || content[0] & 0x80 != 0 { content.insert(0, at: 0) }
    return [0x02] + length(content.count) + content
  }

  private static func length(_ count: Int) -> [UInt8] {
    if count < 0x80 { return [UInt8(count)] }
    let bytes = withUnsafeBytes(of: UInt32(count).bigEndian) { Array($0) }.drop { $0 == 0 }
    return [0x80 | UInt8(bytes.count)] + bytes
  }

  /// A PKCS#1 RSAPublicKey.
  private static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) -> Data {
    let body = integer(modulus) + integer(exponent)
    return Data([0x30] + length(body.count) + body)
  }

  /// An odd modulus of `bits` bits (its top bit set), not a product of primes: the import checks
  /// what Apple's does, not primality.
  private static func modulus(bits: Int) -> [UInt8] {
    var bytes = (0..<(bits + 7) / 8).map { _ in UInt8.random(in: 0...255) }
    let topBits = bits % 8 == 0 ? 8 : bits % 8
    bytes[0] = (bytes[0] | (1 << (topBits - 1))) & UInt8((1 << topBits) - 1)
    bytes[bytes.count - 1] |= 1
    return bytes
  }

  private static var rsaPublic: [String: Any] {
    [
      kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
    ]
  }

  private func importStatus(_ data: Data, _ attributes: [String: Any]) -> (key: SecKey?, error: CFError?) {
    var error: Unmanaged<CFError>?
    let key = SecKeyCreateWithData(data as CFData, attributes as CFDictionary, &error)
    return (key, error?.takeRetainedValue())
  }

  @Test func aThirtyOneBitEvenModulusIsRefused() {
    let result = importStatus(
      Self.rsaPublicKey(modulus: [0x7F, 0xFF, 0xFF, 0xFE], exponent: [1, 0, 1]), Self.rsaPublic)
    #expect(result.key == nil)
    #expect(result.error.map { CFErrorGetCode($0) } == Int(errSecParam))
  }

  @Test func modulusSizesOutsideTheSupportedRangeAreRefused() {
    for bits in [512, 1023, 8193, 16_384] {
      let result = importStatus(
        Self.rsaPublicKey(modulus: Self.modulus(bits: bits), exponent: [1, 0, 1]), Self.rsaPublic)
      #expect(result.key == nil, "\(bits) bits")
    }
    for bits in [1024, 2048, 8192] {
      let result = importStatus(
        Self.rsaPublicKey(modulus: Self.modulus(bits: bits), exponent: [1, 0, 1]), Self.rsaPublic)
      #expect(result.key != nil, "\(bits) bits: \(String(describing: result.error))")
    }
  }

  @Test func anEvenModulusOrAnExponentBelowThreeOrEvenIsRefused() {
    var even = Self.modulus(bits: 2048)
    even[even.count - 1] &= 0xFE
    #expect(importStatus(Self.rsaPublicKey(modulus: even, exponent: [1, 0, 1]), Self.rsaPublic).key == nil)
    for exponent: [UInt8] in [[1], [2], [1, 0, 0]] {
      #expect(
        importStatus(Self.rsaPublicKey(modulus: Self.modulus(bits: 2048), exponent: exponent), Self.rsaPublic).key
          == nil)
    }
    #expect(
      importStatus(Self.rsaPublicKey(modulus: Self.modulus(bits: 2048), exponent: [3]), Self.rsaPublic).key != nil)
  }

  @Test func anECPrivateScalarOutOfRangeIsRefused() {
    // P-256's base point (on the curve), with the scalars 0 and the group order n.
    let x: [UInt8] = [
      0x6B, 0x17, 0xD1, 0xF2, 0xE1, 0x2C, 0x42, 0x47, 0xF8, 0xBC, 0xE6, 0xE5, 0x63, 0xA4, 0x40, 0xF2,
      0x77, 0x03, 0x7D, 0x81, 0x2D, 0xEB, 0x33, 0xA0, 0xF4, 0xA1, 0x39, 0x45, 0xD8, 0x98, 0xC2, 0x96,
    ]
    let y: [UInt8] = [
      0x4F, 0xE3, 0x42, 0xE2, 0xFE, 0x1A, 0x7F, 0x9B, 0x8E, 0xE7, 0xEB, 0x4A, 0x7C, 0x0F, 0x9E, 0x16,
      0x2B, 0xCE, 0x33, 0x57, 0x6B, 0x31, 0x5E, 0xCE, 0xCB, 0xB6, 0x40, 0x68, 0x37, 0xBF, 0x51, 0xF5,
    ]
    let order: [UInt8] = [
      0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
      0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]
    let attributes: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
    ]
    for scalar in [[UInt8](repeating: 0, count: 32), order] {
      #expect(importStatus(Data([0x04] + x + y + scalar), attributes).key == nil)
    }
    // The scalar 1 belongs to the base point: a valid key.
    #expect(importStatus(Data([0x04] + x + y + [UInt8](repeating: 0, count: 31) + [1]), attributes).key != nil)
  }

  @Test func theErrorIsFramedAsApplesWithTheReasonUnderTheDescriptionKey() throws {
    let result = importStatus(
      Self.rsaPublicKey(modulus: [0x7F, 0xFF, 0xFF, 0xFE], exponent: [1, 0, 1]), Self.rsaPublic)
    let error = try #require(result.error)
    let description = CFErrorCopyDescription(error) as String?
    #expect(
      description?.hasPrefix("The operation couldn’t be completed. (OSStatus error -50 - ") == true,
      "\(description ?? "")")
    let reason = try #require(CFErrorCopyUserInfo(error) as? [String: Any])[kCFErrorDescriptionKey as String] as? String
    #expect(reason.map { description?.hasSuffix("- \($0))") == true } == true)
    #expect((error as Error).localizedDescription == description)
  }
}

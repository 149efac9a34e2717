import Foundation
import Security
import Testing

/// KeysSemantics sections 3 and 4: external representations, SecKeyCreateWithData, public
/// keys, block sizes, attributes and equality.
@Suite struct KeyRepresentationRules {
  static let curves: [(bits: Int, field: Int)] = [(192, 24), (224, 28), (256, 32), (384, 48), (521, 66)]

  static func importKey(_ data: Data, type: CFString, keyClass: CFString) -> (SecKey?, Int?) {
    var error: Unmanaged<CFError>?
    let key = SecKeyCreateWithData(
      data as CFData, [kSecAttrKeyType as String: type, kSecAttrKeyClass as String: keyClass] as CFDictionary, &error)
    return (key, errorCode(error))
  }

  @Test("Keys rules 3.1, 3.2, 4.5 and 4.6: EC representations are 2n+1 and 3n+1 bytes, block size n")
  func ecRepresentationsHaveApplesLengths() throws {
    for (bits, field) in Self.curves {
      let key = try makeKey(bits: bits)
      let privateBytes = external(key)
      let publicBytes = external(SecKeyCopyPublicKey(key)!)
      #expect(privateBytes.count == 3 * field + 1 && privateBytes.first == 0x04)
      #expect(publicBytes.count == 2 * field + 1 && publicBytes == privateBytes.prefix(2 * field + 1))
      #expect(SecKeyGetBlockSize(key) == field)
      #expect(SecKeyCopyAttributes(key)?[kSecAttrKeySizeInBits as String] as? Int == bits)
    }
  }

  @Test("Keys rules 3.3 and 4.4: RSA representations are PKCS#1 DER, block size the modulus length")
  func rsaRepresentationsArePKCS1() throws {
    let key = try makeKey(kSecAttrKeyTypeRSA, bits: 2048)
    let publicBytes = external(SecKeyCopyPublicKey(key)!)
    #expect(publicBytes.count == 270)  // KeysImplementationNotes: 2048-bit PKCS#1 public key
    #expect(publicBytes.prefix(4) == Data([0x30, 0x82, 0x01, 0x0a]))
    let privateBytes = external(key)
    // RSAPrivateKey ::= SEQUENCE { version 0, n, ... }
    #expect(privateBytes.prefix(1) == Data([0x30]) && privateBytes.dropFirst(4).prefix(3) == Data([0x02, 0x01, 0x00]))
    #expect(SecKeyGetBlockSize(key) == 256)
  }

  @Test("Keys rules 3.4, 3.5 and 3.11: a key re-imported from its bytes equals the original")
  func aReimportedKeyEqualsTheOriginal() throws {
    for (type, bits) in [(kSecAttrKeyTypeECSECPrimeRandom, 384), (kSecAttrKeyTypeRSA, 1024)] {
      let key = try makeKey(type, bits: bits)
      let publicKey = SecKeyCopyPublicKey(key)!
      // Type and class as strings or as numbers.
      let (privateCopy, _) = Self.importKey(external(key), type: type, keyClass: kSecAttrKeyClassPrivate)
      #expect(privateCopy == key)
      var error: Unmanaged<CFError>?
      let numeric = SecKeyCreateWithData(
        external(publicKey) as CFData,
        [kSecAttrKeyType as String: Int(type as String)!, kSecAttrKeyClass as String: 0] as CFDictionary, &error)
      #expect(numeric == publicKey)
      #expect(numeric != key)
      let message = Data("interop".utf8)
      let algorithm: SecKeyAlgorithm =
        type == kSecAttrKeyTypeRSA ? .rsaSignatureMessagePKCS1v15SHA256 : .ecdsaSignatureMessageX962SHA384
      #expect(verify(numeric!, algorithm, message, try sign(privateCopy!, algorithm, message)))
    }
  }

  @Test("Keys rules 3.4 and 3.5: type and class are required; symmetric keys are unimplemented")
  func typeAndClassAreRequired() throws {
    let bytes = external(try makeKey(bits: 256))
    var error: Unmanaged<CFError>?
    #expect(SecKeyCreateWithData(bytes as CFData, [kSecAttrKeyClass as String: 1] as CFDictionary, &error) == nil)
    #expect(errorCode(error) == Int(errSecParam))
    #expect(SecKeyCreateWithData(bytes as CFData, [kSecAttrKeyType as String: "73"] as CFDictionary, &error) == nil)
    #expect(errorCode(error) == Int(errSecParam))
    #expect(
      Self.importKey(bytes, type: kSecAttrKeyTypeEC, keyClass: kSecAttrKeyClassSymmetric).1 == Int(errSecUnimplemented))
    #expect(Self.importKey(bytes, type: kSecAttrKeyTypeEC, keyClass: "7" as CFString).1 == Int(errSecParam))
  }

  @Test("Keys rules 3.6 and 3.7: bytes that do not parse, compressed points and off-curve points fail")
  func bytesThatDoNotParseFail() throws {
    let point = external(SecKeyCopyPublicKey(try makeKey(bits: 256))!)
    var compressed = Data([0x02]) + point.dropFirst().prefix(32)
    #expect(Self.importKey(compressed, type: kSecAttrKeyTypeEC, keyClass: kSecAttrKeyClassPublic).1 == Int(errSecParam))
    compressed = point
    compressed[64] ^= 0x01  // no longer on the curve
    #expect(Self.importKey(compressed, type: kSecAttrKeyTypeEC, keyClass: kSecAttrKeyClassPublic).1 == Int(errSecParam))
    #expect(
      Self.importKey(Data([0x04, 1, 2]), type: kSecAttrKeyTypeEC, keyClass: kSecAttrKeyClassPublic).1
        == Int(errSecParam))
    #expect(
      Self.importKey(Data("junk".utf8), type: kSecAttrKeyTypeRSA, keyClass: kSecAttrKeyClassPrivate).1
        == Int(errSecParam))
  }

  @Test("Keys rule 3.8: an RSA public key may also be SubjectPublicKeyInfo DER")
  func anRSAPublicKeyMayBeSubjectPublicKeyInfo() throws {
    let scratch = try ScratchDirectory()
    let key = try makeKey(kSecAttrKeyTypeRSA, bits: 2048)
    try scratch.write(external(SecKeyCopyPublicKey(key)!), "pkcs1.der")
    try openssl(
      [
        "rsa", "-RSAPublicKey_in", "-inform", "DER", "-in", "pkcs1.der", "-pubout", "-outform", "DER", "-out",
        "spki.der",
      ], in: scratch.url)
    let (imported, _) = Self.importKey(
      try scratch.read("spki.der"), type: kSecAttrKeyTypeRSA, keyClass: kSecAttrKeyClassPublic)
    #expect(imported == SecKeyCopyPublicKey(key))
  }

  @Test("Keys rules 4.1 and 4.3: the public key of a public key equals it; classes never compare equal")
  func publicKeysAndEquality() throws {
    let key = try makeKey(bits: 256)
    let publicKey = try #require(SecKeyCopyPublicKey(key))
    #expect(SecKeyCopyPublicKey(publicKey) == publicKey)
    #expect(publicKey != key)
    #expect(try makeKey(bits: 256) != key)
    #expect(Set([key, publicKey, SecKeyCopyPublicKey(key)!]).count == 2)
  }

  @Test("Keys rules 4.7, 4.8 and 4.11: attributes, usage flags and the application label")
  func attributesUsageFlagsAndApplicationLabel() throws {
    let ec = try makeKey(bits: 256)
    let rsa = try makeKey(kSecAttrKeyTypeRSA, bits: 1024)
    for key in [ec, rsa, SecKeyCopyPublicKey(ec)!, SecKeyCopyPublicKey(rsa)!] {
      let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
      let isPrivate = attributes[kSecAttrKeyClass as String] as? String == "1"
      let isEC = attributes[kSecAttrKeyType as String] as? String == "73"
      #expect(attributes[kSecClass as String] as? String == kSecClassKey as String)
      #expect(attributes[kSecValueData as String] as? Data == external(key))
      let publicBytes = external(SecKeyCopyPublicKey(key)!)
      let scratch = try ScratchDirectory()
      try scratch.write(publicBytes, "public.bin")
      let digest = String(decoding: try openssl(["dgst", "-sha1", "-r", "public.bin"], in: scratch.url), as: UTF8.self)
      let label = (attributes[kSecAttrApplicationLabel as String] as? Data)?.map { String(format: "%02x", $0) }.joined()
      #expect(label.map { digest.hasPrefix($0) } == true)
      #expect(attributes[kSecAttrCanSign as String] as? Bool == isPrivate)
      #expect(attributes[kSecAttrCanVerify as String] as? Bool == !isPrivate)
      #expect(attributes[kSecAttrCanEncrypt as String] as? Bool == !isPrivate)
      #expect(attributes[kSecAttrCanDecrypt as String] as? Bool == (isPrivate || !isEC))
      #expect(attributes[kSecAttrCanDerive as String] as? Bool == (isPrivate && isEC))
      #expect(attributes[kSecAttrCanUnwrap as String] as? Bool == isPrivate)
      #expect(attributes[kSecAttrIsPermanent as String] as? Bool == true)
      #expect(attributes[kSecAttrIsExtractable as String] as? Bool == true)
    }
  }
}

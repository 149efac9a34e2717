import Foundation
import Security
import Testing

/// keys rule 2.12 and 10.8: the deprecated functions libraries still call.
@Suite struct KeyLegacyRules {
  @available(*, deprecated)
  static func rawSign(_ key: SecKey, _ padding: SecPadding, _ digest: [UInt8]) -> (OSStatus, [UInt8]) {
    var signature = [UInt8](repeating: 0, count: 512)
    var length = signature.count
    let status = SecKeyRawSign(key, padding, digest, digest.count, &signature, &length)
    return (status, Array(signature.prefix(length)))
  }

  @available(*, deprecated)
  @Test("Keys rule 2.12: SecKeyGeneratePair gives both halves, or the CFError's code")
  func generatePairGivesBothHalves() {
    var publicKey: SecKey?
    var privateKey: SecKey?
    let parameters: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 1024,
    ]
    #expect(SecKeyGeneratePair(parameters as CFDictionary, &publicKey, &privateKey) == errSecSuccess)
    #expect(publicKey != nil && privateKey != nil && SecKeyCopyPublicKey(privateKey!) == publicKey)
    #expect(SecKeyGeneratePair([kSecAttrKeyType as String: "99"] as CFDictionary, nil, &privateKey) == errSecParam)
  }

  @available(*, deprecated)
  @Test(
    "Keys rule 10.8: SecKeyRawSign and SecKeyRawVerify map the padding onto the algorithm; a bad signature is errSSLCrypto"
  )
  func rawSignAndVerify() throws {
    let digest = [UInt8](repeating: 0x5a, count: 32)
    let rsa = try makeKey(kSecAttrKeyTypeRSA, bits: 2048)
    let (status, signature) = Self.rawSign(rsa, .PKCS1SHA256, digest)
    #expect(status == errSecSuccess && signature.count == 256)
    // The same bytes as the modern function's (PKCS#1 v1.5 is deterministic).
    #expect(Data(signature) == (try sign(rsa, .rsaSignatureDigestPKCS1v15SHA256, Data(digest))))
    let publicKey = SecKeyCopyPublicKey(rsa)!
    #expect(SecKeyRawVerify(publicKey, .PKCS1SHA256, digest, digest.count, signature, signature.count) == errSecSuccess)
    var forged = signature
    forged[10] ^= 1
    #expect(SecKeyRawVerify(publicKey, .PKCS1SHA256, digest, digest.count, forged, forged.count) == -9809)
    let ec = try makeKey(bits: 256)
    let (ecStatus, ecSignature) = Self.rawSign(ec, .PKCS1, digest)
    #expect(ecStatus == errSecSuccess && ecSignature.first == 0x30)
    #expect(verify(SecKeyCopyPublicKey(ec)!, .ecdsaSignatureDigestX962, Data(digest), Data(ecSignature)))
    var small = [UInt8](repeating: 0, count: 10)
    var smallLength = small.count
    #expect(SecKeyRawSign(rsa, .PKCS1SHA256, digest, digest.count, &small, &smallLength) == errSecParam)
  }

  @available(*, deprecated)
  @Test("Keys rule 10.8: SecKeyEncrypt and SecKeyDecrypt with PKCS#1 and OAEP")
  func encryptAndDecrypt() throws {
    let key = try makeKey(kSecAttrKeyTypeRSA, bits: 1024)
    let publicKey = SecKeyCopyPublicKey(key)!
    let message = Array("legacy".utf8)
    for padding in [SecPadding.PKCS1, .OAEP] {
      var ciphertext = [UInt8](repeating: 0, count: 128)
      var length = ciphertext.count
      #expect(SecKeyEncrypt(publicKey, padding, message, message.count, &ciphertext, &length) == errSecSuccess)
      var plaintext = [UInt8](repeating: 0, count: 128)
      var plaintextLength = plaintext.count
      #expect(SecKeyDecrypt(key, padding, ciphertext, length, &plaintext, &plaintextLength) == errSecSuccess)
      #expect(Array(plaintext.prefix(plaintextLength)) == message)
    }
  }
}

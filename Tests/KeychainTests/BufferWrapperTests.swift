import Foundation
import Keychain
import Security
import Testing

/// The wrappers of the functions that read and write byte buffers (rules 7 to 9 of the DocC article
/// "Function wrappers"), run against the runtime: SecRandomCopyBytes and the deprecated raw key
/// functions that libraries still call.
@Suite struct BufferWrapperTests {
  @Test func randomBytesComeBackAsManyAsAskedAndDiffer() throws {
    let first = try KeychainFunctions.randomCopyBytes(kSecRandomDefault, 32).get()
    let second = try KeychainFunctions.randomCopyBytes(nil, 32).get()
    #expect(first.count == 32 && second.count == 32)
    #expect(first != second)
    #expect(try KeychainFunctions.randomCopyBytes(nil, 0).get().isEmpty)
    // A negative count is the caller's mistake: a status, not a trap.
    #expect(throws: KeychainError.self) { try KeychainFunctions.randomCopyBytes(nil, -1).get() }
  }

  @available(*, deprecated, message: "exercises the deprecated raw key functions")
  @Test func aGeneratedPairSignsAndVerifiesThroughTheRawFunctions() throws {
    let parameters: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
    ]
    let (publicKey, privateKey) = try KeychainFunctions.keyGeneratePair(parameters as CFDictionary).get()
    let digest = try KeychainFunctions.randomCopyBytes(nil, 32).get()
    let signature = try KeychainFunctions.keyRawSign(privateKey, .PKCS1SHA256, digest, 128).get()
    // An ECDSA signature in X9.62 DER: a SEQUENCE of two INTEGERs, at most 72 bytes for P-256.
    #expect(signature.first == 0x30 && signature.count <= 72)
    try KeychainFunctions.keyRawVerify(publicKey, .PKCS1SHA256, digest, signature).get()
    var tampered = digest
    tampered[0] ^= 1
    #expect(throws: KeychainError.self) {
      try KeychainFunctions.keyRawVerify(publicKey, .PKCS1SHA256, tampered, signature).get()
    }
    // Too small a capacity is the runtime's errSecParam; a negative one never reaches it.
    #expect(throws: KeychainError.self) { try KeychainFunctions.keyRawSign(privateKey, .PKCS1SHA256, digest, 8).get() }
    #expect(throws: KeychainError.self) {
      try KeychainFunctions.keyRawSign(privateKey, .PKCS1SHA256, digest, -1).get()
    }
  }

  @available(*, deprecated, message: "exercises the deprecated raw key functions")
  @Test func rsaEncryptsAndDecryptsThroughTheRawFunctions() throws {
    let parameters: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
    ]
    let (publicKey, privateKey) = try KeychainFunctions.keyGeneratePair(parameters as CFDictionary).get()
    let message = Data("a block of plaintext".utf8)
    let ciphertext = try KeychainFunctions.keyEncrypt(publicKey, .PKCS1, message, 256).get()
    #expect(ciphertext.count == 256)
    #expect(try KeychainFunctions.keyDecrypt(privateKey, .PKCS1, ciphertext, 256).get() == message)
  }
}

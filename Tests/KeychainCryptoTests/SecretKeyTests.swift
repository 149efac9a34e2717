import Crypto
import Foundation
import KeychainCrypto
import Testing

/// `SecretKey`, the form of a key a process holds for long: the same bytes in every use as an array
/// key, derived in place, and refused when it cannot be made. (The secure heap itself is enabled
/// only by keychaind: AgentTests checks that its memory is locked; SecureHeapTests, through a
/// helper process, where a prepared HMAC key lives.)
@Suite struct SecretKeyTests {
  let bytes = (0..<32).map { UInt8($0 &* 7 &+ 1) }

  @Test func aSecretKeySealsAndOpensAsTheSameArrayKeyDoes() throws {
    let key = try SecretKey(copying: bytes)
    let sealed = try AES.GCM.seal(Array("secret".utf8), using: key, authenticating: [1, 2])
    #expect(try AES.GCM.open(combined: sealed, using: bytes, authenticating: [1, 2]) == Array("secret".utf8))
    let sealedByArray = try AES.GCM.seal(Array("other".utf8), using: bytes, authenticating: [])
    #expect(try AES.GCM.open(combined: sealedByArray, using: key, authenticating: []) == Array("other".utf8))
    // swift-crypto agrees: the key's bytes are what they were made from.
    let box = try Crypto.AES.GCM.SealedBox(combined: Data(sealed))
    #expect(
      try Crypto.AES.GCM.open(box, using: SymmetricKey(data: bytes), authenticating: Data([1, 2]))
        == Data("secret".utf8))
  }

  @Test func aDerivedKeyIsWrittenInPlaceWithTheArrayDerivationsBytes() throws {
    let info = Array("keychain-bridge/metadata/v1".utf8)
    let derived = try HKDF.expandKey(pseudoRandomKey: try SecretKey(copying: bytes), info: info, outputByteCount: 32)
    let expected = try HKDF.expand(pseudoRandomKey: bytes, info: info, outputByteCount: 32)
    #expect(derived.keyByteCount == 32)
    #expect(derived.hasSameBytes(as: expected))
    #expect(!derived.hasSameBytes(as: bytes))
    #expect(
      try HMAC.Prepared(key: derived).authenticationCode(for: [9, 9]) == HMAC.sha256([9, 9], key: expected))
  }

  @Test func takingAnArrayWipesAndEmptiesIt() throws {
    var source = bytes
    let key = try SecretKey(taking: &source)
    #expect(source.isEmpty)
    #expect(key.hasSameBytes(as: bytes))
  }

  @Test func impossibleSizesAreRefusedWithTheirReason() throws {
    #expect(throws: CryptoError.invalidParameter("a key of 0 bytes")) {
      try SecretKey(byteCount: 0) { (_: UnsafeMutableRawBufferPointer) throws(CryptoError) in }
    }
    #expect(throws: CryptoError.self) { try SecureHeap.enable(byteCount: 3000) }
    #expect(throws: CryptoError.self) {
      try HKDF.expandKey(pseudoRandomKey: bytes, info: [], outputByteCount: 255 * 32 + 1)
    }
  }

  @Test func aFailingFillDoesNotLeaveAKeyBehind() throws {
    #expect(throws: CryptoError.randomGeneratorFailed) {
      try SecretKey(byteCount: 32) { (_: UnsafeMutableRawBufferPointer) throws(CryptoError) in
        throw .randomGeneratorFailed
      }
    }
  }
}

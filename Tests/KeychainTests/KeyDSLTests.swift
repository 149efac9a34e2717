import Foundation
import Keychain
import Security
import Testing

/// The typed keys (`PrivateKey`, `PublicKey`) and the `KeyQuery` builder.
@Suite struct KeyDSL {
  let message = Data("signed through the typed API".utf8)

  @Test func aGeneratedKeySignsAndItsPublicKeyVerifies() throws {
    let key = try PrivateKey.generate(.p256).get()
    let publicKey = try #require(key.publicKey)
    #expect(key.canSign(with: .ecdsaSignatureMessageX962SHA256))
    #expect(!key.canSign(with: .rsaSignatureMessagePSSSHA256))
    let signature = try key.signature(for: message, algorithm: .ecdsaSignatureMessageX962SHA256).get()
    #expect(throws: Never.self) {
      try publicKey.isValidSignature(signature, for: message, algorithm: .ecdsaSignatureMessageX962SHA256).get()
    }
    let forged = publicKey.isValidSignature(
      signature, for: Data("other".utf8), algorithm: .ecdsaSignatureMessageX962SHA256)
    #expect(forged.failure == .verifyFailed)
    let wrongAlgorithm = key.signature(for: message, algorithm: .rsaSignatureMessagePSSSHA256)
    #expect(wrongAlgorithm.failure == .param)
  }

  @Test func keysRoundTripThroughTheirExternalRepresentation() throws {
    let key = try PrivateKey.generate(.rsa(bits: 2048)).get()
    #expect(key.blockSize == 256)
    let restored = try PrivateKey.from(
      externalRepresentation: key.externalRepresentation().get(), kind: .rsa(bits: 2048)
    ).get()
    #expect(restored == key)
    let publicBytes = try #require(key.publicKey).externalRepresentation().get()
    #expect(try PublicKey.from(externalRepresentation: publicBytes, kind: .rsa(bits: 2048)).get() == key.publicKey)
    #expect(PrivateKey(key.publicKey!.secKey) == nil && PublicKey(key.secKey) == nil)
  }

  @Test func eachHalfReportsTheOperationsItsClassCanPerform() throws {
    let key = try PrivateKey.generate(.rsa(bits: 2048)).get()
    let publicKey = try #require(key.publicKey)
    #expect(publicKey.blockSize == 256)
    #expect(key.canDecrypt(with: .rsaEncryptionOAEPSHA256) && publicKey.canEncrypt(with: .rsaEncryptionOAEPSHA256))
    #expect(publicKey.canVerify(with: .rsaSignatureMessagePSSSHA256))
    // Decision D5: only the natural class reports an operation.
    #expect(!publicKey.canVerify(with: .ecdsaSignatureMessageX962SHA256))
    #expect(!key.canDecrypt(with: .eciesEncryptionStandardX963SHA256AESGCM))
  }

  @Test func encryptionAndKeyAgreementWorkBothWays() throws {
    let alice = try PrivateKey.generate(.p256).get()
    let bob = try PrivateKey.generate(.p256).get()
    let sealed = try bob.publicKey!.encrypt(
      Data("hi bob".utf8), algorithm: .eciesEncryptionCofactorVariableIVX963SHA256AESGCM
    ).get()
    #expect(
      try bob.decrypt(sealed, algorithm: .eciesEncryptionCofactorVariableIVX963SHA256AESGCM).get()
        == Data("hi bob".utf8))
    let derived = KeyExchangeParameters(requestedSize: 32)
    let ab = try alice.sharedSecret(
      with: bob.publicKey!, algorithm: .ecdhKeyExchangeStandardX963SHA256, parameters: derived
    ).get()
    let ba = try bob.sharedSecret(
      with: alice.publicKey!, algorithm: .ecdhKeyExchangeStandardX963SHA256, parameters: derived
    ).get()
    #expect(ab == ba && ab.count == 32)
  }

  @Test func theKeyBuilderStoresFindsAndDeletesKeys() throws {
    try withStore { _ throws in
      let key = try PrivateKey.generate(.p256).get()
      let tagged = KeyQuery().applicationTag(Data("com.example.signing".utf8))
      try tagged.label("Signing key").add(key).get()
      #expect(tagged.add(key).failure == .duplicateItem)
      let found = try #require(try tagged.privateKey().get())
      #expect(found == key)
      let signature = try found.signature(for: message, algorithm: .ecdsaSignatureMessageX962SHA256).get()
      #expect(throws: Never.self) {
        try key.publicKey!.isValidSignature(signature, for: self.message, algorithm: .ecdsaSignatureMessageX962SHA256)
          .get()
      }
      let item = try #require(try tagged.item().get())
      #expect(item.label == "Signing key" && item.keySizeInBits == 256)
      #expect(item.keyType?.constant == kSecAttrKeyTypeECSECPrimeRandom)
      // The typed item carries its key.
      #expect(item.privateKey == key && item.publicKey == nil)
      #expect(try tagged.publicKey().get() == nil)
      try KeyQuery().add(key.publicKey!).get()
      let listed = try KeyQuery().all().get()
      #expect(listed.compactMap(\.privateKey) == [key] && listed.compactMap(\.publicKey) == [key.publicKey!])
      #expect(try tagged.update(.init().label("Renamed key")).get())
      #expect(try tagged.item().get()?.label == "Renamed key")
      #expect(try tagged.delete().get())
      #expect(try tagged.privateKey().get() == nil)
    }
  }
}

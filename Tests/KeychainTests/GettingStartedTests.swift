import Foundation
import Keychain
import Security
import Testing

/// The code of the DocC article "Getting started with keys, certificates and PKCS#12", run as
/// written there (issue 52), so that the article cannot drift from what works.
@Suite struct GettingStartedTests {
  let body = Data("request body".utf8)

  @Test func aSigningKeyWithApplesAPI() throws {
    try withStore { _ throws in
      let tag = Data("com.example.signing".utf8)
      let attributes: [String: Any] = [
        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
        kSecAttrKeySizeInBits as String: 256,
        kSecPrivateKeyAttrs as String: [
          kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
        ],
      ]
      var error: Unmanaged<CFError>?
      guard SecKeyCreateRandomKey(attributes as CFDictionary, &error) != nil else { throw error!.takeRetainedValue() }

      var found: CFTypeRef?
      let query: [String: Any] = [
        kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
      ]
      #expect(SecItemCopyMatching(query as CFDictionary, &found) == errSecSuccess)
      let stored = try #require(found.map { $0 as! SecKey })
      let signature = try #require(
        SecKeyCreateSignature(stored, .ecdsaSignatureMessageX962SHA256, body as CFData, &error))
      let publicKey = try #require(SecKeyCopyPublicKey(stored))
      let exported = try #require(SecKeyCopyExternalRepresentation(publicKey, &error) as Data?)
      #expect(exported.count == 65 && exported.first == 0x04)
      #expect(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, body as CFData, signature, &error))
    }
  }

  @Test func aSigningKeyWithTheTypedAPI() throws {
    try withStore { _ throws in
      let signing = KeyQuery().applicationTag(Data("com.example.signing".utf8))
      let key = try PrivateKey.generate(.p256).get()
      try signing.label("API signing key").add(key).get()

      let stored = try signing.privateKey().get()!
      let signature = try stored.signature(for: body, algorithm: .ecdsaSignatureMessageX962SHA256).get()
      try stored.publicKey!.isValidSignature(signature, for: body, algorithm: .ecdsaSignatureMessageX962SHA256).get()
      let publicKey = try stored.publicKey!.externalRepresentation().get()
      #expect(publicKey == (try key.publicKey!.externalRepresentation().get()))
    }
  }

  @Test func aPKCS12FileWithBothAPIs() throws {
    let fileData = try CertificateDSL.pkcs12(subject: "/CN=client.example", passphrase: "file passphrase")
    try withStore { _ throws in
      var items: CFArray?
      let options = [kSecImportExportPassphrase as String: "file passphrase"] as CFDictionary
      #expect(SecPKCS12Import(fileData as CFData, options, &items) == errSecSuccess)
      let first = try #require((items as? [[String: Any]])?.first)
      let identity = first[kSecImportItemIdentity as String] as! SecIdentity
      #expect(
        SecItemAdd([kSecValueRef as String: identity, kSecAttrLabel as String: "Client"] as CFDictionary, nil)
          == errSecSuccess)

      var result: CFTypeRef?
      SecItemCopyMatching(
        [kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "Client", kSecReturnRef as String: true]
          as CFDictionary, &result)
      var certificate: SecCertificate?
      SecIdentityCopyCertificate(result as! SecIdentity, &certificate)
      #expect(certificate.flatMap { SecCertificateCopySubjectSummary($0) as String? } == "client.example")
    }
    try withStore { _ throws in
      let imported = try Identity.importPKCS12(fileData, passphrase: "file passphrase").get()
      try IdentityQuery().label("Client").add(imported[0].identity).get()

      let client = try IdentityQuery().label("Client").identity().get()!
      let name = try client.certificate().get().subjectSummary
      #expect(name == "client.example")
    }
  }
}

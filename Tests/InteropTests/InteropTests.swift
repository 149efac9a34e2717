import Crypto
import Foundation
import Keychain
import Security
import Testing
import X509

// swift-certificates and swift-crypto, built in this package's own build: X509 is compiled after
// Security (it waits for swift-crypto, whose BoringSSL takes minutes, while Security takes
// seconds), so its `#if canImport(Security)` code is compiled against this project's Security
// module, and `Certificate(SecCertificate)` below exists only when it was. This file also imports
// Keychain: its public names must not clash with X509's (`Certificate`, unqualified, is X509's).

/// swift-certificates' Security bridge (`Certificate.init(SecCertificate)`,
/// `SecCertificate.makeWithCertificate`) compiled and working against this Security module.
@Suite struct SwiftCertificatesBridge {
  static let der = Data(
    base64Encoded:
      "MIIBkTCCATegAwIBAgIUBrVXojTu6uyvFORMCEmdOa0Hq6EwCgYIKoZIzj0EAwIwHjEcMBoGA1UEAwwTS2V5Y2hhaW5CcmlkZ2UgVGVzdDAeFw0yNjExMjEwNjAzMTBaFw0zNjExMTgwNjAzMTBaMB4xHDAaBgNVBAMME0tleWNoYWluQnJpZGdlIFRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASFmz4D7jy02YE7jrQed8W1vhaI/Gd0jiedsQnWTsimA5zfsTuClvscouPO9wrjWV6zKidraAaa8JS1MJaD2BwFo1MwUTAdBgNVHQ4EFgQU55H4caHp2UwFoQOM1/DHRJJg9AgwHwYDVR0jBBgwFoAU55H4caHp2UwFoQOM1/DHRJJg9AgwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiAMgOPinKgrjDI8VJowJbdZJNpc4Wy1D0RdVZ2lNl7z9QIhAIV5Rtkibi39QQdoxA61zlSgou160h3gsWbTSQzClwdV"
  )!

  @Test func aCertificateCrossesTheBridgeBothWaysUnchanged() throws {
    let secCertificate = try #require(SecCertificateCreateWithData(nil, Self.der as CFData))
    let certificate: Certificate = try Certificate(secCertificate)
    #expect(certificate.subject.description.contains("KeychainBridge Test"))
    let roundTripped = try SecCertificate.makeWithCertificate(certificate)
    #expect(SecCertificateCopyData(roundTripped) as Data == Self.der)
  }

  @Test func theKeychainsCertificateBuilderDoesNotClashWithX509() {
    let keychainCertificates = CertificateQuery().label("pinned")
    #expect(keychainCertificates.attributes[kSecAttrLabel] == .string("pinned"))
  }
}

/// swift-crypto's P-256 keys and SecKey: Apple's x963 format both ways, the raw scalar, and
/// signatures made by one verified by the other.
@Suite struct SwiftCryptoKeys {
  let message = Data("swift-crypto and SecKey agree".utf8)

  @Test func swiftCryptoKeysImportIntoSecKeyAndExportBack() throws {
    let cryptoKey = P256.Signing.PrivateKey()
    var keyError: Unmanaged<CFError>?
    let secKey = try #require(
      SecKeyCreateWithData(
        cryptoKey.x963Representation as CFData,
        [
          kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
          kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ]
          as CFDictionary, &keyError), "SecKeyCreateWithData refused swift-crypto's x963 representation")
    let secPublicKey = try #require(SecKeyCopyPublicKey(secKey))
    #expect(SecKeyCopyExternalRepresentation(secPublicKey, nil) as Data? == cryptoKey.publicKey.x963Representation)
    let fromRaw = try P256.Signing.PrivateKey(rawRepresentation: cryptoKey.rawRepresentation)
    #expect(SecKeyCopyExternalRepresentation(secKey, nil) as Data? == fromRaw.x963Representation)
  }

  @Test func aSecKeyExportsWhatSwiftCryptoImports() throws {
    let secGenerated = try #require(
      SecKeyCreateRandomKey(
        [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
          as CFDictionary, nil))
    let external = try #require(SecKeyCopyExternalRepresentation(secGenerated, nil) as Data?)
    let exported = try P256.Signing.PrivateKey(x963Representation: external)
    #expect(exported.rawRepresentation == external.suffix(32))
  }

  @Test func signaturesVerifyAcrossTheTwo() throws {
    let cryptoKey = P256.Signing.PrivateKey()
    let secKey = try #require(
      SecKeyCreateWithData(
        cryptoKey.x963Representation as CFData,
        [
          kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
          kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ]
          as CFDictionary, nil))
    let secPublicKey = try #require(SecKeyCopyPublicKey(secKey))
    let cryptoSignature = try cryptoKey.signature(for: message)
    #expect(
      SecKeyVerifySignature(
        secPublicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, cryptoSignature.derRepresentation as CFData,
        nil))
    let secSignature = try #require(
      SecKeyCreateSignature(secKey, .ecdsaSignatureMessageX962SHA256, message as CFData, nil) as Data?)
    #expect(
      cryptoKey.publicKey.isValidSignature(
        try P256.Signing.ECDSASignature(derRepresentation: secSignature), for: message))
    let rfc4754 = try #require(
      SecKeyCreateSignature(secKey, .ecdsaSignatureMessageRFC4754SHA256, message as CFData, nil) as Data?)
    #expect(
      cryptoKey.publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: rfc4754), for: message))
  }
}

// Uses swift-certificates' Security bridge (Certificate.init(SecCertificate) and
// SecCertificate.makeWithCertificate), which exist only when X509 saw a Security module. It also
// imports Keychain, whose public names must not clash with X509's: `Certificate` below, unqualified,
// is X509's, and the keychain's certificate builder is CertificateQuery.
import Crypto
import Foundation
import Keychain
import Security
import X509

let der = Data(
  base64Encoded:
    "MIIBkTCCATegAwIBAgIUBrVXojTu6uyvFORMCEmdOa0Hq6EwCgYIKoZIzj0EAwIwHjEcMBoGA1UEAwwTS2V5Y2hhaW5CcmlkZ2UgVGVzdDAeFw0yNjExMjEwNjAzMTBaFw0zNjExMTgwNjAzMTBaMB4xHDAaBgNVBAMME0tleWNoYWluQnJpZGdlIFRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASFmz4D7jy02YE7jrQed8W1vhaI/Gd0jiedsQnWTsimA5zfsTuClvscouPO9wrjWV6zKidraAaa8JS1MJaD2BwFo1MwUTAdBgNVHQ4EFgQU55H4caHp2UwFoQOM1/DHRJJg9AgwHwYDVR0jBBgwFoAU55H4caHp2UwFoQOM1/DHRJJg9AgwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiAMgOPinKgrjDI8VJowJbdZJNpc4Wy1D0RdVZ2lNl7z9QIhAIV5Rtkibi39QQdoxA61zlSgou160h3gsWbTSQzClwdV"
)!
guard let secCertificate = SecCertificateCreateWithData(nil, der as CFData) else {
  fatalError("the test certificate was not accepted")
}
let certificate: Certificate = try Certificate(secCertificate)
let keychainCertificates = CertificateQuery().label("pinned")
guard keychainCertificates.attributes[kSecAttrLabel] == .string("pinned") else {
  fatalError("the keychain's certificate builder lost its label")
}
let roundTripped = try SecCertificate.makeWithCertificate(certificate)
guard SecCertificateCopyData(roundTripped) as Data == der else {
  fatalError("the certificate changed on its way through swift-certificates")
}
print("swift-certificates used Security's SecCertificate: \(certificate.subject)")

// swift-crypto's P-256 keys and SecKey: Apple's x963 format both ways, the raw scalar, and
// signatures made by one verified by the other.
func check(_ condition: Bool, _ failure: String) {
  if !condition { fatalError(failure) }
}
let message = Data("swift-crypto and SecKey agree".utf8)
let cryptoKey = P256.Signing.PrivateKey()
var keyError: Unmanaged<CFError>?
guard
  let secKey = SecKeyCreateWithData(
    cryptoKey.x963Representation as CFData,
    [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]
      as CFDictionary, &keyError),
  let secPublicKey = SecKeyCopyPublicKey(secKey)
else { fatalError("SecKeyCreateWithData refused swift-crypto's x963 representation: \(String(describing: keyError))") }
check(
  SecKeyCopyExternalRepresentation(secPublicKey, nil) as Data? == cryptoKey.publicKey.x963Representation,
  "the public keys differ")
let fromRaw = try P256.Signing.PrivateKey(rawRepresentation: cryptoKey.rawRepresentation)
check(
  SecKeyCopyExternalRepresentation(secKey, nil) as Data? == fromRaw.x963Representation,
  "the raw representation does not give SecKey's external representation")
let secGenerated = SecKeyCreateRandomKey(
  [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256] as CFDictionary,
  nil)!
let exported = try P256.Signing.PrivateKey(
  x963Representation: SecKeyCopyExternalRepresentation(secGenerated, nil)! as Data)
check(
  exported.rawRepresentation == (SecKeyCopyExternalRepresentation(secGenerated, nil)! as Data).suffix(32), "raw scalar")
let cryptoSignature = try cryptoKey.signature(for: message)
check(
  SecKeyVerifySignature(
    secPublicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, cryptoSignature.derRepresentation as CFData, nil),
  "SecKey rejected swift-crypto's signature")
let secSignature = SecKeyCreateSignature(secKey, .ecdsaSignatureMessageX962SHA256, message as CFData, nil)! as Data
check(
  cryptoKey.publicKey.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: secSignature), for: message),
  "swift-crypto rejected SecKey's signature")
let rfc4754 = SecKeyCreateSignature(secKey, .ecdsaSignatureMessageRFC4754SHA256, message as CFData, nil)! as Data
check(
  cryptoKey.publicKey.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: rfc4754), for: message),
  "swift-crypto rejected SecKey's RFC 4754 signature")
print("swift-crypto's P-256 keys and signatures interoperate with SecKey")

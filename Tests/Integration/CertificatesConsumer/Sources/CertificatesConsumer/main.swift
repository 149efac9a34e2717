// Uses swift-certificates' Security bridge (Certificate.init(SecCertificate) and
// SecCertificate.makeWithCertificate), which exist only when X509 saw a Security module. It also
// imports Keychain, whose public names must not clash with X509's: `Certificate` below, unqualified,
// is X509's, and the keychain's certificate builder is KeychainCertificate.
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
let keychainCertificates = KeychainCertificate().label("pinned")
guard keychainCertificates.attributes[kSecAttrLabel] == .string("pinned") else {
  fatalError("the keychain's certificate builder lost its label")
}
let roundTripped = try SecCertificate.makeWithCertificate(certificate)
guard SecCertificateCopyData(roundTripped) as Data == der else {
  fatalError("the certificate changed on its way through swift-certificates")
}
print("swift-certificates used Security's SecCertificate: \(certificate.subject)")

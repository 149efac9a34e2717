import Foundation
import Security
import Testing

/// KeysSemantics rules that the topic suites do not name.
@Suite struct KeyRuleCoverage {
  @Test("Keys rule 2.11: a query by type, size and label counts the stored halves")
  func aQueryCountsTheStoredHalves() throws {
    try withFreshStore { _ in
      for (publicPermanent, privatePermanent, expected) in [(false, false, 0), (true, false, 1), (true, true, 2)] {
        let label = "count-\(expected)"
        _ = try makeKey(
          bits: 384,
          [
            kSecAttrLabel as String: label,
            kSecPublicKeyAttrs as String: [kSecAttrIsPermanent as String: publicPermanent],
            kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: privatePermanent],
          ])
        let (status, result) = copy([
          kSecClass as String: kSecClassKey, kSecAttrKeyType as String: kSecAttrKeyTypeEC,
          kSecAttrKeySizeInBits as String: 384, kSecAttrLabel as String: label,
          kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
        ])
        #expect(expected == 0 ? status == errSecItemNotFound : (result as? [Any])?.count == expected)
      }
    }
  }

  @Test("Keys rule 3.9: SecKeyCreateWithData ignores a size that does not match the data")
  func createWithDataIgnoresTheSize() throws {
    let key = try makeKey(bits: 256)
    let imported = SecKeyCreateWithData(
      external(key) as CFData,
      [
        kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        kSecAttrKeySizeInBits as String: 521, kSecAttrLabel as String: "ignored",
      ] as CFDictionary, nil)
    #expect(imported == key)
    #expect(SecKeyCopyAttributes(imported!)?[kSecAttrLabel as String] == nil)
  }

  @Test("Keys rule 4.9: the attributes read with the four-character keys")
  func attributesReadWithFourCharacterKeys() throws {
    let attributes = try #require(SecKeyCopyAttributes(try makeKey(bits: 256)) as? [String: Any])
    #expect(
      attributes["bsiz"] as? Int == 256 && attributes["kcls"] as? String == "1" && attributes["type"] as? String == "73"
    )
  }

  @Test("Keys rule 5.1.5: the operation types have Apple's values")
  func operationTypesHaveApplesValues() {
    #expect(
      [SecKeyOperationType.sign, .verify, .encrypt, .decrypt, .keyExchange].map(\.rawValue) == [0, 1, 2, 3, 4])
  }

  @Test("Keys rule 7.3: a serial number longer than 37 bytes is refused")
  func anOverlongSerialIsRefused() throws {
    let scratch = try ScratchDirectory()
    let long = "0x" + String(repeating: "7F", count: 38)
    let der = try CertificateRules.certificate(subject: "/CN=long serial", serial: long, in: scratch)
    #expect(SecCertificateCreateWithData(nil, der as CFData) == nil)
    let fine = try CertificateRules.certificate(
      subject: "/CN=fine serial", serial: "0x" + String(repeating: "7F", count: 20), in: scratch)
    #expect(SecCertificateCreateWithData(nil, fine as CFData) != nil)
  }

  /// The version field now comes from OpenSSL's parser, which reads an explicit v1 as v1: the
  /// rule about its encoding is checked on the bytes by OpenSSL's TLV reader (X509Names).
  @Test("Keys rule 7.3: an explicit version must be v2 or v3")
  func anExplicitVersionOneIsRefused() throws {
    let scratch = try ScratchDirectory()
    let der = try CertificateRules.certificate(subject: "/CN=version", in: scratch)
    // The TBSCertificate's first element: [0] { INTEGER 2 } (v3), right after the two headers.
    let bytes = [UInt8](der)
    let marker: [UInt8] = [0xa0, 0x03, 0x02, 0x01, 0x02]
    let offset = try #require(
      (0...(bytes.count - marker.count)).first { Array(bytes[$0..<$0 + marker.count]) == marker })
    var versions: [UInt8: Bool] = [:]
    for version: UInt8 in [0, 1, 2, 3] {
      var altered = bytes
      altered[offset + 4] = version
      versions[version] = SecCertificateCreateWithData(nil, Data(altered) as CFData) != nil
    }
    #expect(versions == [0: false, 1: true, 2: true, 3: false])
  }

  @Test("Keys rule 9.3: a PKCS#12 file without a MAC is errSecDecode")
  func aFileWithoutAMACIsErrSecDecode() throws {
    let scratch = try ScratchDirectory()
    try openssl(
      [
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "k.pem",
        "-subj", "/CN=no mac", "-days", "1", "-out", "c.pem",
      ], in: scratch.url)
    try openssl(
      ["pkcs12", "-export", "-inkey", "k.pem", "-in", "c.pem", "-passout", "pass:p", "-nomac", "-out", "nomac.p12"],
      in: scratch.url)
    var items: CFArray?
    let status = SecPKCS12Import(
      try scratch.read("nomac.p12") as CFData, [kSecImportExportPassphrase as String: "p"] as CFDictionary, &items)
    #expect(status == errSecDecode)
  }
}

import Foundation
import Testing

@testable import Security

/// KeysSemantics section 7: certificates and certificate items, on certificates the openssl
/// command line makes.
@Suite struct CertificateRules {
  /// A self-signed P-256 certificate with `subject`, extensions and serial, as DER.
  static func certificate(
    subject: String, extensions: [String] = [], serial: String = "0x1234", in scratch: ScratchDirectory
  ) throws -> Data {
    let name = UUID().uuidString
    var arguments = [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
      "\(name).key", "-subj", subject, "-days", "30", "-set_serial", serial, "-outform", "DER", "-out", "\(name).der",
      "-multivalue-rdn",
    ]
    for value in extensions { arguments += ["-addext", value] }
    try openssl(arguments, in: scratch.url)
    return try scratch.read("\(name).der")
  }

  static func make(_ der: Data) throws -> SecCertificate {
    try #require(SecCertificateCreateWithData(nil, der as CFData))
  }

  @Test("Keys rules 7.1, 7.2 and 7.4: DER only; trailing bytes dropped; the data is the certificate's DER")
  func derOnlyAndTrailingBytesDropped() throws {
    let scratch = try ScratchDirectory()
    let der = try Self.certificate(subject: "/CN=trailing", in: scratch)
    let certificate = try Self.make(der + der)
    #expect(SecCertificateCopyData(certificate) as Data == der)
    let pem = "-----BEGIN CERTIFICATE-----\n\(der.base64EncodedString())\n-----END CERTIFICATE-----\n"
    #expect(SecCertificateCreateWithData(nil, Data(pem.utf8) as CFData) == nil)
    #expect(SecCertificateCreateWithData(nil, der.dropLast(10) as CFData) == nil)
  }

  @Test("Keys rules 7.5 and 7.6: the summary and the common name take the last CN, with its description")
  func summaryAndCommonName() throws {
    let scratch = try ScratchDirectory()
    let two = try Self.make(Self.certificate(subject: "/O=Example/CN=first/CN=second", in: scratch))
    #expect(SecCertificateCopySubjectSummary(two) as String? == "second, first")
    var name: CFString?
    #expect(SecCertificateCopyCommonName(two, &name) == errSecSuccess)
    #expect(name as String? == "second")
    let described = try Self.make(Self.certificate(subject: "/CN=server/description=test host", in: scratch))
    #expect(SecCertificateCopySubjectSummary(described) as String? == "server (test host)")
    let organization = try Self.make(Self.certificate(subject: "/O=Only Org", in: scratch))
    #expect(SecCertificateCopySubjectSummary(organization) as String? == "Only Org")
    var untouched: CFString? = "unchanged" as NSString
    #expect(SecCertificateCopyCommonName(organization, &untouched) == errSecInternal)
    #expect(untouched as String? == "unchanged")
  }

  @Test("Keys rules 7.5 and 7.7: without a CN the first email names the certificate; emails list SAN first")
  func emailsAndSummaryWithoutCommonName() throws {
    let scratch = try ScratchDirectory()
    let certificate = try Self.make(
      Self.certificate(
        subject: "/O=Mail/emailAddress=subject@example.com",
        extensions: ["subjectAltName=email:alt@example.com,DNS:mail.example.com"], in: scratch))
    #expect(SecCertificateCopySubjectSummary(certificate) as String? == "alt@example.com")
    var emails: CFArray?
    #expect(SecCertificateCopyEmailAddresses(certificate, &emails) == errSecSuccess)
    #expect(emails as? [String] == ["alt@example.com", "subject@example.com"])
    let none = try Self.make(Self.certificate(subject: "/CN=no mail", in: scratch))
    #expect(SecCertificateCopyEmailAddresses(none, &emails) == errSecSuccess)
    #expect((emails as? [String])?.isEmpty == true)
  }

  @Test("Keys rules 7.8 and 4.11: the certificate's key, whose application label is the certificate's key hash")
  func theCertificatesKey() throws {
    let scratch = try ScratchDirectory()
    let name = UUID().uuidString
    try openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", "\(name).key"], in: scratch.url)
    try openssl(
      [
        "req", "-x509", "-key", "\(name).key", "-subj", "/CN=keyed", "-days", "1", "-outform", "DER", "-out",
        "\(name).der",
      ],
      in: scratch.url)
    let certificate = try Self.make(try scratch.read("\(name).der"))
    let key = try #require(SecCertificateCopyKey(certificate))
    let spki = try openssl(["ec", "-in", "\(name).key", "-pubout", "-outform", "DER"], in: scratch.url)
    #expect(external(key) == spki.suffix(65))
    try withFreshStore { _ in
      #expect(add([kSecValueRef as String: certificate]) == errSecSuccess)
      let hash = readAttributes([kSecClass as String: kSecClassCertificate])?[kSecAttrPublicKeyHash as String] as? Data
      #expect(hash != nil && hash == SecKeyCopyAttributes(key)?[kSecAttrApplicationLabel as String] as? Data)
    }
  }

  @Test("Keys rule 7.9: the serial number keeps its leading zero byte")
  func theSerialKeepsItsLeadingZero() throws {
    let scratch = try ScratchDirectory()
    let certificate = try Self.make(Self.certificate(subject: "/CN=serial", serial: "0x80AB", in: scratch))
    #expect(SecCertificateCopySerialNumberData(certificate, nil) as Data? == Data([0x00, 0x80, 0xab]))
  }

  /// A DER element, for building Names by hand (the runtime reads them through OpenSSL).
  static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    precondition(content.count < 0x80, "short elements only")
    return [tag, UInt8(content.count)] + content
  }

  @Test("Keys rules 7.10 and 7.11: only PrintableString values are normalized, order and structure kept")
  func onlyPrintableStringsAreNormalized() throws {
    // SEQUENCE { SET { SEQUENCE { O, PrintableString "  ab   c " } }
    //            SET { SEQUENCE { CN, UTF8String " x y" } SEQUENCE { OU, PrintableString "z  z" } } }
    let printable = Array("  ab   c ".utf8)
    let utf8 = Array(" x y".utf8)
    func pair(_ oid: [UInt8], _ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
      Self.element(0x30, Self.element(0x06, oid) + Self.element(tag, value))
    }
    let organization: [UInt8] = [0x55, 0x04, 0x0a]
    let commonName: [UInt8] = [0x55, 0x04, 0x03]
    let unit: [UInt8] = [0x55, 0x04, 0x0b]
    let name = Self.element(
      0x30,
      Self.element(0x31, pair(organization, 0x13, printable))
        + Self.element(0x31, pair(commonName, 0x0c, utf8) + pair(unit, 0x13, Array("z  z".utf8))))
    let expected = Self.element(
      0x30,
      Self.element(0x31, pair(organization, 0x13, Array("AB C".utf8)))
        + Self.element(0x31, pair(commonName, 0x0c, utf8) + pair(unit, 0x13, Array("Z Z".utf8))))
    let backend = try SecurityBackends.required()
    let normalized = try #require(backend.normalizedName(Data(name)))
    #expect(normalized.sequence == Data(expected))
    #expect(normalized.content == Data(expected.dropFirst(2)))
    // Bytes after the Name, or no Name at all, are not normalized.
    #expect(backend.normalizedName(Data(name + [0])) == nil)
    #expect(backend.normalizedName(Data([0x30, 0x05, 0x31])) == nil)
  }

  @Test("Keys rules 7.13, 7.14 and 7.15: a certificate item gets attributes from the DER, its label from the summary")
  func aCertificateItemGetsItsAttributes() throws {
    let scratch = try ScratchDirectory()
    let der = try Self.certificate(subject: "/CN=item", extensions: ["subjectKeyIdentifier=hash"], in: scratch)
    let certificate = try Self.make(der)
    try withFreshStore { _ in
      #expect(add([kSecValueRef as String: certificate]) == errSecSuccess)
      let attributes = try #require(readAttributes([kSecClass as String: kSecClassCertificate]))
      #expect(attributes[kSecAttrCertificateType as String] as? Int == 3)
      #expect(attributes[kSecAttrCertificateEncoding as String] as? Int == 3)
      #expect(attributes[kSecAttrLabel as String] as? String == "item")
      #expect(attributes[kSecAttrSerialNumber as String] as? Data == Data([0x12, 0x34]))
      #expect((attributes[kSecAttrSubjectKeyID as String] as? Data)?.count == 20)
      #expect(attributes[kSecAttrSubject as String] as? Data == attributes[kSecAttrIssuer as String] as? Data)
      #expect(readData([kSecClass as String: kSecClassCertificate]) == der)
    }
  }

  @Test("Keys rules 7.16 and 7.19: the same certificate twice is a duplicate; kSecReturnRef gives it back")
  func duplicatesAndReturnRef() throws {
    let scratch = try ScratchDirectory()
    let certificate = try Self.make(Self.certificate(subject: "/CN=unique", in: scratch))
    let other = try Self.make(Self.certificate(subject: "/CN=other", serial: "0x99", in: scratch))
    try withFreshStore { _ in
      #expect(add([kSecValueRef as String: certificate, kSecAttrLabel as String: "mine"]) == errSecSuccess)
      #expect(add([kSecValueRef as String: certificate, kSecAttrLabel as String: "again"]) == errSecDuplicateItem)
      #expect(add([kSecClass as String: kSecClassCertificate, kSecValueRef as String: other]) == errSecSuccess)
      let (status, result) = copy([
        kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "mine", kSecReturnRef as String: true,
      ])
      #expect(status == errSecSuccess && result as? SecCertificate == certificate)
      #expect(copy([kSecValueRef as String: other, kSecReturnAttributes as String: true]).0 == errSecSuccess)
      #expect(delete([kSecValueRef as String: certificate]) == errSecSuccess)
      #expect(copy([kSecValueRef as String: certificate]).0 == errSecItemNotFound)
      #expect(add([kSecClass as String: kSecClassKey, kSecValueRef as String: other]) == errSecParam)
    }
  }

  @Test("Keys rule 7.20: the validity dates")
  func theValidityDates() throws {
    let scratch = try ScratchDirectory()
    let certificate = try Self.make(Self.certificate(subject: "/CN=dates", in: scratch))
    let start = try #require(SecCertificateCopyNotValidBeforeDate(certificate) as Date?)
    let end = try #require(SecCertificateCopyNotValidAfterDate(certificate) as Date?)
    #expect(abs(start.timeIntervalSinceNow) < 600)
    #expect(abs(end.timeIntervalSince(start) - 30 * 86_400) < 1)
  }
}

/// Keys rule 7.17: an issuer given as a whole DN finds certificates by their normalized issuer.
@Suite struct CertificateIssuerQueries {
  @Test("Keys rule 7.17: a raw issuer DN finds the certificate; a non-data issuer is errSecParam")
  func aRawIssuerFindsTheCertificate() throws {
    let scratch = try ScratchDirectory()
    let der = try CertificateRules.certificate(subject: "/CN=issuer test/O=Example", in: scratch)
    let certificate = try CertificateRules.make(der)
    let issuerSequence = try #require(SecCertificateCopyNormalizedIssuerSequence(certificate) as Data?)
    try withFreshStore { _ in
      #expect(add([kSecValueRef as String: certificate]) == errSecSuccess)
      let query: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecAttrIssuer as String: issuerSequence]
      #expect(copy(query).0 == errSecSuccess)
      let content = issuerSequence.dropFirst(2)  // short-form length: the name is under 128 bytes
      #expect(copy([kSecClass as String: kSecClassCertificate, kSecAttrIssuer as String: Data(content)]).0 == 0)
      #expect(copy([kSecClass as String: kSecClassCertificate, kSecAttrIssuer as String: "text"]).0 == errSecParam)
    }
  }
}

/// Keys rule 7.18: kSecMatchIssuers keeps the certificates (and identities) of the issuers listed.
@Suite struct CertificateIssuerMatching {
  @Test("Keys rule 7.18: kSecMatchIssuers keeps certificates of the listed issuers")
  func matchIssuersKeepsTheListedIssuers() throws {
    let scratch = try ScratchDirectory()
    let first = try CertificateRules.make(CertificateRules.certificate(subject: "/CN=first issuer", in: scratch))
    let second = try CertificateRules.make(
      CertificateRules.certificate(subject: "/CN=second issuer", serial: "0x77", in: scratch))
    let firstIssuer = try #require(SecCertificateCopyNormalizedIssuerSequence(first) as Data?)
    try withFreshStore { _ in
      #expect(add([kSecValueRef as String: first]) == errSecSuccess)
      #expect(add([kSecValueRef as String: second]) == errSecSuccess)
      let (status, result) = copy([
        kSecClass as String: kSecClassCertificate, kSecMatchIssuers as String: [firstIssuer, "not data"],
        kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnRef as String: true,
      ])
      #expect(status == errSecSuccess && (result as? [SecCertificate]) == [first])
      #expect(
        copy([kSecClass as String: kSecClassCertificate, kSecMatchIssuers as String: [Data([0x30, 0x00])]]).0
          == errSecItemNotFound)
    }
  }
}

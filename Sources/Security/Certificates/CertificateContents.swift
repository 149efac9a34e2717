import Foundation

/// What Apple's certificate functions and certificate items read from an X.509 certificate
/// (KeysSemantics section 7). OpenSSL's X509 API parses the certificate and reads its fields
/// (through the backend, `SecurityBackend.certificateContents`); the rules Apple states about the
/// encoding itself are applied here: the explicit-version rule (7.3), the summary order (7.5) and
/// the name normalization (7.11), which no library implements.
package struct CertificateContents: Sendable {
  /// The certificate's DER: the first element of the bytes given (trailing bytes are dropped, 7.2).
  package var der: Data
  /// The X.509 version number, 1 to 3 (7.14).
  package var version: Int
  /// The serial INTEGER's content octets (7.9).
  package var serialNumber: Data
  /// The issuer and subject Names, as encoded (SEQUENCE included).
  package var issuer: Data
  package var subject: Data
  /// The subject's attributes in order: the attribute type's OID (DER content) and its value.
  package var subjectAttributes: [(oid: [UInt8], value: String)]
  /// The subjectKeyIdentifier extension's key identifier.
  package var subjectKeyIdentifier: Data?
  /// The subjectAltName rfc822Names and dNSNames.
  package var alternativeEmails: [String]
  package var alternativeDNSNames: [String]
  /// The SubjectPublicKeyInfo's algorithm OID and parameters, and its BIT STRING's key bytes.
  package var publicKeyAlgorithm: [UInt8]
  package var publicKeyParameters: [UInt8]?
  package var publicKeyBits: Data
  package var notBefore: Date?
  package var notAfter: Date?

  static let commonName: [UInt8] = [0x55, 0x04, 0x03]
  static let organizationalUnit: [UInt8] = [0x55, 0x04, 0x0b]
  static let organization: [UInt8] = [0x55, 0x04, 0x0a]
  static let description: [UInt8] = [0x55, 0x04, 0x0d]
  static let emailAddress: [UInt8] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01]
  static let rsaEncryption: [UInt8] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]
  static let ecPublicKey: [UInt8] = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]

  /// The fields as the backend's parser read them.
  package init(
    der: Data, version: Int, serialNumber: Data, issuer: Data, subject: Data,
    subjectAttributes: [(oid: [UInt8], value: String)], subjectKeyIdentifier: Data?, alternativeEmails: [String],
    alternativeDNSNames: [String], publicKeyAlgorithm: [UInt8], publicKeyParameters: [UInt8]?, publicKeyBits: Data,
    notBefore: Date?, notAfter: Date?
  ) {
    self.der = der
    self.version = version
    self.serialNumber = serialNumber
    self.issuer = issuer
    self.subject = subject
    self.subjectAttributes = subjectAttributes
    self.subjectKeyIdentifier = subjectKeyIdentifier
    self.alternativeEmails = alternativeEmails
    self.alternativeDNSNames = alternativeDNSNames
    self.publicKeyAlgorithm = publicKeyAlgorithm
    self.publicKeyParameters = publicKeyParameters
    self.publicKeyBits = publicKeyBits
    self.notBefore = notBefore
    self.notAfter = notAfter
  }

  /// The first certificate of `bytes` as `backend` parses it, or nil when it does not parse or
  /// breaks keys rule 7.3.
  static func read(_ bytes: Data, with backend: any SecurityBackend) -> CertificateContents? {
    guard let contents = backend.certificateContents(bytes), (1...3).contains(contents.version),
      (1...37).contains(contents.serialNumber.count), !hasExplicitVersionOne(contents.der)
    else { return nil }
    return contents
  }

  /// Keys rule 7.3: an explicit version must be v2 or v3; v1 is encoded by leaving the version out, and
  /// a parser that reads an explicit v1 as v1 (OpenSSL does) cannot tell the two apart.
  static func hasExplicitVersionOne(_ der: Data) -> Bool {
    var outer = DERReader(Array(der))
    guard let certificate = outer.read(tag: 0x30) else { return false }
    var fields = DERReader(certificate)
    guard let tbs = fields.read(tag: 0x30) else { return false }
    var tbsFields = DERReader(tbs)
    guard let explicit = tbsFields.read(tag: 0xa0) else { return false }
    var inner = DERReader(explicit)
    return inner.read(tag: 0x02) == [0]
  }

  /// The subject summary of keys rule 7.5.
  var subjectSummary: String? {
    let names = subjectAttributes.filter { $0.oid == Self.commonName }.map(\.value)
    if !names.isEmpty {
      let joined = names.reversed().joined(separator: ", ")
      if let description = subjectAttributes.first(where: { $0.oid == Self.description })?.value {
        return "\(joined) (\(description))"
      }
      return joined
    }
    if let email = emailAddresses.first { return email }
    if let dns = alternativeDNSNames.first { return dns }
    for type in [Self.organizationalUnit, Self.organization] {
      let values = subjectAttributes.filter { $0.oid == type }.map(\.value)
      if !values.isEmpty { return values.reversed().joined(separator: ", ") }
    }
    return subjectAttributes.last?.value
  }

  /// The subjectAltName rfc822Names, then the subject's emailAddress values (7.7).
  var emailAddresses: [String] {
    alternativeEmails + subjectAttributes.filter { $0.oid == Self.emailAddress }.map(\.value)
  }

  /// The last commonName of the subject (7.6).
  var commonName: String? { subjectAttributes.last { $0.oid == Self.commonName }?.value }
}

/// Apple's name normalization (7.11): PrintableString values upper-cased with blanks trimmed and
/// runs collapsed; every other value, the order and the structure kept byte for byte.
enum NameNormalization {
  /// The normalized Name's content (the RDNs without the outer SEQUENCE header), or nil.
  static func normalizedContent(_ name: Data) -> Data? {
    var outer = DERReader(Array(name))
    guard let content = outer.read(tag: 0x30), outer.isAtEnd else { return nil }
    var rdns = DERReader(content)
    var output: [UInt8] = []
    while !rdns.isAtEnd {
      guard let set = rdns.read(tag: 0x31) else { return nil }
      var members = DERReader(set)
      var setContent: [UInt8] = []
      while !members.isAtEnd {
        guard let pair = members.read(tag: 0x30) else { return nil }
        var fields = DERReader(pair)
        guard let oid = fields.readElement(tag: 0x06), let (tag, value) = fields.readAny() else { return nil }
        var normalized = value
        if tag == 0x13 { normalized = printable(value) }
        let pairContent = oid.whole + DEREncoding.element(tag: tag, normalized)
        setContent += DEREncoding.element(tag: 0x30, pairContent)
      }
      output += DEREncoding.element(tag: 0x31, setContent)
    }
    return Data(output)
  }

  /// The normalized Name as a SEQUENCE (SecCertificateCopyNormalized...Sequence).
  static func normalizedSequence(_ name: Data) -> Data? {
    normalizedContent(name).map { Data(DEREncoding.element(tag: 0x30, Array($0))) }
  }

  private static func printable(_ value: [UInt8]) -> [UInt8] {
    var output: [UInt8] = []
    var pendingBlank = false
    for byte in value {
      if byte == 0x20 || byte == 0x09 {
        pendingBlank = !output.isEmpty
        continue
      }
      if pendingBlank { output.append(0x20) }
      pendingBlank = false
      output.append((0x61...0x7a).contains(byte) ? byte - 0x20 : byte)
    }
    return output
  }
}

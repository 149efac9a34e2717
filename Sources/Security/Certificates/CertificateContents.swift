import Foundation

/// What Apple's certificate functions and certificate items read from an X.509 certificate
/// (KeysSemantics section 7). OpenSSL's X509 API parses the certificate and reads its fields
/// (through the backend, `SecurityBackend.certificateContents`), which also reads the encoding
/// facts Apple's rules need and no parser keeps: an explicit v1 (7.3) and the normalized names
/// (7.11). The rules about what the fields mean are applied here: the summary order (7.5), the
/// email addresses (7.7) and the common name (7.6).
package struct CertificateContents: Sendable {
  /// The certificate's DER: the first element of the bytes given (trailing bytes are dropped, 7.2).
  package var der: Data
  /// The X.509 version number, 1 to 3 (7.14).
  package var version: Int
  /// Whether the version is written as an explicit v1, which keys rule 7.3 refuses.
  package var explicitVersionOne: Bool
  /// The issuer and subject after Apple's normalization (7.11), without the outer SEQUENCE header.
  package var normalizedIssuer: Data?
  package var normalizedSubject: Data?
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
    explicitVersionOne: Bool, normalizedIssuer: Data?, normalizedSubject: Data?, der: Data, version: Int,
    serialNumber: Data, issuer: Data, subject: Data,
    subjectAttributes: [(oid: [UInt8], value: String)], subjectKeyIdentifier: Data?, alternativeEmails: [String],
    alternativeDNSNames: [String], publicKeyAlgorithm: [UInt8], publicKeyParameters: [UInt8]?, publicKeyBits: Data,
    notBefore: Date?, notAfter: Date?
  ) {
    self.explicitVersionOne = explicitVersionOne
    self.normalizedIssuer = normalizedIssuer
    self.normalizedSubject = normalizedSubject
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
      (1...37).contains(contents.serialNumber.count), !contents.explicitVersionOne
    else { return nil }
    return contents
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

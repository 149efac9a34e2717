import Foundation

/// Apple's `SecCertificate`: an X.509 certificate that holds its DER bytes.
///
/// Two certificates are equal when their DER bytes are.
public final class SecCertificate: Hashable, Sendable, CustomStringConvertible {
  let contents: CertificateContents
  /// SHA-1 of the subject public key's bits (kSecAttrPublicKeyHash), computed once at creation.
  let publicKeyHash: Data
  /// The backend that parsed it: its key, normalized names and trust are read with the same one.
  let backend: any SecurityBackend

  init(contents: CertificateContents, publicKeyHash: Data, backend: any SecurityBackend) {
    self.contents = contents
    self.publicKeyHash = publicKeyHash
    self.backend = backend
  }

  /// The certificate's DER bytes.
  var derBytes: Data { contents.der }

  /// Certificates are equal when their DER bytes are.
  public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.derBytes == rhs.derBytes }

  /// Hashes the DER bytes.
  public func hash(into hasher: inout Hasher) { hasher.combine(derBytes) }

  /// The subject summary, as Keychain Access shows a certificate.
  public var description: String { "<SecCertificate \(contents.subjectSummary ?? "without a subject summary")>" }

  /// The attributes a certificate item gets from the certificate (keys rule 7.13): type,
  /// encoding, normalized subject and issuer, serial number, subject key identifier and
  /// public-key hash.
  var itemAttributes: [String: AttributeValue] {
    var attributes: [String: AttributeValue] = [
      SecConstantValue.attrCertificateType: .integer(Int64(contents.version)),
      SecConstantValue.attrCertificateEncoding: .integer(3),
      SecConstantValue.attrSerialNumber: .data(contents.serialNumber),
      SecConstantValue.attrPublicKeyHash: .data(publicKeyHash),
    ]
    if let subject = contents.normalizedSubject {
      attributes[SecConstantValue.attrSubject] = .data(subject)
    }
    if let issuer = contents.normalizedIssuer {
      attributes[SecConstantValue.attrIssuer] = .data(issuer)
    }
    if let identifier = contents.subjectKeyIdentifier {
      attributes[SecConstantValue.attrSubjectKeyID] = .data(identifier)
    }
    return attributes
  }
}

/// Creates a certificate from DER bytes, as Apple's `SecCertificateCreateWithData` does: nil for
/// PEM, junk, or a certificate Apple's parser refuses (keys rules 7.1 to 7.3). Bytes after the first
/// certificate are dropped. A program that links the Security target without its store has no
/// X.509 parser: the result is nil.
@discardableResult
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
  guard let backend = try? KeychainContext.current.resolvedBackend() else { return nil }
  return SecCertificate.parse(Data(referencing: data), with: backend)
}

extension SecCertificate {
  /// The certificate in `bytes` (DER) as `backend`'s parser reads it, or nil.
  package static func parse(_ bytes: Data, with backend: any SecurityBackend) -> SecCertificate? {
    guard let contents = CertificateContents.read(bytes, with: backend),
      let publicKeyHash = try? backend.sha1(Array(contents.publicKeyBits))
    else { return nil }
    return SecCertificate(contents: contents, publicKeyHash: publicKeyHash, backend: backend)
  }
}

/// The certificate's DER bytes (keys rule 7.4).
@discardableResult
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
  certificate.derBytes as NSData
}

/// A human-readable summary of the subject (keys rule 7.5): its common names, else an email address or
/// DNS name, else its organizational units or organizations.
@discardableResult
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
  certificate.contents.subjectSummary.map { $0 as NSString }
}

/// The subject's last common name (keys rule 7.6); errSecInternal when it has none.
@discardableResult
public func SecCertificateCopyCommonName(
  _ certificate: SecCertificate, _ commonName: UnsafeMutablePointer<CFString?>
) -> OSStatus {
  guard let name = certificate.contents.commonName else { return errSecInternal }
  commonName.pointee = name as NSString
  return errSecSuccess
}

/// The subjectAltName email addresses, then the subject's (keys rule 7.7); an empty array when none.
@discardableResult
public func SecCertificateCopyEmailAddresses(
  _ certificate: SecCertificate, _ emailAddresses: UnsafeMutablePointer<CFArray?>
) -> OSStatus {
  emailAddresses.pointee = certificate.contents.emailAddresses as NSArray
  return errSecSuccess
}

/// The issuer Name, normalized as Apple normalizes it (keys rules 7.10, 7.11), as a DER SEQUENCE.
@discardableResult
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? {
  certificate.backend.normalizedName(certificate.contents.issuer).map { $0.sequence as NSData }
}

/// The subject Name, normalized as Apple normalizes it (keys rules 7.10, 7.11), as a DER SEQUENCE.
@discardableResult
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? {
  certificate.backend.normalizedName(certificate.contents.subject).map { $0.sequence as NSData }
}

/// The serial number's content octets, a leading zero byte kept (keys rule 7.9).
@discardableResult
public func SecCertificateCopySerialNumberData(
  _ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
  certificate.contents.serialNumber as NSData
}

/// The certificate's public key: RSA or EC on a NIST curve; nil for any other (keys rule 7.8).
@discardableResult
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
  let contents = certificate.contents
  let type: KeyType
  switch contents.publicKeyAlgorithm {
  case CertificateContents.rsaEncryption: type = .rsa
  case CertificateContents.ecPublicKey: type = .ec
  default: return nil
  }
  guard
    let material = try? certificate.backend.keyEngine.importKey(type, isPrivate: false, data: contents.publicKeyBits)
  else { return nil }
  return try? SecKey(material)
}

/// The start of the certificate's validity (keys rule 7.20).
@discardableResult
public func SecCertificateCopyNotValidBeforeDate(_ certificate: SecCertificate) -> CFDate? {
  certificate.contents.notBefore.map { $0 as NSDate }
}

/// The end of the certificate's validity (keys rule 7.20).
@discardableResult
public func SecCertificateCopyNotValidAfterDate(_ certificate: SecCertificate) -> CFDate? {
  certificate.contents.notAfter.map { $0 as NSDate }
}

/// The certificate's public key: iOS's older name of SecCertificateCopyKey (iOS 10.3 to 12), still
/// in wide use.
@available(*, deprecated, renamed: "SecCertificateCopyKey")
@discardableResult
public func SecCertificateCopyPublicKey(_ certificate: SecCertificate) -> SecKey? {
  SecCertificateCopyKey(certificate)
}

import Foundation

/// Apple's `SecCertificate`: an X.509 certificate that holds its DER bytes.
///
/// Provided so that packages guarding code with `#if canImport(Security)` (swift-certificates among
/// them) compile against this module. Storing certificates in the keychain is not implemented yet.
public final class SecCertificate: Hashable, Sendable {
  let derBytes: Data

  init(derBytes: Data) { self.derBytes = derBytes }

  /// Certificates are equal when their DER bytes are.
  public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.derBytes == rhs.derBytes }

  /// Hashes the DER bytes.
  public func hash(into hasher: inout Hasher) { hasher.combine(derBytes) }
}

/// Creates a certificate from DER bytes, or nil when the bytes are not exactly one DER certificate.
///
/// The bytes are checked with OpenSSL's X.509 parser, and nothing may follow the certificate. A
/// program that links the Security target without its store has no parser: the result is nil.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
  let bytes = Data(referencing: data)
  guard StoreSeam.isSingleDERCertificate(bytes) == true else { return nil }
  return SecCertificate(derBytes: bytes)
}

/// Returns the DER bytes of a certificate.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
  certificate.derBytes as NSData
}

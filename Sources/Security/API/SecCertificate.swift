import COpenSSL
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
/// The bytes are checked with OpenSSL's X.509 parser, and nothing may follow the certificate.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
  let bytes = Data(referencing: data)
  guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return nil }
  let parsedLength: Int? = bytes.withUnsafeBytes { buffer in
    guard let base = buffer.bindMemory(to: UInt8.self).baseAddress else { return nil }
    var cursor: UnsafePointer<UInt8>? = base
    guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return nil }
    X509_free(certificate)
    return cursor.map { $0 - base }
  }
  guard parsedLength == bytes.count else { return nil }
  return SecCertificate(derBytes: bytes)
}

/// Returns the DER bytes of a certificate.
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
  certificate.derBytes as NSData
}

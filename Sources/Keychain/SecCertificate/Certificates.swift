import Foundation
import Security

// Typed certificates and identities over SecCertificate and SecIdentity, through the wrappers
// secgen generates from SecCertificate.h, SecIdentity.h and SecImportExport.h. They live in a
// folder of their own for the reason Keys.swift does. The certificate type is not called
// `Certificate`: swift-certificates' X509 module has that name, and code imports both.

/// An X.509 certificate as the Security framework holds it.
public struct SecurityCertificate: Hashable, Sendable {
  /// The runtime's certificate.
  public let secCertificate: SecCertificate

  /// Wraps `secCertificate`.
  public init(_ secCertificate: SecCertificate) { self.secCertificate = secCertificate }

  /// The certificate in `derRepresentation`; nil for PEM, junk or a certificate that does not parse.
  public init?(derRepresentation: Data) {
    guard let certificate = KeychainFunctions.certificateCreateWithData(nil, derRepresentation as CFData) else {
      return nil
    }
    secCertificate = certificate
  }

  /// The DER bytes.
  public var derRepresentation: Data { KeychainFunctions.certificateCopyData(secCertificate) as Data }

  /// The subject summary: common names, else an email address or DNS name, else organizations.
  public var subjectSummary: String? { KeychainFunctions.certificateCopySubjectSummary(secCertificate) as String? }

  /// The subject's last common name, or nil when it has none.
  public var commonName: String? {
    try? KeychainFunctions.certificateCopyCommonName(secCertificate).get() as String
  }

  /// The email addresses: the subjectAltName ones, then the subject's.
  public var emailAddresses: [String] {
    ((try? KeychainFunctions.certificateCopyEmailAddresses(secCertificate).get()) as? [String]) ?? []
  }

  /// The serial number's content octets.
  public var serialNumber: Data? {
    try? KeychainFunctions.certificateCopySerialNumberData(secCertificate).get() as Data
  }

  /// The public key, when it is RSA or EC on a NIST curve.
  public var publicKey: PublicKey? { KeychainFunctions.certificateCopyKey(secCertificate).flatMap(PublicKey.init) }
}

/// A certificate and the private key that matches it.
public struct Identity: Hashable, Sendable {
  /// The runtime's identity.
  public let secIdentity: SecIdentity

  /// Wraps `secIdentity`.
  public init(_ secIdentity: SecIdentity) { self.secIdentity = secIdentity }

  /// The identity of `certificate` and `privateKey`; nil when the key is not the certificate's.
  public init?(certificate: SecurityCertificate, privateKey: PrivateKey) {
    guard let identity = KeychainFunctions.identityCreate(nil, certificate.secCertificate, privateKey.secKey) else {
      return nil
    }
    secIdentity = identity
  }

  /// The certificate.
  public var certificate: SecurityCertificate {
    // SecIdentityCopyCertificate cannot fail for an identity (keys-semantics.md 8.9).
    SecurityCertificate(try! KeychainFunctions.identityCopyCertificate(secIdentity).get())
  }

  /// The private key.
  public var privateKey: PrivateKey {
    PrivateKey(try! KeychainFunctions.identityCopyPrivateKey(secIdentity).get())!
  }

  /// The identities of a PKCS#12 file, kept in memory (store one with `KeychainIdentity().add(_:)`).
  /// A wrong passphrase is `.authFailed`; a file that is not PKCS#12 or whose key does not match
  /// its certificate is `.decode`.
  public static func importPKCS12(_ data: Data, passphrase: String) -> Result<[ImportedIdentity], KeychainError> {
    let options = [kSecImportExportPassphrase as String: passphrase] as CFDictionary
    return KeychainFunctions.pkcs12Import(data as CFData, options).map { items in
      ((items as? [[String: Any]]) ?? []).compactMap { item in
        guard let identity = item[kSecImportItemIdentity as String].map({ $0 as AnyObject }) as? SecIdentity else {
          return nil
        }
        let chain = (item[kSecImportItemCertChain as String] as? [SecCertificate] ?? []).map(SecurityCertificate.init)
        return ImportedIdentity(
          identity: Identity(identity), chain: chain, label: item[kSecImportItemLabel as String] as? String,
          keyID: item[kSecImportItemKeyID as String] as? Data)
      }
    }
  }
}

/// One identity of a PKCS#12 file.
public struct ImportedIdentity: Hashable, Sendable {
  /// The certificate and its private key.
  public let identity: Identity
  /// The certificate, then the file's other certificates.
  public let chain: [SecurityCertificate]
  /// The file's friendly name for the key, when it has one.
  public let label: String?
  /// The file's local key ID, when it has one.
  public let keyID: Data?
}

extension KeychainCertificate {
  /// Stores `certificate`: its attributes come from its DER, its label from its subject summary
  /// unless this description gives one.
  public func add(_ certificate: SecurityCertificate) -> Result<Void, KeychainError> {
    addReference(.certificate(certificate.secCertificate))
  }

  /// The first matching certificate, or nil.
  public func certificate() -> Result<SecurityCertificate?, KeychainError> {
    firstReference(as: SecCertificate.self).map { $0.map(SecurityCertificate.init) }
  }
}

extension KeychainIdentity {
  /// Stores `identity` as its certificate and its private key, each with this description's
  /// attributes (keys-semantics.md 8.5).
  public func add(_ identity: Identity) -> Result<Void, KeychainError> { addReference(.identity(identity.secIdentity)) }

  /// The first matching identity, or nil.
  public func identity() -> Result<Identity?, KeychainError> {
    firstReference(as: SecIdentity.self).map { $0.map(Identity.init) }
  }
}

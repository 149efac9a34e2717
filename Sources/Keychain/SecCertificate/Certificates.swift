import Foundation
import Security

// The hand-written part of the typed certificates and identities: SecurityCertificate and Identity,
// and every member that is one function, are generated from SecCertificate.h and SecIdentity.h with
// the API notes (TypedReferences.swift). Here are the PKCS#12 import, whose result is an array of
// dictionaries no declaration describes, and the builders' reference operations. They live in a
// folder of their own for the reason Keys.swift does.

extension Identity {
  /// The identities of a PKCS#12 file, kept in memory (store one with `IdentityQuery().add(_:)`).
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

extension CertificateQuery {
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

extension IdentityQuery {
  /// Stores `identity` as its certificate and its private key, each with this description's
  /// attributes (keys rule 8.5).
  public func add(_ identity: Identity) -> Result<Void, KeychainError> { addReference(.identity(identity.secIdentity)) }

  /// The first matching identity, or nil.
  public func identity() -> Result<Identity?, KeychainError> {
    firstReference(as: SecIdentity.self).map { $0.map(Identity.init) }
  }
}

import Foundation
import KeychainCrypto
import KeychainCryptoOpenSSL
import KeychainStorageAgent
import KeychainStorageSQLite
import KeychainTPM
import Security

/// Security's backend on Linux: the SQLite storage, the OpenSSL key engine, the backup envelope and
/// OpenSSL's certificate parser and digests (see `SecurityBackend` for why Security does not
/// import them).
///
/// `package`, not internal, and so is its initializer: nothing in any module names this type, and
/// a release build emits the metadata of an internal type only where something uses it, so
/// Security's lookup by name found nothing there (keychain-bench's release build stopped at its
/// first call); a package type's metadata is always emitted.
package struct SQLiteOpenSSLBackend: LinkedSecurityBackend {
  /// The backend with its defaults.
  package init() {}

  package func openStore(directory: URL, passphrase: String?, sealingToTPM: Bool) throws(KeychainStoreError)
    -> any ItemStorage
  {
    try SQLiteStorageEntry.open(
      directory: directory, passphrase: passphrase,
      sealing: KeyFileSealing(sealer: TPMKeyFileSealer(), sealsNewStores: sealingToTPM))
  }

  package func connectAgent(socketPath: String, startingOnDemand: Bool) throws(SecStatus) -> any KeychainAgentLink {
    try AgentClient(socketPath: socketPath, startingOnDemand: startingOnDemand, backend: self)
  }

  package var keyEngine: any KeyEngine { OpenSSLKeyEngine.shared }

  package var secureEnclave: any SecureEnclaveEngine { TPMSecureEnclave() }

  package func sealBackup(_ plaintext: Data, passphrase: String) throws(SecStatus) -> Data {
    var secret = Array(passphrase.utf8)
    defer { SecureBytes.wipe(&secret) }
    return Data(try BackupEnvelope.seal(Array(plaintext), passphrase: secret))
  }

  package func openBackup(_ sealed: Data, passphrase: String) throws(SecStatus) -> Data {
    var secret = Array(passphrase.utf8)
    defer { SecureBytes.wipe(&secret) }
    var plaintext = try BackupEnvelope.open(Array(sealed), passphrase: secret)
    // The plaintext holds every exported secret: the copy handed on is the only one left.
    defer { SecureBytes.wipe(&plaintext) }
    return Data(plaintext)
  }

  package func sealWithApplicationPassword(_ secret: Data, password: [UInt8]) throws(SecStatus) -> Data {
    Data(try BackupEnvelope.seal(Array(secret), passphrase: password, kind: .itemSecret))
  }

  package func openWithApplicationPassword(_ sealed: Data, password: [UInt8]) throws(SecStatus) -> Data {
    var secret = try BackupEnvelope.open(Array(sealed), passphrase: password, kind: .itemSecret)
    defer { SecureBytes.wipe(&secret) }
    return Data(secret)
  }

  package func normalizedName(_ der: Data) -> (content: Data, sequence: Data)? {
    X509Names.normalized(Array(der)).map { (Data($0.content), Data($0.sequence)) }
  }

  package func certificateContents(_ bytes: Data) -> CertificateContents? {
    guard let fields = X509Certificate.fields(of: Array(bytes)) else { return nil }
    return CertificateContents(
      explicitVersionOne: X509Names.hasExplicitVersionOne(fields.der),
      normalizedIssuer: X509Names.normalized(fields.issuer).map { Data($0.content) },
      normalizedSubject: X509Names.normalized(fields.subject).map { Data($0.content) },
      der: Data(fields.der), version: fields.version, serialNumber: Data(fields.serialNumber),
      issuer: Data(fields.issuer), subject: Data(fields.subject), subjectAttributes: fields.subjectAttributes,
      subjectKeyIdentifier: fields.subjectKeyIdentifier.map { Data($0) }, alternativeEmails: fields.alternativeEmails,
      alternativeDNSNames: fields.alternativeDNSNames, publicKeyAlgorithm: fields.publicKeyAlgorithm,
      publicKeyParameters: fields.publicKeyParameters, publicKeyBits: Data(fields.publicKeyBits),
      notBefore: fields.notBefore.map { Date(timeIntervalSince1970: TimeInterval($0)) },
      notAfter: fields.notAfter.map { Date(timeIntervalSince1970: TimeInterval($0)) })
  }

  package func sha1(_ bytes: [UInt8]) throws(SecStatus) -> Data {
    do {
      return Data(try Insecure.SHA1.hash(data: bytes))
    } catch {
      throw SecStatus(errSecInternalComponent, detail: error.description)
    }
  }
}

extension SQLiteOpenSSLBackend {
  /// Validates once per purpose the policies ask (TLS server, TLS client, else none) and joins
  /// what each found; revocation is not checked, for want of a network (CertificateTrust).
  package func evaluateTrust(_ request: TrustRequest) -> TrustOutcome {
    var purposes: [X509Purpose] = []
    var requiresRevocationAnswer = false
    for check in request.checks {
      switch check {
      case .sslServer(let host): purposes.append(.tlsServer(host: host))
      case .sslClient: purposes.append(.tlsClient)
      case .revocation(let requirePositiveResponse):
        requiresRevocationAnswer = requiresRevocationAnswer || requirePositiveResponse
      }
    }
    if purposes.isEmpty { purposes = [.any] }
    var chain: [Data] = []
    var failures: [TrustFailure] = []
    for purpose in purposes {
      guard
        let result = X509ChainValidation.validate(
          leaf: Array(request.leaf), intermediates: request.intermediates.map { Array($0) },
          anchors: request.anchors.map { Array($0) }, systemAnchors: request.systemAnchors,
          time: Int64(request.date.timeIntervalSince1970.rounded(.down)), purpose: purpose)
      else { return TrustOutcome(chain: [], failures: [TrustFailure(kind: .invalid, depth: 0)]) }
      if chain.isEmpty { chain = result.chain.map { Data($0) } }
      for found in result.problems {
        let failure = TrustFailure(kind: Self.kind(found.problem), depth: found.depth, detail: found.reason)
        if !failures.contains(where: { $0.kind == failure.kind && $0.depth == failure.depth }) {
          failures.append(failure)
        }
      }
    }
    if requiresRevocationAnswer {
      failures.append(
        TrustFailure(kind: .revocationUnknown, depth: 0, detail: "no revocation answer without a network"))
    }
    return TrustOutcome(chain: chain, failures: failures)
  }

  private static func kind(_ problem: X509ChainProblem) -> TrustFailureKind {
    switch problem {
    case .expired: .expired
    case .notYetValid: .notYetValid
    case .untrustedRoot: .untrustedRoot
    case .missingIssuer: .missingIssuer
    case .revoked: .revoked
    case .notACertificateAuthority: .notACertificateAuthority
    case .wrongUsage: .wrongUsage
    case .hostNameMismatch: .hostNameMismatch
    case .validityPeriodTooLong: .validityPeriodTooLong
    case .badSignature: .badSignature
    case .invalid: .invalid
    case .weakDigest: .weakDigest
    case .weakKey: .weakKey
    }
  }
}

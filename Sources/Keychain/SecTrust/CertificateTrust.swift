import Foundation
import Security

// The typed side of SecTrust and SecPolicy: a chain to evaluate as a value, the policies as an
// enum, and the reason a chain is not trusted as an error with a case per reason. It calls the
// generated wrappers of SecTrust.h and SecPolicy.h (KeychainFunctions), as the builders call
// SecItem's.

/// What a certificate chain is evaluated for.
public enum TrustPolicy: Hashable, Sendable {
  /// A chain to a trusted root, each certificate in its validity period (X.509 basic).
  case basic
  /// A TLS server's certificate, for `hostName` when given (subjectAltName only, one-label
  /// wildcards, case and a trailing dot ignored), with the serverAuth usage.
  case tlsServer(hostName: String?)
  /// A TLS client's certificate, with the clientAuth usage.
  case tlsClient
  /// Revocation: nothing is fetched here, so requiring a positive answer always fails.
  case revocation(requirePositiveResponse: Bool)

  /// The runtime's policy.
  var secPolicy: SecPolicy? {
    switch self {
    case .basic: KeychainFunctions.policyCreateBasicX509()
    case .tlsServer(let hostName): KeychainFunctions.policyCreateSSL(true, hostName.map { $0 as CFString })
    case .tlsClient: KeychainFunctions.policyCreateSSL(false, nil)
    case .revocation(let required):
      KeychainFunctions.policyCreateRevocation(
        kSecRevocationUseAnyAvailableMethod | (required ? kSecRevocationRequirePositiveResponse : 0))
    }
  }
}

/// Why a certificate chain is not trusted: Apple's trust errors, one case each.
public enum TrustFailure: Error, Hashable, Sendable {
  /// A certificate of the chain is past its validity period.
  case expired
  /// A certificate of the chain is not valid yet.
  case notYetValid
  /// The chain reaches no trusted anchor (a self-signed certificate, an unknown root, a missing
  /// intermediate).
  case untrusted
  /// The server's certificate does not name the host.
  case hostNameMismatch
  /// The certificate may not be used for what the policy asks (its extended key usage).
  case notPermittedForUsage
  /// An issuer of the chain is not a certificate authority.
  case notACertificateAuthority
  /// A certificate of the chain is revoked.
  case revoked
  /// A revocation answer was required and none could be had.
  case revocationUnknown
  /// A TLS server certificate valid for longer than Apple allows.
  case validityPeriodTooLong
  /// A certificate signed with a digest Apple does not trust for the policy (MD5; SHA-1 for TLS).
  case weakSignatureAlgorithm
  /// A certificate whose RSA key is shorter than Apple allows (1024 bits; 2048 for TLS).
  case keyTooShort
  /// Another failure, with the status the runtime gave.
  case other(KeychainError)

  /// The failure a runtime status names.
  init(_ error: KeychainError) {
    switch error.status {
    case errSecCertificateExpired: self = .expired
    case errSecCertificateNotValidYet: self = .notYetValid
    case errSecNotTrusted, errSecCreateChainFailed: self = .untrusted
    case errSecInvalidDigestAlgorithm: self = .weakSignatureAlgorithm
    case errSecKeySizeNotAllowed: self = .keyTooShort
    case errSecHostNameMismatch: self = .hostNameMismatch
    case errSecInvalidExtendedKeyUsage: self = .notPermittedForUsage
    case errSecNoBasicConstraintsCA: self = .notACertificateAuthority
    case errSecCertificateRevoked: self = .revoked
    case errSecIncompleteCertRevocationCheck: self = .revocationUnknown
    case errSecCertificateValidityPeriodTooLong: self = .validityPeriodTooLong
    default: self = .other(error)
    }
  }

  /// The status Apple's SecTrustEvaluateWithError reports for this failure.
  public var status: OSStatus {
    switch self {
    case .expired: errSecCertificateExpired
    case .notYetValid: errSecCertificateNotValidYet
    case .untrusted: errSecNotTrusted
    case .hostNameMismatch: errSecHostNameMismatch
    case .notPermittedForUsage: errSecInvalidExtendedKeyUsage
    case .notACertificateAuthority: errSecNoBasicConstraintsCA
    case .revoked: errSecCertificateRevoked
    case .revocationUnknown: errSecIncompleteCertRevocationCheck
    case .validityPeriodTooLong: errSecCertificateValidityPeriodTooLong
    case .weakSignatureAlgorithm: errSecInvalidDigestAlgorithm
    case .keyTooShort: errSecKeySizeNotAllowed
    case .other(let error): error.status
    }
  }
}

/// A certificate chain to evaluate: the leaf first, then certificates that may complete its chain;
/// the policies; the anchors (the system's roots unless others are given); the date.
///
/// ```swift
/// let trust = CertificateTrust(serverChain, policies: [.tlsServer(hostName: "api.example.com")])
/// let chain = try trust.evaluate().get()      // or .failure(.hostNameMismatch), ...
/// ```
public struct CertificateTrust: Hashable, Sendable {
  /// The leaf, then certificates that may complete its chain.
  public var certificates: [SecurityCertificate]
  /// What the chain is evaluated for.
  public var policies: [TrustPolicy]
  /// The anchors to trust instead of the system's roots; nil for the system's.
  public var anchors: [SecurityCertificate]?
  /// With `anchors`, whether the system's roots are trusted too.
  public var includesSystemAnchors = false
  /// When the chain must be valid; nil for the moment of evaluation.
  public var date: Date?

  /// A chain of `certificates` (leaf first) to evaluate for `policies`.
  public init(_ certificates: [SecurityCertificate], policies: [TrustPolicy] = [.basic]) {
    self.certificates = certificates
    self.policies = policies
  }

  /// This trust, ending chains at `anchors` (any of them, self-signed or not), and at the
  /// system's roots too when `includingSystemAnchors`.
  public func anchored(to anchors: [SecurityCertificate], includingSystemAnchors: Bool = false) -> Self {
    var copy = self
    copy.anchors = anchors
    copy.includesSystemAnchors = includingSystemAnchors
    return copy
  }

  /// This trust, evaluated as of `date`.
  public func at(_ date: Date) -> Self {
    var copy = self
    copy.date = date
    return copy
  }

  /// Evaluates the chain: the chain built (leaf first, the anchor last), or why it is not trusted.
  public func evaluate() -> Result<[SecurityCertificate], TrustFailure> {
    let policies = policies.compactMap(\.secPolicy)
    let trust: SecTrust
    switch KeychainFunctions.trustCreateWithCertificates(
      certificates.map(\.secCertificate) as NSArray, policies as NSArray)
    {
    case .success(let made): trust = made
    case .failure(let error): return .failure(.other(error))
    }
    var steps: [Result<Void, KeychainError>] = []
    if let anchors {
      steps.append(KeychainFunctions.trustSetAnchorCertificates(trust, anchors.map(\.secCertificate) as NSArray))
      steps.append(KeychainFunctions.trustSetAnchorCertificatesOnly(trust, !includesSystemAnchors))
    }
    if let date { steps.append(KeychainFunctions.trustSetVerifyDate(trust, date as NSDate)) }
    for step in steps { if case .failure(let error) = step { return .failure(.other(error)) } }
    if case .failure(let error) = KeychainFunctions.trustEvaluateWithError(trust) {
      var failure = TrustFailure(error)
      // Apple reports a certificate before its validity period with the code of an expired one;
      // the dates tell the two apart.
      if failure == .expired, isBeforeValidity(trust) { failure = .notYetValid }
      return .failure(failure)
    }
    let chain = (KeychainFunctions.trustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
    return .success(chain.map(SecurityCertificate.init))
  }

  /// Whether a certificate of the evaluated chain starts its validity after the evaluation date.
  private func isBeforeValidity(_ trust: SecTrust) -> Bool {
    let moment = date ?? Date()
    let chain = (KeychainFunctions.trustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
    return chain.contains { certificate in
      (KeychainFunctions.certificateCopyNotValidBeforeDate(certificate) as Date?).map { $0 > moment } ?? false
    }
  }
}

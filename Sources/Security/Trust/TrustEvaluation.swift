import Foundation

/// What a chain is checked for, beside a path to a trusted root in its validity period: the
/// policies' own checks (SecPolicy), as the backend's path validation applies them.
package enum TrustCheck: Sendable, Hashable {
  /// A TLS server: the serverAuth extended key usage, and the host name (or IP address) when
  /// given, against the subjectAltName only (Apple's current TLS rules).
  case sslServer(hostName: String?)
  /// A TLS client: the clientAuth extended key usage.
  case sslClient
  /// Revocation: without a network no CRL or OCSP response is fetched, so only a policy that
  /// requires a positive answer changes the outcome (it fails).
  case revocation(requirePositiveResponse: Bool)
}

/// One chain validation the backend performs for SecTrust.
package struct TrustRequest: Sendable {
  /// The certificate to validate (DER).
  package var leaf: Data
  /// Certificates that may complete the chain, not trusted themselves.
  package var intermediates: [Data]
  /// Trusted roots given by the caller (SecTrustSetAnchorCertificates); any of them, even one that
  /// is not self-signed, ends a chain.
  package var anchors: [Data]
  /// Whether the system's roots are trusted too (OpenSSL's default paths).
  package var systemAnchors: Bool
  /// When the chain must be valid.
  package var date: Date
  package var checks: [TrustCheck]

  package init(
    leaf: Data, intermediates: [Data], anchors: [Data], systemAnchors: Bool, date: Date, checks: [TrustCheck]
  ) {
    self.leaf = leaf
    self.intermediates = intermediates
    self.anchors = anchors
    self.systemAnchors = systemAnchors
    self.date = date
    self.checks = checks
  }
}

/// Why a chain is not trusted, in the cases Apple's trust results tell apart.
package enum TrustFailureKind: Sendable, Hashable, Codable {
  case expired
  case notYetValid
  /// The chain ends at a certificate no anchor trusts (a self-signed leaf, an unknown root).
  case untrustedRoot
  /// No issuer was found for a certificate of the chain (an intermediate is missing).
  case missingIssuer
  case revoked
  /// A revocation answer was required and none could be had.
  case revocationUnknown
  /// An issuer that is not a certificate authority (basicConstraints CA:FALSE, or none).
  case notACertificateAuthority
  /// The extended key usage does not allow what the policy asks.
  case wrongUsage
  case hostNameMismatch
  /// A TLS server certificate valid for longer than Apple allows (825 days).
  case validityPeriodTooLong
  /// A certificate whose signature does not verify with its issuer's key.
  case badSignature
  /// A certificate that cannot be used at all (a malformed extension, say).
  case invalid
  /// A signature made with a digest Apple does not trust for the policy (MD5; SHA-1 for TLS).
  case weakDigest
  /// An RSA key shorter than Apple allows for the policy (1024 bits; 2048 for TLS).
  case weakKey

  /// Whether Apple counts the failure as fatal (kSecTrustResultFatalTrustFailure): no exception
  /// can accept it.
  package var isFatal: Bool { self == .revoked || self == .badSignature || self == .invalid }
}

/// A failure and the chain position (0: the leaf) it was found at.
package struct TrustFailure: Sendable, Hashable {
  package var kind: TrustFailureKind
  package var depth: Int
  /// OpenSSL's words for what failed, for the error's description when Apple has no sentence.
  package var detail: String?

  package init(kind: TrustFailureKind, depth: Int, detail: String? = nil) {
    self.kind = kind
    self.depth = depth
    self.detail = detail
  }
}

/// What a validation found.
package struct TrustOutcome: Sendable {
  /// The chain as far as it was built, leaf first, anchor last when one was reached.
  package var chain: [Data]
  /// Every failure, in the order found; empty when the chain is trusted.
  package var failures: [TrustFailure]

  package init(chain: [Data], failures: [TrustFailure]) {
    self.chain = chain
    self.failures = failures
  }
}

import Foundation

/// Apple's `SecPolicy`: what a certificate chain is evaluated for (CertificateTrust article).
///
/// Policies are immutable values. Two are equal when they ask the same checks.
public final class SecPolicy: Hashable, Sendable, CustomStringConvertible {
  /// The checks this policy asks.
  package enum Kind: Sendable, Hashable {
    /// X.509 basic: a chain to a trusted root, each certificate in its validity period.
    case basicX509
    /// TLS: a server's certificate (optionally for a host name) or a client's.
    case ssl(server: Bool, hostName: String?)
    /// Revocation, with Apple's kSecRevocation flags.
    case revocation(flags: CFOptionFlags)
  }

  package let kind: Kind

  package init(_ kind: Kind) { self.kind = kind }

  /// Policies are equal when they ask the same checks.
  public static func == (lhs: SecPolicy, rhs: SecPolicy) -> Bool { lhs.kind == rhs.kind }

  /// Hashes the checks.
  public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

  /// The policy's name and what it checks.
  public var description: String {
    switch kind {
    case .basicX509: "<SecPolicy X.509 Basic>"
    case .ssl(let server, let hostName):
      "<SecPolicy SSL \(server ? "server" : "client")\(hostName.map { " for \($0)" } ?? "")>"
    case .revocation(let flags): "<SecPolicy Revocation flags=\(flags)>"
    }
  }

  /// The identifier Apple gives the policy (kSecPolicyOid).
  var identifier: String {
    switch kind {
    case .basicX509: SecConstantValue.policyAppleX509Basic
    case .ssl: SecConstantValue.policyAppleSSL
    case .revocation: SecConstantValue.policyAppleRevocation
    }
  }

  /// The check the backend's path validation applies for this policy.
  var check: TrustCheck? {
    switch kind {
    case .basicX509: nil
    case .ssl(let server, let hostName): server ? .sslServer(hostName: hostName) : .sslClient
    case .revocation(let flags):
      .revocation(requirePositiveResponse: flags & kSecRevocationRequirePositiveResponse != 0)
    }
  }
}

/// Revocation methods and options of `SecPolicyCreateRevocation` (Apple's values). Revocation is
/// not checked here (no network is used): only kSecRevocationRequirePositiveResponse changes an
/// evaluation, which then fails with errSecIncompleteCertRevocationCheck.
public let kSecRevocationOCSPMethod: CFOptionFlags = 1 << 0
/// Check revocation with CRLs.
public let kSecRevocationCRLMethod: CFOptionFlags = 1 << 1
/// Prefer CRLs to OCSP.
public let kSecRevocationPreferCRL: CFOptionFlags = 1 << 2
/// Fail unless a positive revocation answer was had for every certificate.
public let kSecRevocationRequirePositiveResponse: CFOptionFlags = 1 << 3
/// Never use the network for revocation (always the case here).
public let kSecRevocationNetworkAccessDisabled: CFOptionFlags = 1 << 4
/// OCSP or CRLs, whichever is available.
public let kSecRevocationUseAnyAvailableMethod: CFOptionFlags = kSecRevocationOCSPMethod | kSecRevocationCRLMethod

/// The X.509 basic policy: a chain to a trusted root, each certificate in its validity period.
@discardableResult
public func SecPolicyCreateBasicX509() -> SecPolicy { SecPolicy(.basicX509) }

/// The TLS policy: for a server's certificate (`server` true) the serverAuth extended key usage
/// and, when `hostname` is given, that name (or IP address) among the subjectAltNames (never the
/// common name; a wildcard covers one whole label; case and a trailing dot do not matter); for a
/// client's certificate, the clientAuth usage.
@discardableResult
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy {
  SecPolicy(.ssl(server: server, hostName: hostname.map { $0 as String }))
}

/// A revocation policy with Apple's kSecRevocation flags (see kSecRevocationOCSPMethod for what
/// is checked without a network).
@discardableResult
public func SecPolicyCreateRevocation(_ revocationFlags: CFOptionFlags) -> SecPolicy? {
  SecPolicy(.revocation(flags: revocationFlags))
}

/// A policy from its identifier (kSecPolicyAppleX509Basic, kSecPolicyAppleSSL,
/// kSecPolicyAppleRevocation) and properties (kSecPolicyName, kSecPolicyClient,
/// kSecPolicyRevocationFlags); nil for another identifier (S/MIME and code signing are Apple's
/// own policies) or a property of the wrong type.
@discardableResult
public func SecPolicyCreateWithProperties(_ policyIdentifier: CFTypeRef, _ properties: CFDictionary?) -> SecPolicy? {
  guard let identifier = policyIdentifier as? String else { return nil }
  var settings: [String: Any] = [:]
  for (key, value) in properties ?? [:] { if let key = key as? String { settings[key] = value } }
  switch identifier {
  case SecConstantValue.policyAppleX509Basic:
    return SecPolicy(.basicX509)
  case SecConstantValue.policyAppleSSL:
    var hostName: String?
    if let name = settings[SecConstantValue.policyName] {
      guard let text = name as? String else { return nil }
      hostName = text
    }
    var client = false
    if let given = settings[SecConstantValue.policyClient] {
      guard let flag = ValueConversion.boolean(given) else { return nil }
      client = flag
    }
    return SecPolicy(.ssl(server: !client, hostName: hostName))
  case SecConstantValue.policyAppleRevocation:
    var flags = kSecRevocationUseAnyAvailableMethod
    if let given = settings[SecConstantValue.policyRevocationFlags] {
      guard let number = given as? NSNumber else { return nil }
      flags = number.uintValue
    }
    return SecPolicy(.revocation(flags: flags))
  default:
    return nil
  }
}

/// A policy's identifier (kSecPolicyOid) and, for TLS, its host name (kSecPolicyName) and
/// whether it is a client's (kSecPolicyClient); a revocation policy's flags.
@discardableResult
public func SecPolicyCopyProperties(_ policyRef: SecPolicy) -> CFDictionary? {
  var properties: [String: Any] = [SecConstantValue.policyOid: policyRef.identifier as NSString]
  switch policyRef.kind {
  case .basicX509: break
  case .ssl(let server, let hostName):
    if let hostName { properties[SecConstantValue.policyName] = hostName as NSString }
    if !server { properties[SecConstantValue.policyClient] = NSNumber(value: true) }
  case .revocation(let flags):
    properties[SecConstantValue.policyRevocationFlags] = NSNumber(value: flags)
  }
  return properties as NSDictionary
}

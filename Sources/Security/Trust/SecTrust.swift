import Foundation
import Synchronization

/// Apple's `SecTrustResultType`: the outcome of an evaluation.
public enum SecTrustResultType: UInt32, Sendable {
  /// Not evaluated yet, or the evaluation could not run.
  case invalid = 0
  /// Trusted, with an exception the user accepted (SecTrustSetExceptions).
  case proceed = 1
  /// No longer returned.
  @available(*, deprecated, message: "no longer returned")
  case confirm = 2
  /// Explicitly distrusted (never returned here: there are no per-certificate trust settings).
  case deny = 3
  /// Trusted: the chain reaches an anchor and every check passed.
  case unspecified = 4
  /// Not trusted, for a reason a user could accept (expired, untrusted root, wrong host).
  case recoverableTrustFailure = 5
  /// Not trusted, for a reason no one can accept (revoked, a signature that does not verify).
  case fatalTrustFailure = 6
  /// The evaluation failed for another reason.
  case otherError = 7
}

/// Apple's callback for `SecTrustEvaluateAsyncWithError`: the trust, whether it is trusted, and
/// the error when it is not.
public typealias SecTrustWithErrorCallback = (SecTrust, Bool, CFError?) -> Void

/// Apple's `SecTrust`: certificates to evaluate, the policies to evaluate them for, and the
/// result of the last evaluation (CertificateTrust article).
///
/// Its settings and result are guarded by a lock, so one trust may be used from several threads;
/// changing a setting discards the last result, as on Apple.
public final class SecTrust: Sendable, CustomStringConvertible {
  /// What an evaluation uses, and what it found.
  struct State {
    var certificates: [SecCertificate]
    var policies: [SecPolicy]
    var anchors: [SecCertificate]?
    var anchorsOnly = true
    var verifyDate: Date?
    var networkFetchAllowed = false
    var exceptions: TrustExceptions?
    var result: TrustResult?
    /// Counts the changes, so that an evaluation that ran while a setting changed does not store
    /// its now stale result.
    var generation = 0
  }

  let state: Mutex<State>

  init(certificates: [SecCertificate], policies: [SecPolicy]) {
    state = Mutex(State(certificates: certificates, policies: policies))
  }

  /// The leaf's summary and the last result.
  public var description: String {
    state.withLock { state in
      "<SecTrust \(state.certificates.first?.contents.subjectSummary ?? "") \(state.result.map { "\($0.type)" } ?? "not evaluated")>"
    }
  }

  /// Changes a setting and discards the last result.
  func change(_ body: (inout State) -> Void) {
    state.withLock { state in
      body(&state)
      state.result = nil
      state.generation += 1
    }
  }
}

/// Makes a trust of `certificates` (one SecCertificate, or an array with the leaf first and
/// certificates that may complete its chain after it) for `policies` (one SecPolicy, an array of
/// them, or nil for the X.509 basic policy).
///
/// - Returns: errSecSuccess, or errSecParam for an empty array or a value of another type.
@discardableResult
public func SecTrustCreateWithCertificates(
  _ certificates: CFTypeRef, _ policies: CFTypeRef?, _ trust: UnsafeMutablePointer<SecTrust?>
) -> OSStatus {
  guard let certificateList = TrustArguments.certificates(certificates), !certificateList.isEmpty,
    let policyList = TrustArguments.policies(policies)
  else {
    trust.pointee = nil
    return errSecParam
  }
  trust.pointee = SecTrust(certificates: certificateList, policies: policyList)
  return errSecSuccess
}

/// Replaces the policies (one SecPolicy or an array of them).
@discardableResult
public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus {
  // An empty array names no policy to evaluate for: Apple answers errSecParam.
  if let array = policies as? NSArray, array.count == 0 { return errSecParam }
  guard let policyList = TrustArguments.policies(policies) else { return errSecParam }
  trust.change { $0.policies = policyList }
  return errSecSuccess
}

/// The policies the trust evaluates for.
@discardableResult
public func SecTrustCopyPolicies(_ trust: SecTrust, _ policies: UnsafeMutablePointer<CFArray?>) -> OSStatus {
  policies.pointee = trust.state.withLock { $0.policies } as NSArray
  return errSecSuccess
}

/// The anchors to trust instead of the system's roots (nil: the system's again). Any anchor ends a
/// chain, self-signed or not. After this call only these anchors are trusted, unless
/// SecTrustSetAnchorCertificatesOnly(false) adds the system's back.
@discardableResult
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
  guard let anchorCertificates else {
    trust.change {
      $0.anchors = nil
      $0.anchorsOnly = true
    }
    return errSecSuccess
  }
  guard let anchors = TrustArguments.certificates(anchorCertificates) else { return errSecParam }
  trust.change {
    $0.anchors = anchors
    $0.anchorsOnly = true
  }
  return errSecSuccess
}

/// The anchors SecTrustSetAnchorCertificates gave, or nil when the system's roots are used.
@discardableResult
public func SecTrustCopyCustomAnchorCertificates(_ trust: SecTrust, _ anchors: UnsafeMutablePointer<CFArray?>)
  -> OSStatus
{
  anchors.pointee = trust.state.withLock { $0.anchors }.map { $0 as NSArray }
  return errSecSuccess
}

/// Whether only the anchors given are trusted (true, the default once some are given) or the
/// system's roots too (false).
@discardableResult
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
  trust.change { $0.anchorsOnly = anchorCertificatesOnly }
  return errSecSuccess
}

/// The moment the chain must be valid at (default: the time of each evaluation).
@discardableResult
public func SecTrustSetVerifyDate(_ trust: SecTrust, _ verifyDate: CFDate) -> OSStatus {
  trust.change { $0.verifyDate = verifyDate as Date }
  return errSecSuccess
}

/// The moment the last evaluation used, else the one set, else now.
@discardableResult
public func SecTrustGetVerifyTime(_ trust: SecTrust) -> CFAbsoluteTime {
  let date = trust.state.withLock { $0.result?.date ?? $0.verifyDate } ?? Date()
  return date.timeIntervalSinceReferenceDate
}

/// Recorded and reported back; no certificate, CRL or OCSP answer is ever fetched from the
/// network here, whatever it says (CertificateTrust article).
@discardableResult
public func SecTrustSetNetworkFetchAllowed(_ trust: SecTrust, _ allowFetch: Bool) -> OSStatus {
  trust.change { $0.networkFetchAllowed = allowFetch }
  return errSecSuccess
}

/// What SecTrustSetNetworkFetchAllowed set (false by default).
@discardableResult
public func SecTrustGetNetworkFetchAllowed(_ trust: SecTrust, _ allowFetch: UnsafeMutablePointer<Bool>) -> OSStatus {
  allowFetch.pointee = trust.state.withLock { $0.networkFetchAllowed }
  return errSecSuccess
}

/// The arguments SecTrust takes as `CFTypeRef`: one object or an array of them.
enum TrustArguments {
  /// One `T`, or an array of nothing but `T`s; nil for anything else.
  private static func objects<T>(_ value: CFTypeRef, of type: T.Type) -> [T]? {
    if let object = value as? T { return [object] }
    guard let array = value as? [Any] else { return nil }
    var objects: [T] = []
    for element in array {
      guard let object = element as? T else { return nil }
      objects.append(object)
    }
    return objects
  }

  static func certificates(_ value: CFTypeRef) -> [SecCertificate]? { objects(value, of: SecCertificate.self) }

  static func policies(_ value: CFTypeRef?) -> [SecPolicy]? {
    guard let value else { return [SecPolicyCreateBasicX509()] }
    guard let policies = objects(value, of: SecPolicy.self) else { return nil }
    return policies.isEmpty ? [SecPolicyCreateBasicX509()] : policies
  }
}

import Dispatch
import Foundation

/// What one evaluation found.
struct TrustResult {
  var type: SecTrustResultType
  /// The chain built, leaf first.
  var chain: [SecCertificate]
  var failures: [TrustFailure]
  var date: Date

  var isTrusted: Bool { type == .unspecified || type == .proceed }
}

/// The failures a user accepted for one leaf (SecTrustSetExceptions): the leaf's SHA-256 and the
/// kinds of failure, as SecTrustCopyExceptions encodes them (JSON).
struct TrustExceptions: Codable, Equatable {
  var leaf: Data
  var accepted: Set<TrustFailureKind>
}

extension SecTrust {
  /// Evaluates unless the last result still stands.
  func evaluateIfNeeded() -> TrustResult {
    let snapshot = state.withLock { state in (state.result, state) }
    if let result = snapshot.0 { return result }
    let settings = snapshot.1
    let result = Self.evaluate(
      settings.certificates, policies: settings.policies, anchors: settings.anchors,
      anchorsOnly: settings.anchorsOnly, date: settings.verifyDate ?? Date(), exceptions: settings.exceptions)
    state.withLock { state in
      // A setting changed while this ran: its result answers this call only.
      if state.generation == settings.generation { state.result = result }
    }
    return result
  }

  private static func evaluate(
    _ certificates: [SecCertificate], policies: [SecPolicy], anchors: [SecCertificate]?, anchorsOnly: Bool,
    date: Date, exceptions: TrustExceptions?
  ) -> TrustResult {
    guard let leaf = certificates.first else {
      return TrustResult(
        type: .otherError, chain: [], failures: [TrustFailure(kind: .invalid, depth: 0, detail: "no certificate")],
        date: date)
    }
    let request = TrustRequest(
      leaf: leaf.derBytes, intermediates: certificates.dropFirst().map(\.derBytes),
      anchors: (anchors ?? []).map(\.derBytes), systemAnchors: anchors == nil || !anchorsOnly, date: date,
      checks: policies.compactMap(\.check))
    // The leaf's parser validates the chain: a trust reads no backend of its own.
    let backend = leaf.backend
    let outcome = backend.evaluateTrust(request)
    let chain = outcome.chain.compactMap { der in
      certificates.first { $0.derBytes == der } ?? anchors?.first { $0.derBytes == der }
        ?? SecCertificate.parse(der, with: backend)
    }
    let type: SecTrustResultType
    if outcome.failures.isEmpty {
      type = .unspecified
    } else if outcome.failures.contains(where: \.kind.isFatal) {
      type = .fatalTrustFailure
    } else if let exceptions, exceptions.leaf == Self.digest(leaf),
      outcome.failures.allSatisfy({ exceptions.accepted.contains($0.kind) })
    {
      type = .proceed
    } else {
      type = .recoverableTrustFailure
    }
    return TrustResult(type: type, chain: chain.isEmpty ? [leaf] : chain, failures: outcome.failures, date: date)
  }

  /// The SHA-256 an exception names a leaf by (SHA-1, which Apple uses, is not a security boundary
  /// here either, but there is no reason to choose it).
  static func digest(_ certificate: SecCertificate) -> Data {
    (try? certificate.backend.keyEngine.digest(.sha256, certificate.derBytes)) ?? Data()
  }

  /// The error Apple reports for a failed evaluation: its status and sentence name the first
  /// failure by Apple's order of importance.
  func error(for result: TrustResult) -> NSError {
    let order: [TrustFailureKind] = [
      .revoked, .badSignature, .invalid, .weakDigest, .weakKey, .notACertificateAuthority, .untrustedRoot,
      .missingIssuer, .expired, .notYetValid, .hostNameMismatch, .wrongUsage, .validityPeriodTooLong,
      .revocationUnknown,
    ]
    let failure =
      order.lazy.compactMap { kind in result.failures.first { $0.kind == kind } }.first ?? result.failures.first
      ?? TrustFailure(kind: .invalid, depth: 0)
    let certificates = result.chain
    let named = failure.depth < certificates.count ? certificates[failure.depth] : certificates.first
    let name = "“\(named?.contents.subjectSummary ?? "")”"
    let (status, sentence): (OSStatus, String) =
      switch failure.kind {
      case .expired: (errSecCertificateExpired, "\(name) certificate is expired")
      // Apple's trustd reports both ends of the validity period with one code.
      case .notYetValid: (errSecCertificateExpired, "\(name) certificate is not yet valid")
      case .untrustedRoot: (errSecNotTrusted, "\(name) certificate is not trusted")
      case .missingIssuer:
        (errSecCreateChainFailed, "\(name) certificate is not trusted: its issuer was not found")
      case .weakDigest:
        (errSecInvalidDigestAlgorithm, "\(name) certificate uses a signature algorithm that is not trusted")
      case .weakKey: (errSecKeySizeNotAllowed, "\(name) certificate uses a key that is too short")
      case .revoked: (errSecCertificateRevoked, "\(name) certificate is revoked")
      case .revocationUnknown:
        (errSecIncompleteCertRevocationCheck, "\(name) certificate's revocation could not be checked")
      case .notACertificateAuthority:
        (errSecNoBasicConstraintsCA, "\(name) certificate is not a certificate authority, so it cannot issue another")
      case .wrongUsage: (errSecInvalidExtendedKeyUsage, "\(name) certificate is not permitted for this usage")
      case .hostNameMismatch: (errSecHostNameMismatch, "\(name) certificate name does not match input")
      case .validityPeriodTooLong:
        (errSecCertificateValidityPeriodTooLong, "\(name) certificate is valid for longer than a TLS server may be")
      case .badSignature: (errSecInvalidSignature, "\(name) certificate has a signature that does not verify")
      case .invalid:
        (errSecInvalidCertificateRef, "\(name) certificate is invalid\(failure.detail.map { ": \($0)" } ?? "")")
      }
    return NSError(
      domain: NSOSStatusErrorDomain, code: Int(status),
      userInfo: [NSLocalizedDescriptionKey: sentence, "NSDescription": sentence])
  }
}

/// Evaluates the trust (or reuses its last result) and says whether the chain is trusted; when it
/// is not, `error` receives Apple's error: errSecCertificateExpired (a certificate past or before
/// its validity period), errSecNotTrusted (an untrusted root, a self-signed certificate),
/// errSecCreateChainFailed (a missing intermediate), errSecHostNameMismatch,
/// errSecInvalidExtendedKeyUsage, errSecNoBasicConstraintsCA, errSecInvalidDigestAlgorithm (MD5;
/// SHA-1 for TLS), errSecKeySizeNotAllowed (RSA under 1024 bits; 2048 for TLS),
/// errSecCertificateRevoked or errSecIncompleteCertRevocationCheck, with Apple's sentence ("“leaf”
/// certificate is not trusted").
@discardableResult
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
  let result = trust.evaluateIfNeeded()
  if result.isTrusted {
    error?.pointee = nil
    return true
  }
  error?.pointee = trust.error(for: result)
  return false
}

/// Evaluates on another thread and calls `result` on `queue` with the trust, whether it is
/// trusted, and the error when it is not (as SecTrustEvaluateWithError).
@discardableResult
public func SecTrustEvaluateAsyncWithError(
  _ trust: SecTrust, _ queue: DispatchQueue, _ result: @escaping SecTrustWithErrorCallback
) -> OSStatus {
  // Apple's callback is not @Sendable; it is called once, on the queue given, as Apple calls it.
  nonisolated(unsafe) let callback = result
  DispatchQueue.global().async {
    var error: CFError?
    let trusted = SecTrustEvaluateWithError(trust, &error)
    let reported = error
    queue.async { callback(trust, trusted, reported) }
  }
  return errSecSuccess
}

/// The deprecated evaluation: the result type in `result`, errSecSuccess whatever it is.
@available(*, deprecated, message: "use SecTrustEvaluateWithError")
@discardableResult
public func SecTrustEvaluate(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
  result.pointee = trust.evaluateIfNeeded().type
  return errSecSuccess
}

/// The result of the last evaluation; evaluates first when there is none, as Apple's does.
@discardableResult
public func SecTrustGetTrustResult(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
  result.pointee = trust.evaluateIfNeeded().type
  return errSecSuccess
}

/// The last result as a dictionary: kSecTrustResultValue, kSecTrustEvaluationDate and
/// kSecTrustRevocationChecked (always false: revocation is not checked without a network).
@discardableResult
public func SecTrustCopyResult(_ trust: SecTrust) -> CFDictionary? {
  let result = trust.evaluateIfNeeded()
  return [
    SecConstantValue.trustResultValue: NSNumber(value: result.type.rawValue),
    SecConstantValue.trustEvaluationDate: result.date as NSDate,
    SecConstantValue.trustRevocationChecked: NSNumber(value: false),
  ] as NSDictionary
}

/// The leaf's public key.
@discardableResult
public func SecTrustCopyKey(_ trust: SecTrust) -> SecKey? {
  trust.state.withLock { $0.certificates.first }.flatMap(SecCertificateCopyKey)
}

/// The leaf's public key (the deprecated name of SecTrustCopyKey).
@available(*, deprecated, renamed: "SecTrustCopyKey")
@discardableResult
public func SecTrustCopyPublicKey(_ trust: SecTrust) -> SecKey? { SecTrustCopyKey(trust) }

/// How many certificates the chain has (evaluating first when needed): the leaf, its issuers,
/// and the anchor when one was reached.
@discardableResult
public func SecTrustGetCertificateCount(_ trust: SecTrust) -> CFIndex { trust.evaluateIfNeeded().chain.count }

/// The certificate at `ix` of the chain (0: the leaf), or nil past its end.
@available(*, deprecated, message: "use SecTrustCopyCertificateChain")
@discardableResult
public func SecTrustGetCertificateAtIndex(_ trust: SecTrust, _ ix: CFIndex) -> SecCertificate? {
  let chain = trust.evaluateIfNeeded().chain
  return chain.indices.contains(ix) ? chain[ix] : nil
}

/// The chain, leaf first (evaluating first when needed).
@discardableResult
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
  trust.evaluateIfNeeded().chain as NSArray
}

/// The failures of the last evaluation, as data SecTrustSetExceptions accepts for this leaf (nil
/// when the chain is trusted or a failure is fatal).
@discardableResult
public func SecTrustCopyExceptions(_ trust: SecTrust) -> CFData? {
  let result = trust.evaluateIfNeeded()
  guard !result.failures.isEmpty, !result.failures.contains(where: \.kind.isFatal),
    let leaf = trust.state.withLock({ $0.certificates.first })
  else { return nil }
  let exceptions = TrustExceptions(leaf: SecTrust.digest(leaf), accepted: Set(result.failures.map(\.kind)))
  return (try? JSONEncoder().encode(exceptions)).map { $0 as NSData }
}

/// Accepts the failures `exceptions` (from SecTrustCopyExceptions) names, for this trust's leaf
/// only: a later evaluation that fails only in those ways answers kSecTrustResultProceed. Nil
/// clears them. Returns false, and sets nothing, when the data is not for this leaf.
@discardableResult
public func SecTrustSetExceptions(_ trust: SecTrust, _ exceptions: CFData?) -> Bool {
  guard let exceptions else {
    trust.change { $0.exceptions = nil }
    return true
  }
  guard exceptions.length <= 4096,
    let decoded = try? JSONDecoder().decode(TrustExceptions.self, from: exceptions as Data),
    let leaf = trust.state.withLock({ $0.certificates.first }),
    decoded.leaf == SecTrust.digest(leaf)
  else { return false }
  trust.change { $0.exceptions = decoded }
  return true
}

import Dispatch
import Foundation
import Security
import TestTools
import Testing

/// SecTrust and SecPolicy over OpenSSL's path validation (issue 53), on a PKI the openssl command
/// line made: each evaluation's result, error code and sentence as Apple documents them, and
/// `openssl verify` agreeing on every chain (where Apple's TLS rules are stricter, the test says so).
@Suite(.enabled(if: InstalledTool.runs(needing: "/usr/bin/openssl"), "the openssl CLI is needed"))
struct TrustTests {
  let pki: TrustTestPKI

  init() throws { pki = try TrustTestPKI() }

  /// An evaluation's outcome: trusted, the error's status and sentence, the result type.
  struct Outcome {
    var trusted: Bool
    var status: OSStatus?
    var sentence: String?
    var result: SecTrustResultType
  }

  /// Evaluates `leaf` with `intermediates`, anchored to `anchors` (nil: the system's roots only).
  func evaluate(
    _ leaf: String, _ intermediates: [String] = ["intermediate"], anchors: [String]? = ["root"],
    policies: [SecPolicy] = [SecPolicyCreateBasicX509()], date: Date? = nil
  ) throws -> (Outcome, SecTrust) {
    var trust: SecTrust?
    let certificates = try ([leaf] + intermediates).map(pki.certificate)
    #expect(SecTrustCreateWithCertificates(certificates as NSArray, policies as NSArray, &trust) == errSecSuccess)
    let made = try #require(trust)
    if let anchors {
      #expect(SecTrustSetAnchorCertificates(made, try anchors.map(pki.certificate) as NSArray) == errSecSuccess)
    }
    if let date { #expect(SecTrustSetVerifyDate(made, date as NSDate) == errSecSuccess) }
    var error: CFError?
    let trusted = SecTrustEvaluateWithError(made, &error)
    var result = SecTrustResultType.invalid
    #expect(SecTrustGetTrustResult(made, &result) == errSecSuccess)
    return (
      Outcome(
        trusted: trusted, status: error.map { OSStatus(truncatingIfNeeded: $0.code) },
        sentence: error?.localizedDescription, result: result), made
    )
  }

  static func ssl(_ host: String?) -> [SecPolicy] { [SecPolicyCreateSSL(true, host.map { $0 as CFString })] }

  @Test("A chain to the anchor is trusted: Unspecified, the chain leaf first and the anchor last")
  func aGoodChainIsTrusted() throws {
    let (outcome, trust) = try evaluate("leaf-rsa", policies: Self.ssl("leaf.example"))
    #expect(outcome.trusted && outcome.status == nil && outcome.result == .unspecified)
    let chain = try #require(SecTrustCopyCertificateChain(trust) as? [SecCertificate])
    #expect(
      chain == [try pki.certificate("leaf-rsa"), try pki.certificate("intermediate"), try pki.certificate("root")])
    #expect(SecTrustGetCertificateCount(trust) == 3)
    #expect(SecTrustCopyKey(trust) == SecCertificateCopyKey(try pki.certificate("leaf-rsa")))
    let result = try #require(SecTrustCopyResult(trust) as? [String: Any])
    #expect(
      (result[kSecTrustResultValue as String] as? NSNumber)?.uint32Value == SecTrustResultType.unspecified.rawValue)
    #expect(result[kSecTrustEvaluationDate as String] is Date)
    #expect((result[kSecTrustRevocationChecked as String] as? Bool) == false)
    // An EC leaf, and the same chain for the basic policy.
    #expect(try evaluate("leaf-ec", policies: Self.ssl("ec.example")).0.trusted)
    #expect(try evaluate("leaf-rsa").0.trusted)
  }

  @Test("Apple's TLS host names: subjectAltName only, case and a trailing dot ignored, one-label wildcards, IPs")
  func hostNames() throws {
    for host in ["leaf.example", "LEAF.Example", "leaf.example.", "192.0.2.7"] {
      #expect(try evaluate("leaf-rsa", policies: Self.ssl(host)).0.trusted, "\(host)")
    }
    let wrong = try evaluate("leaf-rsa", policies: Self.ssl("other.example")).0
    #expect(!wrong.trusted && wrong.status == errSecHostNameMismatch && wrong.result == .recoverableTrustFailure)
    #expect(wrong.sentence == "“leaf.example” certificate name does not match input")
    #expect(try evaluate("leaf-wildcard", policies: Self.ssl("a.wild.example")).0.trusted)
    for host in ["a.b.wild.example", "wild.example"] {
      #expect(try evaluate("leaf-wildcard", policies: Self.ssl(host)).0.status == errSecHostNameMismatch, "\(host)")
    }
    // The common name is never a host name (Apple's rule); OpenSSL would fall back to it.
    #expect(try evaluate("leaf-common-name-only", policies: Self.ssl("cn.example")).0.status == errSecHostNameMismatch)
    #expect(
      try pki.opensslVerifies("leaf-common-name-only", untrusted: ["intermediate"], anchor: "root", host: "cn.example"))
  }

  @Test("Apple's algorithm rules: MD5 nowhere; SHA-1 and RSA under 2048 bits not for TLS (issue 63)")
  func weakAlgorithms() throws {
    for (leaf, intermediates, anchor) in [
      ("leaf-md5", ["intermediate"], "root"), ("leaf-under-md5", ["intermediate-md5"], "root-rsa"),
    ] {
      for policies in [[SecPolicyCreateBasicX509()], Self.ssl(nil)] {
        let outcome = try evaluate(leaf, intermediates, anchors: [anchor], policies: policies).0
        #expect(!outcome.trusted && outcome.status == errSecInvalidDigestAlgorithm, "\(leaf) \(policies)")
        #expect(outcome.result == .recoverableTrustFailure)
      }
    }
    for (leaf, intermediates, anchor, host) in [
      ("leaf-sha1", ["intermediate"], "root", "sha1.example"),
      ("leaf-under-sha1", ["intermediate-sha1"], "root-rsa", "under-sha1.example"),
    ] {
      let tls = try evaluate(leaf, intermediates, anchors: [anchor], policies: Self.ssl(host)).0
      #expect(!tls.trusted && tls.status == errSecInvalidDigestAlgorithm, "\(leaf)")
      #expect(try evaluate(leaf, intermediates, anchors: [anchor]).0.trusted, "\(leaf) for the basic policy")
    }
    let short = try evaluate("leaf-rsa1024", policies: Self.ssl("short.example")).0
    #expect(!short.trusted && short.status == errSecKeySizeNotAllowed)
    #expect(short.sentence == "“short.example” certificate uses a key that is too short")
    #expect(try evaluate("leaf-rsa1024").0.trusted)
    // openssl verify, at its default level, trusts them all: these are Apple's rules, not OpenSSL's.
    #expect(try pki.opensslVerifies("leaf-md5", untrusted: ["intermediate"], anchor: "root"))
    #expect(try pki.opensslVerifies("leaf-sha1", untrusted: ["intermediate"], anchor: "root", purpose: "sslserver"))
  }

  @Test("A host name OpenSSL would read as a pattern matches nothing: a leading dot, a wildcard, empty (issue 63)")
  func hostPatternsMatchNothing() throws {
    for host in [".example", ".leaf.example", "*.wild.example", "*.example", "", ".", "leaf..example"] {
      let outcome = try evaluate(
        host.contains("wild") ? "leaf-wildcard" : "leaf-rsa", policies: Self.ssl(host)
      ).0
      #expect(!outcome.trusted && outcome.status == errSecHostNameMismatch, "host “\(host)”")
    }
    // OpenSSL's own rules take a leading dot for any name under it.
    #expect(try pki.opensslVerifies("leaf-rsa", untrusted: ["intermediate"], anchor: "root", host: ".example"))
  }

  @Test("Dates: expired and not yet valid, with Apple's codes; the verify date is honoured")
  func dates() throws {
    let expired = try evaluate("leaf-rsa", date: Date().addingTimeInterval(60 * 86_400)).0
    #expect(
      !expired.trusted && expired.status == errSecCertificateExpired && expired.result == .recoverableTrustFailure)
    #expect(expired.sentence == "“leaf.example” certificate is expired")
    // Apple's trustd reports a certificate before its validity period with the expired code
    // (issue 63's held-out probe), and says which in its sentence.
    let early = try evaluate("leaf-rsa", date: Date().addingTimeInterval(-2 * 86_400)).0
    #expect(early.status == errSecCertificateExpired)
    #expect(early.sentence?.hasSuffix("” certificate is not yet valid") == true, "\(early)")
    #expect(try evaluate("leaf-rsa", date: Date().addingTimeInterval(20 * 86_400)).0.trusted)
  }

  @Test("Untrusted: self-signed, a missing intermediate, another root, no anchor but the system's")
  func untrustedChains() throws {
    let selfSigned = try evaluate("self-signed", [], policies: Self.ssl("self.example")).0
    #expect(selfSigned.status == errSecNotTrusted && selfSigned.result == .recoverableTrustFailure)
    #expect(selfSigned.sentence == "“self.example” certificate is not trusted")
    // Anchored to itself, a self-signed certificate is trusted, as on Apple.
    #expect(try evaluate("self-signed", [], anchors: ["self-signed"], policies: Self.ssl("self.example")).0.trusted)
    // A missing intermediate is errSecCreateChainFailed, as Apple's trustd reports it.
    #expect(try evaluate("leaf-rsa", []).0.status == errSecCreateChainFailed)
    #expect(try evaluate("leaf-rsa", [], policies: Self.ssl("leaf.example")).0.status == errSecCreateChainFailed)
    // The intermediate's issuer is not found: an incomplete chain, as a missing intermediate is.
    #expect(try evaluate("leaf-rsa", anchors: ["other-root"]).0.status == errSecCreateChainFailed)
    #expect(try evaluate("leaf-rsa", anchors: nil).0.status == errSecCreateChainFailed)
    // An intermediate given as the anchor ends the chain there (Apple's anchors need not be roots).
    #expect(try evaluate("leaf-rsa", [], anchors: ["intermediate"]).0.trusted)
  }

  @Test("An issuer marked CA:FALSE breaks the chain; the wrong usage is refused")
  func constraintsAndUsages() throws {
    let underNotACA = try evaluate("leaf-under-not-a-ca", ["not-a-ca", "intermediate"]).0
    #expect(underNotACA.status == errSecNoBasicConstraintsCA, "\(underNotACA)")
    let client = try evaluate("leaf-client", policies: Self.ssl(nil)).0
    #expect(client.status == errSecInvalidExtendedKeyUsage && client.result == .recoverableTrustFailure)
    #expect(try evaluate("leaf-client", policies: [SecPolicyCreateSSL(false, nil)]).0.trusted)
    #expect(
      try evaluate("leaf-rsa", policies: [SecPolicyCreateSSL(false, nil)]).0.status == errSecInvalidExtendedKeyUsage)
    // Apple requires serverAuth in a TLS server certificate issued since July 2019; OpenSSL accepts
    // one with no extended key usage at all.
    #expect(
      try evaluate("leaf-no-usage", policies: Self.ssl("plain.example")).0.status == errSecInvalidExtendedKeyUsage)
    #expect(try evaluate("leaf-no-usage").0.trusted)
    #expect(
      try pki.opensslVerifies(
        "leaf-no-usage", untrusted: ["intermediate"], anchor: "root", purpose: "sslserver", host: "plain.example"))
  }

  @Test("A certificate whose signature was altered is a fatal failure no exception accepts")
  func aBrokenSignatureIsFatal() throws {
    var der = Data(SecCertificateCopyData(try pki.certificate("leaf-rsa")) as Data)
    der[der.count - 10] ^= 0x01
    let broken = try #require(SecCertificateCreateWithData(nil, der as CFData))
    var trust: SecTrust?
    #expect(
      SecTrustCreateWithCertificates(
        [broken, try pki.certificate("intermediate")] as NSArray, SecPolicyCreateBasicX509(), &trust) == errSecSuccess)
    let made = try #require(trust)
    #expect(SecTrustSetAnchorCertificates(made, [try pki.certificate("root")] as NSArray) == errSecSuccess)
    var error: CFError?
    #expect(!SecTrustEvaluateWithError(made, &error))
    #expect(error?.code == Int(errSecInvalidSignature))
    var result = SecTrustResultType.invalid
    SecTrustGetTrustResult(made, &result)
    #expect(result == .fatalTrustFailure)
    #expect(SecTrustCopyExceptions(made) == nil)
  }

  @Test("Exceptions: the failures of one leaf accepted make it Proceed; not another leaf's")
  func exceptions() throws {
    let later = Date().addingTimeInterval(60 * 86_400)
    let (first, trust) = try evaluate("leaf-rsa", policies: Self.ssl("other.example"), date: later)
    #expect(!first.trusted)
    let exceptions = try #require(SecTrustCopyExceptions(trust))
    #expect(SecTrustSetExceptions(trust, exceptions))
    var error: CFError?
    #expect(SecTrustEvaluateWithError(trust, &error) && error == nil)
    var result = SecTrustResultType.invalid
    SecTrustGetTrustResult(trust, &result)
    #expect(result == .proceed)
    // Another failure (the right host, now a missing anchor) is not accepted by those exceptions.
    SecTrustSetAnchorCertificates(trust, [try pki.certificate("other-root")] as NSArray)
    #expect(!SecTrustEvaluateWithError(trust, &error))
    // The data names its leaf: another trust does not take it.
    let (_, other) = try evaluate("leaf-ec")
    #expect(!SecTrustSetExceptions(other, exceptions))
    #expect(!SecTrustSetExceptions(other, Data("not exceptions".utf8) as CFData))
    #expect(SecTrustSetExceptions(trust, nil))
  }

  @Test("Revocation: nothing is fetched, so requiring a positive answer fails and asking alone does not")
  func revocation() throws {
    let optional = try #require(SecPolicyCreateRevocation(kSecRevocationUseAnyAvailableMethod))
    #expect(try evaluate("leaf-rsa", policies: [SecPolicyCreateBasicX509(), optional]).0.trusted)
    let required = try #require(
      SecPolicyCreateRevocation(kSecRevocationUseAnyAvailableMethod | kSecRevocationRequirePositiveResponse))
    #expect(
      try evaluate("leaf-rsa", policies: [SecPolicyCreateBasicX509(), required]).0.status
        == errSecIncompleteCertRevocationCheck)
    var trust: SecTrust?
    SecTrustCreateWithCertificates(try pki.certificate("leaf-rsa"), nil, &trust)
    var allowed = true
    #expect(SecTrustGetNetworkFetchAllowed(trust!, &allowed) == errSecSuccess && !allowed)
    SecTrustSetNetworkFetchAllowed(trust!, true)
    #expect(SecTrustGetNetworkFetchAllowed(trust!, &allowed) == errSecSuccess && allowed)
  }

  @Test("Policies: properties round-trip; bad arguments are errSecParam; results before and after")
  func policiesAndArguments() throws {
    let ssl = SecPolicyCreateSSL(true, "api.example" as CFString)
    let properties = try #require(SecPolicyCopyProperties(ssl) as? [String: Any])
    #expect(properties[kSecPolicyOid as String] as? String == kSecPolicyAppleSSL as String)
    #expect(properties[kSecPolicyName as String] as? String == "api.example")
    #expect(SecPolicyCreateWithProperties(kSecPolicyAppleSSL, properties as CFDictionary) == ssl)
    let client = SecPolicyCreateWithProperties(
      kSecPolicyAppleSSL, [kSecPolicyClient as String: true] as CFDictionary)
    #expect(client == SecPolicyCreateSSL(false, nil))
    #expect(SecPolicyCreateWithProperties(kSecPolicyAppleX509Basic, nil) == SecPolicyCreateBasicX509())
    #expect(SecPolicyCreateWithProperties("1.2.3.4" as CFString, nil) == nil)
    #expect(SecPolicyCreateWithProperties(kSecPolicyAppleSSL, [kSecPolicyName as String: 7] as CFDictionary) == nil)
    #expect(CFGetTypeID(ssl) == SecPolicyGetTypeID())

    var trust: SecTrust?
    #expect(SecTrustCreateWithCertificates([] as NSArray, nil, &trust) == errSecParam && trust == nil)
    #expect(SecTrustCreateWithCertificates("not a certificate" as NSString, nil, &trust) == errSecParam)
    #expect(
      SecTrustCreateWithCertificates(try pki.certificate("leaf-rsa"), "no policy" as NSString, &trust) == errSecParam)
    #expect(SecTrustCreateWithCertificates(try pki.certificate("leaf-rsa"), ssl, &trust) == errSecSuccess)
    let made = try #require(trust)
    #expect(CFGetTypeID(made) == SecTrustGetTypeID())
    // Asked before any evaluation, Apple's evaluates (issue 63's probe): not kSecTrustResultInvalid.
    var result = SecTrustResultType.unspecified
    #expect(SecTrustGetTrustResult(made, &result) == errSecSuccess && result == .recoverableTrustFailure)
    var policies: CFArray?
    #expect(SecTrustCopyPolicies(made, &policies) == errSecSuccess && (policies as? [SecPolicy]) == [ssl])
    #expect(SecTrustSetPolicies(made, "nonsense" as NSString) == errSecParam)
    #expect(SecTrustSetPolicies(made, [] as NSArray) == errSecParam)
    #expect(SecTrustCopyPolicies(made, &policies) == errSecSuccess && (policies as? [SecPolicy]) == [ssl])
    let when = Date(timeIntervalSinceReferenceDate: 800_000_000)
    SecTrustSetVerifyDate(made, when as NSDate)
    #expect(SecTrustGetVerifyTime(made) == when.timeIntervalSinceReferenceDate)
  }

  @Test("SecTrustEvaluateAsyncWithError answers on the queue given")
  func asynchronousEvaluation() async throws {
    var trust: SecTrust?
    SecTrustCreateWithCertificates(
      [try pki.certificate("leaf-rsa"), try pki.certificate("intermediate")] as NSArray, Self.ssl("leaf.example")[0],
      &trust)
    SecTrustSetAnchorCertificates(trust!, [try pki.certificate("root")] as NSArray)
    let queue = DispatchQueue(label: "trust-test")
    let key = DispatchSpecificKey<Bool>()
    queue.setSpecific(key: key, value: true)
    let (trusted, onQueue) = await withCheckedContinuation { continuation in
      let status = SecTrustEvaluateAsyncWithError(trust!, queue) { _, trusted, _ in
        continuation.resume(returning: (trusted, DispatchQueue.getSpecific(key: key) == true))
      }
      #expect(status == errSecSuccess)
    }
    #expect(trusted && onQueue)
  }

  /// The README's pinning example, as written there.
  func isPinnedServer(_ chain: [Data], host: String, pinnedKey: Data, anchors: [SecCertificate]? = nil) -> Bool {
    let certificates = chain.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
    var trust: SecTrust?
    guard certificates.count == chain.count, !certificates.isEmpty,
      SecTrustCreateWithCertificates(certificates as CFArray, SecPolicyCreateSSL(true, host as CFString), &trust)
        == errSecSuccess, let trust
    else { return false }
    if let anchors { SecTrustSetAnchorCertificates(trust, anchors as CFArray) }  // else the system's roots
    var error: CFError?
    guard SecTrustEvaluateWithError(trust, &error), let key = SecTrustCopyKey(trust) else { return false }
    return SecKeyCopyExternalRepresentation(key, nil) as Data? == pinnedKey
  }

  @Test("The README's pinning example: the pinned key of a trusted chain passes; another key, host or root fails")
  func readmePinning() throws {
    let chain = try ["leaf-rsa", "intermediate"].map { SecCertificateCopyData(try pki.certificate($0)) as Data }
    let leafKey = try #require(SecCertificateCopyKey(try pki.certificate("leaf-rsa")))
    let pinned = try #require(SecKeyCopyExternalRepresentation(leafKey, nil) as Data?)
    let root = [try pki.certificate("root")]
    #expect(isPinnedServer(chain, host: "leaf.example", pinnedKey: pinned, anchors: root))
    #expect(!isPinnedServer(chain, host: "leaf.example", pinnedKey: Data(pinned.reversed()), anchors: root))
    #expect(!isPinnedServer(chain, host: "other.example", pinnedKey: pinned, anchors: root))
    #expect(!isPinnedServer(chain, host: "leaf.example", pinnedKey: pinned))
    #expect(!isPinnedServer([Data("junk".utf8)], host: "leaf.example", pinnedKey: pinned, anchors: root))
  }

  @Test("openssl verify agrees on every chain (Apple's stricter TLS rules apart, tested above)")
  func opensslAgrees() throws {
    let later = Date().addingTimeInterval(60 * 86_400)
    let cases: [(leaf: String, untrusted: [String], anchor: String, date: Date?, host: String?)] = [
      ("leaf-rsa", ["intermediate"], "root", nil, "leaf.example"),
      ("leaf-rsa", ["intermediate"], "root", nil, "other.example"),
      ("leaf-rsa", ["intermediate"], "root", later, nil),
      ("leaf-rsa", [], "root", nil, nil),
      ("leaf-rsa", ["intermediate"], "other-root", nil, nil),
      ("leaf-ec", ["intermediate"], "root", nil, "ec.example"),
      ("leaf-wildcard", ["intermediate"], "root", nil, "a.wild.example"),
      ("leaf-wildcard", ["intermediate"], "root", nil, "a.b.wild.example"),
      ("self-signed", [], "root", nil, nil),
      ("self-signed", [], "self-signed", nil, "self.example"),
      ("leaf-under-not-a-ca", ["not-a-ca", "intermediate"], "root", nil, nil),
    ]
    for test in cases {
      let policies = test.host.map { Self.ssl($0) } ?? [SecPolicyCreateBasicX509()]
      let ours = try evaluate(test.leaf, test.untrusted, anchors: [test.anchor], policies: policies, date: test.date).0
      let theirs = try pki.opensslVerifies(
        test.leaf, untrusted: test.untrusted, anchor: test.anchor, time: test.date,
        purpose: test.host == nil ? nil : "sslserver", host: test.host)
      #expect(ours.trusted == theirs, "\(test): SecTrust \(ours.trusted), openssl verify \(theirs)")
    }
  }
}

internal import COpenSSL
import Foundation

/// What a chain is validated for, beside a path to a trusted root in its validity period.
package enum X509Purpose: Sendable, Hashable {
  case any
  /// A TLS server; its host name (or IP address) checked against the subjectAltName only.
  case tlsServer(host: String?)
  case tlsClient
}

/// A problem path validation found, in the cases Apple's trust results tell apart.
package enum X509ChainProblem: Sendable, Hashable {
  case expired, notYetValid, untrustedRoot, missingIssuer, revoked, notACertificateAuthority, wrongUsage
  case hostNameMismatch, validityPeriodTooLong, badSignature, invalid
  /// A signature made with a digest Apple no longer trusts for the policy (MD5 anywhere, SHA-1
  /// for TLS).
  case weakDigest
  /// A public key shorter than Apple allows for the policy (RSA under 2048 bits for TLS, 1024
  /// anywhere).
  case weakKey
}

/// What validation found: the chain as far as it was built (leaf first) and every problem with
/// its depth and OpenSSL's reason.
package struct X509ChainResult: Sendable {
  package var chain: [[UInt8]]
  package var problems: [(problem: X509ChainProblem, depth: Int, reason: String)]
}

/// Certificate chains validated with OpenSSL's X509_verify_cert: the one path validation the
/// project has, behind SecTrust. Every problem is collected (a verify callback lets validation
/// go on past each), so a result can be compared with the exceptions a user accepted.
package enum X509ChainValidation {
  /// Validates `leaf` through `intermediates` to one of `anchors` (any of them ends a chain, as
  /// Apple's anchors do, self-signed or not) or, with `systemAnchors`, a root OpenSSL's default
  /// paths trust (`SSL_CERT_FILE`, `SSL_CERT_DIR`; on Debian, ca-certificates'), at `time`
  /// (seconds since 1970) for `purpose`. Nil when the leaf is not a certificate.
  package static func validate(
    leaf: [UInt8], intermediates: [[UInt8]], anchors: [[UInt8]], systemAnchors: Bool, time: Int64,
    purpose: X509Purpose
  ) -> X509ChainResult? {
    guard let (certificate, _) = X509Certificate.parse(leaf) else { return nil }
    defer { X509_free(certificate) }
    guard let store = X509_STORE_new(), let context = X509_STORE_CTX_new() else { return nil }
    defer {
      X509_STORE_CTX_free(context)
      X509_STORE_free(store)
    }
    for der in anchors {
      guard let (anchor, _) = X509Certificate.parse(der) else { continue }
      X509_STORE_add_cert(store, anchor)
      X509_free(anchor)
    }
    if systemAnchors { X509_STORE_set_default_paths(store) }
    LibcryptoErrorQueue.clear()
    let untrusted = OPENSSL_sk_new_null()
    defer { OPENSSL_sk_pop_free(untrusted) { X509_free(OpaquePointer($0)) } }
    for der in intermediates {
      guard let (intermediate, _) = X509Certificate.parse(der) else { continue }
      OPENSSL_sk_push(untrusted, UnsafeRawPointer(intermediate))
    }
    guard X509_STORE_CTX_init(context, store, certificate, untrusted) == 1 else { return nil }
    let parameters = X509_STORE_CTX_get0_param(context)
    X509_VERIFY_PARAM_set_time(parameters, time_t(time))
    // An anchor the caller gave ends the chain even when it is an intermediate (Apple's anchors).
    if !anchors.isEmpty { X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) }
    switch purpose {
    case .any: break
    case .tlsServer(let host):
      X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_SERVER)
      if let host {
        // Names from subjectAltName only (never the common name), a wildcard for one whole
        // label; a trailing dot names the same host, and case does not matter.
        X509_VERIFY_PARAM_set_hostflags(
          parameters, UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        if X509_VERIFY_PARAM_set1_ip_asc(parameters, name) != 1 {
          LibcryptoErrorQueue.clear()
          // A name OpenSSL reads as a pattern is no host: a leading dot (OpenSSL: any name under
          // it), a wildcard (it would match the certificate's own), an empty name (it checks
          // nothing). Such a name matches no certificate, as on Apple's systems.
          if isHostName(name) {
            X509_VERIFY_PARAM_set1_host(parameters, name, name.utf8.count)
          } else {
            X509_VERIFY_PARAM_set1_host(parameters, "invalid.", 8)
          }
        }
      }
    case .tlsClient:
      X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_CLIENT)
    }
    let collector = ProblemCollector()
    let unmanaged = Unmanaged.passRetained(collector)
    defer { unmanaged.release() }
    X509_STORE_CTX_set_ex_data(context, 0, unmanaged.toOpaque())
    X509_STORE_CTX_set_verify_cb(context) { ok, context in
      guard ok == 0, let context, let data = X509_STORE_CTX_get_ex_data(context, 0) else { return ok }
      let code = X509_STORE_CTX_get_error(context)
      let depth = Int(X509_STORE_CTX_get_error_depth(context))
      Unmanaged<ProblemCollector>.fromOpaque(data).takeUnretainedValue().problems.append(
        (X509ChainValidation.problem(code), depth, String(cString: X509_verify_cert_error_string(Int(code)))))
      // Go on: every problem is wanted, not only the first.
      return 1
    }
    _ = X509_verify_cert(context)
    LibcryptoErrorQueue.clear()
    if case .tlsServer = purpose { collector.problems += appleServerRules(certificate) }
    var chain: [[UInt8]] = []
    if let built = X509_STORE_CTX_get0_chain(context) {
      collector.problems += algorithmRules(built, forTLS: purpose != .any)
      for index in 0..<OPENSSL_sk_num(built) {
        guard let element = OPENSSL_sk_value(built, index) else { continue }
        var output: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(OpaquePointer(element), &output)
        guard length > 0, let output else { continue }
        chain.append(Array(UnsafeBufferPointer(start: output, count: Int(length))))
        CRYPTO_free(output, #fileID, #line)
      }
    }
    return X509ChainResult(chain: chain, problems: collector.problems)
  }

  /// Apple's rules for TLS server certificates issued on or after 1 July 2019, which OpenSSL does
  /// not have: an extended key usage naming serverAuth must be present (OpenSSL accepts none),
  /// and the validity period is at most 825 days.
  private static func appleServerRules(_ certificate: OpaquePointer) -> [(X509ChainProblem, Int, String)] {
    let july2019: Int64 = 1_561_939_200
    guard let notBefore = X509Certificate.secondsSince1970(X509_get0_notBefore(certificate)), notBefore >= july2019
    else {
      return []
    }
    var problems: [(X509ChainProblem, Int, String)] = []
    if X509_get_extension_flags(certificate) & UInt32(EXFLAG_XKUSAGE) == 0 {
      problems.append((.wrongUsage, 0, "a TLS server certificate issued since July 2019 names no extended key usage"))
    }
    if let notAfter = X509Certificate.secondsSince1970(X509_get0_notAfter(certificate)),
      notAfter - notBefore > 825 * 86_400
    {
      problems.append((.validityPeriodTooLong, 0, "a TLS server certificate is valid for more than 825 days"))
    }
    return problems
  }

  /// Whether `name` is a host name to compare, not a pattern OpenSSL would expand: not empty, no
  /// leading dot, no wildcard, no empty label.
  static func isHostName(_ name: String) -> Bool {
    !name.isEmpty && !name.hasPrefix(".") && !name.contains("*") && !name.contains("..") && !name.utf8.contains(0)
  }

  /// Apple's algorithm rules, over the chain as built (leaf first): no certificate signed with MD5
  /// (or MD2, MD4), nor for TLS with SHA-1; no RSA key under 1024 bits, nor for TLS under 2048.
  /// The last certificate's own signature is not checked when it is self-signed: a root is
  /// trusted as it is, not for its signature (Apple does the same).
  private static func algorithmRules(_ chain: OpaquePointer, forTLS: Bool) -> [(X509ChainProblem, Int, String)] {
    var problems: [(X509ChainProblem, Int, String)] = []
    let count = Int(OPENSSL_sk_num(chain))
    for depth in 0..<count {
      guard let element = OPENSSL_sk_value(chain, Int32(depth)) else { continue }
      let certificate = OpaquePointer(element)
      let selfSigned = X509_check_issued(certificate, certificate) == X509_V_OK
      if !(depth == count - 1 && selfSigned) {
        var digest: Int32 = 0
        var key: Int32 = 0
        if OBJ_find_sigid_algs(X509_get_signature_nid(certificate), &digest, &key) == 1 {
          switch digest {
          case NID_md5, NID_md4, NID_md2, NID_md5_sha1:
            problems.append((.weakDigest, depth, "the certificate is signed with MD5, which is not trusted"))
          case NID_sha1 where forTLS:
            problems.append((.weakDigest, depth, "the certificate is signed with SHA-1, which TLS does not trust"))
          default: break
          }
        }
      }
      if let key = X509_get0_pubkey(certificate), EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA {
        let bits = EVP_PKEY_get_bits(key)
        let minimum: Int32 = forTLS ? 2048 : 1024
        if bits < minimum {
          problems.append(
            (.weakKey, depth, "the certificate's RSA key has \(bits) bits, fewer than the \(minimum) required"))
        }
      }
    }
    LibcryptoErrorQueue.clear()
    return problems
  }

  /// The problems one validation found; written only by its verify callback, on the thread
  /// that validates.
  private final class ProblemCollector {
    var problems: [(problem: X509ChainProblem, depth: Int, reason: String)] = []
  }

  /// OpenSSL's verification error as the case Apple's results name.
  static func problem(_ code: Int32) -> X509ChainProblem {
    switch code {
    case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CRL_HAS_EXPIRED: .expired
    case X509_V_ERR_CERT_NOT_YET_VALID, X509_V_ERR_CRL_NOT_YET_VALID: .notYetValid
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_CERT_UNTRUSTED,
      X509_V_ERR_CERT_REJECTED:
      .untrustedRoot
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
      X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
      .missingIssuer
    case X509_V_ERR_CERT_REVOKED: .revoked
    case X509_V_ERR_INVALID_CA, X509_V_ERR_PATH_LENGTH_EXCEEDED, X509_V_ERR_KEYUSAGE_NO_CERTSIGN:
      .notACertificateAuthority
    case X509_V_ERR_INVALID_PURPOSE: .wrongUsage
    case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: .hostNameMismatch
    case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE,
      X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY:
      .badSignature
    default: .invalid
    }
  }
}

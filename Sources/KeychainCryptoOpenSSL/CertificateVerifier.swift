import COpenSSL
import Foundation
import Security

/// What a certificate is checked to be good for: the extended key usage its chain must allow.
package enum CertificatePurpose: Sendable, Hashable {
  /// Any use (X.509 basic: a chain to a trusted root, in its validity period).
  case any
  /// A TLS server, optionally for one host name (subjectAltName rules, RFC 6125).
  case sslServer(host: String?)
  /// A TLS client.
  case sslClient
  /// S/MIME, optionally for one email address.
  case smime(email: String?)
  /// Code signing.
  case codeSigning
}

/// Why a certificate chain is not trusted, as Apple's trust results tell the cases apart.
package enum CertificateVerificationFailure: Error, Sendable, Hashable {
  case expired
  case notYetValid
  /// No chain to a trusted root (a self-signed or unknown issuer).
  case untrusted
  case revoked
  /// The chain does not allow the purpose asked (extended key usage).
  case wrongPurpose
  case hostNameMismatch
  case emailMismatch
  /// A chain that is broken otherwise (a bad signature, a malformed extension), with OpenSSL's reason.
  case invalid(String)
}

/// Certificate chains checked with OpenSSL's X509_verify_cert: the one path validation this
/// project has, so that the `security` tool and SecTrust agree.
package enum CertificateVerifier {
  /// The chain from `leaf` to a trusted root, leaf first, or why there is none.
  ///
  /// - Parameters:
  ///   - intermediates: certificates that may complete the chain but are not trusted themselves.
  ///   - anchors: the trusted roots; nil means the system's (OpenSSL's default paths, which
  ///     honour `SSL_CERT_FILE` and `SSL_CERT_DIR`; on Debian, ca-certificates' bundle).
  ///   - date: the moment the chain must be valid at.
  package static func verify(
    leaf: Data, intermediates: [Data], anchors: [Data]?, at date: Date, purpose: CertificatePurpose
  ) -> Result<[Data], CertificateVerificationFailure> {
    let parsed: OpaquePointer
    do {
      parsed = try OpenSSLKeyEngine.certificate(leaf)
    } catch {
      return .failure(.invalid("the certificate is not DER"))
    }
    defer { X509_free(parsed) }
    guard let store = X509_STORE_new(), let context = X509_STORE_CTX_new() else {
      return .failure(.invalid("out of memory"))
    }
    defer {
      X509_STORE_CTX_free(context)
      X509_STORE_free(store)
    }
    if let anchors {
      for der in anchors {
        guard let anchor = try? OpenSSLKeyEngine.certificate(der) else { continue }
        X509_STORE_add_cert(store, anchor)
        X509_free(anchor)
      }
    } else {
      X509_STORE_set_default_paths(store)
    }
    ERR_clear_error()
    let untrusted = OPENSSL_sk_new_null()
    defer { OPENSSL_sk_pop_free(untrusted) { X509_free(OpaquePointer($0)) } }
    for der in intermediates {
      guard let certificate = try? OpenSSLKeyEngine.certificate(der) else { continue }
      OPENSSL_sk_push(untrusted, UnsafeRawPointer(certificate))
    }
    guard X509_STORE_CTX_init(context, store, parsed, untrusted) == 1 else {
      return .failure(.invalid("the verification could not start"))
    }
    let parameters = X509_STORE_CTX_get0_param(context)
    X509_VERIFY_PARAM_set_time(parameters, time_t(date.timeIntervalSince1970.rounded(.down)))
    switch purpose {
    case .any, .codeSigning: break
    case .sslServer(let host):
      X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_SERVER)
      if let host {
        // Names from subjectAltName only and a wildcard for one whole label, as Apple's TLS
        // rules have it; a trailing dot names the same host.
        X509_VERIFY_PARAM_set_hostflags(
          parameters, UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        X509_VERIFY_PARAM_set1_host(parameters, name, name.utf8.count)
      }
    case .sslClient:
      X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SSL_CLIENT)
    case .smime(let email):
      X509_STORE_CTX_set_purpose(context, X509_PURPOSE_SMIME_SIGN)
      if let email { X509_VERIFY_PARAM_set1_email(parameters, email, email.utf8.count) }
    }
    guard X509_verify_cert(context) == 1 else {
      let code = X509_STORE_CTX_get_error(context)
      ERR_clear_error()
      return .failure(failure(code))
    }
    if case .codeSigning = purpose, X509_get_extended_key_usage(parsed) & UInt32(XKU_CODE_SIGN) == 0 {
      // OpenSSL 3.0 has no code-signing purpose: the leaf's extended key usage is read instead
      // (absent, it allows every use).
      return .failure(.wrongPurpose)
    }
    var chain: [Data] = []
    if let verified = X509_STORE_CTX_get0_chain(context) {
      for index in 0..<OPENSSL_sk_num(verified) {
        if let certificate = OPENSSL_sk_value(verified, index),
          let der = OpenSSLKeyEngine.der(of: OpaquePointer(certificate))
        {
          chain.append(der)
        }
      }
    }
    return .success(chain)
  }

  /// OpenSSL's verification error as the failure Apple would name.
  private static func failure(_ code: Int32) -> CertificateVerificationFailure {
    switch code {
    case X509_V_ERR_CERT_HAS_EXPIRED: .expired
    case X509_V_ERR_CERT_NOT_YET_VALID: .notYetValid
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
      X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
      X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED:
      .untrusted
    case X509_V_ERR_CERT_REVOKED: .revoked
    case X509_V_ERR_INVALID_PURPOSE: .wrongPurpose
    case X509_V_ERR_HOSTNAME_MISMATCH: .hostNameMismatch
    case X509_V_ERR_EMAIL_MISMATCH: .emailMismatch
    default: .invalid(String(cString: X509_verify_cert_error_string(Int(code))))
    }
  }
}

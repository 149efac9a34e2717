import ArgumentParser
import Foundation
import Keychain
import KeychainCrypto
import Security
import SecurityCommandLine

/// `security find-identity`: the keychain's identities, and which of them a policy finds valid,
/// printed as macOS prints them.
struct FindIdentity: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "find-identity",
    abstract: "List the identities (a certificate with its private key) and which a policy finds valid.",
    discussion: """
      An identity is valid when SecTrust trusts its certificate for the policy: in its validity period, chained \
      through the keychain's other certificates to a root the system trusts (OpenSSL's, ca-certificates' on \
      Debian; SSL_CERT_FILE and SSL_CERT_DIR name others), with the extended key usage the policy needs. -s is \
      the host name for ssl-server. An invalid identity is listed with the reason in macOS's words \
      (CSSMERR_TP_NOT_TRUSTED, CSSMERR_TP_CERT_EXPIRED, ...). Apple's S/MIME and code-signing policies do not \
      exist here. Exit 0 even when none is found, as on macOS.
      """)

  /// The policies of macOS's -p that exist here.
  enum Policy: String, ExpressibleByArgument, CaseIterable {
    case basic
    case sslClient = "ssl-client"
    case sslServer = "ssl-server"

    /// The name macOS prints.
    var title: String {
      switch self {
      case .basic: "X.509 Basic"
      case .sslClient: "SSL (client)"
      case .sslServer: "SSL (server)"
      }
    }
  }

  @OptionGroup var store: StoreOption
  @Option(name: .customShort("p"), help: "The policy: basic, ssl-client or ssl-server.")
  var policy: Policy = .basic
  @Option(
    name: .customShort("s"),
    help: ArgumentHelp("The host name or email address the policy checks.", valueName: "string"))
  var string: String?
  @Flag(name: .customShort("v"), help: "Show valid identities only.") var validOnly = false

  func run() throws {
    try runReportingFailures {
      let operation = "SecIdentitySearchCreate"
      _ = try store.open()
      let identities = try IdentityQuery().synchronizable(.any).all().orFail(operation).compactMap(\.identity)
      let others = try CertificateQuery().synchronizable(.any).all().orFail(operation).compactMap {
        $0.certificate?.secCertificate
      }
      var rows: [(hash: String, name: String, failure: String?)] = []
      for identity in identities {
        let certificate = try identity.certificate().orFail(operation)
        let der = certificate.derRepresentation
        let hash = (try? Insecure.SHA1.hash(data: der)).map { FindCertificate.hex($0) } ?? ""
        let name = certificate.subjectSummary ?? ""
        var trust: SecTrust?
        let status = SecTrustCreateWithCertificates(
          [certificate.secCertificate] + others.filter { $0 != certificate.secCertificate } as NSArray, secPolicy,
          &trust)
        guard status == errSecSuccess, let trust else {
          throw CommandFailure(operation: operation, status: status, detail: nil)
        }
        var error: CFError?
        let failure =
          SecTrustEvaluateWithError(trust, &error)
          ? nil : Self.reason(error.map { OSStatus(truncatingIfNeeded: $0.code) })
        rows.append((hash, name, failure))
      }
      var lines: [String] = []
      if !validOnly {
        lines += ["Policy: \(policy.title)", "  Matching identities"]
        for (index, row) in rows.enumerated() {
          lines.append("  \(index + 1)) \(row.hash) \"\(row.name)\"" + (row.failure.map { " (\($0))" } ?? ""))
        }
        lines += ["     \(rows.count) identities found", "", "  Valid identities only"]
      }
      let valid = rows.filter { $0.failure == nil }
      for (index, row) in valid.enumerated() { lines.append("  \(index + 1)) \(row.hash) \"\(row.name)\"") }
      lines.append("     \(valid.count) valid identities found")
      printLines(lines)
    }
  }

  private var secPolicy: SecPolicy {
    switch policy {
    case .basic: SecPolicyCreateBasicX509()
    case .sslServer: SecPolicyCreateSSL(true, string.map { $0 as CFString })
    case .sslClient: SecPolicyCreateSSL(false, nil)
    }
  }

  /// A trust failure in the words macOS's tool prints (its CSSM error names).
  static func reason(_ status: OSStatus?) -> String {
    switch status {
    case errSecCertificateExpired: "CSSMERR_TP_CERT_EXPIRED"
    case errSecCertificateNotValidYet: "CSSMERR_TP_CERT_NOT_VALID_YET"
    case errSecNotTrusted: "CSSMERR_TP_NOT_TRUSTED"
    case errSecCertificateRevoked: "CSSMERR_TP_CERT_REVOKED"
    case errSecInvalidExtendedKeyUsage: "CSSMERR_TP_VERIFY_ACTION_FAILED"
    case errSecHostNameMismatch: "CSSMERR_APPLETP_HOSTNAME_MISMATCH"
    case errSecNoBasicConstraintsCA: "CSSMERR_APPLETP_NO_BASIC_CONSTRAINTS"
    default: "CSSMERR_TP_INVALID_CERTIFICATE"
    }
  }
}

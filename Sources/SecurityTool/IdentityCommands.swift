import ArgumentParser
import Foundation
import Keychain
import KeychainCrypto
import KeychainCryptoOpenSSL
import Security
import SecurityCommandLine

/// `security find-identity`: the keychain's identities, and which of them a policy finds valid,
/// printed as macOS prints them.
struct FindIdentity: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "find-identity",
    abstract: "List the identities (a certificate with its private key) and which a policy finds valid.",
    discussion: """
      An identity is valid when its certificate is in its validity period and chains, through the keychain's \
      other certificates, to a root the system trusts (OpenSSL's, ca-certificates' on Debian; SSL_CERT_FILE \
      and SSL_CERT_DIR name others) with the extended key usage the policy needs. -s is the host name for \
      ssl-server and ssl-client and the email address for smime. An invalid identity is listed with the reason \
      in macOS's words (CSSMERR_TP_NOT_TRUSTED, CSSMERR_TP_CERT_EXPIRED, ...). Exit 0 even when none is found, \
      as on macOS.
      """)

  /// The policies of macOS's -p that mean something here.
  enum Policy: String, ExpressibleByArgument, CaseIterable {
    case basic
    case sslClient = "ssl-client"
    case sslServer = "ssl-server"
    case smime
    case codesigning

    /// The name macOS prints.
    var title: String {
      switch self {
      case .basic: "X.509 Basic"
      case .sslClient: "SSL (client)"
      case .sslServer: "SSL (server)"
      case .smime: "S/MIME"
      case .codesigning: "Code Signing"
      }
    }
  }

  @OptionGroup var store: StoreOption
  @Option(name: .customShort("p"), help: "The policy: basic, ssl-client, ssl-server, smime or codesigning.")
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
        $0.certificate?.derRepresentation
      }
      var rows: [(hash: String, name: String, failure: String?)] = []
      for identity in identities {
        let certificate = try identity.certificate().orFail(operation)
        let der = certificate.derRepresentation
        let hash = (try? Insecure.SHA1.hash(data: der)).map { FindCertificate.hex($0) } ?? ""
        let name = certificate.subjectSummary ?? ""
        let verdict = CertificateVerifier.verify(
          leaf: der, intermediates: others.filter { $0 != der }, anchors: nil, at: Date(), purpose: purpose)
        rows.append((hash, name, verdict.failure.map(Self.reason)))
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

  private var purpose: CertificatePurpose {
    switch policy {
    case .basic: .any
    case .sslServer: .sslServer(host: string)
    case .sslClient: .sslClient
    case .smime: .smime(email: string)
    case .codesigning: .codeSigning
    }
  }

  /// A failure in the words macOS's tool prints (its CSSM error names).
  static func reason(_ failure: CertificateVerificationFailure) -> String {
    switch failure {
    case .expired: "CSSMERR_TP_CERT_EXPIRED"
    case .notYetValid: "CSSMERR_TP_CERT_NOT_VALID_YET"
    case .untrusted: "CSSMERR_TP_NOT_TRUSTED"
    case .revoked: "CSSMERR_TP_CERT_REVOKED"
    case .wrongPurpose: "CSSMERR_TP_VERIFY_ACTION_FAILED"
    case .hostNameMismatch: "CSSMERR_APPLETP_HOSTNAME_MISMATCH"
    case .emailMismatch: "CSSMERR_APPLETP_SMIME_EMAIL_ADDRS_NOT_FOUND"
    case .invalid: "CSSMERR_TP_INVALID_CERTIFICATE"
    }
  }
}

extension Result {
  /// The failure, or nil on success.
  var failure: Failure? {
    if case .failure(let failure) = self { return failure }
    return nil
  }
}

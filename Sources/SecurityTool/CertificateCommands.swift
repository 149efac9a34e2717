import ArgumentParser
import Foundation
import Keychain
import KeychainCrypto
import Security
import SecurityCommandLine

/// `security find-certificate`: certificates by name or email, printed as macOS prints them, or
/// as PEM with -p.
struct FindCertificate: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "find-certificate",
    abstract: "Find certificates by common name or email address; print their attributes or PEM.",
    discussion: """
      -c matches certificates whose common name (else label) contains NAME; -e those with EMAIL among their \
      email addresses; with neither, every certificate matches. Without -a only the first is printed. Exit 44 \
      when none matches, as on macOS.
      """)

  @OptionGroup var store: StoreOption
  @Flag(name: .customShort("a"), help: "Find all matching certificates, not only the first.") var all = false
  @Option(name: .customShort("c"), help: ArgumentHelp("Match on this name.", valueName: "name")) var name: String?
  @Option(name: .customShort("e"), help: ArgumentHelp("Match on this email address.", valueName: "emailAddress"))
  var email: String?
  @Flag(name: .customShort("m"), help: "Print the email addresses found.") var showEmails = false
  @Flag(name: .customShort("p"), help: "Print each certificate in PEM form.") var pem = false
  @Flag(name: .customShort("Z"), help: "Print each certificate's SHA-256 and SHA-1 hashes.") var hashes = false

  func run() throws {
    try runReportingFailures {
      let opened = try store.open()
      let operation = "SecKeychainSearchCopyNext"
      let items = try CertificateQuery().synchronizable(.any).all().orFail(operation)
      let matching = items.filter { item in
        guard let certificate = item.certificate?.secCertificate else { return false }
        if let name {
          let common = (try? item.certificate?.commonName().get()) ?? item.label ?? ""
          guard common.contains(name) || (item.label ?? "").contains(name) else { return false }
        }
        if let email { return Self.emails(of: certificate).contains(email) }
        return true
      }
      guard !matching.isEmpty else { throw notFound(operation) }
      for item in all ? matching : [matching[0]] {
        guard let certificate = item.certificate else { continue }
        let der = certificate.derRepresentation
        if hashes {
          print("SHA-256 hash: \(Self.hex((try? SHA256.hash(data: der)) ?? []))")
          print("SHA-1 hash: \(Self.hex((try? Insecure.SHA1.hash(data: der)) ?? []))")
        }
        if showEmails {
          print(
            "email addresses: "
              + Self.emails(of: certificate.secCertificate).map { "\"\($0)\"" }.joined(separator: ", "))
        }
        if pem {
          print(PEMFile.encode(der, label: "CERTIFICATE"), terminator: "")
        } else {
          printLines(ItemFormatting.lines(item, store: opened.directory.path))
        }
      }
    }
  }

  static func emails(of certificate: SecCertificate) -> [String] {
    var found: CFArray?
    guard SecCertificateCopyEmailAddresses(certificate, &found) == errSecSuccess else { return [] }
    return (found as? [String]) ?? []
  }

  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }
}

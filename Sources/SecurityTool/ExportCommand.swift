import ArgumentParser
import Foundation
import Keychain
import KeychainBackend
import Security
import SecurityCommandLine

/// `security export`: the keychain's certificates, keys or identities as PKCS#12, PEM or DER, with
/// macOS's flags.
struct ExportItems: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export",
    abstract: "Export certificates, keys or identities as PKCS#12, PEM or DER.",
    discussion: """
      -t chooses what (default all), -f the format: pkcs12 for identities (the default for -t identities; \
      its passphrase is -P, else asked for twice on a terminal or read as one line of standard input), pemseq \
      for any number of items (the default otherwise), x509 for one certificate, openssl or pkcs8 for one key \
      (DER, PEM with -p). Private keys leave unencrypted except in PKCS#12: the file -o names is made 0600. \
      A key kept by a hardware token (a Secure Enclave key) cannot leave it: exit 86 (errSecKeyIsSensitive). \
      Exit 44 when there is nothing to export.
      """)

  /// Item types of macOS's -t.
  enum ItemType: String, ExpressibleByArgument, CaseIterable {
    case certs, allKeys, pubKeys, privKeys, identities, all
  }

  /// Formats of macOS's -f that exist here.
  enum Format: String, ExpressibleByArgument, CaseIterable {
    case pkcs12, pemseq, x509, openssl, pkcs8
  }

  @OptionGroup var store: StoreOption
  @Option(name: .customShort("t"), help: "What to export: certs, allKeys, pubKeys, privKeys, identities or all.")
  var type: ItemType = .all
  @Option(name: .customShort("f"), help: "The format: pkcs12, pemseq, x509, openssl or pkcs8.") var format: Format?
  @Flag(name: .customShort("p"), help: "PEM armour for x509, openssl and pkcs8.") var pem = false
  @Option(name: .customShort("P"), help: ArgumentHelp("The PKCS#12 file's passphrase.", valueName: "passphrase"))
  var passphrase: String?
  @Option(
    name: .customShort("o"), help: ArgumentHelp("The file to write (default: standard output).", valueName: "outfile"))
  var output: String?

  /// What is exported, gathered from the keychain.
  struct Selection {
    var identities: [(identity: Identity, label: String?)] = []
    var certificates: [SecurityCertificate] = []
    var keys: [SecKey] = []

    var isEmpty: Bool { identities.isEmpty && certificates.isEmpty && keys.isEmpty }
  }

  func run() throws {
    try runReportingFailures {
      let operation = "SecKeychainItemExport"
      _ = try store.open()
      let selection = try select(operation)
      guard !selection.isEmpty else { throw notFound(operation) }
      let chosen = format ?? (type == .identities ? .pkcs12 : .pemseq)
      let bytes: Data
      switch chosen {
      case .pkcs12: bytes = try pkcs12(selection, operation)
      case .pemseq: bytes = try pemSequence(selection, operation)
      case .x509:
        guard selection.certificates.count == 1, selection.keys.isEmpty, selection.identities.isEmpty else {
          throw CommandFailure(
            operation: operation, status: errSecParam,
            detail: "x509 holds one certificate and \(count(selection)) items were chosen: use pemseq.")
        }
        let der = selection.certificates[0].derRepresentation
        bytes = pem ? Data(PEMFile.encode(der, label: "CERTIFICATE").utf8) : der
      case .openssl, .pkcs8:
        guard selection.keys.count == 1, selection.certificates.isEmpty, selection.identities.isEmpty else {
          throw CommandFailure(
            operation: operation, status: errSecParam,
            detail: "\(chosen.rawValue) holds one key and \(count(selection)) items were chosen: use pemseq.")
        }
        let (label, der) = try encoded(selection.keys[0], operation)
        bytes = pem ? Data(PEMFile.encode(der, label: label).utf8) : der
      }
      try ToolFiles.write(bytes, to: output, operation: operation)
    }
  }

  private func count(_ selection: Selection) -> Int {
    selection.identities.count + selection.certificates.count + selection.keys.count
  }

  /// The items -t names. An identity's certificate and key are exported as the identity only.
  private func select(_ operation: String) throws -> Selection {
    var selection = Selection()
    if type == .identities || type == .all {
      selection.identities = try IdentityQuery().synchronizable(.any).all().orFail(operation).compactMap { item in
        item.identity.map { ($0, item.label) }
      }
    }
    let identityCertificates = Set(selection.identities.compactMap { try? $0.identity.certificate().get() })
    let identityKeys = Set(selection.identities.compactMap { try? $0.identity.privateKey().get().secKey })
    if type == .certs || type == .all {
      selection.certificates = try CertificateQuery().synchronizable(.any).all().orFail(operation)
        .compactMap(\.certificate).filter { !identityCertificates.contains($0) }
    }
    if [.allKeys, .pubKeys, .privKeys, .all].contains(type) {
      let keys = try KeyQuery().synchronizable(.any).all().orFail(operation)
      for item in keys {
        if let key = item.privateKey?.secKey, type != .pubKeys, !identityKeys.contains(key) {
          selection.keys.append(key)
        }
        if let key = item.publicKey?.secKey, type != .privKeys { selection.keys.append(key) }
      }
    }
    return selection
  }

  private func pkcs12(_ selection: Selection, _ operation: String) throws -> Data {
    guard !selection.identities.isEmpty, selection.certificates.isEmpty, selection.keys.isEmpty else {
      throw CommandFailure(
        operation: operation, status: errSecParam,
        detail: "PKCS#12 here holds identities only (with -t identities); use pemseq for certificates and keys.")
    }
    // The tool's backend, a value made here at the command's edge.
    let engine = SQLiteOpenSSLBackend().keyEngine
    let secret =
      try passphrase
      ?? CommandPassphrase.ask(
        confirming: true, operation: operation, prompt: "passphrase for the PKCS#12 file: ",
        missing: "A PKCS#12 file needs a passphrase: give -P, type it on a terminal, or pipe it as one line.")
    var identities: [PKCS12Identity] = []
    for (identity, label) in selection.identities {
      let certificate = try identity.certificate().orFail(operation)
      let key = try identity.privateKey().orFail(operation).secKey
      identities.append(
        PKCS12Identity(
          key: key.material, certificate: certificate.derRepresentation, chain: [],
          label: label ?? certificate.subjectSummary, keyID: nil))
    }
    do throws(KeyOperationFailure) {
      return try engine.exportPKCS12(identities, passphrase: secret)
    } catch {
      throw CommandFailure(operation: operation, status: error.status, detail: sentence(error.reason))
    }
  }

  /// Every item as PEM: each identity as its certificate then its key.
  private func pemSequence(_ selection: Selection, _ operation: String) throws -> Data {
    var text = ""
    for (identity, _) in selection.identities {
      text += PEMFile.encode(try identity.certificate().orFail(operation).derRepresentation, label: "CERTIFICATE")
      let (label, der) = try encoded(try identity.privateKey().orFail(operation).secKey, operation)
      text += PEMFile.encode(der, label: label)
    }
    for certificate in selection.certificates {
      text += PEMFile.encode(certificate.derRepresentation, label: "CERTIFICATE")
    }
    for key in selection.keys {
      let (label, der) = try encoded(key, operation)
      text += PEMFile.encode(der, label: label)
    }
    return Data(text.utf8)
  }

  /// A key as PKCS#8 or SubjectPublicKeyInfo DER, with its PEM label.
  private func encoded(_ key: SecKey, _ operation: String) throws -> (label: String, der: Data) {
    // The tool's backend, a value made here at the command's edge.
    let engine = SQLiteOpenSSLBackend().keyEngine
    do throws(KeyOperationFailure) {
      let der = try engine.encodedKey(key.material)
      return (key.isPrivate ? "PRIVATE KEY" : "PUBLIC KEY", der)
    } catch {
      throw CommandFailure(operation: operation, status: error.status, detail: sentence(error.reason))
    }
  }

}

/// A reason ("a private key kept by ...") as a sentence.
func sentence(_ reason: String) -> String { reason.prefix(1).uppercased() + reason.dropFirst() + "." }

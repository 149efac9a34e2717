import ArgumentParser
import Foundation
import Keychain
import KeychainBackend
import Security
import SecurityCommandLine

/// `security import`: certificates, keys and identities from PKCS#12, PEM or DER files, with
/// macOS's flags and report.
struct ImportItems: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import",
    abstract: "Import certificates, keys and identities from a PKCS#12, PEM or DER file.",
    discussion: """
      The format is found from the file (PKCS#12, PEM) unless -f names it; a DER file needs -t (cert, priv \
      or pub). A PKCS#12 file's passphrase is -P, else asked for on a terminal or read as one line of standard \
      input. Items the keychain already holds are skipped; when every item was already there, the exit status \
      is 45 (errSecDuplicateItem), as on macOS. Exit 51 for a wrong passphrase, 93 for a file that is not \
      what it claims.
      """)

  /// Item types of macOS's -t.
  enum ItemType: String, ExpressibleByArgument, CaseIterable {
    case pub, priv, cert, agg
  }

  /// Formats of macOS's -f that exist here.
  enum Format: String, ExpressibleByArgument, CaseIterable {
    case pkcs12, pemseq, openssl, pkcs8, x509
  }

  @Argument(help: ArgumentHelp("The file to import.", valueName: "inputfile")) var input: String
  @OptionGroup var store: StoreOption
  @Option(name: .customShort("t"), help: "What the file holds: pub, priv, cert or agg.") var type: ItemType?
  @Option(name: .customShort("f"), help: "The file's format: pkcs12, pemseq, openssl, pkcs8 or x509.")
  var format: Format?
  @Option(name: .customShort("P"), help: ArgumentHelp("The file's passphrase.", valueName: "passphrase"))
  var passphrase: String?

  /// The longest file read: a PKCS#12 or PEM bundle is kilobytes; a whole CA bundle is under 1 MiB.
  static let maximumLength = 8 << 20

  /// What was added, and how many were already there.
  struct Tally {
    var identities = 0
    var keys = 0
    var certificates = 0
    var duplicates = 0

    var lines: [String] {
      [
        identities > 0 ? "\(identities) identit\(identities == 1 ? "y" : "ies") imported." : nil,
        keys > 0 ? "\(keys) key\(keys == 1 ? "" : "s") imported." : nil,
        certificates > 0 ? "\(certificates) certificate\(certificates == 1 ? "" : "s") imported." : nil,
      ].compactMap { $0 }
    }
  }

  func run() throws {
    try runReportingFailures {
      let operation = "SecKeychainItemImport"
      let data = try ToolFiles.read(input, maximumLength: Self.maximumLength, operation: operation, what: "a key file")
      _ = try store.open()
      var tally = Tally()
      switch format ?? Self.format(of: data, path: input, type: type) {
      case .pkcs12:
        try importPKCS12(data, operation: operation, into: &tally)
      case .pemseq, .openssl, .pkcs8, .x509:
        if PEMFile.isPEM(data) {
          let blocks: [PEMFile.Block]
          do {
            blocks = try PEMFile.blocks(in: String(decoding: data, as: UTF8.self))
          } catch {
            throw CommandFailure(operation: operation, status: errSecUnknownFormat, detail: "\(input): \(error).")
          }
          for block in blocks { try importBlock(block, operation: operation, into: &tally) }
        } else {
          let label: String
          switch type {
          case .cert?: label = "CERTIFICATE"
          case .priv?: label = "PRIVATE KEY"
          case .pub?: label = "PUBLIC KEY"
          case .agg?, nil:
            throw CommandFailure(
              operation: operation, status: errSecUnknownFormat,
              detail: "\(input) is DER: say what it holds with -t cert, -t priv or -t pub.")
          }
          try importBlock(PEMFile.Block(label: label, der: data), operation: operation, into: &tally)
        }
      }
      guard !tally.lines.isEmpty else {
        throw CommandFailure(
          operation: operation, status: errSecDuplicateItem,
          detail: "The specified item already exists in the keychain.")
      }
      printLines(tally.lines)
    }
  }

  /// The format a file's bytes and name show.
  static func format(of data: Data, path: String, type: ItemType?) -> Format {
    if PEMFile.isPEM(data) { return .pemseq }
    let name = path.lowercased()
    if name.hasSuffix(".p12") || name.hasSuffix(".pfx") || type == .agg { return .pkcs12 }
    if type == nil, !name.hasSuffix(".cer"), !name.hasSuffix(".crt"), !name.hasSuffix(".der") { return .pkcs12 }
    return .x509
  }

  private func importPKCS12(_ data: Data, operation: String, into tally: inout Tally) throws {
    let secret =
      try passphrase
      ?? CommandPassphrase.ask(
        confirming: false, operation: operation, prompt: "passphrase for \(input): ",
        missing: "A PKCS#12 file needs its passphrase: give -P, type it on a terminal, or pipe it as one line.")
    let imported = try Identity.importPKCS12(data, passphrase: secret).orFail(operation)
    for entry in imported {
      var identityQuery = IdentityQuery()
      if let label = entry.label { identityQuery = identityQuery.label(label) }
      try count(identityQuery.add(entry.identity), as: \.identities, in: &tally, operation)
      for certificate in entry.chain.dropFirst() {
        try count(CertificateQuery().add(certificate), as: \.certificates, in: &tally, operation)
      }
    }
  }

  /// Adds what one PEM block holds.
  private func importBlock(_ block: PEMFile.Block, operation: String, into tally: inout Tally) throws {
    switch block.label {
    case "CERTIFICATE", "X509 CERTIFICATE", "TRUSTED CERTIFICATE":
      guard let certificate = SecCertificateCreateWithData(nil, block.der as CFData) else {
        throw CommandFailure(
          operation: operation, status: errSecUnknownFormat, detail: "\(input) holds a certificate that cannot be read."
        )
      }
      try count(CertificateQuery().add(SecurityCertificate(certificate)), as: \.certificates, in: &tally, operation)
    case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY":
      let engineKey = try decode(block, isPrivate: true, operation: operation)
      guard let key = PrivateKey(engineKey) else { return }
      try count(KeyQuery().label("Imported Private Key").add(key), as: \.keys, in: &tally, operation)
    case "PUBLIC KEY", "RSA PUBLIC KEY":
      guard let key = PublicKey(try decode(block, isPrivate: false, operation: operation)) else { return }
      try count(KeyQuery().label("Imported Public Key").add(key), as: \.keys, in: &tally, operation)
    case "EC PARAMETERS":
      return
    default:
      throw CommandFailure(
        operation: operation, status: errSecUnknownFormat,
        detail: "\(input) holds a PEM block \(block.label), which is not a certificate or a key.")
    }
  }

  /// The key of a PEM block, through the key engine of the tool's backend (a value made here, at
  /// the command's edge).
  private func decode(_ block: PEMFile.Block, isPrivate: Bool, operation: String) throws -> SecKey {
    let backend = SQLiteOpenSSLBackend()
    let engine = backend.keyEngine
    var secret: String?
    if block.label == "ENCRYPTED PRIVATE KEY" {
      secret =
        try passphrase
        ?? CommandPassphrase.ask(
          confirming: false, operation: operation, prompt: "passphrase for the key in \(input): ",
          missing: "An encrypted key needs its passphrase: give -P, type it on a terminal, or pipe it as one line.")
    }
    do throws(KeyOperationFailure) {
      if block.label == "RSA PUBLIC KEY" {
        return try SecKey(try engine.importKey(.rsa, isPrivate: false, data: block.der), labelledBy: backend)
      }
      return try SecKey(try engine.decodeKey(block.der, isPrivate: isPrivate, passphrase: secret), labelledBy: backend)
    } catch {
      throw CommandFailure(operation: operation, status: error.status, detail: "\(input): \(error.reason).")
    }
  }

  /// Counts an add under `kind`, or as a duplicate.
  private func count(
    _ result: Result<Void, KeychainError>, as kind: WritableKeyPath<Tally, Int>, in tally: inout Tally,
    _ operation: String
  ) throws {
    switch result {
    case .success: tally[keyPath: kind] += 1
    case .failure(let error) where error.status == errSecDuplicateItem: tally.duplicates += 1
    case .failure(let error): throw CommandFailure(operation: operation, status: error.status, detail: nil)
    }
  }
}

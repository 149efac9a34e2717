import ArgumentParser
import Foundation
import KeychainBackend
import Security
import SecurityCommandLine

struct ImportGnomeKeyring: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import-gnome-keyring",
    abstract: "Move the items of a GNOME Keyring keyring file into the keychain.",
    discussion: """
      Reads a keyring file GNOME Keyring wrote (~/.local/share/keyrings/NAME.keyring: opened with its \
      password, or read as it is when GNOME kept it as text, for a keyring with an empty password) and adds each item to the keychain's default collection as the Secret Service keeps it: a \
      generic password with the item's attributes, label, secret, and creation and modification times, so \
      secret-tool, libsecret programs and Apple's API find it. An item the keychain already holds with the same \
      attributes and secret is skipped and counted. Without -P the password is asked for on a terminal, or read \
      as one line of standard input. A wrong password adds nothing (exit 51, errSecAuthFailed); a damaged file \
      adds nothing (exit 93, errSecDecode).
      """)

  @OptionGroup var store: StoreOption
  @Option(name: .customShort("i"), help: ArgumentHelp("The keyring file to read.", valueName: "file"))
  var input: String
  @Option(name: .customShort("P"), help: ArgumentHelp("The keyring's password.", valueName: "password"))
  var password: String?

  func run() throws {
    try runReportingFailures { try importItems() }
  }

  private func importItems() throws {
    let operation = "import-gnome-keyring \(input)"
    let contents = try Self.read(input, operation: operation)
    let opened = try store.open()
    // A keyring GNOME keeps without a password is text: there is nothing to ask for.
    var secret: [UInt8]?
    if !GnomeKeyringFile.isTextual(contents) {
      let typed: String
      if let password {
        typed = password
      } else {
        typed = try CommandPassphrase.ask(
          confirming: false, operation: operation, prompt: "password of the GNOME keyring: ",
          missing: "A keyring file needs its password: give -P, type it on a terminal, or pipe it as one line.")
      }
      secret = Array(typed.utf8)
    }
    defer { if secret != nil { Secrets.wipe(&secret!) } }
    let outcome: GnomeKeyringImporter.Outcome
    do throws(SecStatus) {
      let service = try SecItemServices.forCurrentCall()
      if let engine = service as? SecItemEngine {
        var keyring = try GnomeKeyringImporter.read(contents, password: secret)
        defer { for index in keyring.items.indices { Secrets.wipe(&keyring.items[index].secret) } }
        outcome = try GnomeKeyringImporter.importItems(keyring, into: engine)
      } else if case .agent(let agent) = opened.holder {
        // The agent reads the file itself: what it stores, the dates included, is the file's.
        let groups = KeychainAccessGroups.current
        let (label, added, duplicates) = try agent.importGnomeKeyring(contents, password: secret, accessGroups: groups)
        outcome = GnomeKeyringImporter.Outcome(label: label, added: added, duplicates: duplicates)
      } else {
        throw SecStatus(errSecNotAvailable, detail: "the keychain is neither this process's nor an agent's")
      }
    } catch  where error.code == errSecAuthFailed || error.code == errSecDecode {
      throw CommandFailure(
        operation: operation, status: error.code,
        detail: "\(input) cannot be imported: \(error.detail ?? secMessage(for: error.code)).")
    } catch {
      throw CommandFailure(operation: operation, status: error.code, detail: error.detail)
    }
    print(
      "imported \(outcome.added) item(s) of the keyring \u{201C}\(outcome.label)\u{201D}; "
        + "skipped \(outcome.duplicates) duplicate(s)")
  }

  /// The file's bytes, refused before reading when it is not a regular file or is too long.
  static func read(_ path: String, operation: String) throws -> [UInt8] {
    Array(
      try ToolFiles.read(path, maximumLength: GnomeKeyringFile.maximumLength, operation: operation, what: "a keyring"))
  }
}

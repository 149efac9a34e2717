import ArgumentParser
import Foundation
import Keychain
import Security
import SecurityCommandLine

struct ExportKeychain: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "export-keychain",
    abstract: "Write an encrypted backup of the keychain's items.",
    discussion: """
      Every item that may leave the device is sealed under a key derived from the passphrase (scrypt, \
      AES-256-GCM); items whose accessibility ends in ThisDeviceOnly are left out, as in Apple's backups, and \
      counted. Without -P the passphrase is asked for twice on a terminal, or read as one line of standard input.
      """)

  @OptionGroup var store: StoreOption
  @Option(name: .customShort("o"), help: ArgumentHelp("The backup file to write.", valueName: "file"))
  var output: String
  @Option(name: .customShort("P"), help: ArgumentHelp("The backup's passphrase.", valueName: "passphrase"))
  var passphrase: String?

  func run() throws {
    try runReportingFailures {
      let operation = "export-keychain \(output)"
      _ = try store.open()
      let secret = try passphrase ?? CommandPassphrase.ask(confirming: true, operation: operation)
      let backup = try KeychainBackup.export(passphrase: secret).orFail(operation)
      // Created 0600 from the start: the file is sealed, but it is still the whole keychain.
      guard
        FileManager.default.createFile(atPath: output, contents: backup.file, attributes: [.posixPermissions: 0o600])
      else {
        throw CommandFailure(operation: operation, status: errSecIO, detail: "\(output) could not be written.")
      }
      print("exported \(backup.itemCount) item(s); skipped \(backup.skippedDeviceOnlyItemCount) ThisDeviceOnly item(s)")
    }
  }
}

struct ImportKeychain: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "import-keychain",
    abstract: "Restore the items of a backup export-keychain wrote.",
    discussion: """
      Items the keychain already holds are kept and counted as duplicates; items this keychain cannot take \
      are rejected, each with its reason on standard error; the rest are added in one transaction. A wrong \
      passphrase or an altered or truncated file adds nothing (exit 51, errSecAuthFailed, or 93, errSecDecode). \
      Without -P the passphrase is asked for on a terminal, or read as one line of standard input.
      """)

  @OptionGroup var store: StoreOption
  @Option(name: .customShort("i"), help: ArgumentHelp("The backup file to read.", valueName: "file"))
  var input: String
  @Option(name: .customShort("P"), help: ArgumentHelp("The backup's passphrase.", valueName: "passphrase"))
  var passphrase: String?

  func run() throws {
    try runReportingFailures {
      let operation = "import-keychain \(input)"
      guard let file = FileManager.default.contents(atPath: input) else {
        throw CommandFailure(operation: operation, status: errSecIO, detail: "\(input) could not be read.")
      }
      _ = try store.open()
      let secret = try passphrase ?? CommandPassphrase.ask(confirming: false, operation: operation)
      let report = try KeychainBackup.restore(file, passphrase: secret).orFail(operation)
      for rejection in report.rejections {
        FileHandle.standardError.write(Data("security: rejected \(rejection)\n".utf8))
      }
      print(
        "added \(report.addedItemCount) item(s); skipped \(report.duplicateItemCount) duplicate(s); "
          + "rejected \(report.rejectedItemCount) item(s)")
    }
  }
}

import ArgumentParser
import Foundation
import Keychain
import Security
import SecurityCommandLine

#if canImport(Glibc)
  import Glibc
#endif

/// `security`: macOS's keychain command-line tool, over this project's store.
@main
struct SecurityTool: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "security",
    abstract: "Command-line access to the keychain, with the commands and output of macOS's security tool.",
    discussion: """
      The store is the one KEYCHAIN_BRIDGE_HOME names (else $XDG_DATA_HOME/keychain-bridge, else \
      ~/.local/share/keychain-bridge), or -k PATH. \
      Exit status 0 on success, 44 when an item is not found, and otherwise the low byte of the errSec code, \
      as on macOS; 64 for a usage error (an unknown option, a missing value, an argument that is not UTF-8). \
      -w given last to add-generic-password or add-internet-password asks for the password (without echo on \
      a terminal, one line of standard input otherwise), as on macOS.
      """,
    version: "security (KeychainBridge) \(SecurityTool.version)",
    subcommands: [
      AddGenericPassword.self, FindGenericPassword.self, DeleteGenericPassword.self, AddInternetPassword.self,
      FindInternetPassword.self, DeleteInternetPassword.self, DumpKeychain.self, LockKeychain.self,
      UnlockKeychain.self, CreateKeychain.self, DefaultKeychain.self, ListKeychains.self, DeleteKeychain.self,
      ShowKeychainInfo.self, ExportKeychain.self,
      ImportKeychain.self, ImportGnomeKeyring.self, FindCertificate.self, FindIdentity.self, ImportItems.self,
      ExportItems.self, CreateSSHKey.self, DeleteSSHKey.self, SyncGroupForwarder.self,
    ])

  /// The tool's version, printed by --version.
  static let version = "0.1.0"

  /// Refuses arguments that are not valid UTF-8 before parsing: Swift would replace their bytes
  /// with U+FFFD, and two different passwords or accounts would silently become the same one.
  static func main() {
    for index in 1..<Int(CommandLine.argc) {
      guard let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) == nil else { continue }
      FileHandle.standardError.write(
        Data(
          ("security: argument \(index) is not valid UTF-8; accounts, services, passwords and paths are "
            + "taken as UTF-8 text only, so it was refused rather than changed.\n").utf8))
      Glibc.exit(ExitCode.validationFailure.rawValue)
    }
    let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    if let first = CommandLine.arguments.dropFirst().first, !first.hasPrefix("-"), !names.contains(first) {
      // ArgumentParser would name the first option it could not place ("Unknown option '-o'").
      FileHandle.standardError.write(
        Data(
          ("security: \"\(first)\" is not a command. The commands are: \(names.dropLast().joined(separator: ", ")).\n")
            .utf8))
      Glibc.exit(ExitCode.validationFailure.rawValue)
    }
    do {
      var command = try parseAsRoot(passwordPromptedWhenLast(Array(CommandLine.arguments.dropFirst())))
      try command.run()
    } catch {
      exit(withError: error)
    }
  }

  /// macOS's recommended form `add-generic-password ... -w` (with -w last and no value) keeps the
  /// password off the command line: it is asked for here and passed on as the option's value.
  static func passwordPromptedWhenLast(_ arguments: [String]) -> [String] {
    guard arguments.last == "-w", let command = arguments.first,
      command == "add-generic-password" || command == "add-internet-password"
    else { return arguments }
    let password = promptForPassword("password data for new item: ") ?? StandardInput.lineOrExit("the password")
    return arguments.dropLast() + ["-w", password]
  }
}

extension Result where Failure == KeychainError {
  /// The value, or a `CommandFailure` for `operation`.
  func orFail(_ operation: String) throws -> Success {
    switch self {
    case .success(let value): return value
    case .failure(let error): throw CommandFailure(operation: operation, status: error.status, detail: nil)
    }
  }
}

/// The "not found" failure, worded as macOS's tool words it.
func notFound(_ operation: String) -> CommandFailure {
  CommandFailure(
    operation: operation, status: errSecItemNotFound, detail: "The specified item could not be found in the keychain.")
}

func printLines(_ lines: [String]) {
  print(lines.joined(separator: "\n"))
}

/// `security sync-group ...`: runs `security-sync ...`, the sync tool installed beside this one.
/// Kept apart so that `security` does not link the PostgreSQL client (issue 52).
struct SyncGroupForwarder: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync-group",
    abstract: "Create, join, leave or sync the keychain's sync group: runs security-sync, installed beside security.")

  @Argument(parsing: .captureForPassthrough, help: "The security-sync command and its options.")
  var arguments: [String] = []

  func run() throws {
    let tool = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
      .appendingPathComponent("security-sync").path
    guard access(tool, X_OK) == 0 else {
      FileHandle.standardError.write(
        Data(
          ("security: sync-group: the sync commands are in the security-sync tool, which is not installed beside "
            + "security (build it with `swift build --product security-sync`, or `make install-sync`).\n").utf8))
      throw ExitCode(1)
    }
    let argv: [UnsafeMutablePointer<CChar>?] = ([tool] + arguments).map { strdup($0) } + [nil]
    execv(tool, argv)
    FileHandle.standardError.write(
      Data("security: sync-group: cannot run \(tool): \(String(cString: strerror(errno)))\n".utf8))
    throw ExitCode(1)
  }
}

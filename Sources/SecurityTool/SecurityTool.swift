import ArgumentParser
import Foundation
import Keychain
import Security

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
      The store is the one KEYCHAIN_BRIDGE_HOME names (else $XDG_DATA_HOME/keychain-bridge), or -k PATH. \
      Exit status 0 on success, 44 when an item is not found, and otherwise the low byte of the errSec code, \
      as on macOS; 64 for a usage error (an unknown option, a missing value, an argument that is not UTF-8). \
      -w given last to add-generic-password or add-internet-password asks for the password (without echo on \
      a terminal, one line of standard input otherwise), as on macOS.
      """,
    version: "security (KeychainBridge) \(SecurityTool.version)",
    subcommands: [
      AddGenericPassword.self, FindGenericPassword.self, DeleteGenericPassword.self, AddInternetPassword.self,
      FindInternetPassword.self, DeleteInternetPassword.self, DumpKeychain.self, LockKeychain.self,
      UnlockKeychain.self, CreateKeychain.self, DefaultKeychain.self, ShowKeychainInfo.self, ExportKeychain.self,
      ImportKeychain.self, ImportGnomeKeyring.self, SyncGroupCommand.self,
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

/// `-k PATH`, or the keychain as the last argument as macOS takes it: the store to use instead of
/// the default.
struct StoreOption: ParsableArguments {
  @Option(
    name: .customShort("k"),
    help: ArgumentHelp(
      "The keychain store directory (default: $KEYCHAIN_BRIDGE_HOME, else $XDG_DATA_HOME/keychain-bridge, "
        + "else ~/.local/share/keychain-bridge).", valueName: "path"))
  var keychainOption: String?

  @Argument(
    help: ArgumentHelp("The keychain store directory, as macOS takes it (instead of -k).", valueName: "keychain"))
  var keychainArgument: String?

  /// The store given, by -k or as the last argument.
  var keychain: String? {
    get { keychainOption ?? keychainArgument }
    set { keychainOption = newValue }
  }

  func validate() throws {
    if keychainOption != nil && keychainArgument != nil {
      throw ValidationError("give the keychain either with -k or as the last argument, not both")
    }
    if keychain?.isEmpty == true {
      throw ValidationError("-k needs a keychain path; an empty path would open a store in the current directory.")
    }
  }

  /// Opens the store (creating it on first use) and makes it the default of this process.
  ///
  /// No agent keeps a store unlocked between commands, so a passphrase store that is still sealed
  /// (KEYCHAIN_BRIDGE_PASSPHRASE did not open it) is unlocked here: with a passphrase asked for on
  /// the terminal, and when there is no terminal the command fails saying how to give one.
  /// `unlocking: false` leaves it sealed, for the commands that work on a sealed store.
  func open(unlocking: Bool = true) throws -> KeychainStore {
    // -k names a store this process opens; without it the default store is used, which is the
    // agent's when KEYCHAIN_BRIDGE_AGENT names one.
    if let keychain { KeychainStore.setDefaultDirectory(URL(fileURLWithPath: keychain, isDirectory: true)) }
    let store: KeychainStore
    do {
      store = try KeychainStore.default()
    } catch {
      let place =
        keychain ?? ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_AGENT"].flatMap { $0.isEmpty ? nil : $0 }
        ?? KeychainStore.defaultDirectory.path
      throw CommandFailure(operation: "open \(place)", status: error.status, detail: error.message)
    }
    let directory = store.directory
    guard unlocking, store.hasPassphrase, store.isLocked else { return store }
    guard let passphrase = promptForPassword("password to unlock \(directory.path): ") else {
      throw CommandFailure(
        operation: "open \(directory.path)", status: errSecInteractionNotAllowed,
        detail: Self.noPassphraseGiven(directory))
    }
    let status = store.unlock(passphrase: passphrase)
    guard status == errSecSuccess else {
      throw CommandFailure(operation: "SecKeychainUnlock \(directory.path)", status: status, detail: nil)
    }
    return store
  }

  /// Why a passphrase store could not be opened without a terminal, and what to do instead.
  static func noPassphraseGiven(_ directory: URL) -> String {
    "\(directory.path) is protected by a passphrase and none was given: run the command on a terminal to be "
      + "asked for it, or set KEYCHAIN_BRIDGE_PASSPHRASE (readable by anyone who can read this process's environment)"
  }
}

/// A failed command: one line on standard error naming the errSec code, and macOS's exit status.
struct CommandFailure: Error, CustomStringConvertible {
  var operation: String
  var status: OSStatus
  var detail: String?

  var description: String {
    let name = SecStatusCodeName(status).map { "\($0) (\(status))" } ?? "OSStatus \(status)"
    let message = detail ?? (SecCopyErrorMessageString(status, nil) as String?) ?? ""
    return "security: \(operation): \(name): \(message)"
  }

  /// The low byte of the status, as macOS's tool exits (errSecItemNotFound gives 44).
  var exitCode: Int32 { Int32(UInt8(truncatingIfNeeded: status)) }
}

/// Runs a command body, turning failures into macOS's message and exit status.
func runReportingFailures(_ body: () throws -> Void) throws {
  do {
    try body()
  } catch let failure as CommandFailure {
    FileHandle.standardError.write(Data((failure.description + "\n").utf8))
    throw ExitCode(failure.exitCode == 0 ? 1 : failure.exitCode)
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

/// Reads a password from the terminal without echoing it; nil when standard input is not a
/// terminal. Input that `StandardInput` refuses ends the tool with exit 64, after the terminal's
/// echo is restored.
func promptForPassword(_ prompt: String, what: String = "the password") -> String? {
  guard isatty(STDIN_FILENO) == 1 else { return nil }
  FileHandle.standardError.write(Data(prompt.utf8))
  var settings = termios()
  tcgetattr(STDIN_FILENO, &settings)
  var silent = settings
  silent.c_lflag &= ~tcflag_t(ECHO)
  tcsetattr(STDIN_FILENO, TCSANOW, &silent)
  let line: Result<String, StandardInput.Refusal>
  do throws(StandardInput.Refusal) {
    line = .success(try StandardInput.line())
  } catch {
    line = .failure(error)
  }
  tcsetattr(STDIN_FILENO, TCSANOW, &settings)
  FileHandle.standardError.write(Data("\n".utf8))
  switch line {
  case .success(let text): return text
  case .failure(let refusal): StandardInput.refuse(refusal, what)
  }
}

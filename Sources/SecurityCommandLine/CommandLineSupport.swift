import ArgumentParser
import Foundation
import Security

#if canImport(Glibc)
  import Glibc
#endif

// What the `security` and `security-sync` tools share: the store option, macOS's failure line and
// exit status, and passwords read without echo. A library of its own so that `security` need not
// link the sync tool's PostgreSQL client (issue 52).

/// `-k PATH`, or the keychain as the last argument as macOS takes it: the store to use instead of
/// the default.
package struct StoreOption: ParsableArguments {
  package init() {}

  @Option(
    name: .customShort("k"),
    help: ArgumentHelp(
      "The keychain store directory (default: $KEYCHAIN_BRIDGE_HOME, else $XDG_DATA_HOME/keychain-bridge, "
        + "else ~/.local/share/keychain-bridge).", valueName: "path"))
  package var keychainOption: String?

  @Argument(
    help: ArgumentHelp("The keychain store directory, as macOS takes it (instead of -k).", valueName: "keychain"))
  package var keychainArgument: String?

  /// The store given, by -k or as the last argument.
  package var keychain: String? {
    get { keychainOption ?? keychainArgument }
    set { keychainOption = newValue }
  }

  package func validate() throws {
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
  package func open(unlocking: Bool = true) throws -> KeychainStore {
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
        detail: Self.noPassphraseGiven(store))
    }
    let status = store.unlock(passphrase: passphrase)
    guard status == errSecSuccess else {
      throw CommandFailure(operation: "SecKeychainUnlock \(directory.path)", status: status, detail: nil)
    }
    return store
  }

  /// Why a passphrase store could not be opened without a terminal, and what to do instead. A
  /// store an agent serves is unlocked through the agent: the environment of this process would
  /// not reach it.
  package static func noPassphraseGiven(_ store: KeychainStore) -> String {
    guard let socket = store.agentSocketPath else {
      return "the store in \(store.directory.path) is protected by a passphrase and none was given: run the command "
        + "on a terminal to be asked for it, name an askpass program in KEYCHAIN_BRIDGE_ASKPASS, or set "
        + "KEYCHAIN_BRIDGE_PASSPHRASE (readable by anyone who can read this process's environment)"
    }
    return "the keychain agent at \(socket) serves a locked passphrase store: unlock it with "
      + "`security unlock-keychain` on a terminal, with -p PASSPHRASE, or with an askpass program in "
      + "KEYCHAIN_BRIDGE_ASKPASS"
  }
}

/// A failed command: one line on standard error naming the errSec code, and macOS's exit status.
package struct CommandFailure: Error, CustomStringConvertible {
  package var operation: String
  package var status: OSStatus
  package var detail: String?

  /// The failure of `operation` with `status`, explained by `detail` (else the status's sentence).
  package init(operation: String, status: OSStatus, detail: String?) {
    self.operation = operation
    self.status = status
    self.detail = detail
  }

  package var description: String {
    let name = SecStatusCodeName(status).map { "\($0) (\(status))" } ?? "OSStatus \(status)"
    let message = detail ?? (SecCopyErrorMessageString(status, nil) as String?) ?? ""
    return "security: \(operation): \(name): \(message)"
  }

  /// The low byte of the status, as macOS's tool exits (errSecItemNotFound gives 44).
  package var exitCode: Int32 { Int32(UInt8(truncatingIfNeeded: status)) }
}

/// Runs a command body, turning failures into macOS's message and exit status.
package func runReportingFailures(_ body: () throws -> Void) throws {
  do {
    try body()
  } catch let failure as CommandFailure {
    FileHandle.standardError.write(Data((failure.description + "\n").utf8))
    throw ExitCode(failure.exitCode == 0 ? 1 : failure.exitCode)
  }
}

/// A passphrase not given as an option (a backup's -P, a sync group's -p): asked for on a terminal,
/// else one line of input.
package enum CommandPassphrase {
  /// A passphrase asked for on a terminal (twice when `confirming`), or read as one line of standard
  /// input; an empty one is refused with `missing` as the reason.
  package static func ask(
    confirming: Bool, operation: String, prompt: String = "passphrase for the backup: ",
    missing: String = "A backup needs a passphrase: give -P, type it on a terminal, or pipe it as one line."
  ) throws -> String {
    let passphrase: String?
    if isatty(STDIN_FILENO) == 1 {
      passphrase = promptForPassword(prompt, what: "the passphrase")
      if confirming, let passphrase, promptForPassword("passphrase again: ", what: "the passphrase") != passphrase {
        throw CommandFailure(operation: operation, status: errSecParam, detail: "The two passphrases differ.")
      }
    } else {
      do throws(StandardInput.Refusal) {
        passphrase = try StandardInput.line()
      } catch .empty {
        passphrase = nil
      } catch {
        StandardInput.refuse(error, "the passphrase")
      }
    }
    guard let passphrase, !passphrase.isEmpty else {
      throw CommandFailure(operation: operation, status: errSecParam, detail: missing)
    }
    return passphrase
  }
}

/// Reads a password from the terminal without echoing it; nil when standard input is not a
/// terminal. Input that `StandardInput` refuses ends the tool with exit 64, after the terminal's
/// echo is restored.
package func promptForPassword(_ prompt: String, what: String = "the password") -> String? {
  guard isatty(STDIN_FILENO) == 1 else {
    // Without a terminal the askpass program the environment names asks, as the library's own
    // prompts do (KEYCHAIN_BRIDGE_ASKPASS, OpenSSH's convention); without one, nothing can.
    guard ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_ASKPASS"]?.isEmpty == false,
      var bytes = try? PassphrasePrompt.fromEnvironment().answer(prompt)
    else { return nil }
    defer { Secrets.wipe(&bytes) }
    return String(decoding: bytes, as: UTF8.self)
  }
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

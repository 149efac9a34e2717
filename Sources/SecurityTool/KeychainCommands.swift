import ArgumentParser
import Foundation
import Keychain
import Security
import SecurityCommandLine

struct DumpKeychain: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dump-keychain", abstract: "Print every item of the keychain.")

  @OptionGroup var store: StoreOption
  @Flag(name: .customShort("d"), help: "Also print each item's data.") var withData = false

  func run() throws {
    try runReportingFailures {
      let opened = try store.open()
      let path = opened.directory.path
      let synchronizable = SynchronizableFilter.any
      for item in try GenericPassword().synchronizable(synchronizable).all(includingData: withData).orFail(
        "dump-keychain")
      {
        printLines(ItemFormatting.lines(item, store: path))
        if withData { print("data:\n\(ItemFormatting.blob(item.data))") }
      }
      for item in try InternetPassword().synchronizable(synchronizable).all(includingData: withData).orFail(
        "dump-keychain")
      {
        printLines(ItemFormatting.lines(item, store: path))
        if withData { print("data:\n\(ItemFormatting.blob(item.data))") }
      }
      // Keys and certificates too, as on macOS (an identity is its certificate and its key); a
      // key's data is never printed.
      for item in try CertificateQuery().synchronizable(synchronizable).all().orFail("dump-keychain") {
        printLines(ItemFormatting.lines(item, store: path))
      }
      for item in try KeyQuery().synchronizable(synchronizable).all().orFail("dump-keychain") {
        printLines(ItemFormatting.lines(item, store: path))
      }
    }
  }
}

struct LockKeychain: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "lock-keychain",
    abstract: "Lock the keychain.",
    discussion: """
      With KEYCHAIN_BRIDGE_AGENT set, the agent (keychaind) drops its key material, and every program it \
      serves sees the store locked until unlock-keychain. Without an agent the lock drops the key material \
      from this process's memory only, and every command starts from the store's files: a passphrase store \
      is locked until a command is given its passphrase, a key-file store is unlocked by its key file.
      """)

  @OptionGroup var store: StoreOption

  func run() throws {
    try runReportingFailures {
      let opened = try store.open(unlocking: false)
      opened.lock()
      if opened.agentSocketPath == nil {
        // On macOS the lock outlives the command; here, without an agent, it cannot: say so.
        FileHandle.standardError.write(
          Data(
            ("security: lock-keychain: no agent holds \(opened.directory.path), so it was locked for this command "
              + "only; the next command opens it from its files again. Start keychaind and set "
              + "KEYCHAIN_BRIDGE_AGENT to keep it locked for every program.\n").utf8))
      }
    }
  }
}

struct UnlockKeychain: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "unlock-keychain",
    abstract: "Unlock the keychain: check its passphrase (prompted for, without echo, when -p is not given).")

  @OptionGroup var store: StoreOption
  @Option(name: .customShort("p"), help: "The passphrase.") var password: String?
  func run() throws {
    try runReportingFailures {
      let opened = try store.open(unlocking: false)
      guard opened.hasPassphrase || password == nil else {
        throw CommandFailure(
          operation: "SecKeychainUnlock \(opened.directory.path)", status: errSecParam,
          detail: "This keychain has no passphrase: its key file opens it. Leave out -p.")
      }
      guard opened.isLocked else { return }
      // A key-file store the agent keeps locked opens with its key file: no passphrase to ask.
      guard opened.hasPassphrase else {
        let status = opened.unlock()
        guard status == errSecSuccess else {
          throw CommandFailure(operation: "SecKeychainUnlock \(opened.directory.path)", status: status, detail: nil)
        }
        return
      }
      guard let passphrase = password ?? promptForPassword("password to unlock \(opened.directory.path): ") else {
        throw CommandFailure(
          operation: "SecKeychainUnlock \(opened.directory.path)", status: errSecInteractionNotAllowed,
          detail: StoreOption.noPassphraseGiven(opened))
      }
      let status = opened.unlock(passphrase: passphrase)
      guard status == errSecSuccess else {
        throw CommandFailure(operation: "SecKeychainUnlock \(opened.directory.path)", status: status, detail: nil)
      }
    }
  }
}

struct CreateKeychain: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create-keychain", abstract: "Create a keychain store in a new directory.",
    discussion: "The store is the directory given as the argument, as on macOS; -k is not taken.")

  @Option(name: .customShort("p"), help: "Protect the store with this passphrase (otherwise a key file).")
  var password: String?
  @Flag(name: .customShort("P"), help: "Prompt for the passphrase.") var prompt = false
  @Argument(help: "The store's directory.") var path: String

  func run() throws {
    try runReportingFailures {
      let directory = URL(fileURLWithPath: path, isDirectory: true)
      if FileManager.default.fileExists(atPath: directory.appendingPathComponent("keychain.db").path) {
        throw CommandFailure(operation: "SecKeychainCreate \(path)", status: errSecDuplicateKeychain, detail: nil)
      }
      let passphrase = password ?? (prompt ? promptForPassword("password for new keychain: ") : nil)
      do throws(KeychainStoreError) {
        _ = try KeychainStore(directory: directory, passphrase: passphrase)
      } catch {
        throw CommandFailure(operation: "SecKeychainCreate \(path)", status: error.status, detail: error.message)
      }
    }
  }
}

struct DefaultKeychain: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "default-keychain",
    abstract: "Print the default keychain.",
    discussion: """
      The default keychain is the store $KEYCHAIN_BRIDGE_HOME names, else $XDG_DATA_HOME/keychain-bridge, else \
      ~/.local/share/keychain-bridge. -k is not taken; -s prints the command that sets the default.
      """)

  @Option(name: .customShort("s"), help: ArgumentHelp("The store to make the default.", valueName: "path"))
  var set: String?

  func run() throws {
    if let set {
      let path = URL(fileURLWithPath: set, isDirectory: true).standardizedFileURL.path
      FileHandle.standardError.write(
        Data(
          "security: the default keychain is chosen by the environment; run: export KEYCHAIN_BRIDGE_HOME=\"\(path)\"\n"
            .utf8))
      throw ExitCode(1)
    }
    print("    \"\(KeychainStore.defaultDirectory.path)\"")
  }
}

struct ShowKeychainInfo: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show-keychain-info", abstract: "Show the keychain's settings.")

  @OptionGroup var store: StoreOption

  func run() throws {
    try runReportingFailures {
      let opened = try store.open(unlocking: false)
      let protection = opened.hasPassphrase ? "passphrase" : "key file"
      if let agent = opened.agentSocketPath {
        let timeout = opened.idleLockTimeout.map { "timeout=\($0)s" } ?? "no-timeout"
        print(
          "Keychain served by agent \"\(agent)\" \(opened.isLocked ? "locked" : "unlocked") \(timeout) "
            + "protection=\(protection)")
      } else {
        print("Keychain \"\(opened.directory.path)\" no-timeout protection=\(protection)")
      }
      // A sealed passphrase store cannot be checked; its settings line is all there is to show.
      if let report = try? opened.checkIntegrity() {
        print("items=\(report.checkedItems) damaged=\(report.damagedItems)")
        if report.damagedItems > 0 {
          FileHandle.standardError.write(
            Data(
              ("security: \(report.damagedItems) item(s) failed authentication (altered or damaged on disk); "
                + "searches skip them\n").utf8))
        }
      }
    }
  }
}

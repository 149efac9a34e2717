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
    _ = try store.open()
    var keyring: GnomeKeyringFile
    if GnomeKeyringFile.isTextual(contents) {
      // A keyring GNOME keeps without a password is text: there is nothing to ask for.
      do throws(GnomeKeyringFile.ReadError) {
        keyring = try GnomeKeyringFile(textual: contents)
      } catch {
        throw CommandFailure(
          operation: operation, status: errSecDecode, detail: "\(input) cannot be imported: \(error).")
      }
    } else {
      let typed: String
      if let password {
        typed = password
      } else {
        typed = try CommandPassphrase.ask(
          confirming: false, operation: operation, prompt: "password of the GNOME keyring: ",
          missing: "A keyring file needs its password: give -P, type it on a terminal, or pipe it as one line.")
      }
      var secret = Array(typed.utf8)
      defer { Secrets.wipe(&secret) }
      do throws(GnomeKeyringFile.ReadError) {
        keyring = try GnomeKeyringFile(contents: contents, password: secret)
      } catch {
        throw CommandFailure(
          operation: operation, status: error == .wrongPassword ? errSecAuthFailed : errSecDecode,
          detail: "\(input) cannot be imported: \(error).")
      }
    }
    defer { for index in keyring.items.indices { Secrets.wipe(&keyring.items[index].secret) } }
    var added = 0
    var duplicates = 0
    do throws(SecStatus) {
      let engine = try SecItemEngine.forCurrentCall()
      for item in keyring.items {
        if try Self.holds(item, engine: engine) {
          duplicates += 1
          continue
        }
        try Self.add(item, engine: engine)
        added += 1
      }
    } catch {
      throw CommandFailure(
        operation: operation, status: error.code,
        detail: error.detail.map { "\($0) (\(added) item(s) were imported before this one)" })
    }
    print("imported \(added) item(s) of the keyring “\(keyring.label)”; skipped \(duplicates) duplicate(s)")
  }

  /// The file's bytes, refused before reading when it is not a regular file or is too long.
  static func read(_ path: String, operation: String) throws -> [UInt8] {
    Array(
      try ToolFiles.read(path, maximumLength: GnomeKeyringFile.maximumLength, operation: operation, what: "a keyring"))
  }

  /// Whether the default collection holds an item with `item`'s attributes and secret.
  static func holds(_ item: GnomeKeyringFile.Item, engine: SecItemEngine) throws(SecStatus) -> Bool {
    let (service, account) = SecretServiceAttributes.serviceAndAccount(of: item.attributes)
    let query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword,
      kSecAttrAccessGroup as String: KeychainAccessGroups.defaultAccessGroup,
      kSecAttrService as String: service, kSecAttrAccount as String: account,
      kSecMatchLimit as String: kSecMatchLimitAll,
      kSecReturnAttributes as String: true, kSecReturnData as String: true,
    ]
    do {
      let found = try engine.copyMatching(try ItemRequest.reading(query as NSDictionary), foundationValues: true)
      let rows = (found as? [Any] ?? []).compactMap { $0 as? [String: Any] }
      return rows.contains { row in
        (row[kSecAttrGeneric as String] as? Data).flatMap(SecretServiceAttributes.decoded) == item.attributes
          && (row[kSecValueData as String] as? Data).map(Array.init) == item.secret
      }
    } catch  where error.code == errSecItemNotFound {
      return false
    }
  }

  /// Adds `item`, dated as the keyring dated it: created at its creation time by an engine whose
  /// clock says so, then touched at its modification time.
  static func add(_ item: GnomeKeyringFile.Item, engine: SecItemEngine) throws(SecStatus) {
    func dated(_ date: Date) -> SecItemEngine {
      SecItemEngine(
        store: engine.store, accessGroups: engine.accessGroups, authenticator: engine.authenticator,
        backend: engine.backend, clock: { date })
    }
    var addition = SecretServiceAttributes.addition(
      group: KeychainAccessGroups.defaultAccessGroup, label: item.label, attributes: item.attributes,
      secret: Data(item.secret))
    let stored: StoredItem
    do {
      stored = try dated(item.created).add(try ItemRequest.reading(addition as NSDictionary))
    } catch  where error.code == errSecDuplicateItem {
      // Another item has this service and account: told apart as the Secret Service does.
      addition[kSecAttrSyncViewHint as String] = SecretServiceAttributes.distinctViewHint()
      stored = try dated(item.created).add(try ItemRequest.reading(addition as NSDictionary))
    }
    if item.modified != item.created {
      let itself: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecValuePersistentRef as String: ItemReference.bytes(of: .genericPassword, uuid: stored.persistentID),
      ]
      try dated(item.modified).update(
        try ItemRequest.reading(itself as NSDictionary), changes: [(kSecAttrLabel as String, .string(item.label))])
    }
  }
}

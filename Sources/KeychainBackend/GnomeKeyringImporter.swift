import Foundation
@_spi(KeychainBridge) import Security

/// Moves the items of a GNOME Keyring file into a keychain, as the Secret Service keeps them: a
/// generic password of the default collection with the item's attributes, label and secret,
/// dated as the keyring dated it. The `security` tool runs it over a store it opened; the agent
/// runs it for the tool over the store it holds, from the file's bytes, so what it stores (the
/// dates included) comes from the file, never from the client's rows.
package enum GnomeKeyringImporter {
  /// What an import did.
  package struct Outcome: Sendable, Equatable {
    /// The keyring's name.
    package var label: String
    /// How many items were added.
    package var added: Int
    /// How many the keychain already held with the same attributes and secret.
    package var duplicates: Int

    /// The counts of an import.
    package init(label: String, added: Int, duplicates: Int) {
      self.label = label
      self.added = added
      self.duplicates = duplicates
    }
  }

  /// The keyring in `contents`: read as text when GNOME kept it so (an empty password), else
  /// opened with `password`. errSecAuthFailed for a wrong or missing password, errSecDecode for
  /// bytes that are no keyring or are damaged; the detail says which.
  package static func read(_ contents: [UInt8], password: [UInt8]?) throws(SecStatus) -> GnomeKeyringFile {
    let textual = GnomeKeyringFile.isTextual(contents)
    guard textual || password != nil else {
      throw SecStatus(errSecAuthFailed, detail: "a keyring file with a password needs it")
    }
    do throws(GnomeKeyringFile.ReadError) {
      if textual { return try GnomeKeyringFile(textual: contents) }
      return try GnomeKeyringFile(contents: contents, password: password ?? [])
    } catch {
      throw SecStatus(error == .wrongPassword ? errSecAuthFailed : errSecDecode, detail: "\(error)")
    }
  }

  /// Adds every item of `keyring` that `engine`'s store does not already hold, in order; a
  /// failure names how many were added before it.
  package static func importItems(_ keyring: GnomeKeyringFile, into engine: SecItemEngine) throws(SecStatus)
    -> Outcome
  {
    var outcome = Outcome(label: keyring.label, added: 0, duplicates: 0)
    do throws(SecStatus) {
      for item in keyring.items {
        if try holds(item, engine) {
          outcome.duplicates += 1
          continue
        }
        try add(item, engine)
        outcome.added += 1
      }
    } catch {
      throw SecStatus(
        error.code,
        detail:
          "\(error.detail ?? secMessage(for: error.code)) (\(outcome.added) item(s) were imported before this one)")
    }
    return outcome
  }

  /// Whether the default collection holds an item with `item`'s attributes and secret.
  private static func holds(_ item: GnomeKeyringFile.Item, _ engine: SecItemEngine) throws(SecStatus) -> Bool {
    let (service, account) = SecretServiceAttributes.serviceAndAccount(of: item.attributes)
    let query: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword,
      SecConstantValue.attrAccessGroup: KeychainAccessGroups.defaultAccessGroup,
      SecConstantValue.attrService: service, SecConstantValue.attrAccount: account,
      SecConstantValue.matchLimit: SecConstantValue.matchLimitAll,
      SecConstantValue.returnAttributes: true, SecConstantValue.returnData: true,
    ]
    let rows = try engine.searchedItems(try ItemRequest.reading(query as NSDictionary))
    return rows.contains { row in
      row.data(SecConstantValue.attrGeneric).flatMap(SecretServiceAttributes.decoded) == item.attributes
        && row.data.map(Array.init) == item.secret
    }
  }

  /// Adds `item`, dated as the keyring dated it: created at its creation time by an engine whose
  /// clock says so, then touched at its modification time.
  private static func add(_ item: GnomeKeyringFile.Item, _ engine: SecItemEngine) throws(SecStatus) {
    let created = item.created
    let modified = item.modified
    var addition = SecretServiceAttributes.addition(
      group: KeychainAccessGroups.defaultAccessGroup, label: item.label, attributes: item.attributes,
      secret: Data(item.secret))
    let stored: StoredItem
    do {
      stored = try engine.dated { created }.add(try ItemRequest.reading(addition as NSDictionary))
    } catch  where error.code == errSecDuplicateItem {
      // Another item has this service and account: told apart as the Secret Service does.
      addition[SecConstantValue.attrSyncViewHint] = SecretServiceAttributes.distinctViewHint()
      stored = try engine.dated { created }.add(try ItemRequest.reading(addition as NSDictionary))
    }
    guard modified != created else { return }
    let itself: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword,
      SecConstantValue.valuePersistentRef: ItemReference.bytes(of: .genericPassword, uuid: stored.persistentID),
    ]
    try engine.dated { modified }.update(
      try ItemRequest.reading(itself as NSDictionary), changes: [(SecConstantValue.attrLabel, .string(item.label))])
  }
}

import Foundation

// Apple's backup rule: a backup carries every item that may leave the device, and an item whose
// accessibility ends in ThisDeviceOnly never does. The payload is a binary property list (Apple's
// own format for such archives) of the items' complete attributes, access control and data; the
// linked backend seals it under a passphrase (SecurityBackend.sealBackup: scrypt and AES-256-GCM).

/// A sealed backup of a keychain store, as `SecKeychainExportBackup` made it.
package struct SecKeychainBackup: Sendable {
  /// The backup file's bytes: sealed, safe to store anywhere the passphrase is not.
  public let file: Data
  /// How many items the backup holds.
  public let exportedItems: Int
  /// How many items were left out because their accessibility ends in ThisDeviceOnly.
  public let skippedThisDeviceOnlyItems: Int

  /// A backup and its counts.
  package init(file: Data, exportedItems: Int, skippedThisDeviceOnlyItems: Int) {
    self.file = file
    self.exportedItems = exportedItems
    self.skippedThisDeviceOnlyItems = skippedThisDeviceOnlyItems
  }
}

/// What `SecKeychainImportBackup` did with each item of a backup.
package struct SecKeychainRestoreReport: Sendable, Equatable {
  /// How many items were added to the store.
  public let addedItems: Int
  /// How many items were left out because the store already holds an item with their primary key.
  public let duplicateItems: Int
  /// How many items this store or process cannot take, each with its reason in `rejections`.
  public var rejectedItems: Int { rejections.count }
  /// Why each rejected item was refused, naming its class and position, never a value.
  public let rejections: [String]

  package init(addedItems: Int, duplicateItems: Int, rejections: [String]) {
    self.addedItems = addedItems
    self.duplicateItems = duplicateItems
    self.rejections = rejections
  }
}

/// Seals every item of the current store (the default store, or the one `withKeychainContext`
/// names) that this process's access groups can read and that may leave the device, under a key
/// derived from `passphrase`.
///
/// Fails with errSecInteractionNotAllowed while the store is locked (the secrets could not be
/// read), errSecMissingEntitlement when the process has no access group, and the store's status
/// when it cannot be read. Every failure's reason is also given to `SecCopyErrorMessageString`.
package func SecKeychainExportBackup(passphrase: String) -> Result<SecKeychainBackup, KeychainStoreError> {
  KeychainBackups.run { service throws(SecStatus) in try service.exportBackup(passphrase: passphrase) }
}

/// Restores the items of a backup `SecKeychainExportBackup` made into the current store, in one
/// transaction.
///
/// Items whose primary key the store already holds are left as they are and counted as
/// duplicates; items this store or process cannot take (an access group the process lacks, a
/// ThisDeviceOnly item in a file not written by SecKeychainExportBackup) are rejected and
/// counted, and the rest are added. A wrong passphrase or an altered file fails with
/// errSecAuthFailed, bytes that are no backup or are cut short with errSecDecode, and then nothing
/// is added.
package func SecKeychainImportBackup(_ file: Data, passphrase: String)
  -> Result<SecKeychainRestoreReport, KeychainStoreError>
{
  KeychainBackups.run { service throws(SecStatus) in try service.importBackup(file, passphrase: passphrase) }
}

/// The backup calls as the engine runs them, and their failure reporting at the CF edge.
enum KeychainBackups {
  /// Every item of `engine`'s groups that may leave the device, sealed under `passphrase`. Where an
  /// item asks for the user and the store has a passphrase (so there is a presence to prove), the
  /// user proves it once first, as reading that item's secret would ask.
  static func export(passphrase: String, _ engine: SecItemEngine) throws(SecStatus) -> SecKeychainBackup {
    if engine.storage.isLocked {
      throw SecStatus(
        errSecInteractionNotAllowed, detail: "Backup: the store is locked; unlock it to export its secrets")
    }
    let (items, skipped) = try exportedItems(engine)
    if engine.storage.hasPassphrase, items.contains(where: \.asksForUser) {
      do throws(UserAuthenticationFailure) {
        try engine.authenticator.authenticateUser(
          reason: "export the keychain's items", caller: engine.programName, reuse: 0)
      } catch {
        throw error.status
      }
    }
    let plaintext = try BackupPayload(items: items).encoded()
    let file = try engine.backend.sealBackup(plaintext, passphrase: passphrase)
    return SecKeychainBackup(file: file, exportedItems: items.count, skippedThisDeviceOnlyItems: skipped)
  }

  /// The items of `engine`'s store a backup holds, and how many ThisDeviceOnly ones it leaves out.
  private static func exportedItems(_ engine: SecItemEngine) throws(SecStatus) -> ([BackupPayload.Item], Int) {
    var items: [BackupPayload.Item] = []
    var skipped = 0
    for itemClass in ItemClass.allCases where itemClass.isImplemented {
      var filter = ItemFilter(itemClass: itemClass)
      filter.accessGroups = engine.accessGroups.contains("*") ? nil : engine.accessGroups
      filter.synchronizable = nil
      let fetch = ItemFetch(attributes: true, data: true, accessControl: true)
      for item in try engine.storage.find(filter, limit: nil, fetch: fetch) {
        guard case .string(let protection)? = item.attributes[SecConstantValue.attrAccessible],
          !BackupPayload.deviceOnlyProtections.contains(protection)
        else {
          skipped += 1
          continue
        }
        items.append(BackupPayload.Item(item))
      }
    }
    return (items, skipped)
  }

  /// Restores `file` into `engine`'s store in one transaction (see `SecKeychainImportBackup`).
  static func restore(_ file: Data, passphrase: String, _ engine: SecItemEngine) throws(SecStatus)
    -> SecKeychainRestoreReport
  {
    let payload = try BackupPayload(decoding: try engine.backend.openBackup(file, passphrase: passphrase))
    var prepared: [NewItem] = []
    var rejections: [String] = []
    for (position, item) in payload.items.enumerated() {
      do throws(SecStatus) {
        prepared.append(try item.newItem(engine))
      } catch {
        let reason = error.detail ?? secMessage(for: error.code)
        rejections.append("item \(position + 1) (class \(item.itemClass)): \(reason)")
      }
    }
    let added = try engine.storage.insertBatch(prepared, skippingDuplicates: true)
    return SecKeychainRestoreReport(addedItems: added, duplicateItems: prepared.count - added, rejections: rejections)
  }

  /// Runs a backup call on the current call's service, as SecItemCall runs the SecItem ones.
  static func run<Value>(_ body: (any SecItemService) throws(SecStatus) -> Value) -> Result<Value, KeychainStoreError> {
    SecItemFailureDetail.clear()
    do throws(SecStatus) {
      let service: any SecItemService
      do {
        service = try SecItemServices.forCurrentCall()
      } catch  where error.code == errSecMissingEntitlement {
        throw SecStatus(errSecMissingEntitlement, detail: "Backup: the process has no access group")
      }
      return .success(try body(service))
    } catch {
      SecItemFailureDetail.record(error)
      let message = error.detail.map { "\(secMessage(for: error.code)) \($0)." } ?? secMessage(for: error.code)
      return .failure(KeychainStoreError(status: error.code, message: message))
    }
  }
}

/// The plaintext of a backup: a format version and the items, as a binary property list.
package struct BackupPayload: Codable {
  /// The accessibility values of items that never leave the device.
  package static let deviceOnlyProtections: Set<String> = [
    SecConstantValue.attrAccessibleWhenUnlockedThisDeviceOnly,
    SecConstantValue.attrAccessibleAfterFirstUnlockThisDeviceOnly,
    SecConstantValue.attrAccessibleAlwaysThisDeviceOnly,
    SecConstantValue.attrAccessibleWhenPasscodeSetThisDeviceOnly,
  ]

  static let currentVersion = 1

  var version: Int
  var items: [Item]

  init(items: [Item]) {
    version = Self.currentVersion
    self.items = items
  }

  init(decoding plaintext: Data) throws(SecStatus) {
    do {
      self = try PropertyListDecoder().decode(BackupPayload.self, from: plaintext)
    } catch {
      // The file authenticated, so it was written by a version whose payload this one cannot read.
      throw SecStatus(errSecDecode, detail: "Backup: the contents are in a format this version cannot read")
    }
    guard version == Self.currentVersion else {
      throw SecStatus(
        errSecDecode, detail: "Backup: the contents are format \(version), which this version cannot read")
    }
  }

  func encoded() throws(SecStatus) -> Data {
    let encoder = PropertyListEncoder()
    encoder.outputFormat = .binary
    do {
      return try encoder.encode(self)
    } catch {
      throw SecStatus(errSecInternalComponent, detail: "Backup: the items could not be encoded")
    }
  }

  /// One item: its class, every attribute with the type it was stored with, its access control
  /// and its secret.
  package struct Item: Codable {
    package var itemClass: String
    package var attributes: [String: Value]
    package var accessControlProtection: String?
    package var accessControlFlags: UInt64?
    package var data: Data?

    package init(
      itemClass: String, attributes: [String: Value], accessControlProtection: String?, accessControlFlags: UInt64?,
      data: Data?
    ) {
      self.itemClass = itemClass
      self.attributes = attributes
      self.accessControlProtection = accessControlProtection
      self.accessControlFlags = accessControlFlags
      self.data = data
    }

    /// The values the store assigns afresh to every item it adds.
    private static let reassigned: Set<String> = [
      SecConstantValue.attrUUID, SecConstantValue.attrPersistentReference, SecConstantValue.attrTombstone,
      SecConstantValue.attrMultiUser, SecConstantValue.attrSHA1,
    ]

    /// Whether the item's access control asks for the user.
    var asksForUser: Bool {
      accessControlFlags.map { SecAccessControlCreateFlags(rawValue: .init(truncatingIfNeeded: $0)) }
        .map { SecAccessControl(protection: accessControlProtection ?? "", flags: $0).asksForUserProof } == true
    }

    package init(_ item: StoredItem) {
      itemClass = item.itemClass.rawValue
      attributes = [:]
      for (key, value) in item.attributes where !Self.reassigned.contains(key) { attributes[key] = Value(value) }
      accessControlProtection = item.accessControl?.protection
      accessControlFlags = item.accessControl.map { UInt64($0.flags.rawValue) }
      data = item.data
    }

    /// The item as a replicator adds it outside any call (sync): checked and completed with
    /// `backend`'s fingerprint, no process's access groups checked (the item is the user's).
    package func newItem(backend: any SecurityBackend) throws(SecStatus) -> NewItem {
      try newItem(checkingGroupsOf: nil, backend: backend, at: Date())
    }

    /// The item as `engine`'s store adds it in a restore, checked by the rules SecItemAdd applies
    /// (the caller's access groups included); the dates it was created and modified with are kept,
    /// as a restore should.
    func newItem(_ engine: SecItemEngine) throws(SecStatus) -> NewItem {
      try newItem(checkingGroupsOf: engine, backend: engine.backend, at: engine.clock())
    }

    private func newItem(checkingGroupsOf engine: SecItemEngine?, backend: any SecurityBackend, at now: Date)
      throws(SecStatus) -> NewItem
    {
      guard let itemClass = ItemClass(rawValue: itemClass), itemClass.isImplemented else {
        throw SecStatus(errSecNoSuchClass, detail: "this store does not keep items of this class")
      }
      var values: [String: AttributeValue] = [:]
      for (key, value) in attributes where !Self.reassigned.contains(key) {
        guard let definition = ItemSchema.attribute(key, of: itemClass), definition.ownership != .unsupported else {
          throw SecStatus(errSecNoSuchAttr, detail: "the attribute \(key) is not one of its class")
        }
        values[key] = value.attributeValue
      }
      // WhenPasscodeSet exists only as ThisDeviceOnly, so this also keeps out items that need a passcode.
      guard case .string(let protection)? = values[SecConstantValue.attrAccessible],
        ItemIndex.protectionClasses[protection] != nil
      else { throw SecStatus(errSecDecode, detail: "it has no valid accessibility") }
      if BackupPayload.deviceOnlyProtections.contains(protection) {
        throw SecStatus(errSecParam, detail: "its accessibility is ThisDeviceOnly, which never restores elsewhere")
      }
      guard case .string(let group)? = values[SecConstantValue.attrAccessGroup] else {
        throw SecStatus(errSecDecode, detail: "it has no access group")
      }
      if let engine {
        do {
          try SecItemCall.checkGroup(group, engine, writing: true)
        } catch {
          throw SecStatus(error.code, detail: "its access group \(group) is not one of this process's")
        }
      }
      if values[SecConstantValue.attrSynchronizable] == nil {
        values[SecConstantValue.attrSynchronizable] = .integer(0)
      }
      var accessControl: SecAccessControl?
      if let accessControlProtection {
        guard accessControlProtection == protection else {
          throw SecStatus(errSecDecode, detail: "its access control's protection differs from its accessibility")
        }
        accessControl = SecAccessControl(
          protection: accessControlProtection,
          flags: SecAccessControlCreateFlags(rawValue: .init(truncatingIfNeeded: accessControlFlags ?? 0)))
      }
      try SecItemCall.validate(values, accessControl)
      try checkItemSize(data: data, attributes: values)
      let created = values[SecConstantValue.attrCreationDate]
      let modified = values[SecConstantValue.attrModificationDate]
      var complete = try ItemRows.completed(values, at: now, backend: backend)
      if case .date? = created { complete[SecConstantValue.attrCreationDate] = created }
      if case .date? = modified { complete[SecConstantValue.attrModificationDate] = modified }
      return NewItem(
        itemClass: itemClass, attributes: complete, accessControl: accessControl, data: data,
        index: try ItemRows.index(itemClass, complete))
    }
  }

  /// An attribute value with its type, as `AttributeValue` keeps it.
  package enum Value: Codable {
    case string(String)
    case data(Data)
    case integer(Int64)
    case double(Double)
    case date(Date)

    package init(_ value: AttributeValue) {
      switch value {
      case .string(let value): self = .string(value)
      case .data(let value): self = .data(value)
      case .integer(let value): self = .integer(value)
      case .double(let value): self = .double(value)
      case .date(let value): self = .date(value)
      }
    }

    package var attributeValue: AttributeValue {
      switch self {
      case .string(let value): .string(value)
      case .data(let value): .data(value)
      case .integer(let value): .integer(value)
      case .double(let value): .double(value)
      case .date(let value): .date(value)
      }
    }
  }
}

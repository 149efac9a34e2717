import Foundation
import Testing

@testable import Security

/// Encrypted backup and restore (SecKeychainExportBackup, SecKeychainImportBackup): Apple's
/// backup rule, and nothing restored from a file that does not authenticate.
@Suite struct BackupTests {
  static let passphrase = "correct horse battery staple"

  /// Every item of both password classes with all its attributes and data, in a stable order.
  ///
  /// Read through the store contract rather than SecItemCopyMatching: one item has an access control
  /// with a constraint, whose data the API never hands out (keys rule 10.4), and the test
  /// must still see that its secret came back.
  static func everything(in store: KeychainStore) -> [NSDictionary] {
    var items: [NSDictionary] = []
    for itemClass in [ItemClass.genericPassword, .internetPassword] {
      let everything = ItemFetch(attributes: true, data: true)
      guard let found = try? store.rowsForTests.find(ItemFilter(itemClass: itemClass), limit: nil, fetch: everything)
      else { continue }
      let dictionaries = found.map { item -> NSDictionary in
        var dictionary: [String: Any] = [:]
        for (key, value) in item.attributes where key != SecConstantValue.attrUUID { dictionary[key] = value.object }
        dictionary[kSecAttrAccessControl as String] = item.accessControl
        dictionary[kSecValueData as String] = item.data
        return dictionary as NSDictionary
      }
      items += dictionaries.sorted {
        "\($0[kSecAttrAccount as String] ?? "")" < "\($1[kSecAttrAccount as String] ?? "")"
      }
    }
    return items
  }

  /// Items with every attribute type the store keeps: strings, data, whole and fractional numbers,
  /// booleans, access control, the synchronizable flag and secrets, in both classes.
  static func addEveryKind() {
    let accessControl = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, .userPresence, nil)!
    #expect(
      add(
        genp(
          "typed",
          [
            kSecAttrLabel as String: "Label", kSecAttrDescription as String: "kind",
            kSecAttrComment as String: Data([0, 1, 2, 255]), kSecAttrCreator as String: 0x6170_706c,
            kSecAttrType as String: 1.5, kSecAttrIsInvisible as String: true, kSecAttrIsNegative as String: false,
            kSecAttrGeneric as String: Data(repeating: 7, count: 64), kSecAttrAccessControl as String: accessControl,
            kSecValueData as String: Data([0, 0xff, 0x10]),
          ])) == errSecSuccess)
    #expect(
      add(
        genp(
          "synced",
          [kSecAttrSynchronizable as String: true, kSecValueData as String: Data(utf8: "cloud")])) == errSecSuccess)
    #expect(add(genp("no-data")) == errSecSuccess)
    #expect(
      add(
        inet(
          "web",
          [
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS, kSecAttrPort as String: 8443,
            kSecAttrPath as String: "/login", kSecAttrSecurityDomain as String: "realm",
            kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm,
            kSecAttrAccessible as String: kSecAttrAccessibleAlways, kSecValueData as String: Data(utf8: "web-pw"),
          ])) == errSecSuccess)
  }

  @Test func aBackupRestoresEveryAttributeTypeOfBothClassesUnchanged() throws {
    let source = try TemporaryStore()
    let (backup, before) = try source.run { () throws -> (SecKeychainBackup, [NSDictionary]) in
      Self.addEveryKind()
      return (try SecKeychainExportBackup(passphrase: Self.passphrase).get(), Self.everything(in: source.store))
    }
    #expect(backup.exportedItems == 4)
    #expect(backup.skippedThisDeviceOnlyItems == 0)
    #expect(before.count == 4)
    // The file holds no secret and no attribute value in the clear.
    for marker in ["web-pw", "cloud", "Label", "typed", "/login", "example.com"] {
      #expect(backup.file.range(of: Data(marker.utf8)) == nil, "\(marker) is readable in the backup")
    }
    let destination = try TemporaryStore()
    try destination.run {
      let report = try SecKeychainImportBackup(backup.file, passphrase: Self.passphrase).get()
      #expect(report == SecKeychainRestoreReport(addedItems: 4, duplicateItems: 0, rejections: []))
      // Dates, fingerprints, types and data: the restored items are the same dictionaries.
      #expect(Self.everything(in: destination.store) == before)
    }
  }

  @Test func thisDeviceOnlyItemsAreLeftOutAndCounted() throws {
    // A passphrase store: WhenPasscodeSet, which exists only as ThisDeviceOnly, can be added there.
    let source = try TemporaryStore(passphrase: "device passcode")
    let backup = try source.run {
      for (account, protection) in [
        ("a", kSecAttrAccessibleWhenUnlockedThisDeviceOnly), ("b", kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly),
        ("c", kSecAttrAccessibleAlwaysThisDeviceOnly), ("d", kSecAttrAccessibleWhenUnlocked),
        ("p", kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly),
      ] {
        #expect(
          add(genp(account, [kSecAttrAccessible as String: protection, kSecValueData as String: Data([1])])) == 0)
      }
      // Even marked synchronizable, a ThisDeviceOnly item stays on the device (decision 4).
      #expect(
        add(
          inet(
            "e",
            [
              kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
              kSecAttrSynchronizable as String: true,
            ])) == errSecSuccess)
      return try SecKeychainExportBackup(passphrase: Self.passphrase).get()
    }
    #expect(backup.exportedItems == 1)
    #expect(backup.skippedThisDeviceOnlyItems == 5)
    let destination = try TemporaryStore()
    try destination.run { () throws in
      let report = try SecKeychainImportBackup(backup.file, passphrase: Self.passphrase).get()
      #expect(report.addedItems == 1)
      #expect(readData(genp("d")) == Data([1]))
      #expect(copy(genp("a")).0 == errSecItemNotFound)
    }
  }

  @Test func restoringIntoAStoreThatHoldsSomeItemsAddsTheRestAndKeepsItsOwn() throws {
    let source = try TemporaryStore()
    let backup = try source.run {
      for account in ["one", "two", "three"] {
        #expect(add(genp(account, [kSecValueData as String: Data("from-backup-\(account)".utf8)])) == 0)
      }
      return try SecKeychainExportBackup(passphrase: Self.passphrase).get()
    }
    let destination = try TemporaryStore()
    try destination.run {
      #expect(add(genp("two", [kSecValueData as String: Data(utf8: "local")])) == errSecSuccess)
      #expect(add(genp("four", [kSecValueData as String: Data(utf8: "mine")])) == errSecSuccess)
      let report = try SecKeychainImportBackup(backup.file, passphrase: Self.passphrase).get()
      #expect(report == SecKeychainRestoreReport(addedItems: 2, duplicateItems: 1, rejections: []))
      #expect(readData(genp("two")) == Data(utf8: "local"))
      #expect(readData(genp("one")) == Data(utf8: "from-backup-one"))
      #expect(readData(genp("four")) == Data(utf8: "mine"))
      // Restoring twice adds nothing more.
      let again = try SecKeychainImportBackup(backup.file, passphrase: Self.passphrase).get()
      #expect(again == SecKeychainRestoreReport(addedItems: 0, duplicateItems: 3, rejections: []))
    }
  }

  /// A backup of three items, and a store to restore into that must stay empty.
  static func backupAndEmptyStore() throws -> (Data, TemporaryStore) {
    let source = try TemporaryStore()
    let file = try source.run {
      for account in ["x", "y", "z"] { add(genp(account, [kSecValueData as String: Data(utf8: "s")])) }
      return try SecKeychainExportBackup(passphrase: Self.passphrase).get().file
    }
    return (file, try TemporaryStore())
  }

  static func restoredNothing(_ destination: TemporaryStore) -> Bool {
    destination.run { copy(genp("x")).0 == errSecItemNotFound && Self.everything(in: destination.store).isEmpty }
  }

  @Test func aWrongPassphraseIsRefusedWithNothingImported() throws {
    let (file, destination) = try Self.backupAndEmptyStore()
    let outcome = destination.run { SecKeychainImportBackup(file, passphrase: "wrong") }
    #expect(throws: KeychainStoreError.self) { try outcome.get() }
    if case .failure(let error) = outcome {
      #expect(error.status == errSecAuthFailed)
      #expect(error.message.contains("passphrase is wrong"))
      #expect(!error.message.contains("wrong\""))
    }
    #expect(Self.restoredNothing(destination))
  }

  @Test(arguments: [0, 4, 5, 20, 31, 45, 60, -1])
  func anAlteredBackupIsRefusedWithNothingImported(flippedByte: Int) throws {
    let (file, destination) = try Self.backupAndEmptyStore()
    var altered = file
    let index = flippedByte < 0 ? altered.count - 1 : flippedByte
    altered[index] ^= 0x01
    let outcome = destination.run { SecKeychainImportBackup(altered, passphrase: Self.passphrase) }
    guard case .failure(let error) = outcome else {
      Issue.record("a backup with byte \(index) flipped was accepted")
      return
    }
    #expect([errSecAuthFailed, errSecDecode].contains(error.status))
    #expect(Self.restoredNothing(destination))
  }

  @Test(arguments: [0, 3, 29, 40, 57, 58, 100])
  func aTruncatedBackupIsRefusedWithNothingImported(keptBytes: Int) throws {
    let (file, destination) = try Self.backupAndEmptyStore()
    let truncated = file.prefix(min(keptBytes, file.count - 1))
    let outcome = destination.run { SecKeychainImportBackup(Data(truncated), passphrase: Self.passphrase) }
    guard case .failure(let error) = outcome else {
      Issue.record("a backup cut to \(truncated.count) bytes was accepted")
      return
    }
    #expect([errSecAuthFailed, errSecDecode].contains(error.status))
    #expect(Self.restoredNothing(destination))
  }

  @Test func itemsOfAGroupTheRestoringProcessLacksAreRejectedWithTheirReasonAndTheRestAdded() throws {
    let source = try TemporaryStore()
    let file = try source.run(accessGroups: ["team.a", "team.b"]) {
      add(genp("a", [kSecAttrAccessGroup as String: "team.a"]))
      add(genp("b", [kSecAttrAccessGroup as String: "team.b"]))
      return try SecKeychainExportBackup(passphrase: Self.passphrase).get().file
    }
    let destination = try TemporaryStore()
    try destination.run(accessGroups: ["team.a"]) {
      let report = try SecKeychainImportBackup(file, passphrase: Self.passphrase).get()
      #expect(report.addedItems == 1)
      #expect(report.rejectedItems == 1)
      #expect(report.rejections.first?.contains("access group team.b") == true)
      #expect(readData(genp("a")) == Data())
    }
  }

  @Test func aLockedStoreIsNotExported() throws {
    try withFreshStore(passphrase: "device passcode") { store in
      add(genp("a", [kSecValueData as String: Data([1])]))
      store.lock()
      let outcome = SecKeychainExportBackup(passphrase: Self.passphrase)
      guard case .failure(let error) = outcome else {
        Issue.record("a locked store was exported")
        return
      }
      #expect(error.status == errSecInteractionNotAllowed)
      #expect(SecCopyErrorMessageString(errSecInteractionNotAllowed, nil) as String? == error.message)
    }
  }

  @Test func bytesThatAreNoBackupAreRefusedAsUndecodable() throws {
    try withFreshStore { _ in
      let outcome = SecKeychainImportBackup(Data("not a backup at all".utf8), passphrase: Self.passphrase)
      guard case .failure(let error) = outcome else {
        Issue.record("text was taken for a backup")
        return
      }
      #expect(error.status == errSecDecode)
      #expect(error.message.contains("not a keychain backup"))
    }
  }
}

/// A backup covers every stored class: keys and certificates restore usable.
@Suite struct KeyBackupTests {
  @Test func aStoredKeyAndCertificateRestoreUsable() throws {
    let scratch = try ScratchDirectory()
    let der = try CertificateRules.certificate(subject: "/CN=backed up", in: scratch)
    let certificate = try CertificateRules.make(der)
    let key = try makeKey(kSecAttrKeyTypeRSA, bits: 2048)
    let source = try TemporaryStore()
    let file = try source.run {
      #expect(add([kSecValueRef as String: key, kSecAttrApplicationTag as String: "backup.key"]) == errSecSuccess)
      #expect(add([kSecValueRef as String: certificate]) == errSecSuccess)
      return try SecKeychainExportBackup(passphrase: BackupTests.passphrase).get()
    }
    #expect(file.exportedItems == 2)
    let destination = try TemporaryStore()
    try destination.run { () throws in
      let report = try SecKeychainImportBackup(file.file, passphrase: BackupTests.passphrase).get()
      #expect(report.addedItems == 2 && report.rejections.isEmpty)
      let restored = try #require(
        copy([
          kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("backup.key".utf8),
          kSecReturnRef as String: true,
        ]).1 as? SecKey)
      #expect(restored == key)
      let message = Data("restored".utf8)
      #expect(
        verify(
          SecKeyCopyPublicKey(key)!, .rsaSignatureMessagePSSSHA256, message,
          try sign(restored, .rsaSignatureMessagePSSSHA256, message)))
      #expect(
        copy([kSecValueRef as String: certificate, kSecReturnRef as String: true]).1 as? SecCertificate == certificate)
    }
  }
}

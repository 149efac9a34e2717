import Foundation
import Security
import Testing

/// Section 7: SecItemUpdate.
@Suite struct UpdateRules {
  @Test("Rule 7.1: update changes every match") func updateChangesEveryMatch() throws {
    try withFreshStore { _ in
      for account in ["a", "b", "c"] { add(genp(account, service: "shared")) }
      add(genp("d", service: "other"))
      #expect(
        update(
          [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "shared"],
          [kSecAttrLabel as String: "new"]) == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "new"]) == 3)
    }
  }

  @Test("Rule 7.2: update without match is item not found") func updateWithoutMatchIsItemNotFound() throws {
    try withFreshStore { _ in
      #expect(update(genp(), [kSecValueData as String: Data()]) == errSecItemNotFound)
    }
  }

  @Test("Rule 7.3: return keys in the update query are ignored") func returnKeysInTheUpdateQueryAreIgnored() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(
        update(genp([kSecReturnData as String: true, kSecReturnRef as String: true]), [kSecAttrLabel as String: "x"])
          == errSecSuccess)
    }
  }

  @Test("Rule 7.4: match keys in the update query are ignored") func matchKeysInTheUpdateQueryAreIgnored() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(
        update(genp([kSecMatchLimit as String: kSecMatchLimitAll]), [kSecAttrLabel as String: "x"]) == errSecSuccess)
      #expect(update(genp([kSecMatchCaseInsensitive as String: true]), [kSecAttrLabel as String: "y"]) == errSecSuccess)
    }
  }

  @Test("Rule 7.5: item list or value ref in the update query is param")
  func itemListOrValueRefInTheUpdateQueryIsParam() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(update(genp([kSecUseItemList as String: [Data()]]), [kSecAttrLabel as String: "x"]) == errSecParam)
      #expect(update(genp([kSecValueRef as String: Data()]), [kSecAttrLabel as String: "x"]) == errSecParam)
    }
  }

  @Test("Rule 7.6: only data and class attributes can be updated") func onlyDataAndClassAttributesCanBeUpdated() throws
  {
    try withFreshStore { _ in
      add(genp())
      for key in [kSecClass, kSecReturnData, kSecMatchLimit, kSecAttrServer, kSecUseOperationPrompt] as [CFString] {
        #expect(update(genp(), [key as String: "x"]) == errSecNoSuchAttr, "key \(key)")
      }
      #expect(update(genp(), [kSecAttrSharingGroup as String: "g"]) == errSecParam)
      #expect(update(genp(), [kSecAttrMultiUser as String: Data(count: 16)]) == errSecSuccess)
      #expect(readAttributes(genp())?[kSecAttrMultiUser as String] as? Data == Data())
    }
  }

  @Test("Rule 7.7: updated data must be data") func updatedDataMustBeData() throws {
    try withFreshStore { _ in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      #expect(update(genp(), [kSecValueData as String: "text"]) == errSecParam)
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }

  @Test("Rule 7.8: a new access group must be entitled") func aNewAccessGroupMustBeEntitled() throws {
    try withFreshStore(accessGroups: ["mine", "shared"]) { _ in
      add(genp())
      #expect(update(genp(), [kSecAttrAccessGroup as String: "theirs"]) == errSecMissingEntitlement)
      #expect(
        update(genp([kSecAttrAccessGroup as String: "theirs"]), [kSecAttrLabel as String: "x"])
          == errSecMissingEntitlement)
      #expect(update(genp(), [kSecAttrAccessGroup as String: "shared"]) == errSecSuccess)
      #expect(count(genp([kSecAttrAccessGroup as String: "shared"])) == 1)
    }
  }

  @Test("Rule 7.9: an update causing a duplicate rolls back everything")
  func anUpdateCausingADuplicateRollsBackEverything() throws {
    try withFreshStore { _ in
      add(genp("a", [kSecAttrLabel as String: "same"]))
      add(genp("b", [kSecAttrLabel as String: "same"]))
      let status = update(
        [kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "same"],
        [kSecAttrAccount as String: "merged", kSecAttrComment as String: "changed"])
      #expect(status == errSecDuplicateItem)
      #expect(count(genp("a")) == 1 && count(genp("b")) == 1)
      #expect(count([kSecClass as String: kSecClassGenericPassword, kSecAttrComment as String: "changed"]) == 0)
    }
  }

  @Test("Rule 7.10: an update colliding with a corrupt row replaces it")
  func anUpdateCollidingWithACorruptRowReplacesIt() throws {
    let temporary = try TemporaryStore()
    temporary.run {
      add(genp("target", [kSecValueData as String: Data(utf8: "damaged")]))
      add(genp("mover", [kSecValueData as String: Data(utf8: "keeps")]))
    }
    try StoreTampering.flipByte(in: "meta", account: 0, directory: temporary.directory)
    temporary.run {
      #expect(update(genp("mover"), [kSecAttrAccount as String: "target"]) == errSecSuccess)
      #expect(readData(genp("target")) == Data(utf8: "keeps"))
    }
  }

  @Test("Rule 7.11: update bumps modification date and keeps creation date and ref")
  func updateBumpsModificationDateAndKeepsCreationDateAndRef() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(genp([kSecReturnPersistentRef as String: true])).1 as? Data)
      let before = try #require(readAttributes(genp()))
      #expect(update(genp(), [kSecAttrAccount as String: "renamed"]) == errSecSuccess)
      let after = try #require(readAttributes([kSecValuePersistentRef as String: ref]))
      #expect(after[kSecAttrAccount as String] as? String == "renamed")
      #expect(after[kSecAttrCreationDate as String] as? Date == before[kSecAttrCreationDate as String] as? Date)
      let oldModified = try #require(before[kSecAttrModificationDate as String] as? Date)
      #expect(try #require(after[kSecAttrModificationDate as String] as? Date) > oldModified)
    }
  }

  @Test("Rule 7.12: changing accessibility reencrypts under the new class")
  func changingAccessibilityReencryptsUnderTheNewClass() throws {
    try withFreshStore { store in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      #expect(update(genp(), [kSecAttrAccessible as String: kSecAttrAccessibleAlways]) == errSecSuccess)
      store.lock()
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }

  @Test("Rule 7.13: an update without the sync key leaves synchronizable items alone")
  func anUpdateWithoutTheSyncKeyLeavesSynchronizableItemsAlone() throws {
    try withFreshStore { _ in
      add(genp([kSecAttrSynchronizable as String: true]))
      #expect(update(genp(), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
      #expect(
        update(genp([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]), [kSecAttrLabel as String: "x"])
          == errSecSuccess)
    }
  }

  @Test("Rule 7.14: an empty update only bumps the modification date") func anEmptyUpdateOnlyBumpsTheModificationDate()
    throws
  {
    try withFreshStore { _ in
      add(genp([kSecAttrLabel as String: "kept"]))
      let before = try #require(readAttributes(genp())?[kSecAttrModificationDate as String] as? Date)
      #expect(update(genp(), [:]) == errSecSuccess)
      let after = try #require(readAttributes(genp()))
      #expect(try #require(after[kSecAttrModificationDate as String] as? Date) > before)
      #expect(after[kSecAttrLabel as String] as? String == "kept")
    }
  }

  @Test("An update's fingerprint (kSecAttrSHA1) follows the attributes and not the data")
  func anUpdatesFingerprintFollowsTheAttributesAndNotTheData() throws {
    try withFreshStore { _ in
      add(genp([kSecAttrLabel as String: "first", kSecValueData as String: Data(utf8: "one")]))
      func fingerprint() -> Data? { readAttributes(genp())?[kSecAttrSHA1 as String] as? Data }
      let original = try #require(fingerprint())
      // New data alone: the attributes are what they were, so is the fingerprint (the store keeps
      // the one it had instead of computing it again).
      #expect(update(genp(), [kSecValueData as String: Data(utf8: "two")]) == errSecSuccess)
      #expect(fingerprint() == original)
      #expect(update(genp(), [kSecAttrLabel as String: "second"]) == errSecSuccess)
      let relabelled = try #require(fingerprint())
      #expect(relabelled != original)
      // Back to the first label: the fingerprint is a function of the attributes.
      #expect(
        update(genp(), [kSecAttrLabel as String: "first", kSecValueData as String: Data(utf8: "3")]) == errSecSuccess)
      #expect(fingerprint() == original)
      #expect(readData(genp()) == Data(utf8: "3"))
    }
  }

  @Test("Rule 7.15: an update by persistent ref changes only that item")
  func anUpdateByPersistentRefChangesOnlyThatItem() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(genp("a", [kSecReturnPersistentRef as String: true])).1 as? Data)
      add(genp("b"))
      #expect(update([kSecValuePersistentRef as String: ref], [kSecAttrLabel as String: "only-a"]) == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "only-a"]) == 1)
      #expect(readAttributes(genp("a"))?[kSecAttrLabel as String] as? String == "only-a")
    }
  }
}

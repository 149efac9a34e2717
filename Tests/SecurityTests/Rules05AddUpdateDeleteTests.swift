import Foundation
import Security
import Testing

/// Section 5: SecItemAdd.
@Suite struct AddRules {
  @Test func test_5_1_addStoresOneItem() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: Data(utf8: "pw")])) == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }

  @Test func test_5_2_addOfExistingPrimaryKeyIsDuplicateAndChangesNothing() throws {
    try withFreshStore { _ in
      add(genp([kSecValueData as String: Data(utf8: "original"), kSecAttrLabel as String: "one"]))
      #expect(
        add(genp([kSecValueData as String: Data(utf8: "replacement"), kSecAttrLabel as String: "two"]))
          == errSecDuplicateItem)
      #expect(readData(genp()) == Data(utf8: "original"))
      #expect(readAttributes(genp())?[kSecAttrLabel as String] as? String == "one")
    }
  }

  @Test func test_5_3_addOverADeletedSynchronizableItemSucceeds() throws {
    try withFreshStore { _ in
      let synced = genp([kSecAttrSynchronizable as String: true, kSecValueData as String: Data(utf8: "v1")])
      add(synced)
      #expect(delete(genp([kSecAttrSynchronizable as String: true])) == errSecSuccess)
      #expect(add(synced) == errSecSuccess)
    }
  }

  @Test func test_5_4_addOverACorruptRowWithTheSameKeyReplacesIt() throws {
    let temporary = try TemporaryStore()
    temporary.run { add(genp([kSecValueData as String: Data(utf8: "old")])) }
    try StoreTampering.flipByte(in: "meta", account: 0, directory: temporary.directory)
    temporary.run {
      #expect(add(genp([kSecValueData as String: Data(utf8: "new")])) == errSecSuccess)
      #expect(readData(genp()) == Data(utf8: "new"))
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
    }
  }

  @Test func test_5_5_omittedAttributesGetDefaultsAndDataMayBeAbsent() throws {
    try withFreshStore { _ in
      #expect(add([kSecClass as String: kSecClassGenericPassword]) == errSecSuccess)
      let attributes = try #require(readAttributes([kSecClass as String: kSecClassGenericPassword]))
      #expect(attributes[kSecAttrAccount as String] as? String == "")
      #expect(attributes[kSecAttrService as String] as? String == "")
      #expect(readData([kSecClass as String: kSecClassGenericPassword]) == Data())
    }
  }

  @Test func test_5_6_valueDataMustBeDataAndNothingIsStoredOtherwise() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: "text"])) == errSecParam)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
    }
  }

  @Test func test_5_7_anExplicitAccessGroupMustBeWritable() throws {
    try withFreshStore(accessGroups: ["mine", "com.apple.token"]) { _ in
      #expect(add(genp([kSecAttrAccessGroup as String: "theirs"])) == errSecMissingEntitlement)
      #expect(add(genp([kSecAttrAccessGroup as String: kSecAttrAccessGroupToken])) == errSecMissingEntitlement)
      #expect(add(genp([kSecAttrAccessGroup as String: "mine"])) == errSecSuccess)
    }
    try withFreshStore(accessGroups: []) { _ in
      #expect(add(genp()) == errSecMissingEntitlement)
    }
  }

  @Test func test_5_8_aPersistentRefInAnAddIsParam() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(genp([kSecReturnPersistentRef as String: true])).1 as? Data)
      #expect(add(genp("other", [kSecValuePersistentRef as String: ref])) == errSecParam)
    }
  }

  @Test func test_5_9_anItemListInAnAddIsParam() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecUseItemList as String: [Data()]])) == errSecParam)
    }
  }

  @Test func test_5_10_aValueRefOnAPasswordIsParam() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueRef as String: Data()])) == errSecParam)
    }
  }

  @Test func test_5_11_anInvalidAccessibilityIsParam() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrAccessible as String: "whenever"])) == errSecParam)
      #expect(add(genp([kSecAttrAccessible as String: 1])) == errSecParam)
    }
  }

  /// Rule 5.12 with decision 4: current securityd accepts the pair, and so does this store; such an
  /// item is kept as given and never leaves the store.
  @Test func test_5_12_synchronizableWithThisDeviceOnlyIsStoredAsGiven() throws {
    try withFreshStore { _ in
      let query = genp([
        kSecAttrSynchronizable as String: true,
        kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        kSecValueData as String: Data(utf8: "pw"),
      ])
      #expect(add(query) == errSecSuccess)
      let stored = try #require(readAttributes(genp([kSecAttrSynchronizable as String: true])))
      #expect(stored[kSecAttrSynchronizable as String] as? Int == 1)
      #expect(
        stored[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
      #expect(readData(genp([kSecAttrSynchronizable as String: true])) == Data(utf8: "pw"))
    }
  }

  @Test func test_5_13_whenPasscodeSetNeedsAPassphraseStore() throws {
    let passcode = genp([kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly])
    try withFreshStore { _ in
      #expect(add(passcode) == errSecAuthFailed)
    }
    try withFreshStore(passphrase: "correct horse") { _ in
      #expect(add(passcode) == errSecSuccess)
    }
  }

  @Test func test_5_14_addReturnsTheRequestedShapeAndLeavesTheResultAloneOtherwise() throws {
    try withFreshStore { _ in
      var untouched: CFTypeRef? = "sentinel" as NSString
      #expect(SecItemAdd(genp("a") as CFDictionary, &untouched) == errSecSuccess)
      #expect(untouched as? String == "sentinel")
      let (_, data) = addReturning(
        genp("b", [kSecValueData as String: Data(utf8: "pw"), kSecReturnData as String: true]))
      #expect(data as? Data == Data(utf8: "pw"))
      let (_, ref) = addReturning(genp("c", [kSecReturnPersistentRef as String: true]))
      #expect((ref as? Data)?.count == 20)
    }
  }

  @Test func test_5_15_matchKeysInAnAddAreParamAndStoreNothing() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecMatchLimit as String: kSecMatchLimitOne])) == errSecParam)
      #expect(add(genp([kSecMatchCaseInsensitive as String: true])) == errSecParam)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
    }
  }

  @Test func test_5_16_aFailedAddLeavesTheStoreAsItWas() throws {
    try withFreshStore { _ in
      add(genp("a", [kSecValueData as String: Data(utf8: "pw")]))
      add(genp("b"))
      let before = count([kSecClass as String: kSecClassGenericPassword])
      #expect(add(genp("a", [kSecValueData as String: Data(utf8: "other")])) == errSecDuplicateItem)
      #expect(add(genp("c", [kSecAttrAccessible as String: "bad"])) == errSecParam)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == before)
      #expect(readData(genp("a")) == Data(utf8: "pw"))
    }
  }
}

/// Section 7: SecItemUpdate.
@Suite struct UpdateRules {
  @Test func test_7_1_updateChangesEveryMatch() throws {
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

  @Test func test_7_2_updateWithoutMatchIsItemNotFound() throws {
    try withFreshStore { _ in
      #expect(update(genp(), [kSecValueData as String: Data()]) == errSecItemNotFound)
    }
  }

  @Test func test_7_3_returnKeysInTheUpdateQueryAreIgnored() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(
        update(genp([kSecReturnData as String: true, kSecReturnRef as String: true]), [kSecAttrLabel as String: "x"])
          == errSecSuccess)
    }
  }

  @Test func test_7_4_matchKeysInTheUpdateQueryAreIgnored() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(
        update(genp([kSecMatchLimit as String: kSecMatchLimitAll]), [kSecAttrLabel as String: "x"]) == errSecSuccess)
      #expect(update(genp([kSecMatchCaseInsensitive as String: true]), [kSecAttrLabel as String: "y"]) == errSecSuccess)
    }
  }

  @Test func test_7_5_itemListOrValueRefInTheUpdateQueryIsParam() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(update(genp([kSecUseItemList as String: [Data()]]), [kSecAttrLabel as String: "x"]) == errSecParam)
      #expect(update(genp([kSecValueRef as String: Data()]), [kSecAttrLabel as String: "x"]) == errSecParam)
    }
  }

  @Test func test_7_6_onlyDataAndClassAttributesCanBeUpdated() throws {
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

  @Test func test_7_7_updatedDataMustBeData() throws {
    try withFreshStore { _ in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      #expect(update(genp(), [kSecValueData as String: "text"]) == errSecParam)
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }

  @Test func test_7_8_aNewAccessGroupMustBeEntitled() throws {
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

  @Test func test_7_9_anUpdateCausingADuplicateRollsBackEverything() throws {
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

  @Test func test_7_10_anUpdateCollidingWithACorruptRowReplacesIt() throws {
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

  @Test func test_7_11_updateBumpsModificationDateAndKeepsCreationDateAndRef() throws {
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

  @Test func test_7_12_changingAccessibilityReencryptsUnderTheNewClass() throws {
    try withFreshStore { store in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      #expect(update(genp(), [kSecAttrAccessible as String: kSecAttrAccessibleAlways]) == errSecSuccess)
      store.lock()
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }

  @Test func test_7_13_anUpdateWithoutTheSyncKeyLeavesSynchronizableItemsAlone() throws {
    try withFreshStore { _ in
      add(genp([kSecAttrSynchronizable as String: true]))
      #expect(update(genp(), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
      #expect(
        update(genp([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]), [kSecAttrLabel as String: "x"])
          == errSecSuccess)
    }
  }

  @Test func test_7_14_anEmptyUpdateOnlyBumpsTheModificationDate() throws {
    try withFreshStore { _ in
      add(genp([kSecAttrLabel as String: "kept"]))
      let before = try #require(readAttributes(genp())?[kSecAttrModificationDate as String] as? Date)
      #expect(update(genp(), [:]) == errSecSuccess)
      let after = try #require(readAttributes(genp()))
      #expect(try #require(after[kSecAttrModificationDate as String] as? Date) > before)
      #expect(after[kSecAttrLabel as String] as? String == "kept")
    }
  }

  @Test func test_7_15_anUpdateByPersistentRefChangesOnlyThatItem() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(genp("a", [kSecReturnPersistentRef as String: true])).1 as? Data)
      add(genp("b"))
      #expect(update([kSecValuePersistentRef as String: ref], [kSecAttrLabel as String: "only-a"]) == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "only-a"]) == 1)
      #expect(readAttributes(genp("a"))?[kSecAttrLabel as String] as? String == "only-a")
    }
  }
}

/// Section 8: SecItemDelete.
@Suite struct DeleteRules {
  @Test func test_8_1_deleteRemovesEveryMatch() throws {
    try withFreshStore { _ in
      for account in ["a", "b", "c"] { add(genp(account, service: "doomed")) }
      add(genp("d", service: "kept"))
      #expect(
        delete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "doomed"]) == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
    }
  }

  @Test func test_8_2_deleteWithoutMatchIsItemNotFound() throws {
    try withFreshStore { _ in
      #expect(delete(genp()) == errSecItemNotFound)
    }
  }

  @Test func test_8_3_matchLimitInADeleteIsIgnored() throws {
    try withFreshStore { _ in
      add(genp("a"))
      add(genp("b"))
      #expect(
        delete([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll])
          == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
    }
  }

  @Test func test_8_4_returnKeysInADeleteAreIgnored() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(delete(genp([kSecReturnData as String: true, kSecReturnAttributes as String: true])) == errSecSuccess)
    }
  }

  @Test func test_8_5_classAloneDeletesTheCallersUnsyncedItemsOfThatClass() throws {
    let temporary = try TemporaryStore()
    temporary.run(accessGroups: ["other"]) { _ = add(genp("theirs")) }
    temporary.run {
      add(genp("a"))
      add(genp("b", [kSecAttrSynchronizable as String: true]))
      add(inet())
      #expect(delete([kSecClass as String: kSecClassGenericPassword]) == errSecSuccess)
      #expect(count(genp("b", [kSecAttrSynchronizable as String: true])) == 1)
      #expect(count([kSecClass as String: kSecClassInternetPassword]) == 1)
      #expect(
        delete([
          kSecClass as String: kSecClassGenericPassword, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
        ]) == errSecSuccess)
    }
    temporary.run(accessGroups: ["other"]) { #expect(count(genp("theirs")) == 1) }
  }

  @Test func test_8_6_deleteByPersistentRefAndRefWithAttributesIsParam() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(genp("a", [kSecReturnPersistentRef as String: true])).1 as? Data)
      add(genp("b"))
      #expect(delete([kSecValuePersistentRef as String: ref, kSecAttrAccount as String: "a"]) == errSecParam)
      #expect(delete([kSecValuePersistentRef as String: ref]) == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
    }
  }

  @Test func test_8_7_aValueRefInADeleteIsParam() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(delete(genp([kSecValueRef as String: Data()])) == errSecParam)
    }
  }

  @Test func test_8_8_aDeletedSynchronizableItemIsInvisibleToEveryQuery() throws {
    try withFreshStore { _ in
      let ref = try #require(
        addReturning(genp([kSecAttrSynchronizable as String: true, kSecReturnPersistentRef as String: true])).1 as? Data
      )
      #expect(delete(genp([kSecAttrSynchronizable as String: true])) == errSecSuccess)
      #expect(copy([kSecValuePersistentRef as String: ref]).0 == errSecItemNotFound)
      #expect(
        count([
          kSecClass as String: kSecClassGenericPassword, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
        ]) == 0)
    }
  }

  @Test func test_8_9_deleteNeedsNoKeyEvenWhileLocked() throws {
    try withFreshStore { store in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      store.lock()
      #expect(delete(genp()) == errSecSuccess)
      #expect(count(genp()) == 0)
    }
  }
}

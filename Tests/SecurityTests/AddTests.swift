import Foundation
import Security
import Testing

/// Section 5: SecItemAdd.
@Suite struct AddRules {
  @Test("Rule 5.1: add stores one item") func addStoresOneItem() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: Data(utf8: "pw")])) == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }

  @Test("Rule 5.2: add of existing primary key is duplicate and changes nothing")
  func addOfExistingPrimaryKeyIsDuplicateAndChangesNothing() throws {
    try withFreshStore { _ in
      add(genp([kSecValueData as String: Data(utf8: "original"), kSecAttrLabel as String: "one"]))
      #expect(
        add(genp([kSecValueData as String: Data(utf8: "replacement"), kSecAttrLabel as String: "two"]))
          == errSecDuplicateItem)
      #expect(readData(genp()) == Data(utf8: "original"))
      #expect(readAttributes(genp())?[kSecAttrLabel as String] as? String == "one")
    }
  }

  @Test("Rule 5.3: add over a deleted synchronizable item succeeds") func addOverADeletedSynchronizableItemSucceeds()
    throws
  {
    try withFreshStore { _ in
      let synced = genp([kSecAttrSynchronizable as String: true, kSecValueData as String: Data(utf8: "v1")])
      add(synced)
      #expect(delete(genp([kSecAttrSynchronizable as String: true])) == errSecSuccess)
      #expect(add(synced) == errSecSuccess)
    }
  }

  @Test("Rule 5.4: add over a corrupt row with the same key replaces it")
  func addOverACorruptRowWithTheSameKeyReplacesIt() throws {
    let temporary = try TemporaryStore()
    temporary.run { add(genp([kSecValueData as String: Data(utf8: "old")])) }
    try StoreTampering.flipByte(in: "meta", account: 0, directory: temporary.directory)
    temporary.run {
      #expect(add(genp([kSecValueData as String: Data(utf8: "new")])) == errSecSuccess)
      #expect(readData(genp()) == Data(utf8: "new"))
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
    }
  }

  @Test("Rule 5.5: omitted attributes get defaults and data may be absent")
  func omittedAttributesGetDefaultsAndDataMayBeAbsent() throws {
    try withFreshStore { _ in
      #expect(add([kSecClass as String: kSecClassGenericPassword]) == errSecSuccess)
      let attributes = try #require(readAttributes([kSecClass as String: kSecClassGenericPassword]))
      #expect(attributes[kSecAttrAccount as String] as? String == "")
      #expect(attributes[kSecAttrService as String] as? String == "")
      #expect(readData([kSecClass as String: kSecClassGenericPassword]) == Data())
    }
  }

  @Test("Rule 5.6: value data must be data and nothing is stored otherwise")
  func valueDataMustBeDataAndNothingIsStoredOtherwise() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: "text"])) == errSecParam)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
    }
  }

  @Test("Rule 5.7: an explicit access group must be writable") func anExplicitAccessGroupMustBeWritable() throws {
    try withFreshStore(accessGroups: ["mine", "com.apple.token"]) { _ in
      #expect(add(genp([kSecAttrAccessGroup as String: "theirs"])) == errSecMissingEntitlement)
      #expect(add(genp([kSecAttrAccessGroup as String: kSecAttrAccessGroupToken])) == errSecMissingEntitlement)
      #expect(add(genp([kSecAttrAccessGroup as String: "mine"])) == errSecSuccess)
    }
    try withFreshStore(accessGroups: []) { _ in
      #expect(add(genp()) == errSecMissingEntitlement)
    }
  }

  @Test("Rule 5.8: a persistent ref in an add is param") func aPersistentRefInAnAddIsParam() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(genp([kSecReturnPersistentRef as String: true])).1 as? Data)
      #expect(add(genp("other", [kSecValuePersistentRef as String: ref])) == errSecParam)
    }
  }

  @Test("Rule 5.9: an item list in an add is param") func anItemListInAnAddIsParam() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecUseItemList as String: [Data()]])) == errSecParam)
    }
  }

  @Test("Rule 5.10: a value ref on a password is param") func aValueRefOnAPasswordIsParam() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueRef as String: Data()])) == errSecParam)
    }
  }

  @Test("Rule 5.11: an invalid accessibility is param") func anInvalidAccessibilityIsParam() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrAccessible as String: "whenever"])) == errSecParam)
      #expect(add(genp([kSecAttrAccessible as String: 1])) == errSecParam)
    }
  }

  /// Rule 5.12 with decision 4: current securityd accepts the pair, and so does this store; such an
  /// item is kept as given and never leaves the store.
  @Test("Rule 5.12: synchronizable with this device only is stored as given")
  func synchronizableWithThisDeviceOnlyIsStoredAsGiven() throws {
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

  @Test("Rule 5.13: when passcode set needs a passphrase store") func whenPasscodeSetNeedsAPassphraseStore() throws {
    let passcode = genp([kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly])
    try withFreshStore { _ in
      #expect(add(passcode) == errSecAuthFailed)
    }
    try withFreshStore(passphrase: "correct horse") { _ in
      #expect(add(passcode) == errSecSuccess)
    }
  }

  @Test("Rule 5.14: add returns the requested shape and leaves the result alone otherwise")
  func addReturnsTheRequestedShapeAndLeavesTheResultAloneOtherwise() throws {
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

  @Test("Rule 5.15: match keys in an add are param and store nothing") func matchKeysInAnAddAreParamAndStoreNothing()
    throws
  {
    try withFreshStore { _ in
      #expect(add(genp([kSecMatchLimit as String: kSecMatchLimitOne])) == errSecParam)
      #expect(add(genp([kSecMatchCaseInsensitive as String: true])) == errSecParam)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
    }
  }

  @Test("Rule 5.16: a failed add leaves the store as it was") func aFailedAddLeavesTheStoreAsItWas() throws {
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

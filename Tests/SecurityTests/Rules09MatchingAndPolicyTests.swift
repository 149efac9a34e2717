import Foundation
import Security
import Testing

/// Section 9: matching semantics.
@Suite struct MatchingRules {
  @Test func test_9_1_matchingIsEqualityOnly() throws {
    try withFreshStore { _ in
      add(genp("alice-admin"))
      #expect(copy(genp("alice")).0 == errSecItemNotFound)
      #expect(copy(genp("alice-admin")).0 == errSecSuccess)
    }
  }

  @Test func test_9_2_matchingIsCaseSensitiveAndByteExact() throws {
    try withFreshStore { _ in
      add(genp("caf\u{E9}"))
      #expect(copy(genp("CAF\u{C9}")).0 == errSecItemNotFound)
      #expect(copy(genp("cafe\u{301}")).0 == errSecItemNotFound)
      #expect(copy(genp("caf\u{E9}")).0 == errSecSuccess)
    }
  }

  @Test func test_9_3_caseInsensitiveMatchingHasNoEffect() throws {
    try withFreshStore { _ in
      add(genp("Bob"))
      #expect(copy(genp("bob", [kSecMatchCaseInsensitive as String: kCFBooleanTrue!])).0 == errSecItemNotFound)
      #expect(copy(genp("Bob", [kSecMatchCaseInsensitive as String: kCFBooleanTrue!])).0 == errSecSuccess)
    }
  }

  @Test func test_9_4_aStringAndDataWithTheSameBytesMatch() throws {
    try withFreshStore { _ in
      add(genp("abc"))
      #expect(copy(genp("", [kSecAttrAccount as String: Data(utf8: "abc")])).0 == errSecSuccess)
      #expect(add(genp("", [kSecAttrAccount as String: Data(utf8: "abc")])) == errSecDuplicateItem)
    }
  }

  @Test func test_9_5_numberAttributesEquateTrueOneAndTheStringOne() throws {
    try withFreshStore { _ in
      add(genp([kSecAttrIsInvisible as String: true]))
      for value in [true, 1, "1", NSNumber(value: 1)] as [Any] {
        #expect(copy(genp([kSecAttrIsInvisible as String: value])).0 == errSecSuccess, "value \(value)")
      }
      #expect(copy(genp([kSecAttrIsInvisible as String: false])).0 == errSecItemNotFound)
    }
  }

  @Test func test_9_6_anEmptyAccountMatchesItemsAddedWithoutOne() throws {
    try withFreshStore { _ in
      add([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"])
      #expect(copy(genp("")).0 == errSecSuccess)
    }
  }

  @Test func test_9_7_dataAndAccessControlInAQueryDoNotFilter() throws {
    try withFreshStore { _ in
      let control = try #require(
        SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .devicePasscode, nil))
      let item = genp([kSecValueData as String: Data(utf8: "pw"), kSecAttrAccessControl as String: control])
      add(item)
      #expect(copy(genp([kSecValueData as String: Data(utf8: "different")])).0 == errSecSuccess)
      #expect(delete(item) == errSecSuccess)
    }
  }

  @Test func test_9_8_anExtraAttributeGivesNotFoundWhileAnAddIsADuplicate() throws {
    try withFreshStore { _ in
      add(genp([kSecAttrLabel as String: "old label"]))
      let query = genp([kSecAttrLabel as String: "new label"])
      #expect(copy(query).0 == errSecItemNotFound)
      #expect(add(query) == errSecDuplicateItem)
    }
  }
}

/// Sections 10 and 11: synchronizable items and access groups.
@Suite struct SyncAndAccessGroupRules {
  @Test func test_10_syncedAndUnsyncedItemsWithOnePrimaryKeyCoexist() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: Data(utf8: "local")])) == errSecSuccess)
      #expect(
        add(genp([kSecAttrSynchronizable as String: true, kSecValueData as String: Data(utf8: "cloud")]))
          == errSecSuccess)
      #expect(readData(genp()) == Data(utf8: "local"))
      #expect(readData(genp([kSecAttrSynchronizable as String: true])) == Data(utf8: "cloud"))
    }
  }

  @Test func test_10_synchronizableAnyIsParamInAnAdd() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == errSecParam)
    }
  }

  @Test func test_11_theFirstGroupIsTheDefaultForAdd() throws {
    try withFreshStore(accessGroups: ["team.app", "team.shared"]) { _ in
      add(genp())
      #expect(count(genp([kSecAttrAccessGroup as String: "team.app"])) == 1)
    }
  }

  @Test func test_11_aSearchWithoutAGroupSpansEveryCallerGroup() throws {
    try withFreshStore(accessGroups: ["g1", "g2", "g3"]) { _ in
      for group in ["g1", "g2", "g3"] { add(genp(group, [kSecAttrAccessGroup as String: group])) }
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 3)
    }
  }

  @Test func test_11_anEmptyGroupListIsMissingEntitlementForEveryCall() throws {
    try withFreshStore(accessGroups: []) { _ in
      #expect(add(genp()) == errSecMissingEntitlement)
      #expect(copy(genp()).0 == errSecMissingEntitlement)
      #expect(update(genp(), [kSecAttrLabel as String: "x"]) == errSecMissingEntitlement)
      #expect(delete(genp()) == errSecMissingEntitlement)
    }
  }

  @Test func test_11_itemsOfOtherGroupsAreInvisible() throws {
    let temporary = try TemporaryStore()
    temporary.run(accessGroups: ["app-a"]) { _ = add(genp("secret-of-a", [kSecValueData as String: Data(utf8: "a")])) }
    temporary.run(accessGroups: ["app-b"]) {
      #expect(copy(genp("secret-of-a")).0 == errSecItemNotFound)
      #expect(delete([kSecClass as String: kSecClassGenericPassword]) == errSecItemNotFound)
      #expect(add(genp("secret-of-a")) == errSecSuccess)
    }
    temporary.run(accessGroups: ["app-a"]) { #expect(readData(genp("secret-of-a")) == Data(utf8: "a")) }
  }

  @Test func test_11_theStarGroupGrantsEveryGroup() throws {
    let temporary = try TemporaryStore()
    temporary.run(accessGroups: ["one"]) { _ = add(genp("a")) }
    temporary.run(accessGroups: ["two"]) { _ = add(genp("b")) }
    temporary.run(accessGroups: ["*"]) {
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 2)
      #expect(count(genp("a", [kSecAttrAccessGroup as String: "one"])) == 1)
      #expect(add(genp("c")) == errSecMissingEntitlement)
    }
  }
}

/// Section 12 and the Linux lock state of shared/spec/README.md.
@Suite struct AccessibilityAndLockRules {
  @Test func test_12_whenUnlockedDataIsUnreadableWhileLockedButMetadataIsNot() throws {
    try withFreshStore { store in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      store.lock()
      #expect(store.isLocked)
      #expect(copy(genp([kSecReturnData as String: true])).0 == errSecInteractionNotAllowed)
      #expect(readAttributes(genp())?[kSecAttrAccount as String] as? String == "alice")
      #expect(store.unlock() == errSecSuccess)
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }

  @Test func test_12_afterFirstUnlockAndAlwaysItemsStayReadableWhileLocked() throws {
    try withFreshStore { store in
      add(
        genp(
          "first",
          [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock, kSecValueData as String: Data(utf8: "1")]))
      add(
        genp(
          "always",
          [
            kSecAttrAccessible as String: kSecAttrAccessibleAlwaysThisDeviceOnly,
            kSecValueData as String: Data(utf8: "2"),
          ]))
      store.lock()
      #expect(readData(genp("first")) == Data(utf8: "1"))
      #expect(readData(genp("always")) == Data(utf8: "2"))
    }
  }

  @Test func test_12_whenUnlockedItemsCannotBeAddedOrUpdatedWhileLocked() throws {
    try withFreshStore { store in
      add(genp("existing", [kSecValueData as String: Data(utf8: "pw")]))
      store.lock()
      #expect(add(genp("new")) == errSecInteractionNotAllowed)
      #expect(update(genp("existing"), [kSecAttrLabel as String: "x"]) == errSecInteractionNotAllowed)
      #expect(add(genp("ok", [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock])) == errSecSuccess)
    }
  }

  @Test func test_12_accessControlSetsTheProtectionAndIsReturned() throws {
    try withFreshStore { _ in
      let control = try #require(
        SecAccessControlCreateWithFlags(
          nil, kSecAttrAccessibleAfterFirstUnlock, [.biometryAny, .or, .devicePasscode], nil))
      #expect(
        add(
          genp(
            "a",
            [kSecAttrAccessControl as String: control, kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked]))
          == errSecParam)
      #expect(add(genp("b", [kSecAttrAccessControl as String: control])) == errSecSuccess)
      let attributes = try #require(readAttributes(genp("b")))
      #expect(attributes[kSecAttrAccessible as String] as? String == "ck")
      #expect(attributes[kSecAttrAccessControl as String] as? SecAccessControl == control)
    }
  }

  @Test func test_12_changingAccessibilityMovesTheAccessControlsProtectionAndKeepsItsFlags() throws {
    try withFreshStore { _ in
      let control = try #require(
        SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, .devicePasscode, nil))
      add(genp([kSecAttrAccessControl as String: control, kSecValueData as String: Data(utf8: "pw")]))
      #expect(update(genp(), [kSecAttrAccessible as String: kSecAttrAccessibleAlways]) == errSecSuccess)
      let attributes = try #require(readAttributes(genp()))
      #expect(attributes[kSecAttrAccessible as String] as? String == "dk")
      let moved = try #require(attributes[kSecAttrAccessControl as String] as? SecAccessControl)
      #expect(moved == SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAlways, .devicePasscode, nil))
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }

  @Test func test_12_aPassphraseStoreIsSealedUntilUnlockedWithTheRightPassphrase() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-pass-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let created = try KeychainStore(directory: directory, passphrase: "open sesame")
    withKeychainContext(store: created, accessGroups: ["g"]) {
      _ = add(
        genp([kSecValueData as String: Data(utf8: "pw"), kSecAttrAccessible as String: kSecAttrAccessibleAlways]))
    }
    #expect(throws: KeychainStoreError.self) { try KeychainStore(directory: directory, passphrase: "wrong") }
    let reopened = try KeychainStore(directory: directory)
    #expect(reopened.hasPassphrase && reopened.isLocked)
    withKeychainContext(store: reopened, accessGroups: ["g"]) {
      #expect(copy(genp()).0 == errSecInteractionNotAllowed)
      #expect(reopened.unlock(passphrase: "wrong") == errSecAuthFailed)
      #expect(reopened.unlock() == errSecInteractionNotAllowed)
      #expect(reopened.unlock(passphrase: "open sesame") == errSecSuccess)
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }
}

/// Section 13: persistent references.
@Suite struct PersistentReferenceRules {
  @Test func test_13_aPersistentRefIsTheClassFollowedByA16ByteId() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(inet([kSecReturnPersistentRef as String: true])).1 as? Data)
      #expect(ref.count == 20)
      #expect(ref.prefix(4) == Data(utf8: "inet"))
    }
  }

  @Test func test_13_theLegacyRowIdFormResolves() throws {
    try withFreshStore { _ in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      let legacy = Data(utf8: "genp") + Data([0, 0, 0, 0, 0, 0, 0, 1])
      #expect(readData([kSecValuePersistentRef as String: legacy]) == Data(utf8: "pw"))
    }
  }

  @Test func test_13_aMalformedRefIsParam() throws {
    try withFreshStore { _ in
      for bad in [Data(), Data(count: 7), Data(utf8: "genq") + Data(count: 16), Data(count: 21)] {
        #expect(copy([kSecValuePersistentRef as String: bad]).0 == errSecParam)
      }
      #expect(copy([kSecValuePersistentRef as String: "genp"]).0 == errSecParam)
    }
  }

  @Test func test_13_aRefSurvivesPrimaryKeyChangesAndDiesWithTheItem() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(genp([kSecReturnPersistentRef as String: true])).1 as? Data)
      #expect(update(genp(), [kSecAttrAccount as String: "bob", kSecAttrService as String: "other"]) == errSecSuccess)
      let (_, again) = copy(genp("bob", service: "other", [kSecReturnPersistentRef as String: true]))
      #expect(again as? Data == ref)
      #expect(delete([kSecValuePersistentRef as String: ref]) == errSecSuccess)
      #expect(copy([kSecValuePersistentRef as String: ref]).0 == errSecItemNotFound)
    }
  }
}

/// Section 14: SecCopyErrorMessageString.
@Suite struct ErrorMessageRules {
  @Test func test_14_knownCodesHaveASentenceAndUnknownOnesTheOSStatusFallback() {
    for code in [
      errSecSuccess, errSecParam, errSecDuplicateItem, errSecItemNotFound, errSecInteractionNotAllowed,
      errSecMissingEntitlement,
    ] {
      let message = SecCopyErrorMessageString(code, nil) as String?
      #expect(message?.hasSuffix(".") == true, "code \(code)")
      #expect(message?.contains("OSStatus") == false)
    }
    #expect(SecCopyErrorMessageString(-12345, nil) as String? == "OSStatus -12345")
    #expect(
      SecCopyErrorMessageString(errSecDuplicateItem, nil) as String? == "The item already exists in the keychain.")
  }
}

import Foundation
import Security
import Testing

/// Section 12 and the Linux lock state of SpecificationDecisions.
@Suite struct AccessibilityAndLockRules {
  @Test("Rule 12: when unlocked data is unreadable while locked but metadata is not")
  func whenUnlockedDataIsUnreadableWhileLockedButMetadataIsNot() throws {
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

  @Test("Rule 12: after first unlock and always items stay readable while locked")
  func afterFirstUnlockAndAlwaysItemsStayReadableWhileLocked() throws {
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

  @Test("Rule 12: when unlocked items cannot be added or updated while locked")
  func whenUnlockedItemsCannotBeAddedOrUpdatedWhileLocked() throws {
    try withFreshStore { store in
      add(genp("existing", [kSecValueData as String: Data(utf8: "pw")]))
      store.lock()
      #expect(add(genp("new")) == errSecInteractionNotAllowed)
      #expect(update(genp("existing"), [kSecAttrLabel as String: "x"]) == errSecInteractionNotAllowed)
      #expect(add(genp("ok", [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock])) == errSecSuccess)
    }
  }

  @Test("Rule 12: access control sets the protection and is returned")
  func accessControlSetsTheProtectionAndIsReturned() throws {
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

  @Test("Rule 12: changing accessibility moves the access controls protection and keeps its flags")
  func changingAccessibilityMovesTheAccessControlsProtectionAndKeepsItsFlags() throws {
    try withFreshStore { _ in
      let control = try #require(
        SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, .devicePasscode, nil))
      add(genp([kSecAttrAccessControl as String: control, kSecValueData as String: Data(utf8: "pw")]))
      #expect(update(genp(), [kSecAttrAccessible as String: kSecAttrAccessibleAlways]) == errSecSuccess)
      let attributes = try #require(readAttributes(genp()))
      #expect(attributes[kSecAttrAccessible as String] as? String == "dk")
      let moved = try #require(attributes[kSecAttrAccessControl as String] as? SecAccessControl)
      #expect(moved == SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAlways, .devicePasscode, nil))
      // The passcode constraint came along: the data still needs authentication (10.4).
      #expect(copy(genp([kSecReturnData as String: true])).0 == errSecInteractionNotAllowed)
    }
  }

  @Test("Rule 12: a passphrase store is sealed until unlocked with the right passphrase")
  func aPassphraseStoreIsSealedUntilUnlockedWithTheRightPassphrase() throws {
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

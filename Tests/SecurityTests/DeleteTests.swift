import Foundation
import Security
import Testing

/// Section 8: SecItemDelete.
@Suite struct DeleteRules {
  @Test("Rule 8.1: delete removes every match") func deleteRemovesEveryMatch() throws {
    try withFreshStore { _ in
      for account in ["a", "b", "c"] { add(genp(account, service: "doomed")) }
      add(genp("d", service: "kept"))
      #expect(
        delete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "doomed"]) == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
    }
  }

  @Test("Rule 8.2: delete without match is item not found") func deleteWithoutMatchIsItemNotFound() throws {
    try withFreshStore { _ in
      #expect(delete(genp()) == errSecItemNotFound)
    }
  }

  @Test("Rule 8.3: match limit in a delete is ignored") func matchLimitInADeleteIsIgnored() throws {
    try withFreshStore { _ in
      add(genp("a"))
      add(genp("b"))
      #expect(
        delete([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll])
          == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
    }
  }

  @Test("Rule 8.4: return keys in a delete are ignored") func returnKeysInADeleteAreIgnored() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(delete(genp([kSecReturnData as String: true, kSecReturnAttributes as String: true])) == errSecSuccess)
    }
  }

  @Test("Rule 8.5: class alone deletes the callers unsynced items of that class")
  func classAloneDeletesTheCallersUnsyncedItemsOfThatClass() throws {
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

  @Test("Rule 8.6: delete by persistent ref and ref with attributes is param")
  func deleteByPersistentRefAndRefWithAttributesIsParam() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(genp("a", [kSecReturnPersistentRef as String: true])).1 as? Data)
      add(genp("b"))
      #expect(delete([kSecValuePersistentRef as String: ref, kSecAttrAccount as String: "a"]) == errSecParam)
      #expect(delete([kSecValuePersistentRef as String: ref]) == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
    }
  }

  @Test("Rule 8.7: a value ref in a delete is param") func aValueRefInADeleteIsParam() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(delete(genp([kSecValueRef as String: Data()])) == errSecParam)
    }
  }

  @Test("Rule 8.8: a deleted synchronizable item is invisible to every query")
  func aDeletedSynchronizableItemIsInvisibleToEveryQuery() throws {
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

  @Test("Rule 8.9: delete needs no key even while locked") func deleteNeedsNoKeyEvenWhileLocked() throws {
    try withFreshStore { store in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      store.lock()
      #expect(delete(genp()) == errSecSuccess)
      #expect(count(genp()) == 0)
    }
  }
}

import Foundation
import Security
import Testing

/// Sections 10 and 11: synchronizable items and access groups.
@Suite struct SyncAndAccessGroupRules {
  @Test("Rule 10: synced and unsynced items with one primary key coexist")
  func syncedAndUnsyncedItemsWithOnePrimaryKeyCoexist() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: Data(utf8: "local")])) == errSecSuccess)
      #expect(
        add(genp([kSecAttrSynchronizable as String: true, kSecValueData as String: Data(utf8: "cloud")]))
          == errSecSuccess)
      #expect(readData(genp()) == Data(utf8: "local"))
      #expect(readData(genp([kSecAttrSynchronizable as String: true])) == Data(utf8: "cloud"))
    }
  }

  @Test("Rule 10: synchronizable any is param in an add") func synchronizableAnyIsParamInAnAdd() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == errSecParam)
    }
  }

  @Test("Rule 11: the first group is the default for add") func theFirstGroupIsTheDefaultForAdd() throws {
    try withFreshStore(accessGroups: ["team.app", "team.shared"]) { _ in
      add(genp())
      #expect(count(genp([kSecAttrAccessGroup as String: "team.app"])) == 1)
    }
  }

  @Test("Rule 11: a search without a group spans every caller group") func aSearchWithoutAGroupSpansEveryCallerGroup()
    throws
  {
    try withFreshStore(accessGroups: ["g1", "g2", "g3"]) { _ in
      for group in ["g1", "g2", "g3"] { add(genp(group, [kSecAttrAccessGroup as String: group])) }
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 3)
    }
  }

  @Test("Rule 11: an empty group list is missing entitlement for every call")
  func anEmptyGroupListIsMissingEntitlementForEveryCall() throws {
    try withFreshStore(accessGroups: []) { _ in
      #expect(add(genp()) == errSecMissingEntitlement)
      #expect(copy(genp()).0 == errSecMissingEntitlement)
      #expect(update(genp(), [kSecAttrLabel as String: "x"]) == errSecMissingEntitlement)
      #expect(delete(genp()) == errSecMissingEntitlement)
    }
  }

  @Test("Rule 11: items of other groups are invisible") func itemsOfOtherGroupsAreInvisible() throws {
    let temporary = try TemporaryStore()
    temporary.run(accessGroups: ["app-a"]) { _ = add(genp("secret-of-a", [kSecValueData as String: Data(utf8: "a")])) }
    temporary.run(accessGroups: ["app-b"]) {
      #expect(copy(genp("secret-of-a")).0 == errSecItemNotFound)
      #expect(delete([kSecClass as String: kSecClassGenericPassword]) == errSecItemNotFound)
      #expect(add(genp("secret-of-a")) == errSecSuccess)
    }
    temporary.run(accessGroups: ["app-a"]) { #expect(readData(genp("secret-of-a")) == Data(utf8: "a")) }
  }

  @Test("Rule 11: the star group grants every group") func theStarGroupGrantsEveryGroup() throws {
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

import Foundation
import Security
import Testing

/// Section 3: how every search, update and delete query is processed.
@Suite struct QueryRules {
  @Test("Rule 3.1: class comes from the persistent ref when missing") func classComesFromThePersistentRefWhenMissing()
    throws
  {
    try withFreshStore { _ in
      let (_, reference) = addReturning(
        genp([kSecReturnPersistentRef as String: true, kSecValueData as String: Data(utf8: "pw")]))
      let ref = try #require(reference as? Data)
      let (status, data) = copy([kSecValuePersistentRef as String: ref, kSecReturnData as String: true])
      #expect(status == errSecSuccess)
      #expect(data as? Data == Data(utf8: "pw"))
    }
  }

  @Test("Rule 3.2: queries see only unsynced items unless they ask for sync or any")
  func queriesSeeOnlyUnsyncedItemsUnlessTheyAskForSyncOrAny() throws {
    try withFreshStore { _ in
      add(genp("synced", [kSecAttrSynchronizable as String: true]))
      add(genp("local"))
      #expect(copy(genp("synced")).0 == errSecItemNotFound)
      #expect(copy(genp("synced", [kSecAttrSynchronizable as String: true])).0 == errSecSuccess)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 1)
      #expect(
        count([
          kSecClass as String: kSecClassGenericPassword, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
        ]) == 2)
    }
  }

  @Test("Rule 3.3: deleted synchronizable items are never returned") func deletedSynchronizableItemsAreNeverReturned()
    throws
  {
    try withFreshStore { _ in
      add(genp([kSecAttrSynchronizable as String: true]))
      #expect(delete(genp([kSecAttrSynchronizable as String: true])) == errSecSuccess)
      #expect(count(genp([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == 0)
      #expect(
        copy(genp([kSecAttrTombstone as String: 1, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])).0
          == errSecItemNotFound)
    }
  }

  @Test("Rule 3.4: access group filter and entitlement check") func accessGroupFilterAndEntitlementCheck() throws {
    try withFreshStore(accessGroups: ["mine", "shared"]) { _ in
      add(genp("a", [kSecAttrAccessGroup as String: "mine"]))
      add(genp("b", [kSecAttrAccessGroup as String: "shared"]))
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 2)
      #expect(count([kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: "shared"]) == 1)
      #expect(copy(genp([kSecAttrAccessGroup as String: "theirs"])).0 == errSecMissingEntitlement)
    }
  }

  @Test("Rule 3.5: items belong to the single user view") func itemsBelongToTheSingleUserView() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(readAttributes(genp())?[kSecAttrMultiUser as String] as? Data == Data())
      #expect(copy(genp([kSecAttrMultiUser as String: Data()])).0 == errSecSuccess)
      #expect(copy(genp([kSecAttrMultiUser as String: Data(count: 16)])).0 == errSecItemNotFound)
    }
  }

  @Test("Rule 3.6: query attributes are equality constraints and omitted ones are wildcards")
  func queryAttributesAreEqualityConstraintsAndOmittedOnesAreWildcards() throws {
    try withFreshStore { _ in
      add(genp("a", [kSecAttrLabel as String: "work", kSecAttrComment as String: "c1"]))
      add(genp("b", [kSecAttrLabel as String: "work", kSecAttrComment as String: "c2"]))
      add(genp("c", [kSecAttrLabel as String: "home"]))
      #expect(count([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "work"]) == 2)
      #expect(
        count([
          kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "work",
          kSecAttrComment as String: "c2",
        ]) == 1)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 3)
    }
  }

  @Test("Rule 3.7: results come in insertion order and the limit applies")
  func resultsComeInInsertionOrderAndTheLimitApplies() throws {
    try withFreshStore { _ in
      for account in ["zulu", "alpha", "mike"] { add(genp(account)) }
      let (_, result) = copy([
        kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
        kSecReturnAttributes as String: true,
      ])
      let accounts = (result as? [[String: Any]])?.compactMap { $0[kSecAttrAccount as String] as? String }
      #expect(accounts == ["zulu", "alpha", "mike"])
      let (_, limited) = copy([
        kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: 2,
        kSecReturnAttributes as String: true,
      ])
      #expect((limited as? [Any])?.count == 2)
    }
  }

  @Test("Rule 3.8: a corrupt row is reported as decode and never as plaintext")
  func aCorruptRowIsReportedAsDecodeAndNeverAsPlaintext() throws {
    let temporary = try TemporaryStore()
    temporary.run {
      add(genp("victim", [kSecValueData as String: Data(utf8: "secret-one")]))
      add(genp("bystander", [kSecValueData as String: Data(utf8: "secret-two")]))
    }
    try StoreTampering.flipByte(in: "meta", account: 0, directory: temporary.directory)
    temporary.run {
      #expect(copy(genp("victim", [kSecReturnAttributes as String: true])).0 == errSecDecode)
      #expect(readData(genp("bystander")) == Data(utf8: "secret-two"))
    }
  }

  @Test("Rule 3.9: a query that finds nothing is item not found") func aQueryThatFindsNothingIsItemNotFound() throws {
    try withFreshStore { _ in
      #expect(copy(genp()).0 == errSecItemNotFound)
      #expect(update(genp(), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
      #expect(delete(genp()) == errSecItemNotFound)
    }
  }
}

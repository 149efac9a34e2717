import Foundation
import Security
import Testing

/// Section 3: how every search, update and delete query is processed.
@Suite struct QueryRules {
  @Test func test_3_1_classComesFromThePersistentRefWhenMissing() throws {
    try withFreshStore { _ in
      let (_, reference) = addReturning(
        genp([kSecReturnPersistentRef as String: true, kSecValueData as String: Data(utf8: "pw")]))
      let ref = try #require(reference as? Data)
      let (status, data) = copy([kSecValuePersistentRef as String: ref, kSecReturnData as String: true])
      #expect(status == errSecSuccess)
      #expect(data as? Data == Data(utf8: "pw"))
    }
  }

  @Test func test_3_2_queriesSeeOnlyUnsyncedItemsUnlessTheyAskForSyncOrAny() throws {
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

  @Test func test_3_3_deletedSynchronizableItemsAreNeverReturned() throws {
    try withFreshStore { _ in
      add(genp([kSecAttrSynchronizable as String: true]))
      #expect(delete(genp([kSecAttrSynchronizable as String: true])) == errSecSuccess)
      #expect(count(genp([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == 0)
      #expect(
        copy(genp([kSecAttrTombstone as String: 1, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])).0
          == errSecItemNotFound)
    }
  }

  @Test func test_3_4_accessGroupFilterAndEntitlementCheck() throws {
    try withFreshStore(accessGroups: ["mine", "shared"]) { _ in
      add(genp("a", [kSecAttrAccessGroup as String: "mine"]))
      add(genp("b", [kSecAttrAccessGroup as String: "shared"]))
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 2)
      #expect(count([kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: "shared"]) == 1)
      #expect(copy(genp([kSecAttrAccessGroup as String: "theirs"])).0 == errSecMissingEntitlement)
    }
  }

  @Test func test_3_5_itemsBelongToTheSingleUserView() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(readAttributes(genp())?[kSecAttrMultiUser as String] as? Data == Data())
      #expect(copy(genp([kSecAttrMultiUser as String: Data()])).0 == errSecSuccess)
      #expect(copy(genp([kSecAttrMultiUser as String: Data(count: 16)])).0 == errSecItemNotFound)
    }
  }

  @Test func test_3_6_queryAttributesAreEqualityConstraintsAndOmittedOnesAreWildcards() throws {
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

  @Test func test_3_7_resultsComeInInsertionOrderAndTheLimitApplies() throws {
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

  @Test func test_3_8_aCorruptRowIsReportedAsDecodeAndNeverAsPlaintext() throws {
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

  @Test func test_3_9_aQueryThatFindsNothingIsItemNotFound() throws {
    try withFreshStore { _ in
      #expect(copy(genp()).0 == errSecItemNotFound)
      #expect(update(genp(), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
      #expect(delete(genp()) == errSecItemNotFound)
    }
  }
}

/// Section 4: the shape of results, with decisions 2, 3 and 6.
@Suite struct ResultShapeRules {
  private func seed() {
    add(genp("a", [kSecValueData as String: Data(utf8: "pa")]))
    add(genp("b", [kSecValueData as String: Data(utf8: "pb")]))
  }

  private let all: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
  ]

  @Test func test_4_noReturnKeyWithLimitOneLeavesTheResultUntouched() throws {
    try withFreshStore { _ in
      seed()
      var result: CFTypeRef? = "sentinel" as NSString
      #expect(SecItemCopyMatching(genp("a") as CFDictionary, &result) == errSecSuccess)
      #expect(result as? String == "sentinel")
    }
  }

  @Test func test_4_noReturnKeyWithLimitAllGivesAnEmptyArray() throws {
    try withFreshStore { _ in
      seed()
      let (status, result) = copy(all)
      #expect(status == errSecSuccess)
      #expect((result as? [Any])?.isEmpty == true)
    }
  }

  @Test func test_4_returnDataGivesDataOrAnArrayOfData() throws {
    try withFreshStore { _ in
      seed()
      #expect(copy(genp("a", [kSecReturnData as String: true])).1 as? Data == Data(utf8: "pa"))
      let many = copy(all.merging([kSecReturnData as String: true]) { $1 }).1 as? [Data]
      #expect(many == [Data(utf8: "pa"), Data(utf8: "pb")])
    }
  }

  @Test func test_4_returnAttributesGivesADictionaryOrAnArrayOfThem() throws {
    try withFreshStore { _ in
      seed()
      #expect(copy(genp("a", [kSecReturnAttributes as String: true])).1 is [String: Any])
      let many = copy(all.merging([kSecReturnAttributes as String: true]) { $1 }).1 as? [[String: Any]]
      #expect(many?.count == 2)
    }
  }

  @Test func test_4_returnPersistentRefGivesDataOrAnArrayOfData() throws {
    try withFreshStore { _ in
      seed()
      #expect((copy(genp("a", [kSecReturnPersistentRef as String: true])).1 as? Data)?.count == 20)
      let many = copy(all.merging([kSecReturnPersistentRef as String: true]) { $1 }).1 as? [Data]
      #expect(many?.count == 2)
    }
  }

  @Test func test_4_returnRefOnPasswordItemsGivesNoResult() throws {
    try withFreshStore { _ in
      seed()
      var result: CFTypeRef?
      #expect(SecItemCopyMatching(genp("a", [kSecReturnRef as String: true]) as CFDictionary, &result) == errSecSuccess)
      #expect(result == nil)
      let many = copy(all.merging([kSecReturnRef as String: true]) { $1 }).1 as? [Any]
      #expect(many?.isEmpty == true)
    }
  }

  @Test func test_4_severalReturnKeysGiveADictionaryWithExactlyTheRequestedValues() throws {
    try withFreshStore { _ in
      seed()
      let dataAndRef = try #require(
        copy(genp("a", [kSecReturnData as String: true, kSecReturnPersistentRef as String: true])).1 as? [String: Any])
      #expect(dataAndRef[kSecValueData as String] as? Data == Data(utf8: "pa"))
      #expect((dataAndRef[kSecValuePersistentRef as String] as? Data)?.count == 20)
      #expect(dataAndRef[kSecAttrAccount as String] == nil)
      let everything = try #require(
        copy(genp("a", [kSecReturnData as String: true, kSecReturnAttributes as String: true])).1 as? [String: Any])
      #expect(everything[kSecAttrAccount as String] as? String == "a")
      #expect(everything[kSecValuePersistentRef as String] == nil)
    }
  }

  @Test func test_4_valueDataIsOmittedWhenTheItemHasNoData() throws {
    try withFreshStore { _ in
      add(genp("empty"))
      let result = try #require(
        copy(genp("empty", [kSecReturnData as String: true, kSecReturnAttributes as String: true])).1 as? [String: Any])
      #expect(result[kSecValueData as String] == nil)
      #expect(result[kSecAttrAccount as String] as? String == "empty")
    }
  }

  @Test func test_4_attributeDictionaryHoldsDefaultsAndSystemValuesButNotClass() throws {
    try withFreshStore { _ in
      add([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "host"])
      let attributes = try #require(readAttributes([kSecClass as String: kSecClassInternetPassword]))
      #expect(attributes[kSecClass as String] == nil)
      #expect(attributes[kSecAttrAccount as String] as? String == "")
      #expect(attributes[kSecAttrPort as String] as? Int == 0)
      #expect(attributes[kSecAttrPath as String] as? String == "")
      for key in ["cdat", "mdat", "pdmn", "agrp", "sync", "tomb", "musr", "sha1"] {
        #expect(attributes[key] != nil, "missing \(key)")
      }
      #expect((attributes["sha1"] as? Data)?.count == 20)
      #expect(attributes["UUID"] == nil && attributes["persistref"] == nil)
    }
  }

  @Test func test_4_addResultLeavesOutTombstoneAndMultiUser() throws {
    try withFreshStore { _ in
      let (status, result) = addReturning(genp([kSecReturnAttributes as String: true]))
      #expect(status == errSecSuccess)
      let attributes = try #require(result as? [String: Any])
      #expect(attributes[kSecAttrAccount as String] as? String == "alice")
      #expect(attributes["tomb"] == nil && attributes["musr"] == nil)
    }
  }

  @Test func test_4_numericLimitReturnsAtMostNAndAllWithOneMatchIsAnArray() throws {
    try withFreshStore { _ in
      for account in ["a", "b", "c"] { add(genp(account)) }
      let two =
        copy(all.merging([kSecMatchLimit as String: 2, kSecReturnAttributes as String: true]) { $1 }).1 as? [Any]
      #expect(two?.count == 2)
      let one = copy(genp("a", [kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true])).1
      #expect((one as? [Any])?.count == 1)
    }
  }
}

/// Section 6: SecItemCopyMatching.
@Suite struct CopyMatchingRules {
  @Test func test_6_1_theDefaultLimitIsOneAndGivesTheFirstMatch() throws {
    try withFreshStore { _ in
      add(genp("first", [kSecValueData as String: Data(utf8: "1")]))
      add(genp("second", [kSecValueData as String: Data(utf8: "2")]))
      #expect(readData([kSecClass as String: kSecClassGenericPassword]) == Data(utf8: "1"))
    }
  }

  @Test func test_6_2_noMatchIsItemNotFoundAndTheResultIsUntouched() throws {
    try withFreshStore { _ in
      var result: CFTypeRef? = "sentinel" as NSString
      #expect(
        SecItemCopyMatching(genp([kSecReturnData as String: true]) as CFDictionary, &result) == errSecItemNotFound)
      #expect(result as? String == "sentinel")
    }
  }

  @Test func test_6_3_aNilResultPointerIsAnExistenceTest() throws {
    try withFreshStore { _ in
      #expect(SecItemCopyMatching(genp([kSecReturnData as String: true]) as CFDictionary, nil) == errSecItemNotFound)
      add(genp())
      #expect(SecItemCopyMatching(genp([kSecReturnData as String: true]) as CFDictionary, nil) == errSecSuccess)
    }
  }

  @Test func test_6_4_returnDataWithLimitAllReturnsEveryMatch() throws {
    try withFreshStore { _ in
      for index in 0..<5 { add(genp("a\(index)", [kSecValueData as String: Data([UInt8(index)])])) }
      let data =
        copy([
          kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
          kSecReturnData as String: true,
        ]).1 as? [Data]
      #expect(data == (0..<5).map { Data([UInt8($0)]) })
    }
  }

  @Test func test_6_5_matchKeys() throws {
    try withFreshStore { _ in
      add(inet("a", server: "example.com"))
      add(inet("b", server: "mail.example.com"))
      add(inet("c", server: "badexample.com"))
      let query: [String: Any] = [
        kSecClass as String: kSecClassInternetPassword, kSecMatchHostOrSubdomainOfHost as String: "example.com",
        kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
      ]
      let servers = (copy(query).1 as? [[String: Any]])?.compactMap { $0[kSecAttrServer as String] as? String }
      #expect(servers == ["example.com", "mail.example.com"])
      #expect(copy(genp([kSecMatchHostOrSubdomainOfHost as String: "example.com"])).0 == errSecUnimplemented)
      #expect(copy(genp([kSecMatchIssuers as String: [Data()]])).0 == errSecUnimplemented)
      #expect(copy(genp([kSecMatchPolicy as String: "policy"])).0 == errSecUnimplemented)
      add(genp("Alice"))
      #expect(copy(genp("alice", [kSecMatchCaseInsensitive as String: true])).0 == errSecItemNotFound)
    }
  }

  @Test func test_6_6_itemListInASearchIsParam() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(copy(genp([kSecUseItemList as String: [Data()]])).0 == errSecParam)
    }
  }

  @Test func test_6_7_authenticationUISkipIsAcceptedInSearches() throws {
    try withFreshStore { _ in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      #expect(readData(genp([kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip])) == Data(utf8: "pw"))
    }
  }

  @Test func test_6_8_aPersistentRefFindsExactlyThatItemAndTakesNoOtherAttributes() throws {
    try withFreshStore { _ in
      add(genp("other", [kSecValueData as String: Data(utf8: "other")]))
      let ref = try #require(
        addReturning(
          genp(
            "synced",
            [
              kSecAttrSynchronizable as String: true, kSecReturnPersistentRef as String: true,
              kSecValueData as String: Data(utf8: "mine"),
            ])
        ).1
          as? Data)
      #expect(
        readData([kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: ref])
          == Data(utf8: "mine"))
      #expect(copy([kSecValuePersistentRef as String: ref, kSecAttrAccount as String: "synced"]).0 == errSecParam)
    }
  }

  @Test func test_6_9_persistentRefClassMismatchIsNoSuchClassAndMalformedIsParam() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(genp([kSecReturnPersistentRef as String: true])).1 as? Data)
      #expect(
        copy([kSecClass as String: kSecClassInternetPassword, kSecValuePersistentRef as String: ref]).0
          == errSecNoSuchClass)
      #expect(copy([kSecValuePersistentRef as String: Data([1, 2, 3])]).0 == errSecParam)
      #expect(copy([kSecValuePersistentRef as String: Data(utf8: "xxxx") + Data(count: 16)]).0 == errSecParam)
    }
  }

  @Test func test_6_10_searchingNeverChangesAnItem() throws {
    try withFreshStore { _ in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      let before = try #require(readAttributes(genp()))
      _ = readData(genp())
      let after = try #require(readAttributes(genp()))
      #expect(before[kSecAttrModificationDate as String] as? Date == after[kSecAttrModificationDate as String] as? Date)
      #expect(before["sha1"] as? Data == after["sha1"] as? Data)
    }
  }
}

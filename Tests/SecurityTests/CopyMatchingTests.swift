import Foundation
import Security
import Testing

/// Section 6: SecItemCopyMatching.
@Suite struct CopyMatchingRules {
  @Test("Rule 6.1: the default limit is one and gives the first match") func theDefaultLimitIsOneAndGivesTheFirstMatch()
    throws
  {
    try withFreshStore { _ in
      add(genp("first", [kSecValueData as String: Data(utf8: "1")]))
      add(genp("second", [kSecValueData as String: Data(utf8: "2")]))
      #expect(readData([kSecClass as String: kSecClassGenericPassword]) == Data(utf8: "1"))
    }
  }

  @Test("Rule 6.2: no match is item not found and the result is untouched")
  func noMatchIsItemNotFoundAndTheResultIsUntouched() throws {
    try withFreshStore { _ in
      var result: CFTypeRef? = "sentinel" as NSString
      #expect(
        SecItemCopyMatching(genp([kSecReturnData as String: true]) as CFDictionary, &result) == errSecItemNotFound)
      #expect(result as? String == "sentinel")
    }
  }

  @Test("Rule 6.3: a nil result pointer is an existence test") func aNilResultPointerIsAnExistenceTest() throws {
    try withFreshStore { _ in
      #expect(SecItemCopyMatching(genp([kSecReturnData as String: true]) as CFDictionary, nil) == errSecItemNotFound)
      add(genp())
      #expect(SecItemCopyMatching(genp([kSecReturnData as String: true]) as CFDictionary, nil) == errSecSuccess)
    }
  }

  @Test("Rule 6.4: return data with limit all returns every match") func returnDataWithLimitAllReturnsEveryMatch()
    throws
  {
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

  @Test("Rule 6.5: match keys") func matchKeys() throws {
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

  @Test("Rule 6.6: item list in a search is param") func itemListInASearchIsParam() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(copy(genp([kSecUseItemList as String: [Data()]])).0 == errSecParam)
    }
  }

  @Test("Rule 6.7: authentication UI skip is accepted in searches") func authenticationUISkipIsAcceptedInSearches()
    throws
  {
    try withFreshStore { _ in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      #expect(readData(genp([kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip])) == Data(utf8: "pw"))
    }
  }

  @Test("Rule 6.8: a persistent ref finds exactly that item and takes no other attributes")
  func aPersistentRefFindsExactlyThatItemAndTakesNoOtherAttributes() throws {
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

  @Test("Rule 6.9: persistent ref class mismatch is no such class and malformed is param")
  func persistentRefClassMismatchIsNoSuchClassAndMalformedIsParam() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(genp([kSecReturnPersistentRef as String: true])).1 as? Data)
      #expect(
        copy([kSecClass as String: kSecClassInternetPassword, kSecValuePersistentRef as String: ref]).0
          == errSecNoSuchClass)
      #expect(copy([kSecValuePersistentRef as String: Data([1, 2, 3])]).0 == errSecParam)
      #expect(copy([kSecValuePersistentRef as String: Data(utf8: "xxxx") + Data(count: 16)]).0 == errSecParam)
    }
  }

  @Test("Rule 6.10: searching never changes an item") func searchingNeverChangesAnItem() throws {
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

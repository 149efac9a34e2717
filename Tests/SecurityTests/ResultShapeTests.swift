import Foundation
import Security
import Testing

/// Section 4: the shape of results, with decisions 2, 3 and 6.
@Suite struct ResultShapeRules {
  private func seed() {
    add(genp("a", [kSecValueData as String: Data(utf8: "pa")]))
    add(genp("b", [kSecValueData as String: Data(utf8: "pb")]))
  }

  private let all: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
  ]

  @Test("Rule 4: no return key with limit one leaves the result untouched")
  func noReturnKeyWithLimitOneLeavesTheResultUntouched() throws {
    try withFreshStore { _ in
      seed()
      var result: CFTypeRef? = "sentinel" as NSString
      #expect(SecItemCopyMatching(genp("a") as CFDictionary, &result) == errSecSuccess)
      #expect(result as? String == "sentinel")
    }
  }

  @Test("Rule 4: no return key with limit all gives an empty array") func noReturnKeyWithLimitAllGivesAnEmptyArray()
    throws
  {
    try withFreshStore { _ in
      seed()
      let (status, result) = copy(all)
      #expect(status == errSecSuccess)
      #expect((result as? [Any])?.isEmpty == true)
    }
  }

  @Test("Rule 4: return data gives data or an array of data") func returnDataGivesDataOrAnArrayOfData() throws {
    try withFreshStore { _ in
      seed()
      #expect(copy(genp("a", [kSecReturnData as String: true])).1 as? Data == Data(utf8: "pa"))
      let many = copy(all.merging([kSecReturnData as String: true]) { $1 }).1 as? [Data]
      #expect(many == [Data(utf8: "pa"), Data(utf8: "pb")])
    }
  }

  @Test("Rule 4: return attributes gives a dictionary or an array of them")
  func returnAttributesGivesADictionaryOrAnArrayOfThem() throws {
    try withFreshStore { _ in
      seed()
      #expect(copy(genp("a", [kSecReturnAttributes as String: true])).1 is [String: Any])
      let many = copy(all.merging([kSecReturnAttributes as String: true]) { $1 }).1 as? [[String: Any]]
      #expect(many?.count == 2)
    }
  }

  @Test("Rule 4: return persistent ref gives data or an array of data")
  func returnPersistentRefGivesDataOrAnArrayOfData() throws {
    try withFreshStore { _ in
      seed()
      #expect((copy(genp("a", [kSecReturnPersistentRef as String: true])).1 as? Data)?.count == 20)
      let many = copy(all.merging([kSecReturnPersistentRef as String: true]) { $1 }).1 as? [Data]
      #expect(many?.count == 2)
    }
  }

  @Test("Rule 4: return ref on password items gives no result") func returnRefOnPasswordItemsGivesNoResult() throws {
    try withFreshStore { _ in
      seed()
      var result: CFTypeRef?
      #expect(SecItemCopyMatching(genp("a", [kSecReturnRef as String: true]) as CFDictionary, &result) == errSecSuccess)
      #expect(result == nil)
      let many = copy(all.merging([kSecReturnRef as String: true]) { $1 }).1 as? [Any]
      #expect(many?.isEmpty == true)
    }
  }

  @Test("Rule 4: several return keys give a dictionary with exactly the requested values")
  func severalReturnKeysGiveADictionaryWithExactlyTheRequestedValues() throws {
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

  @Test("Rule 4: value data is omitted when the item has no data") func valueDataIsOmittedWhenTheItemHasNoData() throws
  {
    try withFreshStore { _ in
      add(genp("empty"))
      let result = try #require(
        copy(genp("empty", [kSecReturnData as String: true, kSecReturnAttributes as String: true])).1 as? [String: Any])
      #expect(result[kSecValueData as String] == nil)
      #expect(result[kSecAttrAccount as String] as? String == "empty")
    }
  }

  @Test("Rule 4: attribute dictionary holds defaults and system values but not class")
  func attributeDictionaryHoldsDefaultsAndSystemValuesButNotClass() throws {
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

  @Test("Rule 4: add result leaves out tombstone and multi user") func addResultLeavesOutTombstoneAndMultiUser() throws
  {
    try withFreshStore { _ in
      let (status, result) = addReturning(genp([kSecReturnAttributes as String: true]))
      #expect(status == errSecSuccess)
      let attributes = try #require(result as? [String: Any])
      #expect(attributes[kSecAttrAccount as String] as? String == "alice")
      #expect(attributes["tomb"] == nil && attributes["musr"] == nil)
    }
  }

  @Test("Rule 4: numeric limit returns at most n and all with one match is an array")
  func numericLimitReturnsAtMostNAndAllWithOneMatchIsAnArray() throws {
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

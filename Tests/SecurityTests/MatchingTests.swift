import Foundation
import Security
import Testing

/// Section 9: matching semantics.
@Suite struct MatchingRules {
  @Test("Rule 9.1: matching is equality only") func matchingIsEqualityOnly() throws {
    try withFreshStore { _ in
      add(genp("alice-admin"))
      #expect(copy(genp("alice")).0 == errSecItemNotFound)
      #expect(copy(genp("alice-admin")).0 == errSecSuccess)
    }
  }

  @Test("Rule 9.2: matching is case sensitive and byte exact") func matchingIsCaseSensitiveAndByteExact() throws {
    try withFreshStore { _ in
      add(genp("caf\u{E9}"))
      #expect(copy(genp("CAF\u{C9}")).0 == errSecItemNotFound)
      #expect(copy(genp("cafe\u{301}")).0 == errSecItemNotFound)
      #expect(copy(genp("caf\u{E9}")).0 == errSecSuccess)
    }
  }

  @Test("Rule 9.3: case insensitive matching has no effect") func caseInsensitiveMatchingHasNoEffect() throws {
    try withFreshStore { _ in
      add(genp("Bob"))
      #expect(copy(genp("bob", [kSecMatchCaseInsensitive as String: kCFBooleanTrue!])).0 == errSecItemNotFound)
      #expect(copy(genp("Bob", [kSecMatchCaseInsensitive as String: kCFBooleanTrue!])).0 == errSecSuccess)
    }
  }

  @Test("Rule 9.4: a string and data with the same bytes match") func aStringAndDataWithTheSameBytesMatch() throws {
    try withFreshStore { _ in
      add(genp("abc"))
      #expect(copy(genp("", [kSecAttrAccount as String: Data(utf8: "abc")])).0 == errSecSuccess)
      #expect(add(genp("", [kSecAttrAccount as String: Data(utf8: "abc")])) == errSecDuplicateItem)
    }
  }

  @Test("Rule 9.5: number attributes equate true one and the string one")
  func numberAttributesEquateTrueOneAndTheStringOne() throws {
    try withFreshStore { _ in
      add(genp([kSecAttrIsInvisible as String: true]))
      for value in [true, 1, "1", NSNumber(value: 1)] as [Any] {
        #expect(copy(genp([kSecAttrIsInvisible as String: value])).0 == errSecSuccess, "value \(value)")
      }
      #expect(copy(genp([kSecAttrIsInvisible as String: false])).0 == errSecItemNotFound)
    }
  }

  @Test("Rule 9.6: an empty account matches items added without one") func anEmptyAccountMatchesItemsAddedWithoutOne()
    throws
  {
    try withFreshStore { _ in
      add([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"])
      #expect(copy(genp("")).0 == errSecSuccess)
    }
  }

  @Test("Rule 9.7: data and access control in a query do not filter") func dataAndAccessControlInAQueryDoNotFilter()
    throws
  {
    try withFreshStore { _ in
      let control = try #require(
        SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .devicePasscode, nil))
      let item = genp([kSecValueData as String: Data(utf8: "pw"), kSecAttrAccessControl as String: control])
      add(item)
      #expect(copy(genp([kSecValueData as String: Data(utf8: "different")])).0 == errSecSuccess)
      #expect(delete(item) == errSecSuccess)
    }
  }

  @Test("Rule 9.8: an extra attribute gives not found while an add is a duplicate")
  func anExtraAttributeGivesNotFoundWhileAnAddIsADuplicate() throws {
    try withFreshStore { _ in
      add(genp([kSecAttrLabel as String: "old label"]))
      let query = genp([kSecAttrLabel as String: "new label"])
      #expect(copy(query).0 == errSecItemNotFound)
      #expect(add(query) == errSecDuplicateItem)
    }
  }
}

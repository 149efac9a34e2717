import Foundation
import Security
import Testing

/// Section 13: persistent references.
@Suite struct PersistentReferenceRules {
  @Test("Rule 13: a persistent ref is the class followed by A16 byte id")
  func aPersistentRefIsTheClassFollowedByA16ByteId() throws {
    try withFreshStore { _ in
      let ref = try #require(addReturning(inet([kSecReturnPersistentRef as String: true])).1 as? Data)
      #expect(ref.count == 20)
      #expect(ref.prefix(4) == Data(utf8: "inet"))
    }
  }

  @Test("Rule 13: the legacy row id form resolves") func theLegacyRowIdFormResolves() throws {
    try withFreshStore { _ in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      let legacy = Data(utf8: "genp") + Data([0, 0, 0, 0, 0, 0, 0, 1])
      #expect(readData([kSecValuePersistentRef as String: legacy]) == Data(utf8: "pw"))
    }
  }

  @Test("Rule 13: a malformed ref is param") func aMalformedRefIsParam() throws {
    try withFreshStore { _ in
      for bad in [Data(), Data(count: 7), Data(utf8: "genq") + Data(count: 16), Data(count: 21)] {
        #expect(copy([kSecValuePersistentRef as String: bad]).0 == errSecParam)
      }
      #expect(copy([kSecValuePersistentRef as String: "genp"]).0 == errSecParam)
    }
  }

  @Test("Rule 13: a ref survives primary key changes and dies with the item")
  func aRefSurvivesPrimaryKeyChangesAndDiesWithTheItem() throws {
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

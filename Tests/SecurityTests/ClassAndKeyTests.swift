import Foundation
import Security
import Testing

/// Section 2: item classes, primary keys and the attributes the store maintains.
@Suite struct ClassAndKeyRules {
  @Test("Rule 2: class missing is param unknown is no such class non string is param")
  func classMissingIsParamUnknownIsNoSuchClassNonStringIsParam() throws {
    try withFreshStore { _ in
      #expect(add([kSecAttrAccount as String: "a"]) == errSecParam)
      #expect(add([kSecClass as String: "nope"]) == errSecNoSuchClass)
      #expect(add([kSecClass as String: 5]) == errSecParam)
      #expect(add([kSecClass as String: kSecClassAppleSharePassword]) == errSecNoSuchClass)
    }
  }

  @Test("Rule 2 and keys rule 8.1: an identity is found as a join, never added without its parts")
  func anIdentityIsAJoinNeverAddedWithoutItsParts() throws {
    try withFreshStore { _ in
      #expect(add([kSecClass as String: kSecClassIdentity]) == errSecUnimplemented)
      #expect(copy([kSecClass as String: kSecClassIdentity]).0 == errSecItemNotFound)
    }
  }

  @Test("Rule 2.1: generic password primary key is account and service")
  func genericPasswordPrimaryKeyIsAccountAndService() throws {
    try withFreshStore { _ in
      #expect(add(genp("a", [kSecAttrLabel as String: "one"])) == errSecSuccess)
      #expect(add(genp("a", [kSecAttrLabel as String: "two"])) == errSecDuplicateItem)
      #expect(add(genp("a", service: "other")) == errSecSuccess)
      #expect(add(genp("b")) == errSecSuccess)
    }
  }

  @Test("Rule 2.1: internet password primary key has seven attributes")
  func internetPasswordPrimaryKeyHasSevenAttributes() throws {
    try withFreshStore { _ in
      let base: [String: Any] = [
        kSecAttrSecurityDomain as String: "d", kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
        kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm, kSecAttrPort as String: 443,
        kSecAttrPath as String: "/",
      ]
      #expect(add(inet("a", base)) == errSecSuccess)
      #expect(add(inet("a", base.merging([kSecAttrLabel as String: "x"]) { $1 })) == errSecDuplicateItem)
      let variations: [String: Any] = [
        kSecAttrSecurityDomain as String: "e", kSecAttrProtocol as String: kSecAttrProtocolFTP,
        kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeNTLM, kSecAttrPort as String: 8443,
        kSecAttrPath as String: "/other",
      ]
      for (key, value) in variations {
        #expect(add(inet("a", base.merging([key: value]) { $1 })) == errSecSuccess, "varying \(key)")
      }
      #expect(add(inet("a", server: "other.example", base)) == errSecSuccess)
      #expect(add(inet("b", base)) == errSecSuccess)
    }
  }

  @Test("Rule 2.1: absent and empty primary key values collide") func absentAndEmptyPrimaryKeyValuesCollide() throws {
    try withFreshStore { _ in
      #expect(add([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"]) == errSecSuccess)
      #expect(add(genp("")) == errSecDuplicateItem)
      #expect(add(genp("", [kSecAttrAccount as String: Data()])) == errSecDuplicateItem)
    }
  }

  @Test("Rule 2.1: different groups or sync states never collide") func differentGroupsOrSyncStatesNeverCollide() throws
  {
    try withFreshStore(accessGroups: ["g1", "g2"]) { _ in
      #expect(add(genp([kSecAttrAccessGroup as String: "g1"])) == errSecSuccess)
      #expect(add(genp([kSecAttrAccessGroup as String: "g2"])) == errSecSuccess)
      #expect(
        add(genp([kSecAttrAccessGroup as String: "g1", kSecAttrSynchronizable as String: true])) == errSecSuccess)
      #expect(add(genp([kSecAttrAccessGroup as String: "g1"])) == errSecDuplicateItem)
    }
  }

  @Test("Rule 2.2: creation and modification dates are set by the store")
  func creationAndModificationDatesAreSetByTheStore() throws {
    try withFreshStore { _ in
      let past = Date(timeIntervalSince1970: 0)
      let before = Date()
      add(genp([kSecAttrCreationDate as String: past, kSecAttrModificationDate as String: past]))
      let attributes = try #require(readAttributes(genp()))
      let created = try #require(attributes[kSecAttrCreationDate as String] as? Date)
      #expect(created >= before.addingTimeInterval(-1))
      #expect(attributes[kSecAttrModificationDate as String] as? Date == created)
    }
  }

  @Test("Rule 2.2: default accessibility is when unlocked and default group is the first")
  func defaultAccessibilityIsWhenUnlockedAndDefaultGroupIsTheFirst() throws {
    try withFreshStore(accessGroups: ["first", "second"]) { _ in
      add(genp())
      let attributes = try #require(readAttributes(genp()))
      #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)
      #expect(attributes[kSecAttrAccessGroup as String] as? String == "first")
      #expect(attributes[kSecAttrSynchronizable as String] as? Int == 0)
    }
  }
}

import Foundation
import Security
import Testing

/// Section 1 of KeychainSemantics: how a dictionary's keys and values are classified.
@Suite struct KeyGrammarRules {
  @Test("Rule 1.1: non string key is param and number key is no such attr")
  func nonStringKeyIsParamAndNumberKeyIsNoSuchAttr() throws {
    try withFreshStore { _ in
      let numberKey = NSMutableDictionary(dictionary: genp())
      numberKey[NSNumber(value: 7)] = "x"
      #expect(SecItemAdd(numberKey, nil) == errSecNoSuchAttr)
      let dataKey = NSMutableDictionary(dictionary: genp())
      dataKey[Data([1, 2]) as NSData] = "x"
      #expect(SecItemAdd(dataKey, nil) == errSecParam)
      #expect(count(genp()) == 0)
    }
  }

  @Test("Rule 1.2: four character keys are attributes") func fourCharacterKeysAreAttributes() throws {
    try withFreshStore { _ in
      #expect(add(genp(["labl": "plain key"])) == errSecSuccess)
      #expect(readAttributes(genp())?[kSecAttrLabel as String] as? String == "plain key")
    }
  }

  @Test("Rule 1.3: unknown long keys are param and callback keys are ignored")
  func unknownLongKeysAreParamAndCallbackKeysAreIgnored() throws {
    try withFreshStore { _ in
      for key in ["classy", "r_Bogus", "u_Bogus", "v_Bogus", "xyzzy1", "persistref"] {
        #expect(add(genp([key: true])) == errSecParam, "key \(key)")
      }
      #expect(add(genp(["f_Callback": "ignored"])) == errSecSuccess)
    }
  }

  @Test("Rule 1.4: any match prefixed key is accepted in search") func anyMatchPrefixedKeyIsAcceptedInSearch() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(copy(genp(["m_SomethingNew": "x"])).0 == errSecSuccess)
    }
  }

  /// Rule 1.4 with decision 8: an unknown match key is accepted by the parser, and update and
  /// delete ignore match keys as the macOS path does; it changes nothing about what they match.
  @Test("Rule 1.4: an unknown match key is ignored by update and delete")
  func anUnknownMatchKeyIsIgnoredByUpdateAndDelete() throws {
    try withFreshStore { _ in
      add(genp("a", [kSecValueData as String: Data(utf8: "one")]))
      add(genp("b", [kSecValueData as String: Data(utf8: "two")]))
      #expect(update(genp("a", ["m_SomethingNew": "x"]), [kSecValueData as String: Data(utf8: "uno")]) == errSecSuccess)
      #expect(readData(genp("a")) == Data(utf8: "uno"))
      #expect(readData(genp("b")) == Data(utf8: "two"))
      #expect(delete(genp("a", ["m_SomethingNew": "x"])) == errSecSuccess)
      #expect(readData(genp("a")) == nil)
      #expect(readData(genp("b")) == Data(utf8: "two"))
    }
  }

  @Test("Rule 1.5: attribute of another class is no such attr except no legacy")
  func attributeOfAnotherClassIsNoSuchAttrExceptNoLegacy() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrServer as String: "example.com"])) == errSecNoSuchAttr)
      #expect(add(genp([kSecAttrApplicationTag as String: Data([1])])) == errSecNoSuchAttr)
      #expect(add(inet([kSecAttrService as String: "svc"])) == errSecNoSuchAttr)
      #expect(add(genp([kSecUseDataProtectionKeychain as String: true])) == errSecSuccess)
    }
  }

  @Test("Rule 1.6: null values are param") func nullValuesAreParam() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrLabel as String: NSNull()])) == errSecParam)
      #expect(copy(genp([kSecAttrLabel as String: NSNull()])).0 == errSecParam)
    }
  }

  @Test("Rule 1.7: more than128 keys is param") func moreThan128KeysIsParam() throws {
    try withFreshStore { _ in
      add(genp())
      var query = genp()
      for index in 0..<126 { query["m_Extra\(index)"] = true }
      #expect(query.count == 129)
      #expect(copy(query).0 == errSecParam)
      query.removeValue(forKey: "m_Extra0")
      #expect(copy(query).0 == errSecSuccess)
    }
  }

  @Test("Rule 1.8: return keys must be booleans and false clears the flag")
  func returnKeysMustBeBooleansAndFalseClearsTheFlag() throws {
    try withFreshStore { _ in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      #expect(copy(genp([kSecReturnData as String: "yes"])).0 == errSecParam)
      let (status, result) = copy(
        genp([kSecReturnData as String: false, kSecReturnAttributes as String: kCFBooleanTrue!]))
      #expect(status == errSecSuccess)
      let attributes = try #require(result as? [String: Any])
      #expect(attributes[kSecValueData as String] == nil)
    }
  }

  @Test("Rule 1.9: match limit must be number or limit constant") func matchLimitMustBeNumberOrLimitConstant() throws {
    try withFreshStore { _ in
      add(genp("a"))
      add(genp("b"))
      #expect(
        copy(genp([kSecMatchLimit as String: "five"]).filter { $0.key != kSecAttrAccount as String }).0 == errSecParam)
      #expect(copy([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: 0]).0 == errSecParam)
      // CFBoolean is not CFNumber, even where Foundation stores both in NSNumber.
      #expect(
        copy([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kCFBooleanTrue!]).0
          == errSecParam)
      #expect(copy([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: true]).0 == errSecParam)
      #expect(copy([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: 1]).0 == errSecSuccess)
      let (status, result) = copy([
        kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: 2,
        kSecReturnAttributes as String: true,
      ])
      #expect(status == errSecSuccess)
      #expect((result as? [Any])?.count == 2)
    }
  }

  @Test("Rule 1.10: value data must be data") func valueDataMustBeData() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: "not data"])) == errSecParam)
      #expect(add(genp([kSecValueData as String: 42])) == errSecParam)
    }
  }

  @Test("Rule 1.11: authentication UI skip is only for copy matching") func authenticationUISkipIsOnlyForCopyMatching()
    throws
  {
    try withFreshStore { _ in
      #expect(add(genp([kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip])) == errSecParam)
      #expect(add(genp([kSecUseAuthenticationUI as String: 3])) == errSecParam)
      #expect(add(genp([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIAllow])) == errSecSuccess)
      #expect(copy(genp([kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip])).0 == errSecSuccess)
    }
  }

  @Test("Rule 1.12: authentication context with credential reference is param")
  func authenticationContextWithCredentialReferenceIsParam() throws {
    try withFreshStore { _ in
      let query = genp([
        kSecUseAuthenticationContext as String: "context", kSecUseCredentialReference as String: Data([1]),
      ])
      #expect(add(query) == errSecParam)
    }
  }

  @Test("Rule 1.13: access control must be sec access control and constraints forbid sync")
  func accessControlMustBeSecAccessControlAndConstraintsForbidSync() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrAccessControl as String: "ak"])) == errSecParam)
      let presence = try #require(
        SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil))
      #expect(
        add(genp("a", [kSecAttrAccessControl as String: presence, kSecAttrSynchronizable as String: true]))
          == errSecParam)
      let plain = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, [], nil))
      #expect(
        add(genp("b", [kSecAttrAccessControl as String: plain, kSecAttrSynchronizable as String: true]))
          == errSecSuccess)
    }
  }

  @Test("Rule 1.14: client side use keys are accepted") func clientSideUseKeysAreAccepted() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecUseOperationPrompt as String: "Why we ask"])) == errSecSuccess)
      #expect(copy(genp([kSecUseOperationPrompt as String: "Why we ask"])).0 == errSecSuccess)
    }
  }

  @Test("Rule 1.15: dictionary without class is param") func dictionaryWithoutClassIsParam() throws {
    try withFreshStore { _ in
      #expect(SecItemAdd([:] as CFDictionary, nil) == errSecParam)
      #expect(SecItemCopyMatching([:] as CFDictionary, nil) == errSecParam)
      #expect(SecItemDelete([:] as CFDictionary) == errSecParam)
      #expect(SecItemUpdate([:] as CFDictionary, [:] as CFDictionary) == errSecParam)
    }
  }
}

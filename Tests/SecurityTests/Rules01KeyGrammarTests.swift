import Foundation
import Security
import Testing

/// Section 1 of keychain-semantics.md: how a dictionary's keys and values are classified.
@Suite struct KeyGrammarRules {
  @Test func test_1_1_nonStringKeyIsParamAndNumberKeyIsNoSuchAttr() throws {
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

  @Test func test_1_2_fourCharacterKeysAreAttributes() throws {
    try withFreshStore { _ in
      #expect(add(genp(["labl": "plain key"])) == errSecSuccess)
      #expect(readAttributes(genp())?[kSecAttrLabel as String] as? String == "plain key")
    }
  }

  @Test func test_1_3_unknownLongKeysAreParamAndCallbackKeysAreIgnored() throws {
    try withFreshStore { _ in
      for key in ["classy", "r_Bogus", "u_Bogus", "v_Bogus", "xyzzy1", "persistref"] {
        #expect(add(genp([key: true])) == errSecParam, "key \(key)")
      }
      #expect(add(genp(["f_Callback": "ignored"])) == errSecSuccess)
    }
  }

  @Test func test_1_4_anyMatchPrefixedKeyIsAcceptedInSearch() throws {
    try withFreshStore { _ in
      add(genp())
      #expect(copy(genp(["m_SomethingNew": "x"])).0 == errSecSuccess)
    }
  }

  /// Rule 1.4 with decision 8: an unknown match key is accepted by the parser, and update and
  /// delete ignore match keys as the macOS path does; it changes nothing about what they match.
  @Test func test_1_4_anUnknownMatchKeyIsIgnoredByUpdateAndDelete() throws {
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

  @Test func test_1_5_attributeOfAnotherClassIsNoSuchAttrExceptNoLegacy() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrServer as String: "example.com"])) == errSecNoSuchAttr)
      #expect(add(genp([kSecAttrApplicationTag as String: Data([1])])) == errSecNoSuchAttr)
      #expect(add(inet([kSecAttrService as String: "svc"])) == errSecNoSuchAttr)
      #expect(add(genp([kSecUseDataProtectionKeychain as String: true])) == errSecSuccess)
    }
  }

  @Test func test_1_6_nullValuesAreParam() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrLabel as String: NSNull()])) == errSecParam)
      #expect(copy(genp([kSecAttrLabel as String: NSNull()])).0 == errSecParam)
    }
  }

  @Test func test_1_7_moreThan128KeysIsParam() throws {
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

  @Test func test_1_8_returnKeysMustBeBooleansAndFalseClearsTheFlag() throws {
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

  @Test func test_1_9_matchLimitMustBeNumberOrLimitConstant() throws {
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

  @Test func test_1_10_valueDataMustBeData() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: "not data"])) == errSecParam)
      #expect(add(genp([kSecValueData as String: 42])) == errSecParam)
    }
  }

  @Test func test_1_11_authenticationUISkipIsOnlyForCopyMatching() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip])) == errSecParam)
      #expect(add(genp([kSecUseAuthenticationUI as String: 3])) == errSecParam)
      #expect(add(genp([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIAllow])) == errSecSuccess)
      #expect(copy(genp([kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip])).0 == errSecSuccess)
    }
  }

  @Test func test_1_12_authenticationContextWithCredentialReferenceIsParam() throws {
    try withFreshStore { _ in
      let query = genp([
        kSecUseAuthenticationContext as String: "context", kSecUseCredentialReference as String: Data([1]),
      ])
      #expect(add(query) == errSecParam)
    }
  }

  @Test func test_1_13_accessControlMustBeSecAccessControlAndConstraintsForbidSync() throws {
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

  @Test func test_1_14_clientSideUseKeysAreAccepted() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecUseOperationPrompt as String: "Why we ask"])) == errSecSuccess)
      #expect(copy(genp([kSecUseOperationPrompt as String: "Why we ask"])).0 == errSecSuccess)
    }
  }

  @Test func test_1_15_dictionaryWithoutClassIsParam() throws {
    try withFreshStore { _ in
      #expect(SecItemAdd([:] as CFDictionary, nil) == errSecParam)
      #expect(SecItemCopyMatching([:] as CFDictionary, nil) == errSecParam)
      #expect(SecItemDelete([:] as CFDictionary) == errSecParam)
      #expect(SecItemUpdate([:] as CFDictionary, [:] as CFDictionary) == errSecParam)
    }
  }
}

/// Rule 1.1's table: which value types each storage kind accepts and returns.
@Suite struct ValueConversionRules {
  @Test func test_1_1_table_blobAttributesKeepTheCallersType() throws {
    try withFreshStore { _ in
      add(genp("", [kSecAttrAccount as String: Data(utf8: "as-data"), kSecAttrLabel as String: 12]))
      let attributes = try #require(readAttributes(genp().filter { $0.key != kSecAttrAccount as String }))
      #expect(attributes[kSecAttrAccount as String] as? Data == Data(utf8: "as-data"))
      #expect(attributes[kSecAttrLabel as String] as? Int == 12)
      #expect(attributes[kSecAttrService as String] as? String == "svc")
    }
  }

  @Test func test_1_1_table_numberAttributesConvertBooleansAndNumericStrings() throws {
    try withFreshStore { _ in
      add(
        genp(
          "a", [kSecAttrIsInvisible as String: true, kSecAttrCreator as String: "42", kSecAttrType as String: "abcd"]))
      let attributes = try #require(readAttributes(genp("a")))
      #expect(attributes[kSecAttrIsInvisible as String] as? Int == 1)
      #expect(attributes[kSecAttrCreator as String] as? Int == 42)
      #expect(attributes[kSecAttrType as String] as? String == "abcd")
    }
  }

  @Test func test_1_1_table_synchronizableComesBackAsNumber() throws {
    try withFreshStore { _ in
      add(genp("a", [kSecAttrSynchronizable as String: kCFBooleanTrue!]))
      let attributes = try #require(readAttributes(genp("a", [kSecAttrSynchronizable as String: "1"])))
      #expect(attributes[kSecAttrSynchronizable as String] as? Int == 1)
    }
  }

  @Test func test_1_1_table_datesAcceptOnlyDatesAndAccessibleOnlyItsValues() throws {
    try withFreshStore { _ in
      #expect(copy(genp([kSecAttrModificationDate as String: "yesterday"])).0 == errSecParam)
      #expect(add(genp([kSecAttrAccessible as String: "sometimes"])) == errSecParam)
    }
  }

  @Test func test_1_1_table_accessGroupAcceptsUTF8Data() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrAccessGroup as String: Data(utf8: "test.group")])) == errSecSuccess)
      #expect(readAttributes(genp())?[kSecAttrAccessGroup as String] as? String == "test.group")
    }
  }
}

/// Section 2: item classes, primary keys and the attributes the store maintains.
@Suite struct ClassAndKeyRules {
  @Test func test_2_classMissingIsParamUnknownIsNoSuchClassNonStringIsParam() throws {
    try withFreshStore { _ in
      #expect(add([kSecAttrAccount as String: "a"]) == errSecParam)
      #expect(add([kSecClass as String: "nope"]) == errSecNoSuchClass)
      #expect(add([kSecClass as String: 5]) == errSecParam)
      #expect(add([kSecClass as String: kSecClassAppleSharePassword]) == errSecNoSuchClass)
    }
  }

  @Test func test_2_certificateKeyAndIdentityClassesAreUnimplemented() throws {
    try withFreshStore { _ in
      for itemClass in [kSecClassCertificate, kSecClassKey, kSecClassIdentity] {
        #expect(add([kSecClass as String: itemClass]) == errSecUnimplemented)
        #expect(copy([kSecClass as String: itemClass]).0 == errSecUnimplemented)
      }
    }
  }

  @Test func test_2_1_genericPasswordPrimaryKeyIsAccountAndService() throws {
    try withFreshStore { _ in
      #expect(add(genp("a", [kSecAttrLabel as String: "one"])) == errSecSuccess)
      #expect(add(genp("a", [kSecAttrLabel as String: "two"])) == errSecDuplicateItem)
      #expect(add(genp("a", service: "other")) == errSecSuccess)
      #expect(add(genp("b")) == errSecSuccess)
    }
  }

  @Test func test_2_1_internetPasswordPrimaryKeyHasSevenAttributes() throws {
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

  @Test func test_2_1_absentAndEmptyPrimaryKeyValuesCollide() throws {
    try withFreshStore { _ in
      #expect(add([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"]) == errSecSuccess)
      #expect(add(genp("")) == errSecDuplicateItem)
      #expect(add(genp("", [kSecAttrAccount as String: Data()])) == errSecDuplicateItem)
    }
  }

  @Test func test_2_1_differentGroupsOrSyncStatesNeverCollide() throws {
    try withFreshStore(accessGroups: ["g1", "g2"]) { _ in
      #expect(add(genp([kSecAttrAccessGroup as String: "g1"])) == errSecSuccess)
      #expect(add(genp([kSecAttrAccessGroup as String: "g2"])) == errSecSuccess)
      #expect(
        add(genp([kSecAttrAccessGroup as String: "g1", kSecAttrSynchronizable as String: true])) == errSecSuccess)
      #expect(add(genp([kSecAttrAccessGroup as String: "g1"])) == errSecDuplicateItem)
    }
  }

  @Test func test_2_2_creationAndModificationDatesAreSetByTheStore() throws {
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

  @Test func test_2_2_defaultAccessibilityIsWhenUnlockedAndDefaultGroupIsTheFirst() throws {
    try withFreshStore(accessGroups: ["first", "second"]) { _ in
      add(genp())
      let attributes = try #require(readAttributes(genp()))
      #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)
      #expect(attributes[kSecAttrAccessGroup as String] as? String == "first")
      #expect(attributes[kSecAttrSynchronizable as String] as? Int == 0)
    }
  }
}

/// SecCopyErrorMessageString explains the last failed call's status on this thread, naming the
/// offending key by its constant, and never showing a value.
@Suite struct FailureMessages {
  private func message(_ status: OSStatus) -> String { SecCopyErrorMessageString(status, nil) as String? ?? "" }

  @Test func aParamErrorNamesTheKeyAndTheProblemButNotTheValue() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: "secret-text-3f9a"])) == errSecParam)
      let text = message(errSecParam)
      #expect(text.contains("kSecValueData: must be Data, not a String"), "\(text)")
      #expect(!text.contains("secret-text-3f9a"))

      #expect(copy(genp([kSecMatchLimit as String: "five"])).0 == errSecParam)
      #expect(message(errSecParam).contains("kSecMatchLimit: must be a number of 1 or more"))

      #expect(add(genp([kSecAttrServer as String: "example.com"])) == errSecNoSuchAttr)
      #expect(message(errSecNoSuchAttr).contains("kSecAttrServer: is not an attribute of kSecClassGenericPassword"))

      #expect(add(genp([kSecMatchLimit as String: kSecMatchLimitAll])) == errSecParam)
      #expect(message(errSecParam).contains("kSecMatchLimit: match keys have no meaning in SecItemAdd"))
    }
  }

  @Test func theReasonDoesNotOutliveTheNextCall() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: "text"])) == errSecParam)
      #expect(message(errSecParam).contains("kSecValueData"))
      #expect(add(genp([kSecValueData as String: Data(utf8: "ok")])) == errSecSuccess)
      #expect(message(errSecParam) == "A parameter passed to the function was not valid.")
    }
  }

  @Test func aMessageForAnotherStatusIsThePlainSentence() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: 42])) == errSecParam)
      #expect(message(errSecDuplicateItem) == "The item already exists in the keychain.")
      #expect(message(errSecParam).contains("kSecValueData: must be Data, not a number"))
    }
  }
}

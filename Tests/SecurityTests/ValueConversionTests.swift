import Foundation
import Security
import Testing

/// Rule 1.1's table: which value types each storage kind accepts and returns.
@Suite struct ValueConversionRules {
  @Test("Rule 1.1: table_blob attributes keep the callers type") func table_blobAttributesKeepTheCallersType() throws {
    try withFreshStore { _ in
      add(genp("", [kSecAttrAccount as String: Data(utf8: "as-data"), kSecAttrLabel as String: 12]))
      let attributes = try #require(readAttributes(genp().filter { $0.key != kSecAttrAccount as String }))
      #expect(attributes[kSecAttrAccount as String] as? Data == Data(utf8: "as-data"))
      #expect(attributes[kSecAttrLabel as String] as? Int == 12)
      #expect(attributes[kSecAttrService as String] as? String == "svc")
    }
  }

  @Test("Rule 1.1: table_number attributes convert booleans and numeric strings")
  func table_numberAttributesConvertBooleansAndNumericStrings() throws {
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

  @Test("Rule 1.1: table_synchronizable comes back as number") func table_synchronizableComesBackAsNumber() throws {
    try withFreshStore { _ in
      add(genp("a", [kSecAttrSynchronizable as String: kCFBooleanTrue!]))
      let attributes = try #require(readAttributes(genp("a", [kSecAttrSynchronizable as String: "1"])))
      #expect(attributes[kSecAttrSynchronizable as String] as? Int == 1)
    }
  }

  @Test("Rule 1.1: table_dates accept only dates and accessible only its values")
  func table_datesAcceptOnlyDatesAndAccessibleOnlyItsValues() throws {
    try withFreshStore { _ in
      #expect(copy(genp([kSecAttrModificationDate as String: "yesterday"])).0 == errSecParam)
      #expect(add(genp([kSecAttrAccessible as String: "sometimes"])) == errSecParam)
    }
  }

  @Test("Rule 1.1: table_access group accepts UTF8 data") func table_accessGroupAcceptsUTF8Data() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrAccessGroup as String: Data(utf8: "test.group")])) == errSecSuccess)
      #expect(readAttributes(genp())?[kSecAttrAccessGroup as String] as? String == "test.group")
    }
  }
}

import Foundation
import Testing

@testable import Security

/// The decisions of SpecificationDecisions where Apple is inconsistent.
@Suite struct SpecDecisions {
  @Test("Decision 1: match keys in add are param") func matchKeysInAddAreParam() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecMatchLimit as String: 1])) == errSecParam)
      #expect(count(genp()) == 0)
    }
  }

  @Test("Decision 2: return data alone on an item without data is empty data")
  func returnDataAloneOnAnItemWithoutDataIsEmptyData() throws {
    try withFreshStore { _ in
      add(genp())
      let (status, result) = copy(genp([kSecReturnData as String: true]))
      #expect(status == errSecSuccess)
      #expect(result as? Data == Data())
    }
  }

  @Test("Decision 3: the dictionary holds exactly what was asked") func theDictionaryHoldsExactlyWhatWasAsked() throws {
    try withFreshStore { _ in
      add(genp([kSecValueData as String: Data(utf8: "pw")]))
      let result = try #require(
        copy(genp([kSecReturnPersistentRef as String: true, kSecReturnData as String: true])).1 as? [String: Any])
      #expect(Set(result.keys) == [kSecValueData as String, kSecValuePersistentRef as String])
    }
  }

  @Test("Decision 4: synchronizable this device only is accepted on update too")
  func synchronizableThisDeviceOnlyIsAcceptedOnUpdateToo() throws {
    try withFreshStore { _ in
      add(genp([kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]))
      #expect(update(genp(), [kSecAttrSynchronizable as String: true]) == errSecSuccess)
      #expect(count(genp()) == 0)
      #expect(count(genp([kSecAttrSynchronizable as String: true])) == 1)
    }
  }

  @Test("Decision 5: non attribute keys to update are no such attr") func nonAttributeKeysToUpdateAreNoSuchAttr() throws
  {
    try withFreshStore { _ in
      add(genp())
      #expect(update(genp(), [kSecReturnAttributes as String: true]) == errSecNoSuchAttr)
      #expect(update(genp(), [kSecAttrPort as String: 1]) == errSecNoSuchAttr)
    }
  }

  @Test("Decision 6: limit all without return keys is an empty array") func limitAllWithoutReturnKeysIsAnEmptyArray()
    throws
  {
    try withFreshStore { _ in
      add(genp())
      let (status, result) = copy([
        kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
      ])
      #expect(status == errSecSuccess)
      #expect((result as? NSArray)?.count == 0)
    }
  }

  @Test("Decision 7: dates are ignored on add and param in an update") func datesAreIgnoredOnAddAndParamInAnUpdate()
    throws
  {
    try withFreshStore { _ in
      #expect(add(genp([kSecAttrCreationDate as String: Date.distantPast])) == errSecSuccess)
      #expect(update(genp(), [kSecAttrCreationDate as String: Date()]) == errSecParam)
      #expect(update(genp(), [kSecAttrModificationDate as String: Date()]) == errSecParam)
    }
  }

  @Test("Decision 8: match and return keys in update and delete queries are ignored")
  func matchAndReturnKeysInUpdateAndDeleteQueriesAreIgnored() throws {
    try withFreshStore { _ in
      add(genp())
      let noisy = genp([kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnData as String: true])
      #expect(update(noisy, [kSecAttrLabel as String: "x"]) == errSecSuccess)
      #expect(delete(noisy) == errSecSuccess)
    }
  }

  @Test("Decision 9: results are in insertion order and limit one is the earliest")
  func resultsAreInInsertionOrderAndLimitOneIsTheEarliest() throws {
    try withFreshStore { _ in
      add(genp("b", [kSecAttrLabel as String: "same"]))
      add(genp("a", [kSecAttrLabel as String: "same"]))
      let first = readAttributes([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "same"])
      #expect(first?[kSecAttrAccount as String] as? String == "b")
    }
  }

  @Test("Decision 9: primary key matches across groups come in insertion order")
  func primaryKeyMatchesAcrossGroupsComeInInsertionOrder() throws {
    // One primary key in three groups, added out of the groups' order: the primary-key search
    // compares several digests and orders its matches itself.
    try withFreshStore(accessGroups: ["g1", "g2", "g3"]) { _ in
      for group in ["g2", "g3", "g1"] {
        #expect(add(genp([kSecAttrAccessGroup as String: group, kSecAttrLabel as String: group])) == errSecSuccess)
      }
      var result: CFTypeRef?
      let all = genp([kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true])
      #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
      let labels = (result as? [[String: Any]])?.map { $0[kSecAttrLabel as String] as? String }
      #expect(labels == ["g2", "g3", "g1"])
      #expect(readAttributes(genp())?[kSecAttrLabel as String] as? String == "g2")
      let two = genp([kSecMatchLimit as String: 2, kSecReturnAttributes as String: true])
      #expect(SecItemCopyMatching(two as CFDictionary, &result) == errSecSuccess)
      #expect((result as? [[String: Any]])?.map { $0[kSecAttrLabel as String] as? String } == ["g2", "g3"])
    }
  }

  @Test("Decision 10: an attribute keeps its stored type") func anAttributeKeepsItsStoredType() throws {
    try withFreshStore { _ in
      add(genp("", [kSecAttrAccount as String: Data(utf8: "bytes")]))
      let attributes = try #require(readAttributes(genp("", [kSecAttrAccount as String: "bytes"])))
      #expect(attributes[kSecAttrAccount as String] as? Data == Data(utf8: "bytes"))
      #expect(attributes[kSecAttrAccount as String] as? String == nil)
    }
  }
}

/// Source compatibility with code written for Apple's Security framework.
@Suite struct AppleSourceCompatibility {
  @Test func everyConstantOfTheSpecificationHasApplesValue() throws {
    let specification = try SpecificationFile.load()
    let runtime = Dictionary(secItemConstantTable.map { ($0.name, $0.value as String) }) { first, _ in first }
    // The rest are SecKey.h's and SecImportExport.h's, which keys-constants.json specifies
    // (RealHeadersTests checks the algorithms), and SecPolicy.h's and SecTrust.h's, checked below.
    let keyConstants = runtime.keys.filter {
      $0.hasPrefix("kSecKeyAlgorithm") || $0.hasPrefix("kSecKeyKeyExchange") || $0.hasPrefix("kSecImport")
        || $0.hasPrefix("kSecPolicy") || $0.hasPrefix("kSecTrust")
    }
    #expect(runtime.count - keyConstants.count == specification.constants.count)
    // Apple's values of the trust constants (issue 53): policy OIDs under 1.2.840.113635.100.1,
    // dictionary keys as Apple's SecPolicy.c and SecTrust.c declare them.
    let trust: [String: String] = [
      "kSecPolicyAppleX509Basic": "1.2.840.113635.100.1.2", "kSecPolicyAppleSSL": "1.2.840.113635.100.1.3",
      "kSecPolicyAppleRevocation": "1.2.840.113635.100.1.21", "kSecPolicyOid": "SecPolicyOid",
      "kSecPolicyName": "SecPolicyName", "kSecPolicyClient": "SecPolicyClient",
      "kSecPolicyRevocationFlags": "SecPolicyRevocationFlags", "kSecTrustEvaluationDate": "TrustEvaluationDate",
      "kSecTrustExtendedValidation": "TrustExtendedValidation", "kSecTrustOrganizationName": "Organization",
      "kSecTrustResultValue": "TrustResultValue", "kSecTrustRevocationChecked": "TrustRevocationChecked",
      "kSecTrustRevocationValidUntilDate": "TrustExpirationDate",
    ]
    #expect(runtime.filter { $0.key.hasPrefix("kSecPolicy") || $0.key.hasPrefix("kSecTrust") } == trust)
    for constant in specification.constants {
      #expect(runtime[constant.name] == constant.value, "\(constant.name)")
    }
  }

  @Test func everyStatusCodeOfTheSpecificationHasApplesValue() throws {
    let specification = try SpecificationFile.load()
    let runtime = Dictionary(uniqueKeysWithValues: secStatusCodeTable.map { ($0.name, $0.code) })
    #expect(runtime.count == specification.errors.count)
    for error in specification.errors {
      #expect(runtime[error.name] == error.code, "\(error.name)")
    }
  }

  @Test func constantsHashLikeSwiftStrings() {
    #expect(AnyHashable(kSecAttrAccount) == AnyHashable("acct"))
    let result: [AnyHashable: Any] = ["acct": "alice"]
    #expect(result[kSecAttrAccount] as? String == "alice")
    let keyed: [AnyHashable: Any] = [kSecAttrService: "svc"]
    #expect(keyed["svce"] as? String == "svc")
    #expect(kSecAttrAccount as String == "acct")
  }

  @Test func resultDictionariesAreReadableWithTheConstantsAsNSDictionaryKeys() throws {
    try withFreshStore { _ in
      add(genp("alice", [kSecValueData as String: Data(utf8: "pw")]))
      let result = try #require(copy(genp([kSecReturnAttributes as String: true])).1 as? NSDictionary)
      #expect(result.object(forKey: kSecAttrAccount) as? String == "alice")
      #expect(result[kSecAttrService] as? String == "svc")
      let keyedByConstant = NSDictionary(dictionary: [kSecAttrLabel: "x"])
      #expect(keyedByConstant.object(forKey: "labl" as NSString) as? String == "x")
      #expect((kSecAttrAccount as NSString).hash == ("acct" as NSString).hash)
    }
  }

  @Test func cfDictionaryKeyedByConstantsWorksAsAQuery() throws {
    try withFreshStore { _ in
      let query: [CFString: Any] = [
        kSecClass: kSecClassGenericPassword, kSecAttrAccount: "cf", kSecValueData: Data(utf8: "pw"),
      ]
      #expect(SecItemAdd(query as CFDictionary, nil) == errSecSuccess)
      var result: AnyObject?
      let status = withUnsafeMutablePointer(to: &result) {
        SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecReturnData: kCFBooleanTrue!] as CFDictionary, $0)
      }
      #expect(status == errSecSuccess)
      #expect(result as? Data == Data(utf8: "pw"))
    }
  }

  @Test func coreFoundationErrorFunctionsReadAnNSError() {
    let error = NSError(domain: NSOSStatusErrorDomain, code: Int(errSecParam), userInfo: ["k": "v"])
    #expect(CFErrorGetDomain(error) as String? == NSOSStatusErrorDomain)
    #expect(CFErrorGetCode(error) == Int(errSecParam))
    #expect((CFErrorCopyUserInfo(error) as? [String: Any])?["k"] as? String == "v")
    #expect(kCFBooleanTrue.boolValue && !kCFBooleanFalse.boolValue)
  }

  @Test func accessControlCreationRejectsAnUnknownProtectionWithAnError() {
    var error: Unmanaged<CFError>?
    #expect(SecAccessControlCreateWithFlags(kCFAllocatorDefault, "nope" as CFString, .userPresence, &error) == nil)
    let failure = error?.takeRetainedValue()
    #expect(failure?.code == Int(errSecParam))
    #expect(
      SecAccessControlCreateWithFlags(
        nil, kSecAttrAccessibleWhenUnlocked, [.privateKeyUsage, .applicationPassword], nil) != nil)
  }

  @Test func randomBytesComeFromTheCSPRNG() {
    var first = [UInt8](repeating: 0, count: 32)
    var second = [UInt8](repeating: 0, count: 32)
    #expect(SecRandomCopyBytes(kSecRandomDefault, first.count, &first) == errSecSuccess)
    #expect(SecRandomCopyBytes(kSecRandomDefault, second.count, &second) == errSecSuccess)
    #expect(first != second && first != [UInt8](repeating: 0, count: 32))
    #expect(SecRandomCopyBytes(nil, -1, &first) == errSecParam)
  }

  @Test func certificatesHoldTheirDERBytesAndRejectAnythingElse() throws {
    let der = try #require(Data(base64Encoded: Self.testCertificate))
    let certificate = try #require(SecCertificateCreateWithData(nil, der as CFData))
    #expect(SecCertificateCopyData(certificate) as Data == der)
    #expect(SecCertificateCreateWithData(nil, Data(utf8: "not a certificate") as CFData) == nil)
    #expect(SecCertificateCreateWithData(nil, Data() as CFData) == nil)
    // Rule 7.2: bytes after the first certificate are dropped, not refused.
    let trailing = try #require(SecCertificateCreateWithData(nil, (der + Data([0, 1, 2])) as CFData))
    #expect(SecCertificateCopyData(trailing) as Data == der)
    #expect(SecCertificateCreateWithData(nil, der.prefix(der.count - 1) as CFData) == nil)
  }

  /// A self-signed P-256 certificate made for these tests with `openssl req -x509`.
  static let testCertificate =
    "MIIBkTCCATegAwIBAgIUBrVXojTu6uyvFORMCEmdOa0Hq6EwCgYIKoZIzj0EAwIwHjEcMBoGA1UEAwwTS2V5Y2hhaW5CcmlkZ2UgVGVzdDAeFw0yNjExMjEwNjAzMTBaFw0zNjExMTgwNjAzMTBaMB4xHDAaBgNVBAMME0tleWNoYWluQnJpZGdlIFRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASFmz4D7jy02YE7jrQed8W1vhaI/Gd0jiedsQnWTsimA5zfsTuClvscouPO9wrjWV6zKidraAaa8JS1MJaD2BwFo1MwUTAdBgNVHQ4EFgQU55H4caHp2UwFoQOM1/DHRJJg9AgwHwYDVR0jBBgwFoAU55H4caHp2UwFoQOM1/DHRJJg9AgwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiAMgOPinKgrjDI8VJowJbdZJNpc4Wy1D0RdVZ2lNl7z9QIhAIV5Rtkibi39QQdoxA61zlSgou160h3gsWbTSQzClwdV"
}

/// security-constants.json, as the tests read it.
struct SpecificationFile: Decodable {
  struct Constant: Decodable {
    let name: String
    let value: String
  }

  struct StatusCode: Decodable {
    let name: String
    let code: Int32
  }

  let constants: [Constant]
  let errors: [StatusCode]

  static func load() throws -> SpecificationFile {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let data = try Data(contentsOf: root.appendingPathComponent("Spec/security-constants.json"))
    return try JSONDecoder().decode(SpecificationFile.self, from: data)
  }
}

/// macOS's reference-typed keys have no counterpart here (issue 66): the generated API types
/// kSecAttrAccess as an opaque reference without a setter, and the runtime refuses it by name.
@Suite struct MacOSOnlyReferenceKeys {
  @Test func kSecAttrAccessIsUnimplementedAndNamed() throws {
    try withFreshStore { _ in
      let status = SecItemAdd(
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a",
          kSecValueData as String: Data("x".utf8), kSecAttrAccess as String: Data([1]),
        ] as CFDictionary, nil)
      #expect(status == errSecUnimplemented)
      let message = SecCopyErrorMessageString(status, nil) as String? ?? ""
      #expect(message.contains("SecAccessRef"), "\(message)")
    }
  }
}

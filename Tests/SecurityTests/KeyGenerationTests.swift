import Foundation
import Security
import Testing

/// KeysSemantics sections 1 and 2: key types, sizes and SecKeyCreateRandomKey.
@Suite struct KeyGenerationRules {
  @Test("Keys rule 1.1: EC and ECSECPrimeRandom are the same type string")
  func ecAndECSECPrimeRandomAreTheSameTypeString() throws {
    #expect((kSecAttrKeyTypeEC as String) == (kSecAttrKeyTypeECSECPrimeRandom as String))
    let key = try makeKey(kSecAttrKeyTypeEC, bits: 256)
    #expect(SecKeyCopyAttributes(key)?[kSecAttrKeyType as String] as? String == "73")
  }

  @Test("Keys rule 1.2: EC keys exist on the five NIST curves", arguments: [192, 224, 256, 384, 521])
  func ecKeysExistOnTheFiveNISTCurves(bits: Int) throws {
    let key = try makeKey(bits: bits)
    #expect(SecKeyCopyAttributes(key)?[kSecAttrKeySizeInBits as String] as? Int == bits)
  }

  @Test("Keys rule 1.3 and decision D2: RSA takes 1024 to 8192 bits, any count, exponent 65537")
  func rsaTakesSizesFrom1024Upward() throws {
    let key = try makeKey(kSecAttrKeyTypeRSA, bits: 1025)
    #expect(SecKeyGetBlockSize(key) == 129)
    // The public key's PKCS#1 DER ends with the exponent 65537 (02 03 01 00 01).
    #expect(external(SecKeyCopyPublicKey(key)!).suffix(5) == Data([0x02, 0x03, 0x01, 0x00, 0x01]))
    var error: Unmanaged<CFError>?
    for bits in [512, 1023, 8193] {
      #expect(
        SecKeyCreateRandomKey(
          [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: bits] as CFDictionary,
          &error) == nil)
      #expect(errorCode(error) == Int(errSecParam))
    }
  }

  @Test("Keys rule 1.4: a size may be a number or a decimal string, nothing else")
  func aSizeMayBeANumberOrADecimalString() throws {
    _ = try makeKey(bits: 256, [kSecAttrKeySizeInBits as String: "384"])
    var error: Unmanaged<CFError>?
    for size: Any in ["abc", Data([1]), "256.0"] {
      #expect(
        SecKeyCreateRandomKey(
          [kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: size] as CFDictionary, &error)
          == nil)
      #expect(errorCode(error) == Int(errSecParam))
    }
  }

  @Test("Keys rule 2.2 and decision D1: an unknown or missing key type is errSecParam with an error")
  func anUnknownOrMissingKeyTypeIsErrSecParam() {
    for type: Any? in [nil, "99", 73, kSecAttrKeyTypeAES] {
      var parameters: [String: Any] = [kSecAttrKeySizeInBits as String: 256]
      parameters[kSecAttrKeyType as String] = type
      var error: Unmanaged<CFError>?
      #expect(SecKeyCreateRandomKey(parameters as CFDictionary, &error) == nil)
      let failure = error?.takeRetainedValue()
      #expect(failure.map(CFErrorGetCode) == Int(errSecParam))
      #expect(failure.map { CFErrorGetDomain($0) as String } == NSOSStatusErrorDomain)
    }
  }

  @Test("Keys rule 2.3: a size the type does not have is errSecParam")
  func aSizeTheTypeDoesNotHaveIsErrSecParam() {
    var error: Unmanaged<CFError>?
    #expect(
      SecKeyCreateRandomKey(
        [kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 1_000_000] as CFDictionary,
        &error) == nil)
    #expect(errorCode(error) == Int(errSecParam))
  }

  @Test("Keys rules 2.4, 2.6, 2.7 and 2.10: permanent halves are stored with their own attributes")
  func permanentHalvesAreStoredWithTheirOwnAttributes() throws {
    try withFreshStore { _ in
      let key = try makeKey(
        bits: 256,
        [
          kSecAttrLabel as String: "shared",
          kSecPrivateKeyAttrs as String: [
            kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data("private.tag".utf8),
          ],
          kSecPublicKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrLabel as String: "public label"],
        ])
      let (status, result) = copy([
        kSecClass as String: kSecClassKey, kSecMatchLimit as String: kSecMatchLimitAll,
        kSecReturnAttributes as String: true,
      ])
      #expect(status == errSecSuccess)
      let items = try #require(result as? [[String: Any]])
      #expect(items.count == 2)
      // Stored public first (2.7): insertion order is the result order (decision 9).
      #expect(items.first?[kSecAttrKeyClass as String] as? Int == 0)
      #expect(items.first?[kSecAttrLabel as String] as? String == "public label")
      #expect(items.last?[kSecAttrLabel as String] as? String == "shared")
      #expect(items.last?[kSecAttrApplicationTag as String] as? Data == Data("private.tag".utf8))
      let found = copy([kSecValueRef as String: key, kSecReturnAttributes as String: true])
      #expect((found.1 as? [String: Any])?[kSecAttrLabel as String] as? String == "shared")
    }
  }

  @Test("Keys rule 2.6: keys are not stored unless permanent")
  func keysAreNotStoredUnlessPermanent() throws {
    try withFreshStore { _ in
      _ = try makeKey(bits: 256, [kSecAttrIsPermanent as String: "yes"])
      #expect(copy([kSecClass as String: kSecClassKey]).0 == errSecItemNotFound)
      _ = try makeKey(bits: 256, [kSecAttrIsPermanent as String: true])
      let (status, result) = copy([
        kSecClass as String: kSecClassKey, kSecMatchLimit as String: kSecMatchLimitAll,
        kSecReturnRef as String: true,
      ])
      #expect(status == errSecSuccess && (result as? [SecKey])?.count == 2)
    }
  }

  @Test("Keys rule 2.8: a failed add returns nil with the add's status")
  func aFailedAddReturnsNilWithTheAddsStatus() throws {
    try withFreshStore(accessGroups: ["mine"]) { _ in
      var error: Unmanaged<CFError>?
      let key = SecKeyCreateRandomKey(
        [
          kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 256,
          kSecAttrIsPermanent as String: true, kSecAttrAccessGroup as String: "someone.else",
        ] as CFDictionary, &error)
      #expect(key == nil)
      #expect(errorCode(error) == Int(errSecMissingEntitlement))
    }
  }

  @Test(
    "Keys rule 10.1 and decision D10: without a TPM, a Secure Enclave key is errSecUnimplemented, never a software key",
    .disabled(
      if: FileManager.default.fileExists(atPath: "/dev/tpmrm0")
        || ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_TCTI"] != nil,
      "this machine has a TPM (SecureEnclaveTests cover that case)"))
  func aSecureEnclaveKeyIsErrSecUnimplemented() {
    var error: Unmanaged<CFError>?
    let key = SecKeyCreateRandomKey(
      [
        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
        kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
      ] as CFDictionary, &error)
    #expect(key == nil)
    let failure = error?.takeRetainedValue()
    #expect(failure.map(CFErrorGetCode) == Int(errSecUnimplemented))
    #expect(failure?.localizedDescription.contains("Secure Enclave") == true)
    #expect(failure?.localizedDescription.contains("KEYCHAIN_BRIDGE_TCTI") == true)
  }
}

/// keys rule 10.4: the flag combinations SecAccessControlCreateWithFlags refuses.
@Suite struct AccessControlFlagRules {
  @Test("Keys rule 10.4: conflicting access-control flags are errSecParam")
  func conflictingFlagsAreErrSecParam() {
    let refused: [SecAccessControlCreateFlags] = [
      [.or, .and, .devicePasscode], [.biometryAny, .biometryCurrentSet], [.userPresence, .devicePasscode],
    ]
    for flags in refused {
      var error: Unmanaged<CFError>?
      #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, &error) == nil)
      #expect(errorCode(error) == Int(errSecParam))
    }
    let accepted: [SecAccessControlCreateFlags] = [
      [.userPresence, .applicationPassword], [.or, .biometryAny, .devicePasscode], [.privateKeyUsage],
    ]
    for flags in accepted {
      #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, nil) != nil)
    }
  }
}

import Foundation
import Security
import Testing

/// KeysSemantics section 6: key items in the keychain.
@Suite struct KeyItemRules {
  static func keyQuery(_ extra: [String: Any] = [:]) -> [String: Any] {
    var query: [String: Any] = [kSecClass as String: kSecClassKey]
    query.merge(extra) { _, new in new }
    return query
  }

  @Test("Keys rules 6.3, 6.4 and 6.6: a key added by ref carries its derived attributes, numbers as numbers")
  func aKeyAddedByRefCarriesItsDerivedAttributes() throws {
    try withFreshStore { _ in
      let key = try makeKey(bits: 256)
      #expect(add([kSecValueRef as String: key, kSecAttrLabel as String: "signing"]) == errSecSuccess)
      let attributes = try #require(readAttributes(Self.keyQuery()))
      #expect(attributes[kSecAttrKeyClass as String] as? Int == 1)
      #expect(attributes[kSecAttrKeyType as String] as? Int == 73)
      #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 256)
      #expect(
        attributes[kSecAttrApplicationLabel as String] as? Data == SecKeyCopyAttributes(key)?[
          kSecAttrApplicationLabel as String] as? Data)
      #expect(attributes[kSecAttrLabel as String] as? String == "signing")
      #expect(readData(Self.keyQuery()) == external(key))
      // String constants still match the numbers (6.6).
      #expect(copy(Self.keyQuery([kSecAttrKeyClass as String: kSecAttrKeyClassPrivate])).0 == errSecSuccess)
      #expect(copy(Self.keyQuery([kSecAttrKeyClass as String: kSecAttrKeyClassPublic])).0 == errSecItemNotFound)
    }
  }

  @Test("Keys rule 6.2: the same key twice is a duplicate whatever its label; another tag is another item")
  func theSameKeyTwiceIsADuplicate() throws {
    try withFreshStore { _ in
      let key = try makeKey(bits: 256)
      #expect(add([kSecValueRef as String: key, kSecAttrLabel as String: "one"]) == errSecSuccess)
      #expect(add([kSecValueRef as String: key, kSecAttrLabel as String: "two"]) == errSecDuplicateItem)
      #expect(add([kSecValueRef as String: key, kSecAttrApplicationTag as String: Data("t".utf8)]) == errSecSuccess)
      #expect(add([kSecValueRef as String: SecKeyCopyPublicKey(key)!]) == errSecSuccess)
    }
  }

  @Test("Keys rules 6.7 and 6.9: kSecReturnRef gives a SecKey equal to the stored one, found by application label")
  func returnRefGivesAnEqualKey() throws {
    try withFreshStore { _ in
      let key = try makeKey(kSecAttrKeyTypeRSA, bits: 1024)
      #expect(add([kSecValueRef as String: key, kSecAttrApplicationTag as String: "com.example.key"]) == errSecSuccess)
      let label = SecKeyCopyAttributes(key)![kSecAttrApplicationLabel as String]!
      let (status, result) = copy(
        Self.keyQuery([kSecAttrApplicationLabel as String: label, kSecReturnRef as String: true]))
      #expect(status == errSecSuccess)
      let found = try #require(result as? SecKey)
      #expect(found == key)
      let message = Data("stored keys sign".utf8)
      #expect(
        verify(
          SecKeyCopyPublicKey(key)!, .rsaSignatureMessagePSSSHA256, message,
          try sign(found, .rsaSignatureMessagePSSSHA256, message)))
      let byTag = copy(
        Self.keyQuery([
          kSecAttrApplicationTag as String: Data("com.example.key".utf8), kSecReturnRef as String: true,
          kSecReturnAttributes as String: true,
        ]))
      let dictionary = try #require(byTag.1 as? [String: Any])
      #expect(dictionary[kSecValueRef as String] as? SecKey == key)
      #expect(dictionary[kSecValueData as String] == nil)
      #expect(dictionary[kSecAttrKeyClass as String] as? Int == 1)
    }
  }

  @Test("Keys rule 6.8: a query by ref finds, updates and deletes exactly that key")
  func aQueryByRefFindsUpdatesAndDeletesThatKey() throws {
    try withFreshStore { _ in
      let first = try makeKey(bits: 256)
      let second = try makeKey(bits: 256)
      add([kSecValueRef as String: first, kSecAttrLabel as String: "first"])
      add([kSecValueRef as String: second, kSecAttrLabel as String: "second"])
      let found = readAttributes([kSecValueRef as String: second])
      #expect(found?[kSecAttrLabel as String] as? String == "second")
      #expect(update([kSecValueRef as String: first], [kSecAttrLabel as String: "renamed"]) == errSecSuccess)
      #expect(readAttributes([kSecValueRef as String: first])?[kSecAttrLabel as String] as? String == "renamed")
      #expect(delete([kSecValueRef as String: first]) == errSecSuccess)
      #expect(copy([kSecValueRef as String: first]).0 == errSecItemNotFound)
      #expect(copy([kSecValueRef as String: second]).0 == errSecSuccess)
    }
  }

  @Test("Keys rule 6.10: a kSecValueRef that is no key, certificate or identity is errSecParam")
  func aValueRefThatIsNoKeyIsErrSecParam() throws {
    let key = try makeKey()
    try withFreshStore { _ in
      #expect(add([kSecValueRef as String: "not a key"]) == errSecParam)
      #expect(add([kSecClass as String: kSecClassGenericPassword, kSecValueRef as String: key]) == errSecParam)
    }
  }

  @Test("Keys rule 6.11: an application tag given as a string matches the same bytes as data")
  func anApplicationTagStringMatchesItsBytes() throws {
    try withFreshStore { _ in
      add([kSecValueRef as String: try makeKey(), kSecAttrApplicationTag as String: "tag"])
      #expect(copy(Self.keyQuery([kSecAttrApplicationTag as String: Data("tag".utf8)])).0 == errSecSuccess)
    }
  }

  @Test("Keys rule 6.5: a key added as raw bytes comes back as a ref when its type and class make one")
  func aKeyAddedAsRawBytesComesBackAsARef() throws {
    try withFreshStore { _ in
      let key = try makeKey(bits: 384)
      #expect(
        add(
          Self.keyQuery([
            kSecValueData as String: external(key), kSecAttrKeyType as String: kSecAttrKeyTypeEC,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecAttrApplicationTag as String: "raw",
          ])) == errSecSuccess)
      let (status, result) = copy(Self.keyQuery([kSecReturnRef as String: true]))
      #expect(status == errSecSuccess && result as? SecKey == key)
      // Nothing is derived from raw bytes.
      #expect(readAttributes(Self.keyQuery())?[kSecAttrApplicationLabel as String] as? Data == Data())
    }
  }

  @Test func aPrivateKeysBytesAreSealedInTheStoreFiles() throws {
    let temporary = try TemporaryStore()
    let key = try makeKey(bits: 256)
    temporary.run { _ = add([kSecValueRef as String: key]) }
    let secret = external(key).suffix(32)
    for name in ["keychain.db", "keychain.db-wal"] {
      let bytes = (try? Data(contentsOf: temporary.directory.appendingPathComponent(name))) ?? Data()
      #expect(bytes.range(of: secret) == nil, "the private scalar is readable in \(name)")
    }
  }
}

/// Key rows altered or swapped on disk are refused, as password rows are (keys rule 3.8).
@Suite struct KeyRowTampering {
  @Test func aKeyWhoseSealedBytesWereAlteredIsNeverReturned() throws {
    let temporary = try TemporaryStore()
    let key = try makeKey(bits: 256)
    let other = try makeKey(bits: 256)
    temporary.run {
      _ = add([kSecValueRef as String: key, kSecAttrApplicationTag as String: "one"])
      _ = add([kSecValueRef as String: other, kSecAttrApplicationTag as String: "two"])
    }
    try StoreTampering.flipByte(in: "secret", account: 0, directory: temporary.directory)
    temporary.run {
      let query: [String: Any] = [
        kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("one".utf8),
        kSecReturnRef as String: true,
      ]
      // The damaged key is not handed back as a key: the search reports the damage instead.
      let (status, result) = copy(query)
      #expect(status == errSecDecode && result == nil)
      let intact = copy([
        kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("two".utf8),
        kSecReturnRef as String: true,
      ])
      #expect(intact.1 as? SecKey == other)
    }
    #expect(try temporary.store.checkIntegrity().damagedItems == 1)
  }

  @Test func swappedKeyRowsAreRefused() throws {
    let temporary = try TemporaryStore()
    let first = try makeKey(bits: 256)
    let second = try makeKey(bits: 256)
    temporary.run {
      _ = add([kSecValueRef as String: first, kSecAttrApplicationTag as String: "one"])
      _ = add([kSecValueRef as String: second, kSecAttrApplicationTag as String: "two"])
    }
    try StoreTampering.swapSealedColumns(0, 1, directory: temporary.directory)
    temporary.run {
      let (status, result) = copy([
        kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("one".utf8),
        kSecReturnRef as String: true,
      ])
      #expect(result as? SecKey != second)
      #expect(status != errSecSuccess)
    }
    #expect(try temporary.store.checkIntegrity().damagedItems == 2)
  }
}

/// Apple code tells search results apart with CFGetTypeID.
@Suite struct TypeIDs {
  @Test func searchResultsAreToldApartByTypeID() throws {
    try withFreshStore { _ in
      let key = try makeKey()
      add([kSecValueRef as String: key])
      let (_, result) = copy([kSecClass as String: kSecClassKey, kSecReturnRef as String: true])
      #expect(CFGetTypeID(result) == SecKeyGetTypeID())
      #expect(CFGetTypeID(result) != SecCertificateGetTypeID())
      #expect(CFGetTypeID(Data() as CFData) == CFDataGetTypeID())
      #expect(CFGetTypeID(kCFBooleanTrue) == CFBooleanGetTypeID())
      #expect(CFGetTypeID(NSNumber(value: 1)) == CFNumberGetTypeID())
      #expect(CFGetTypeID("x" as CFString) == CFStringGetTypeID())
      let identities = Set([
        SecKeyGetTypeID(), SecCertificateGetTypeID(), SecIdentityGetTypeID(), SecAccessControlGetTypeID(),
        CFDataGetTypeID(), CFStringGetTypeID(), CFDictionaryGetTypeID(), CFArrayGetTypeID(), CFNumberGetTypeID(),
        CFBooleanGetTypeID(), CFDateGetTypeID(), CFErrorGetTypeID(),
      ])
      #expect(identities.count == 12)
    }
  }
}

/// Keys rules 4.10 and 10.3: what a key from the keychain carries, and token keys.
@Suite struct KeyRefsFromTheKeychain {
  @Test("Keys rule 4.10: a key returned by a search carries no label, tag or access group")
  func aReturnedKeyCarriesNoItemAttributes() throws {
    try withFreshStore { _ in
      add([
        kSecValueRef as String: try makeKey(), kSecAttrLabel as String: "labelled",
        kSecAttrApplicationTag as String: "t",
      ])
      let key = try #require(copy([kSecClass as String: kSecClassKey, kSecReturnRef as String: true]).1 as? SecKey)
      let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
      #expect(attributes[kSecAttrLabel as String] == nil && attributes[kSecAttrApplicationTag as String] == nil)
      #expect(attributes[kSecAttrAccessGroup as String] == nil)
    }
  }

  @Test("Keys rule 10.3: an item carrying a token ID is never returned as a software key")
  func aTokenItemIsNeverAKeyRef() throws {
    try withFreshStore { _ in
      let key = try makeKey()
      #expect(
        add([
          kSecClass as String: kSecClassKey, kSecValueData as String: external(key),
          kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
          kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
        ]) == errSecSuccess)
      let (status, result) = copy([kSecClass as String: kSecClassKey, kSecReturnRef as String: true])
      #expect(status == errSecSuccess && result == nil)
      #expect(copy([kSecClass as String: kSecClassKey, kSecReturnAttributes as String: true]).1 != nil)
    }
  }
}

import Foundation
@_spi(KeychainBridge) import Security
import Synchronization
import Testing

@testable import Keychain

/// The typed module's searches go through SecItemCopyMatchingEntries, past Foundation dictionaries:
/// they must answer what SecItemCopyMatching answers for the same dictionary, value for value.
@Suite struct TypedSearchPath {
  /// Every combination of return keys, with a limit of one and with no limit.
  static var returnSets: [[CFString]] {
    [
      [kSecReturnData], [kSecReturnAttributes], [kSecReturnPersistentRef], [kSecReturnRef],
      [kSecReturnAttributes, kSecReturnData], [kSecReturnAttributes, kSecReturnPersistentRef, kSecReturnData],
      [kSecReturnAttributes, kSecReturnRef], [kSecReturnData, kSecReturnPersistentRef],
    ]
  }

  static func populate() throws -> PrivateKey {
    #expect(
      SecItemAdd(
        [
          kSecClass: kSecClassGenericPassword, kSecAttrAccount: "text", kSecAttrService: "svc",
          kSecAttrGeneric: Data([1, 2]), kSecAttrType: 7, kSecValueData: Data("one".utf8),
          kSecAttrComment: 2.5, kSecAttrLabel: Data("label as data".utf8),
        ] as NSDictionary, nil) == errSecSuccess)
    #expect(
      SecItemAdd(
        [kSecClass: kSecClassGenericPassword, kSecAttrAccount: "empty", kSecAttrService: "svc"] as NSDictionary, nil)
        == errSecSuccess)
    let key = try PrivateKey.generate(.p256).get()
    try KeyQuery().label("a key").add(key).get()
    return key
  }

  /// A result value in the typed form, for comparison.
  static func typed(_ value: Any?) -> KeychainValue? {
    switch value {
    case nil: nil
    case let value as SecKey: .key(value)
    case let value?: KeychainValue(object: value as AnyObject)
    }
  }

  /// The typed items `found` in the shape SecItemCopyMatching gives for `returns`: the one field
  /// asked for alone (a password item has no ref), else the item; the first, or all.
  static func appleShape(_ found: SecItemFoundValues?, returns: [CFString], limitOne: Bool) -> Any? {
    guard case .items(let items)? = found?.found else { return nil }
    let shaped: [Any] = (0..<items.count).compactMap { index in
      switch returns {
      case [kSecReturnData]: items.data(at: index)
      case [kSecReturnPersistentRef]: items.persistentReference(at: index)
      case [kSecReturnRef]: items.reference(at: index)
      default: items.item(at: index)
      }
    }
    return limitOne ? shaped.first : shaped
  }

  /// Whether a typed-path result answers like the Foundation result `raw`.
  static func same(_ typed: Any?, _ raw: CFTypeRef?) -> Bool {
    switch (typed, raw) {
    case (nil, nil): return true
    case (let searched as SearchedItem, let dictionary as NSDictionary):
      for case (let key as String, let value) in dictionary {
        guard Self.typed(searched.value(key)) == Self.typed(value) else { return false }
      }
      // The store's bookkeeping is never an attribute.
      return searched.value(kSecAttrPersistentReference as String) == nil && searched.value("UUID") == nil
    case (let items as [Any], let array as NSArray):
      return items.count == array.count && zip(items, array).allSatisfy { same($0, $1 as AnyObject) }
    case (let typed?, let raw?): return Self.typed(typed) == Self.typed(raw)
    default: return false
    }
  }

  @Test func aBuildersValueIsTypedAsTheCFFunctionsClassifyItsObject() throws {
    // The typed module hands the engine its values already typed; Apple's CF functions classify the
    // object the same value bridges to. Both must read alike, or the two paths would part.
    let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAlways, [], nil))
    let values: [KeychainValue] = [
      .string("alice"), .string(""), .string("12"), .data(Data([1, 2])), .data(Data()), .integer(-3), .integer(0),
      .integer(Int.max), .boolean(true), .boolean(false), .date(Date(timeIntervalSinceReferenceDate: 7)),
      .accessControl(control),
    ]
    for value in values {
      let typed = value.requestValue
      let classified = RequestValue(value.object)
      #expect(typed.string == classified.string, "\(value)")
      #expect(typed.data == classified.data, "\(value)")
      #expect(typed.number == classified.number, "\(value)")
      #expect(typed.isBoolean == classified.isBoolean, "\(value)")
      #expect(typed.isNull == classified.isNull, "\(value)")
      #expect(typed.date == classified.date, "\(value)")
      #expect((typed.object as AnyObject?) === (classified.object as AnyObject?), "\(value)")
    }
  }

  @Test func typedSearchesAnswerWhatSecItemCopyMatchingAnswers() throws {
    try withStore { _ throws in
      _ = try Self.populate()
      for itemClass in [kSecClassGenericPassword, kSecClassKey] {
        for returns in Self.returnSets {
          for limit in [kSecMatchLimitOne, kSecMatchLimitAll] {
            var query: [String: KeychainValue] = [
              kSecClass as String: .string(itemClass as String), kSecMatchLimit as String: .string(limit as String),
            ]
            for key in returns { query[key as String] = .boolean(true) }
            let dictionary = KeychainDictionary(query)
            var raw: CFTypeRef?
            let rawStatus = SecItemCopyMatching(dictionary.cfDictionary, &raw)
            var typed: SecItemFoundValues?
            let status = SecItemCopyMatchingEntries(
              SecItemEntries(dictionary.requestEntries) { dictionary.cfDictionary as NSDictionary }, &typed)
            let typedValue = Self.appleShape(typed, returns: returns, limitOne: limit == kSecMatchLimitOne)
            #expect(status == rawStatus, "\(dictionary)")
            #expect(
              Self.same(typedValue, raw),
              "\(dictionary): \(String(describing: typedValue)) against \(String(describing: raw))")
          }
        }
      }
      // Errors are the same too: a match key on the wrong class, and nothing found.
      let wrong = KeychainDictionary([
        kSecClass as String: .string(kSecClassGenericPassword as String), kSecMatchIssuers as String: .data(Data()),
      ])
      #expect(
        SecItemCopyMatchingEntries(SecItemEntries(wrong.requestEntries) { wrong.cfDictionary as NSDictionary }, nil)
          == SecItemCopyMatching(wrong.cfDictionary, nil))
    }
  }

  @Test func theRecorderSeesTheSameDictionaryOnTheTypedPath() throws {
    try withStore { _ throws in
      _ = try Self.populate()
      let search = GenericPassword().service("svc").account("text")
      let (_, calls) = recordingKeychainCalls { _ = search.item(includingData: true) }
      #expect(calls.count == 1)
      #expect(calls.first?.function == .copyMatching && calls.first?.status == errSecSuccess)
      var expected = search.dictionary
      expected[kSecReturnAttributes] = .boolean(true)
      expected[kSecReturnPersistentRef] = .boolean(true)
      expected[kSecReturnData] = .boolean(true)
      expected[kSecMatchLimit] = .string(kSecMatchLimitOne as String)
      #expect(calls.first?.dictionary == expected)
    }
  }

  @Test func refsAndPersistentReferencesOfItemsTakeTheTypedPath() throws {
    try withStore { _ throws in
      let key = try Self.populate()
      let built = Mutex(0)
      /// The entries of `query`, counting each time the runtime builds their Foundation dictionary.
      func entries(_ query: [String: KeychainValue]) -> SecItemEntries {
        let dictionary = KeychainDictionary(query)
        return SecItemEntries(dictionary.requestEntries) {
          built.withLock { $0 += 1 }
          return dictionary.cfDictionary as NSDictionary
        }
      }
      var found: SecItemFoundValues?
      let byRef = entries([
        kSecClass as String: .string(kSecClassKey as String), kSecValueRef as String: .key(key.secKey),
        kSecReturnPersistentRef as String: .boolean(true),
      ])
      #expect(SecItemCopyMatchingEntries(byRef, &found) == errSecSuccess)
      guard case .items(let items)? = found?.found, items.count == 1 else {
        Issue.record("a search by a key's ref found no item")
        return
      }
      let reference = items.persistentReference(at: 0)
      let byReference = entries([kSecValuePersistentRef as String: .data(reference)])
      #expect(SecItemCopyMatchingEntries(byReference, nil) == errSecSuccess)
      #expect(
        SecItemUpdateEntries(byReference, entries([kSecAttrLabel as String: .string("renamed")])) == errSecSuccess)
      #expect(SecItemDeleteEntries(byReference) == errSecSuccess)
      #expect(SecItemCopyMatchingEntries(byRef, nil) == errSecItemNotFound)
      // No recorder is installed: none of these needed a Foundation dictionary.
      #expect(built.withLock { $0 } == 0)
    }
  }
}

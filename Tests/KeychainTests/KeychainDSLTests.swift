import Foundation
import Keychain
import Security
import Testing

/// Runs `body` against a fresh temporary store.
func withStore<T>(groups: [String] = ["dsl.group"], _ body: (KeychainStore) throws -> T) throws -> T {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-dsl-\(UUID().uuidString)")
  defer { try? FileManager.default.removeItem(at: directory) }
  let store = try KeychainStore(directory: directory)
  return try withKeychainContext(store: store, accessGroups: groups) { try body(store) }
}

extension Result {
  /// The error of a failed result, or nil.
  var failure: Failure? {
    if case .failure(let error) = self { error } else { nil }
  }

  /// The value of a successful result, or nil.
  var success: Success? { try? get() }
}

struct Token: Codable, Equatable {
  var value: String
  var expires: Int
}

@Suite struct GenericPasswordDSL {
  let item = GenericPassword().service("com.example.api").account("alice")

  @Test func addThenReadDataStringAndItem() throws {
    try withStore { _ throws in
      #expect(throws: Never.self) { try item.label("API token").accessibility(.afterFirstUnlock).add("s3cret").get() }
      #expect(try item.string().get() == "s3cret")
      #expect(try item.data().get() == Data("s3cret".utf8))
      let found = try #require(try item.item().get())
      #expect(found.account == "alice" && found.service == "com.example.api" && found.label == "API token")
      #expect(found.accessibility == .afterFirstUnlock)
      #expect(found.creationDate != nil && found.data == nil)
      #expect(found.persistentReference != nil)
    }
  }

  @Test("Printing an item shows its public attributes, the secret's length only, and nothing private (issue 52)")
  func printingShowsPublicAttributesOnly() throws {
    try withStore { _ throws in
      #expect(throws: Never.self) { try item.label("API token").add("s3cret-value").get() }
      let found = try #require(try item.item().get())
      let printed = String(describing: found)
      #expect(printed.hasPrefix("GenericPasswordItem(") && printed.contains("service: com.example.api"), "\(printed)")
      #expect(printed.contains("account: alice") && printed.contains("label: API token"), "\(printed)")
      for hidden in ["sysBound", "tombstone", "multiUser", "pcsPlaintext", "syncViewHint", "sha1", "s3cret-value"] {
        #expect(!printed.contains(hidden), "\(hidden) in \(printed)")
      }
      var dumped = ""
      dump(found, to: &dumped)
      #expect(!dumped.contains("sysBound") && dumped.contains("account"), "\(dumped)")
      let withData = try #require(
        try item.item(includingData: true).get())
      #expect(String(describing: withData).contains("data: 12 bytes"))
    }
  }

  @Test func readsOfAbsentItemsAreNilNotErrors() throws {
    try withStore { _ throws in
      #expect(try item.string().get() == nil)
      #expect(try item.item().get() == nil)
      #expect(try item.reference().get() == nil)
      #expect(try item.exists().get() == false)
      #expect(try item.all().get().isEmpty)
    }
  }

  @Test func aSecondAddIsATypedDuplicateError() throws {
    try withStore { _ throws in
      _ = item.add("one")
      #expect(item.add("two").failure == .duplicateItem)
      if case .failure(let error) = item.add("two") {
        #expect(error.status == errSecDuplicateItem)
        #expect(error.localizedDescription == "The item already exists in the keychain.")
      }
    }
  }

  @Test func setAddsThenReplacesInOneCall() throws {
    try withStore { _ throws in
      #expect(throws: Never.self) { try item.set("v1").get() }
      #expect(throws: Never.self) { try item.set("v2").get() }
      #expect(try item.string().get() == "v2")
      #expect(try GenericPassword().service("com.example.api").all().get().count == 1)
    }
  }

  @Test func setWithAnotherAccessibilityOrLabelUpdatesTheSameItem() throws {
    try withStore { _ throws in
      let token = GenericPassword().service("com.example.api").account("alice")
      #expect(throws: Never.self) { try token.set("a").get() }
      #expect(throws: Never.self) { try token.accessibility(.afterFirstUnlock).set("b").get() }
      #expect(throws: Never.self) { try token.label("My token").set("d").get() }
      let items = try GenericPassword().service("com.example.api").all(includingData: true).get()
      #expect(items.count == 1)
      #expect(items.first?.data == Data("d".utf8))
      #expect(items.first?.label == "My token")
      #expect(items.first?.accessibility == .afterFirstUnlock)
    }
  }

  @Test func setMatchesTheIdentityAnAddWouldGiveNotEveryItemOfAService() throws {
    try withStore { _ throws in
      #expect(throws: Never.self) { try GenericPassword().service("svc").account("alice").add("alice's").get() }
      // No account: the identity is the empty account an add would store, not every account.
      #expect(throws: Never.self) { try GenericPassword().service("svc").set("service-wide").get() }
      #expect(try GenericPassword().service("svc").account("alice").string().get() == "alice's")
      #expect(try GenericPassword().service("svc").account("").string().get() == "service-wide")
      #expect(try GenericPassword().service("svc").all().get().count == 2)
    }
  }

  @Test func setThroughAReferenceChangesOnlyThatItem() throws {
    try withStore { _ throws in
      let reference = try GenericPassword().service("svc").account("alice").addReturningReference(Data("1".utf8)).get()
      #expect(throws: Never.self) { try GenericPassword(reference: reference).label("relabelled").set("2").get() }
      let item = try #require(try GenericPassword(reference: reference).item(includingData: true).get())
      #expect(item.data == Data("2".utf8))
      #expect(item.label == "relabelled")
    }
  }

  @Test func decodingIntoTheWrongTypeKeepsTheDecodingErrorAsTheCause() throws {
    struct Token: Codable { var value: String }
    struct Other: Codable { var count: Int }
    try withStore { _ throws in
      #expect(throws: Never.self) { try item.set(json: Token(value: "abc")).get() }
      let result = item.decode(Other.self)
      guard case .failure(let error) = result else {
        Issue.record("decoding into the wrong type succeeded")
        return
      }
      guard case .decodingFailed(let failure) = error else {
        Issue.record("expected decodingFailed, got \(error)")
        return
      }
      #expect(failure.underlying is DecodingError)
      #expect(error.underlyingError is DecodingError)
      #expect(error.status == errSecDecode)
      #expect(failure.valueType == "Other")
      #expect(error.message.contains("could not be decoded as Other"))
      #expect(error.message.contains("count"), "\(error.message)")
      #expect(!error.message.contains("integrity"))
      #expect(try item.decode(Token.self).get()?.value == "abc")
    }
  }

  @Test func encodingFailuresKeepTheEncodingErrorAsTheCause() throws {
    try withStore { _ throws in
      let result = item.set(json: Double.nan)
      guard case .failure(.encodingFailed(let failure)) = result else {
        Issue.record("expected encodingFailed, got \(result)")
        return
      }
      #expect(failure.underlying is EncodingError)
      #expect(result.failure?.status == errSecParam)
    }
  }

  @Test func descriptionsShowApplesConstantNamesOnOneLine() throws {
    let builder = GenericPassword().service("svc").account("alice").accessibility(.afterFirstUnlock)
    #expect(
      "\(builder.dictionary)"
        == "[kSecClass: kSecClassGenericPassword, kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlock, "
        + "kSecAttrAccount: \"alice\", kSecAttrService: \"svc\"]")
    #expect("\(builder)".contains("kSecAttrAccount: \"alice\""))
    // An account that happens to spell a constant's string is the caller's text, not the constant.
    #expect("\(GenericPassword().account("acct").dictionary)".contains("kSecAttrAccount: \"acct\""))
    try withStore { _ throws in
      let (_, calls) = recordingKeychainCalls { _ = builder.add("pw") }
      #expect(calls.first?.description.hasPrefix("SecItemAdd([") == true)
      #expect(calls.first?.description.contains("kSecClass: kSecClassGenericPassword") == true)
      #expect(calls.first?.description.contains("kSecValueData: <2 bytes>") == true)
      #expect(calls.first?.description.hasSuffix(") -> 0") == true)
      let (_, reads) = recordingKeychainCalls { _ = builder.string() }
      #expect(reads.first?.description.contains("kSecMatchLimit: kSecMatchLimitOne") == true)
      #expect(reads.first?.description.contains("kSecReturnData: true") == true)
    }
  }

  @Test func setKeepsTheOldSecretWhenItFails() throws {
    try withStore { store throws in
      _ = item.set("precious")
      store.lock()
      #expect(item.set("replacement").failure == .interactionNotAllowed)
      store.unlock()
      #expect(try item.string().get() == "precious")
    }
  }

  @Test func codableValuesRoundTripAsJSON() throws {
    try withStore { _ throws in
      let token = Token(value: "abc", expires: 42)
      #expect(throws: Never.self) { try item.add(json: token).get() }
      #expect(try item.decode(Token.self).get() == token)
      #expect(throws: Never.self) { try item.set(json: Token(value: "def", expires: 7)).get() }
      #expect(try item.decode(Token.self).get()?.value == "def")
      _ = GenericPassword().service("other").account("x").add("not json")
      #expect(GenericPassword().service("other").decode(Token.self).failure?.status == errSecDecode)
    }
  }

  @Test func allListsInInsertionOrderWithOptionalDataAndLimit() throws {
    try withStore { _ throws in
      for account in ["c", "a", "b"] { _ = GenericPassword().service("list").account(account).add(account) }
      let all = try GenericPassword().service("list").all(includingData: true).get()
      #expect(all.map(\.account) == ["c", "a", "b"])
      #expect(all.map(\.data) == ["c", "a", "b"].map { Data($0.utf8) })
      #expect(try GenericPassword().service("list").all(limit: 2).get().count == 2)
    }
  }

  @Test func updateChangesAttributesAndDataAndReportsMisses() throws {
    try withStore { _ throws in
      _ = item.add("old")
      #expect(try item.update(.init().label("renamed"), data: Data("new".utf8)).get() == true)
      #expect(try item.item().get()?.label == "renamed")
      #expect(try item.string().get() == "new")
      #expect(try GenericPassword().service("nothing").update(data: Data()).get() == false)
    }
  }

  @Test func deleteReportsWhetherItRemovedAnything() throws {
    try withStore { _ throws in
      _ = item.add("x")
      #expect(try item.delete().get() == true)
      #expect(try item.delete().get() == false)
    }
  }

  @Test func persistentReferencesFindUpdateAndDeleteOneItem() throws {
    try withStore { _ throws in
      let reference = try item.addReturningReference(Data("by-ref".utf8)).get()
      _ = GenericPassword().service("com.example.api").account("bob").add("other")
      let byReference = GenericPassword(reference: reference)
      #expect(try byReference.string().get() == "by-ref")
      #expect(try byReference.update(data: Data("changed".utf8)).get() == true)
      #expect(try item.string().get() == "changed")
      #expect(try item.item().get()?.request == byReference)
      #expect(try byReference.delete().get() == true)
      #expect(try GenericPassword().service("com.example.api").all().get().map(\.account) == ["bob"])
    }
  }

  @Test func accessGroupsSynchronizableAndAccessControlAreTyped() throws {
    try withStore(groups: ["team.app", "team.shared"]) { _ throws in
      let control = try #require(
        SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, .userPresence, nil))
      _ = item.accessGroup("team.shared").accessControl(control).add("x")
      _ = item.synchronizable(true).add("synced")
      let found = try #require(try item.accessGroup("team.shared").item().get())
      #expect(found.accessGroup == "team.shared" && found.accessControl == control)
      #expect(found.accessibility == .afterFirstUnlock)
      #expect(try item.synchronizable(.any).all().get().count == 2)
      #expect(try item.synchronizable(true).string().get() == "synced")
      #expect(item.accessGroup("elsewhere").add("x").failure == .missingEntitlement)
    }
  }
}

@Suite struct InternetPasswordDSL {
  @Test func everyPrimaryKeyAttributeIsTyped() throws {
    try withStore { _ throws in
      let login = InternetPassword().server("example.com").account("alice").port(443).path("/login")
        .protocol(.https).authenticationType(.htmlForm).securityDomain("realm")
      #expect(throws: Never.self) { try login.add("hunter2").get() }
      let found = try #require(try InternetPassword().server("example.com").item(includingData: true).get())
      #expect(found.port == 443 && found.path == "/login" && found.protocol == .https)
      #expect(found.authenticationType == .htmlForm && found.securityDomain == "realm")
      #expect(found.data == Data("hunter2".utf8))
      #expect(try login.port(8443).exists().get() == false)
    }
  }

  @Test func theLoweredDictionaryIsVisibleAndTyped() {
    let query = InternetPassword().server("example.com").port(443).protocol(.https).isInvisible(true)
    #expect(query.dictionary[kSecClass] == .string("inet"))
    #expect(query.dictionary[kSecAttrServer] == .string("example.com"))
    #expect(query.dictionary[kSecAttrPort] == .integer(443))
    #expect(query.dictionary[kSecAttrProtocol] == .string(kSecAttrProtocolHTTPS as String))
    #expect(query.dictionary[kSecAttrIsInvisible] == .boolean(true))
    #expect(query == InternetPassword().server("example.com").port(443).protocol(.https).isInvisible(true))
    // `attributes` holds the attributes only: the class is the type's, a reference is its own.
    #expect(query.attributes.entries.keys.sorted() == ["invi", "port", "ptcl", "srvr"])
    #expect(query.attributes[kSecClass] == nil && InternetPassword.itemClass == kSecClassInternetPassword)
    let reference = PersistentReference(Data([1, 2, 3]))
    let byReference = GenericPassword(reference: reference).label("x")
    #expect(byReference.attributes == KeychainDictionary([kSecAttrLabel as String: .string("x")]))
    #expect(byReference.persistentReference == reference)
    #expect(byReference.dictionary[kSecValuePersistentRef] == .data(reference.data))
  }

  @Test func changesSetAttributesAndMergeIntoADescription() {
    let changes = GenericPassword.Changes().label("new").comment("note")
    #expect(changes.attributes.entries.keys.sorted() == ["icmt", "labl"])
    let merged = GenericPassword().account("alice").label("old").merging(changes)
    #expect(merged == GenericPassword().account("alice").label("new").comment("note"))
    // A description keeps its reference through a merge.
    let reference = PersistentReference(Data([9]))
    #expect(GenericPassword(reference: reference).merging(changes).persistentReference == reference)
    #expect(GenericPassword().merging(GenericPassword.Changes()) == GenericPassword())
  }
}

@Suite struct GeneratedTypes {
  @Test func keychainErrorMapsEveryCodeBothWays() {
    for error in [
      KeychainError.param, .duplicateItem, .itemNotFound, .interactionNotAllowed, .missingEntitlement, .decode,
    ] {
      #expect(KeychainError(status: error.status) == error)
    }
    #expect(KeychainError(status: -12345) == .unknown(-12345))
    #expect(KeychainError(status: -12345).message == "OSStatus -12345")
    #expect(KeychainError.itemNotFound.description.contains("-25300"))
  }

  @Test func valueEnumsMapToTheirConstantsAndBack() {
    #expect(Accessibility.whenUnlocked.constant as String == kSecAttrAccessibleWhenUnlocked as String)
    #expect(Accessibility(constant: "ck") == .afterFirstUnlock)
    #expect(InternetProtocol.https.constant as String == "htps")
    #expect(AuthenticationType.allCases.count == 8)
    #expect(AuthenticationType(constant: "dflt") == .default)
    #expect(Accessibility(constant: "nope") == nil)
  }

  @Test func recordedCallsShowTheOneDictionaryEachOperationSends() throws {
    try withStore { _ throws in
      let item = GenericPassword().service("svc").account("a")
      let (_, calls) = recordingKeychainCalls {
        _ = item.add("x")
        _ = item.string()
      }
      #expect(calls.map(\.function) == [.add, .copyMatching])
      #expect(calls[0].dictionary[kSecValueData] == .data(Data("x".utf8)))
      #expect(calls[1].dictionary[kSecReturnData] == .boolean(true))
      #expect(calls[1].dictionary[kSecMatchLimit] == .string(kSecMatchLimitOne as String))
      #expect(calls.allSatisfy { $0.status == errSecSuccess })
    }
  }
}

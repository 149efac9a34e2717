import Foundation
import KeychainStorageMemory
import Synchronization
import Testing

@_spi(KeychainBridge) @testable import Security

/// The engine takes its context as a value (issue 50): two engines in one process, with different
/// storages or groups, never see each other's items, whatever the process's own default store and
/// groups say; and nothing on the engine's path reads them.
@Suite("SecItemEngine is a value")
struct EngineValueTests {
  static func engine(
    _ storage: InMemoryItemStorage, groups: [String], clock: @escaping @Sendable () -> Date = Date.init
  )
    -> SecItemEngine
  {
    SecItemEngine(
      storage: storage, accessGroups: groups,
      authenticator: KeychainStore(directory: URL(fileURLWithPath: "/nonexistent/engine-test"), storage: storage)
        .authenticator, backend: testBackend, clock: clock)
  }

  static func password(_ account: String, data: String? = nil, returning: Bool = false) throws(SecStatus)
    -> ItemRequest
  {
    var dictionary: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "mail",
      kSecAttrAccount as String: account,
    ]
    if let data { dictionary[kSecValueData as String] = Data(data.utf8) }
    if returning {
      dictionary[kSecReturnData as String] = true
      dictionary[kSecMatchLimit as String] = kSecMatchLimitAll
    }
    return try ItemRequest.reading(dictionary as NSDictionary)
  }

  static func secrets(_ engine: SecItemEngine, _ account: String) throws(SecStatus) -> [String] {
    let found = try engine.matchingItems(try password(account, returning: true))
    return found.compactMap(\.data).map { String(decoding: $0, as: UTF8.self) }
  }

  @Test("Two engines over two storages, in one process, see only their own items")
  func twoStoragesAreApart() throws {
    let first = Self.engine(InMemoryItemStorage(), groups: ["team.a"])
    let second = Self.engine(InMemoryItemStorage(), groups: ["team.b"])
    _ = try first.add(try Self.password("alice", data: "first's"))
    _ = try second.add(try Self.password("alice", data: "second's"))
    #expect(try Self.secrets(first, "alice") == ["first's"])
    #expect(try Self.secrets(second, "alice") == ["second's"])
    try first.delete(try Self.password("alice"))
    #expect(throws: SecStatus.itemNotFound) { try Self.secrets(first, "alice") }
    #expect(try Self.secrets(second, "alice") == ["second's"])
  }

  @Test("Two engines over one storage with different groups see only their groups' items")
  func twoCallersOfOneStorageAreApart() throws {
    let storage = InMemoryItemStorage()
    let mail = Self.engine(storage, groups: ["org.example.mail"])
    let browser = Self.engine(storage, groups: ["org.example.browser"])
    let both = Self.engine(storage, groups: ["org.example.browser", "org.example.mail"])
    _ = try mail.add(try Self.password("alice", data: "mail's"))
    #expect(throws: SecStatus.itemNotFound) { try Self.secrets(browser, "alice") }
    #expect(throws: SecStatus.itemNotFound) {
      try browser.update(try Self.password("alice"), changes: [(kSecValueData as String, .data(Data("stolen".utf8)))])
    }
    #expect(throws: SecStatus.itemNotFound) { try browser.delete(try Self.password("alice")) }
    // The same primary key in another group is another item (rule 2.1).
    _ = try browser.add(try Self.password("alice", data: "browser's"))
    #expect(try Self.secrets(mail, "alice") == ["mail's"])
    #expect(try Self.secrets(both, "alice").sorted() == ["browser's", "mail's"])
  }

  @Test("The engine's path reads no default store, process groups or task-local context")
  func noGlobalContext() throws {
    let storage = InMemoryItemStorage()
    let engine = Self.engine(storage, groups: ["engine.own"])
    let elsewhere = KeychainStore(
      directory: URL(fileURLWithPath: "/nonexistent/elsewhere"), storage: InMemoryItemStorage())
    // A context naming another store and other groups is what the CF functions would use; the
    // engine, which was given its own, ignores it.
    try withKeychainContext(store: elsewhere, accessGroups: ["context.group"]) {
      _ = try engine.add(try Self.password("bob", data: "engine's"))
      #expect(try Self.secrets(engine, "bob") == ["engine's"])
      var query: CFTypeRef?
      #expect(SecItemCopyMatching(Self.dictionary("bob") as CFDictionary, &query) == errSecItemNotFound)
    }
    var filter = ItemFilter(itemClass: .genericPassword)
    filter.synchronizable = nil
    let rows = try storage.find(filter, limit: nil, fetch: ItemFetch(attributes: true, data: false))
    #expect(rows.map { $0.attributes[SecConstantValue.attrAccessGroup] } == [.string("engine.own")])
  }

  @Test("New rows and revisions are dated by the engine's clock")
  func theClockIsTheEngines() throws {
    let now = Mutex(Date(timeIntervalSinceReferenceDate: 1_000_000))
    let engine = Self.engine(InMemoryItemStorage(), groups: ["clock"]) { now.withLock { $0 } }
    let added = try engine.add(try Self.password("carol", data: "v1"))
    #expect(
      added.attributes[SecConstantValue.attrCreationDate]
        == AttributeValue.date(Date(timeIntervalSinceReferenceDate: 1_000_000)))
    now.withLock { $0 = Date(timeIntervalSinceReferenceDate: 2_000_000) }
    try engine.update(try Self.password("carol"), changes: [(kSecAttrLabel as String, .string("renamed"))])
    let found = try engine.searchedItems(
      try ItemRequest.reading(
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "carol",
          kSecReturnAttributes as String: true,
        ] as NSDictionary))
    let item = try #require(found.first)
    #expect(
      item.attributes[SecConstantValue.attrModificationDate]
        == AttributeValue.date(Date(timeIntervalSinceReferenceDate: 2_000_000)))
    #expect(
      item.attributes[SecConstantValue.attrCreationDate]
        == AttributeValue.date(Date(timeIntervalSinceReferenceDate: 1_000_000)))
  }

  static func dictionary(_ account: String) -> [String: Any] {
    [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "mail",
      kSecAttrAccount as String: account, kSecReturnData as String: true,
    ]
  }

  @Test("An import adds every item or, when one of them is refused, none")
  func anImportIsAllOrNone() throws {
    let engine = Self.engine(InMemoryItemStorage(), groups: ["team.a"])
    let accounts = ["a", "b", "c"]
    var asked: [Int] = []
    let added = try engine.importItems(count: accounts.count) { index throws(SecStatus) in
      asked.append(index)
      return try Self.password(accounts[index], data: "secret \(index)")
    }
    #expect(added == 3 && asked == [0, 1, 2])
    #expect(try Self.secrets(engine, "c") == ["secret 2"])
    // The third request asks for a result, which an import does not give: nothing is added.
    #expect(throws: SecStatus.param) {
      try engine.importItems([
        try Self.password("d", data: "d"), try Self.password("e", data: "e"), try Self.password("f", returning: true),
      ])
    }
    // A request that cannot be read fails the import the same way.
    #expect(throws: SecStatus.itemNotFound) {
      try engine.importItems(count: 2) { index throws(SecStatus) in
        guard index == 0 else { throw .itemNotFound }
        return try Self.password("g", data: "g")
      }
    }
    #expect(throws: SecStatus.param) {
      try engine.importItems(count: -1) { _ throws(SecStatus) in try Self.password("i", data: "i") }
    }
    // An item that clashes with one already there fails the batch too.
    #expect(throws: SecStatus.duplicateItem) {
      try engine.importItems([try Self.password("h", data: "h"), try Self.password("a", data: "again")])
    }
    for account in ["d", "e", "g", "h"] {
      #expect(throws: SecStatus.itemNotFound) { try Self.secrets(engine, account) }
    }
    #expect(try Self.secrets(engine, "a") == ["secret 0"])
  }
}

import AgentProcess
import Foundation
import KeychainStorageMemory
import KeychainTPM
import SoftwareTPM
import Testing

@testable import Security

/// The contract every store under the SecItem API must keep (Security/Store/StorageCapabilities.swift),
/// exercised through the protocols alone with rows the API builds: rows, keys and lock, and
/// maintenance here, the change feed in ChangeFeedContract. A new backend joins by adding a case to
/// `StoreKind`. The agent is no storage: programs hand it SecItem calls, which the SecItem suites
/// run through it (`KEYCHAIN_BRIDGE_TEST_STORE=agent`, the agent pass of `make test`).
@Suite struct StoreContract {
  enum StoreKind: String, CaseIterable, CustomStringConvertible, Sendable {
    case sqlite
    case memory
    /// The SQLite store with its key file sealed to a TPM (swtpm, started for the test; issue 33).
    case sqliteSealedToTPM

    var description: String { rawValue }

    /// A new, empty store of this kind, and a way to remove it.
    func make() throws -> (store: any ItemStorage, cleanUp: () -> Void) {
      switch self {
      case .sqlite:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
        let store = try KeychainStore(directory: directory)
        return (store.storage!, { try? FileManager.default.removeItem(at: directory) })
      case .memory:
        return (InMemoryItemStorage(), {})
      case .sqliteSealedToTPM:
        let tpm = try SoftwareTPM()
        let directory = tpm.state.appendingPathComponent("store")
        // The TPM is needed to open the store; after that its keys are in memory.
        let store = try TPMConnections.$chosenTCTI.withValue(tpm.tcti) {
          try KeychainStore(directory: directory, sealedToTPM: true)
        }
        return (store.storage!, { tpm.stop() })
      }
    }
  }

  /// A generic password row as SecItemAdd would build it.
  static func row(
    account: String, service: String = "svc", group: String = "g1", sync: Int64 = 0, protection: String = "ak",
    description: String? = nil, data: Data? = Data("secret".utf8)
  ) throws -> NewItem {
    var attributes: [String: AttributeValue] = [
      "acct": .string(account), "svce": .string(service), "agrp": .string(group), "sync": .integer(sync),
      "pdmn": .string(protection),
    ]
    if let description { attributes["desc"] = .string(description) }
    let complete = try ItemRows.completed(attributes, at: Date(), backend: testBackend)
    return NewItem(
      itemClass: .genericPassword, attributes: complete, accessControl: nil, data: data,
      index: try ItemRows.index(.genericPassword, complete))
  }

  /// A filter as SecItemCopyMatching would build it from `constraints`.
  static func filter(
    _ constraints: [String: AttributeValue] = [:], groups: [String]? = ["g1"], sync: Int64? = 0
  ) -> ItemFilter {
    var filter = ItemFilter(itemClass: .genericPassword)
    filter.accessGroups = groups
    filter.synchronizable = sync
    let comparable = ItemRows.comparable(.genericPassword, constraints)
    filter.attributes = comparable
    filter.primaryKey = ItemRows.primaryKey(.genericPassword, naming: comparable)
    return filter
  }

  static let everything = ItemFetch(attributes: true, data: true)

  /// A change of the description, as SecItemUpdate would parse it.
  static func describing(_ text: String) -> ItemChange {
    var change = ItemChange()
    change.attributes = ["desc": .string(text)]
    return change
  }

  /// The maintenance capability: a store opened to be written says so, and its integrity check
  /// counts what it holds (every row sound).
  @Test(arguments: StoreKind.allCases)
  func maintenanceCountsTheItemsOfAWritableStore(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    let maintenance: any StorageMaintenance = store
    #expect(!maintenance.isReadOnly)
    #expect(try maintenance.checkIntegrity().checkedItems == 0)
    _ = try store.insert(try Self.row(account: "alice", description: "first"))
    _ = try store.insert(try Self.row(account: "bob", description: "second"))
    let report = try maintenance.checkIntegrity()
    #expect(report.checkedItems == 2)
    #expect(report.damagedItems == 0)
  }

  @Test(arguments: StoreKind.allCases)
  func anInsertedItemIsFoundByItsReferenceAsItWasGiven(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    let row = try Self.row(account: "alice", description: "first")
    let stored = try store.insert(row)
    var byReference = ItemFilter(itemClass: .genericPassword)
    byReference.reference = .uuid(.genericPassword, stored.persistentID)
    let found = try store.find(byReference, limit: nil, fetch: Self.everything)
    #expect(found.count == 1)
    #expect(found.first?.attributes.dictionary == row.attributes)
    #expect(found.first?.data == row.data)
    #expect(found.first?.persistentID == stored.persistentID)
  }

  @Test(arguments: StoreKind.allCases)
  func severalSearchesAtOnceAnswerAsEachAlone(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    for name in ["c", "a", "b"] { _ = try store.insert(try Self.row(account: name)) }
    var gone = ItemFilter(itemClass: .genericPassword)
    gone.reference = .uuid(.genericPassword, Data(repeating: 7, count: 16))
    let filters = [Self.filter(["acct": .string("b"), "svce": .string("svc")]), gone, Self.filter()]
    let together = try store.find(each: filters, limit: 2, fetch: Self.everything)
    let alone = try filters.map { try store.find($0, limit: 2, fetch: Self.everything) }
    #expect(together.map { $0.map(\.persistentID) } == alone.map { $0.map(\.persistentID) })
    #expect(together.map(\.count) == [1, 0, 2])
    #expect(together[0].first?.data == Data("secret".utf8))
  }

  @Test(arguments: StoreKind.allCases)
  func aTakenPrimaryKeyIsADuplicateButAnotherGroupOrSyncFlagIsNot(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.row(account: "alice"))
    #expect(throws: SecStatus.duplicateItem) { try store.insert(try Self.row(account: "alice", description: "other")) }
    _ = try store.insert(try Self.row(account: "alice", group: "g2"))
    _ = try store.insert(try Self.row(account: "alice", sync: 1))
    #expect(try store.find(Self.filter(groups: nil, sync: nil), limit: nil, fetch: Self.everything).count == 3)
    #expect(try store.find(Self.filter(groups: ["g2"], sync: nil), limit: nil, fetch: Self.everything).count == 1)
    #expect(try store.find(Self.filter(groups: nil, sync: 1), limit: nil, fetch: Self.everything).count == 1)
  }

  @Test(arguments: StoreKind.allCases)
  func searchesKeepInsertionOrderAndTheirLimit(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    for name in ["c", "a", "b", "d"] { _ = try store.insert(try Self.row(account: name)) }
    let all = try store.find(Self.filter(), limit: nil, fetch: Self.everything)
    #expect(all.map { $0.attributes["acct"] } == ["c", "a", "b", "d"].map { .string($0) })
    let two = try store.find(Self.filter(), limit: 2, fetch: Self.everything)
    #expect(two.map { $0.attributes["acct"] } == [.string("c"), .string("a")])
    let byKey = try store.find(
      Self.filter(["acct": .string("b"), "svce": .string("svc")]), limit: 1, fetch: Self.everything)
    #expect(byKey.map { $0.attributes["acct"] } == [.string("b")])
  }

  @Test(arguments: StoreKind.allCases)
  func aFetchReadsOnlyWhatItAsksFor(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.row(account: "alice"))
    let dataOnly = try store.find(Self.filter(), limit: nil, fetch: ItemFetch(attributes: false, data: true))
    #expect(dataOnly.first?.data == Data("secret".utf8))
    #expect(dataOnly.first?.attributes.isEmpty == true)
    let attributesOnly = try store.find(Self.filter(), limit: nil, fetch: ItemFetch(attributes: true, data: false))
    #expect(attributesOnly.first?.data == nil)
    #expect(attributesOnly.first?.attributes["acct"] == .string("alice"))
  }

  @Test(arguments: StoreKind.allCases)
  func aDataFetchCanReadTheAccessControlWithoutTheAttributes(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    var guarded = try Self.row(account: "guarded")
    guarded.accessControl = SecAccessControl(protection: "ak", flags: .userPresence)
    _ = try store.insert(guarded)
    _ = try store.insert(try Self.row(account: "open"))
    let fetch = ItemFetch(attributes: false, data: true, accessControl: true)
    let found = try store.find(Self.filter(), limit: nil, fetch: fetch)
    #expect(found.map(\.accessControl?.flags) == [.userPresence, nil])
    // (The agent of a store without a passphrase withholds nothing: there is nothing to prove.
    // LocalAuthenticationTests.AgentAuthentication covers one with a passphrase.)
    #expect(found.allSatisfy { $0.attributes.isEmpty && $0.data == Data("secret".utf8) })
  }

  @Test(arguments: StoreKind.allCases)
  func theAPIsVerdictDecidesWhatNoIndexCovers(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.row(account: "alice", description: "keep"))
    _ = try store.insert(try Self.row(account: "bob", description: "drop"))
    let described = try store.find(Self.filter(["desc": .string("keep")]), limit: nil, fetch: Self.everything)
    #expect(described.map { $0.attributes["acct"] } == [.string("alice")])
    // A constraint no column holds (the host of a generic password, which has no server) is the
    // API's to decide even when the indexes decided everything else.
    var elsewhere = Self.filter(["acct": .string("alice"), "svce": .string("svc")])
    elsewhere.hostOrSubdomain = "example.com"
    #expect(elsewhere.hasOtherConstraints)
    #expect(try store.find(elsewhere, limit: nil, fetch: Self.everything).isEmpty)
  }

  @Test(arguments: StoreKind.allCases)
  func anUpdateStoresTheRevisionKeepsTheSecretAndTheReference(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    let stored = try store.insert(try Self.row(account: "alice"))
    #expect(
      try StorageUpdates.update(
        store, Self.filter(["acct": .string("alice")]), Self.describing("new"), backend: testBackend) == 1)
    let found = try store.find(Self.filter(), limit: nil, fetch: Self.everything)
    #expect(found.first?.attributes["desc"] == .string("new"))
    #expect(found.first?.data == Data("secret".utf8))
    #expect(found.first?.persistentID == stored.persistentID)
    #expect(throws: SecStatus.itemNotFound) {
      try StorageUpdates.update(
        store, Self.filter(["acct": .string("nobody")]), Self.describing("x"), backend: testBackend)
    }
  }

  /// A new secret alone (the common update: a changed password) may keep the row's key and search
  /// columns; the row must still be found by each of them, hold the new secret, and read back sound.
  @Test(arguments: StoreKind.allCases)
  func aNewSecretAloneKeepsTheItemFoundByEverySearchAndSound(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    let stored = try store.insert(try Self.row(account: "alice"))
    var newSecret = ItemChange()
    newSecret.data = Data("changed".utf8)
    #expect(
      try StorageUpdates.update(store, Self.filter(["acct": .string("alice")]), newSecret, backend: testBackend) == 1)
    for constraints: [String: AttributeValue] in [
      ["acct": .string("alice")], ["svce": .string("svc")], ["acct": .string("alice"), "svce": .string("svc")], [:],
    ] {
      let found = try store.find(Self.filter(constraints), limit: nil, fetch: Self.everything)
      #expect(found.map(\.persistentID) == [stored.persistentID], "\(constraints)")
      #expect(found.first?.data == Data("changed".utf8))
    }
    // The revision still moved the modification date.
    let item = try #require(try store.find(Self.filter(), limit: nil, fetch: Self.everything).first)
    #expect(item.attributes["mdat"] != stored.attributes["mdat"])
    // A second add of the same key is still a duplicate: the primary key column was kept.
    #expect(throws: SecStatus.duplicateItem) { _ = try store.insert(try Self.row(account: "alice")) }
    // An item stored without a secret gets one.
    _ = try store.insert(try Self.row(account: "bob", data: nil))
    #expect(
      try StorageUpdates.update(store, Self.filter(["acct": .string("bob")]), newSecret, backend: testBackend) == 1)
    let bob = try store.find(Self.filter(["acct": .string("bob")]), limit: nil, fetch: Self.everything)
    #expect(bob.first?.data == Data("changed".utf8))
  }

  @Test(arguments: StoreKind.allCases)
  func anUpdateOntoATakenKeyChangesNothing(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.row(account: "alice"))
    _ = try store.insert(try Self.row(account: "bob"))
    var renaming = ItemChange()
    renaming.attributes = ["acct": .string("alice")]
    #expect(throws: SecStatus.duplicateItem) {
      try StorageUpdates.update(store, Self.filter(), renaming, backend: testBackend)
    }
    let accounts = try store.find(Self.filter(), limit: nil, fetch: Self.everything).map { $0.attributes["acct"] }
    #expect(accounts == [.string("alice"), .string("bob")])
  }

  /// The contract has no closure: the API reads rows with their versions, computes revisions, and
  /// the storage replaces them only if none changed since (what a storage in another process
  /// needs). A row written or removed in between makes the whole replacement write nothing.
  @Test(arguments: StoreKind.allCases)
  func aReplacementOfRowsChangedSinceTheyWereReadWritesNothing(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.row(account: "alice"))
    _ = try store.insert(try Self.row(account: "bob"))
    let read = try store.find(Self.filter(), limit: nil, fetch: ItemFetch(attributes: true, data: false, version: true))
    #expect(read.count == 2)
    #expect(read.allSatisfy { $0.version != nil })
    let replacements = try read.map { item in
      ItemReplacement(
        itemClass: item.itemClass, persistentID: item.persistentID, expected: try #require(item.version),
        revision: try ItemRows.revision(of: item, Self.describing("stale"), at: Date(), backend: testBackend))
    }
    // Another writer changes bob after the read.
    #expect(
      try StorageUpdates.update(
        store, Self.filter(["acct": .string("bob")]), Self.describing("other"), backend: testBackend) == 1)
    #expect(try store.replace(replacements) == .changedSinceRead)
    var descriptions = try store.find(Self.filter(), limit: nil, fetch: Self.everything).map { $0.attributes["desc"] }
    #expect(descriptions == [nil, .string("other")])
    // Read again, the same change goes through; a row deleted since is a change too.
    let fresh = try store.find(
      Self.filter(), limit: nil, fetch: ItemFetch(attributes: true, data: false, version: true))
    let again = try fresh.map { item in
      ItemReplacement(
        itemClass: item.itemClass, persistentID: item.persistentID, expected: try #require(item.version),
        revision: try ItemRows.revision(of: item, Self.describing("fresh"), at: Date(), backend: testBackend))
    }
    _ = try store.delete(Self.filter(["acct": .string("alice")]))
    #expect(try store.replace(again) == .changedSinceRead)
    #expect(try store.replace(Array(again.dropFirst())) == .replaced(1))
    descriptions = try store.find(Self.filter(), limit: nil, fetch: Self.everything).map { $0.attributes["desc"] }
    #expect(descriptions == [.string("fresh")])
  }

  @Test(arguments: StoreKind.allCases)
  func anUpsertAddsWhenNothingMatchesAndUpdatesWhenSomethingDoes(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    let filter = Self.filter(["acct": .string("alice"), "svce": .string("svc")])
    let item = try Self.row(account: "alice")
    #expect(
      try StorageUpdates.upsert(store, filter, Self.describing("updated"), orInsert: item, backend: testBackend) == 1)
    #expect(try store.find(filter, limit: nil, fetch: Self.everything).first?.attributes["desc"] == nil)
    #expect(
      try StorageUpdates.upsert(store, filter, Self.describing("updated"), orInsert: item, backend: testBackend) == 1)
    let found = try store.find(filter, limit: nil, fetch: Self.everything)
    #expect(found.count == 1)
    #expect(found.first?.attributes["desc"] == .string("updated"))
  }

  @Test(arguments: StoreKind.allCases)
  func aDeleteRemovesEveryMatchAndThenFindsNothing(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    for name in ["a", "b", "c"] { _ = try store.insert(try Self.row(account: name)) }
    _ = try store.insert(try Self.row(account: "a", group: "g2"))
    #expect(try store.delete(Self.filter()) == 3)
    #expect(throws: SecStatus.itemNotFound) { try store.delete(Self.filter()) }
    #expect(try store.find(Self.filter(groups: nil), limit: nil, fetch: Self.everything).count == 1)
  }

  @Test(arguments: StoreKind.allCases)
  func aBatchIsStoredWholeOrNotAtAll(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    let clashing = [try Self.row(account: "a"), try Self.row(account: "b"), try Self.row(account: "a")]
    #expect(throws: SecStatus.duplicateItem) { try store.insertBatch(clashing, skippingDuplicates: false) }
    #expect(try store.find(Self.filter(), limit: nil, fetch: Self.everything).isEmpty)
    #expect(
      try store.insertBatch([try Self.row(account: "a"), try Self.row(account: "b")], skippingDuplicates: false) == 2)
    #expect(try store.find(Self.filter(), limit: nil, fetch: Self.everything).count == 2)
  }

  @Test(arguments: StoreKind.allCases)
  func aBatchSkippingDuplicatesAddsTheRestInOneTransaction(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.row(account: "a"))
    let batch = [try Self.row(account: "a"), try Self.row(account: "b"), try Self.row(account: "b")]
    #expect(try store.insertBatch(batch, skippingDuplicates: true) == 1)
    let accounts = try store.find(Self.filter(), limit: nil, fetch: Self.everything).compactMap {
      $0.attributes[SecConstantValue.attrAccount]
    }
    #expect(accounts == [.string("a"), .string("b")])
  }

  /// Found by the storage differential test: the SQLite storage opened the secret of the row its
  /// primary-key index found before the API's verdict on the other constraints, so a search whose
  /// label excluded a WhenUnlocked item answered errSecInteractionNotAllowed while locked instead
  /// of errSecItemNotFound (and opened secrets of rows it then dropped).
  @Test(arguments: StoreKind.allCases)
  func aSecretIsOpenedOnlyForItemsThatMatchEveryConstraint(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.row(account: "a", description: "kept"))
    store.lock()
    // The whole primary key (account, service) and a description the item does not have.
    let excluding = Self.filter(["acct": .string("a"), "svce": .string("svc"), "desc": .string("other")])
    #expect(excluding.primaryKey != nil)
    #expect(try store.find(excluding, limit: nil, fetch: Self.everything).isEmpty)
    let including = Self.filter(["acct": .string("a"), "svce": .string("svc"), "desc": .string("kept")])
    #expect(throws: SecStatus.interactionNotAllowed) { try store.find(including, limit: nil, fetch: Self.everything) }
  }

  /// Found by the storage differential test: where the SQLite storage sorts its primary-key
  /// matches in memory, it opened every match's secret before the limit cut them, so a limit-one
  /// search answered errSecInteractionNotAllowed for a locked item that was not the first.
  @Test(arguments: StoreKind.allCases)
  func aSecretIsOpenedOnlyForItemsWithinTheLimit(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.row(account: "a", sync: 1, protection: "ck", data: Data("first".utf8)))
    _ = try store.insert(try Self.row(account: "a", sync: 0, protection: "ak"))
    store.lock()
    let both = Self.filter(["acct": .string("a"), "svce": .string("svc")], sync: nil)
    #expect(both.primaryKey != nil)
    let first = try store.find(both, limit: 1, fetch: Self.everything)
    #expect(first.map(\.data) == [Data("first".utf8)])
    #expect(throws: SecStatus.interactionNotAllowed) { try store.find(both, limit: 2, fetch: Self.everything) }
  }

  @Test(arguments: StoreKind.allCases)
  func whileLockedWhenUnlockedSecretsAreWithheldAndOthersAreNot(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.row(account: "locked", protection: "ak"))
    _ = try store.insert(try Self.row(account: "open", protection: "ck"))
    store.lock()
    #expect(store.isLocked)
    let open = try store.find(Self.filter(["acct": .string("open")]), limit: nil, fetch: Self.everything)
    #expect(open.first?.data == Data("secret".utf8))
    #expect(throws: SecStatus.interactionNotAllowed) {
      try store.find(Self.filter(["acct": .string("locked")]), limit: nil, fetch: Self.everything)
    }
    let metadata = try store.find(Self.filter(), limit: nil, fetch: ItemFetch(attributes: true, data: false))
    #expect(metadata.count == 2)
    try store.unlock(passphrase: nil)
    #expect(try store.find(Self.filter(["acct": .string("locked")]), limit: nil, fetch: Self.everything).count == 1)
  }
}

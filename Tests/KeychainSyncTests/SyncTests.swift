import Foundation
import KeychainSync
import Security
import Testing

/// Synchronizable items through a real PostgreSQL server (issue 16): what travels, what stays,
/// deletes, conflicts, joining, and the engine's background loop. The first four run over both
/// storage implementations: sync sits above the storage contract.
@Suite struct SyncBehaviour {
  let server: PostgresTestServer
  let url: String

  init() throws {
    server = try PostgresTestServer.shared()
    url = try server.makeDatabase()
  }

  @Test(arguments: StorageKind.allCases)
  func synchronizableItemsFollowToAJoiningStoreAndLocalOnesStay(storage: StorageKind) async throws {
    let first = try TestStore(storage: storage)
    let second = try TestStore(storage: storage)
    try await KeychainSyncGroup.create(store: first.store, server: url, passphrase: "correct horse", cost: .earlier)
    #expect(first.add("shared", "s3cret") == errSecSuccess)
    #expect(first.add("local", "mine", synchronizable: false) == errSecSuccess)
    #expect(
      first.add("device", "pinned", accessible: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly) == errSecSuccess)
    let pushed = try await first.sync()
    #expect(pushed.pushed == 1)

    let status = try await KeychainSyncGroup.join(store: second.store, server: url, passphrase: "correct horse")
    #expect(status.groupID == (try KeychainSyncGroup.status(store: first.store))?.groupID)
    let pulled = try await second.sync()
    #expect(pulled.applied == 1)
    #expect(second.secrets() == ["shared": "s3cret"])
    // Every attribute travels, dates included.
    let original = try #require(first.attributes("shared"))
    let copy = try #require(second.attributes("shared"))
    #expect(copy[kSecAttrModificationDate as String] as? Date == original[kSecAttrModificationDate as String] as? Date)
    #expect(copy[kSecAttrCreationDate as String] as? Date == original[kSecAttrCreationDate as String] as? Date)
    #expect(copy[kSecAttrSynchronizable as String] as? Int == 1)
    // Without kSecAttrSynchronizable a query sees no synchronizable item (rule 3.2).
    #expect(second.secrets(synchronizable: kCFBooleanFalse) == [:])
    // The server knows the group's two stores.
    let members = try await KeychainSyncGroup.members(store: second.store)
    #expect(
      Set(members.map(\.storeID))
        == Set([try KeychainSyncGroup.status(store: first.store)?.storeID, status.storeID].compactMap { $0 }))
  }

  @Test(arguments: StorageKind.allCases)
  func updatesAndDeletesPropagateAndTombstonesStayInvisible(storage: StorageKind) async throws {
    let first = try TestStore(storage: storage)
    let second = try TestStore(storage: storage)
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    try await KeychainSyncGroup.join(
      store: second.store, server: url, keyFile: try KeychainSyncGroup.exportKey(store: first.store))
    first.add("a", "1")
    first.add("b", "2")
    _ = try await first.sync()
    _ = try await second.sync()
    #expect(second.secrets() == ["a": "1", "b": "2"])

    #expect(first.update("a", "1-changed") == errSecSuccess)
    #expect(first.delete("b") == errSecSuccess)
    _ = try await first.sync()
    _ = try await second.sync()
    #expect(second.secrets() == ["a": "1-changed"])
    // The tombstone is invisible to every query (rules 3.3, 8.8) and an add replaces it (5.3).
    #expect(second.delete("b") == errSecItemNotFound)
    #expect(try KeychainSyncGroup.status(store: second.store)?.tombstones == 1)
    #expect(second.add("b", "back") == errSecSuccess)
    _ = try await second.sync()
    _ = try await first.sync()
    #expect(first.secrets() == ["a": "1-changed", "b": "back"])
    #expect(try KeychainSyncGroup.status(store: first.store)?.tombstones == 0)
  }

  @Test(arguments: StorageKind.allCases)
  func anUpdateThatChangesWhatSyncsDeletesTheOldItemElsewhere(storage: StorageKind) async throws {
    let first = try TestStore(storage: storage)
    let second = try TestStore(storage: storage)
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    try await KeychainSyncGroup.join(
      store: second.store, server: url, keyFile: try KeychainSyncGroup.exportKey(store: first.store))
    first.add("renamed", "1")
    first.add("pinned", "2")
    first.add("unshared", "3")
    _ = try await first.sync()
    _ = try await second.sync()
    #expect(second.secrets() == ["renamed": "1", "pinned": "2", "unshared": "3"])
    func change(_ account: String, _ attributes: [String: Any]) -> OSStatus {
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: TestStore.service,
        kSecAttrAccount as String: account, kSecAttrSynchronizable as String: true,
      ]
      return first.call { SecItemUpdate(query as CFDictionary, attributes as CFDictionary) }
    }
    // A new primary key is another item; ThisDeviceOnly and a cleared sync flag take it off the group.
    #expect(change("renamed", [kSecAttrAccount as String: "renamed-2"]) == errSecSuccess)
    #expect(
      change("pinned", [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly])
        == errSecSuccess)
    #expect(change("unshared", [kSecAttrSynchronizable as String: false]) == errSecSuccess)
    _ = try await first.sync()
    _ = try await second.sync()
    #expect(second.secrets() == ["renamed-2": "1"])
    #expect(first.secrets() == ["renamed-2": "1", "pinned": "2", "unshared": "3"])
  }

  @Test(arguments: StorageKind.allCases)
  func concurrentChangesConvergeToTheLaterVersionEverywhere(storage: StorageKind) async throws {
    let first = try TestStore(storage: storage)
    let second = try TestStore(storage: storage)
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    try await KeychainSyncGroup.join(
      store: second.store, server: url, keyFile: try KeychainSyncGroup.exportKey(store: first.store))
    first.add("item", "v0")
    _ = try await first.sync()
    _ = try await second.sync()

    // Both change the item before either syncs; the second change is the later one.
    first.update("item", "from-first")
    try await Task.sleep(for: .milliseconds(5))
    second.update("item", "from-second")
    _ = try await first.sync()
    _ = try await second.sync()
    _ = try await first.sync()
    #expect(first.secrets() == ["item": "from-second"])
    #expect(second.secrets() == ["item": "from-second"])

    // Two stores add the same primary key: the same winner on both.
    second.add("clash", "second's")
    first.add("clash", "first's")
    _ = try await second.sync()
    _ = try await first.sync()
    _ = try await second.sync()
    #expect(first.secrets()["clash"] == "first's")
    #expect(second.secrets() == first.secrets())
  }

  @Test func lockedStoresHoldBackWhenUnlockedItemsUntilUnlocked() async throws {
    let first = try TestStore(passphrase: "first's passcode")
    let second = try TestStore(passphrase: "second's passcode")
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    try await KeychainSyncGroup.join(
      store: second.store, server: url, keyFile: try KeychainSyncGroup.exportKey(store: first.store))
    #expect(first.add("unlocked-only", "1", accessible: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
    #expect(first.add("always", "2", accessible: kSecAttrAccessibleAfterFirstUnlock) == errSecSuccess)

    // A locked store cannot read a WhenUnlocked secret, so it pushes the rest and keeps it pending.
    first.store.lock()
    let pushed = try await first.sync()
    #expect(pushed.pushed == 1)
    #expect(try KeychainSyncGroup.status(store: first.store)?.pendingChanges == 1)
    #expect(first.store.unlock(passphrase: "first's passcode") == errSecSuccess)
    #expect(try await first.sync().pushed == 1)

    // A locked store cannot seal it either: it stops there and takes it once unlocked.
    second.store.lock()
    let held = try await second.sync()
    #expect(held.waitingForUnlock)
    #expect(second.secrets().keys.sorted() == ["always"])
    #expect(second.store.unlock(passphrase: "second's passcode") == errSecSuccess)
    _ = try await second.sync()
    #expect(second.secrets() == ["unlocked-only": "1", "always": "2"])
  }

  @Test func aWrongPassphraseJoinsNothing() async throws {
    let first = try TestStore()
    let second = try TestStore()
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "the right passphrase", cost: .earlier)
    let error = await #expect(throws: KeychainSyncError.self) {
      try await KeychainSyncGroup.join(store: second.store, server: url, passphrase: "wrong")
    }
    #expect(error?.status == errSecAuthFailed)
    #expect(try KeychainSyncGroup.status(store: second.store) == nil)
    // Joining twice is refused, and so is a group on a server that holds none.
    let again = await #expect(throws: KeychainSyncError.self) {
      try await KeychainSyncGroup.join(store: first.store, server: url, passphrase: "the right passphrase")
    }
    #expect(again?.status == errSecDuplicateItem)
  }

  @Test func anExportedKeyFileJoinsTheSameGroup() async throws {
    let first = try TestStore()
    let second = try TestStore()
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    first.add("k", "v")
    _ = try await first.sync()
    let keyFile = try KeychainSyncGroup.exportKey(store: first.store)
    try await KeychainSyncGroup.join(store: second.store, server: url, keyFile: keyFile)
    _ = try await second.sync()
    #expect(second.secrets() == ["k": "v"])
    let damaged = await #expect(throws: KeychainSyncError.self) {
      try await KeychainSyncGroup.join(store: try TestStore().store, server: url, keyFile: Data("nonsense".utf8))
    }
    #expect(damaged?.status == errSecDecode)
  }

  @Test func environmentVariablesJoinAStoreWithoutCode() async throws {
    let first = try TestStore()
    let second = try TestStore()
    let third = try TestStore()
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "from the environment", cost: .earlier)
    first.add("configured", "yes")
    _ = try await first.sync()
    #expect(try await KeychainSyncEnvironment([:]).engine(for: second.store) == nil)
    let missing = await #expect(throws: KeychainSyncError.self) {
      try await KeychainSyncEnvironment(["KEYCHAIN_BRIDGE_SYNC_SERVER": self.url]).engine(for: second.store)
    }
    #expect(missing?.status == errSecParam)
    let engine = try #require(
      try await KeychainSyncEnvironment([
        "KEYCHAIN_BRIDGE_SYNC_SERVER": url, "KEYCHAIN_BRIDGE_SYNC_PASSPHRASE": "from the environment",
      ]).engine(for: second.store))
    _ = try await engine.syncOnce()
    #expect(second.secrets() == ["configured": "yes"])
    let key = try KeychainSyncGroup.exportKey(store: first.store).base64EncodedString()
    let keyed = try #require(
      try await KeychainSyncEnvironment(["KEYCHAIN_BRIDGE_SYNC_SERVER": url, "KEYCHAIN_BRIDGE_SYNC_KEY": key])
        .engine(for: third.store))
    _ = try await keyed.syncOnce()
    #expect(third.secrets() == ["configured": "yes"])
  }

  @Test func leavingKeepsTheItemsAndStopsSyncing() async throws {
    let first = try TestStore()
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    first.add("kept", "value")
    _ = try await first.sync()
    try KeychainSyncGroup.leave(store: first.store)
    #expect(try KeychainSyncGroup.status(store: first.store) == nil)
    #expect(first.secrets() == ["kept": "value"])
    let error = await #expect(throws: KeychainSyncError.self) { try await first.sync() }
    #expect(error?.status == errSecNoSuchKeychain)
  }

  @Test func localCallsDoNotWaitForAnUnreachableServer() async throws {
    let first = try TestStore()
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    try server.sql(
      "UPDATE pg_database SET datallowconn = false WHERE datname = '\(databaseName(url))'", database: "postgres")
    defer {
      _ = try? server.sql(
        "UPDATE pg_database SET datallowconn = true WHERE datname = '\(databaseName(url))'", database: "postgres")
    }
    let started = Date()
    #expect(first.add("offline", "still works") == errSecSuccess)
    #expect(Date().timeIntervalSince(started) < 1)
    let error = await #expect(throws: KeychainSyncError.self) { try await first.sync() }
    #expect(error?.status == errSecNotAvailable)
    #expect(try KeychainSyncGroup.status(store: first.store)?.pendingChanges == 1)
  }

  @Test func runningEnginesPropagateThroughNotifications() async throws {
    let first = try TestStore()
    let second = try TestStore()
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    try await KeychainSyncGroup.join(
      store: second.store, server: url, keyFile: try KeychainSyncGroup.exportKey(store: first.store))
    let engines = [try KeychainSyncEngine(store: first.store), try KeychainSyncEngine(store: second.store)]
    let tasks = engines.map { engine in Task { await engine.run() } }
    defer { tasks.forEach { $0.cancel() } }
    first.add("live", "1")
    #expect(await eventually { second.secrets() == ["live": "1"] })
    second.update("live", "2")
    #expect(await eventually { first.secrets() == ["live": "2"] })
    first.delete("live")
    #expect(await eventually { second.secrets().isEmpty })
  }
}

import Foundation
import Testing

@testable import Security

/// The storage contract's change feed (Security/Store/ChangeFeed.swift), over every storage: what
/// each write records in its own transaction, and replication batches that apply only when the
/// feed is as the replicator read it.
@Suite struct ChangeFeedContract {
  typealias StoreKind = StoreContract.StoreKind

  static func synchronizable(_ account: String, protection: String = "ak") throws -> NewItem {
    try StoreContract.row(account: account, sync: 1, protection: protection)
  }

  static func onlyChange(_ store: any ItemStorage) throws -> FeedChange {
    let entries = try store.changes(after: 0, limit: 10)
    try #require(entries.count == 1)
    guard case .change(let change) = entries[0] else { throw SecStatus.decode }
    return change
  }

  static let mark = ReplicaMark(
    version: 7, origin: Data(repeating: 1, count: 16), deleted: false, versionedSequence: nil, settled: true)

  /// Marks every entry, as a replicator does before anything leaves the storage.
  static func markAll(_ store: any ItemStorage) throws {
    var batch = ReplicationBatch()
    for case .change(let change) in try store.changes(after: 0, limit: 100) {
      batch.steps.append((.mark(change.identity, mark), .sequence(change.sequence)))
    }
    #expect(try store.applyReplication(batch) == .applied)
  }

  @Test(arguments: StoreKind.allCases)
  func removingAnItemNoReplicatorMarkedLeavesNoEntry(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.synchronizable("fleeting"))
    var filter = StoreContract.filter(["acct": .string("fleeting")], sync: 1)
    filter.primaryKey = nil
    #expect(try store.delete(filter) == 1)
    #expect(try store.changes(after: 0, limit: 10).isEmpty)
  }

  @Test(arguments: StoreKind.allCases)
  func writesOfSynchronizableRowsAreFedAndOthersAreNot(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try StoreContract.row(account: "local"))
    #expect(try store.changes(after: 0, limit: 10).isEmpty)
    #expect(try !store.hasChanges(after: 0))
    let row = try Self.synchronizable("synced")
    let stored = try store.insert(row)
    let change = try Self.onlyChange(store)
    #expect(change.identity == ItemIdentity(.genericPassword, row.index))
    #expect(change.persistentID == stored.persistentID)
    #expect(change.protection == "ak")
    #expect(change.source == .local)
    #expect(change.mark == nil)
    #expect(try store.hasChanges(after: 0))
    #expect(try !store.hasChanges(after: change.sequence))
    #expect(try store.change(of: change.identity) == .change(change))
    let absent = ItemIdentity(.genericPassword, try Self.synchronizable("absent").index)
    #expect(try store.changes(of: [absent, change.identity, absent]) == [nil, .change(change), nil])
  }

  /// A step expects its own item's entry at a sequence: another item's entry there is no match.
  @Test(arguments: StoreKind.allCases)
  func aSequenceHeldByAnotherItemIsNotTheExpectedOne(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.synchronizable("first"))
    _ = try store.insert(try Self.synchronizable("second"))
    let entries = try store.changes(after: 0, limit: 10)
    guard case .change(let first) = entries[0], case .change(let second) = entries[1] else {
      throw SecStatus.decode
    }
    var crossed = ReplicationBatch()
    crossed.steps = [(.mark(first.identity, Self.mark), .sequence(second.sequence))]
    #expect(try store.applyReplication(crossed) == .changedSinceRead)
    var missing = ReplicationBatch()
    missing.steps = [(.mark(first.identity, Self.mark), .sequence(second.sequence + 100))]
    #expect(try store.applyReplication(missing) == .changedSinceRead)
    // Two steps on one item in one batch: the second sees what the first wrote.
    let later = ReplicaMark(
      version: 8, origin: Self.mark.origin, deleted: false, versionedSequence: nil, settled: false)
    var twice = ReplicationBatch()
    twice.steps = [
      (.refeed(first.identity), .sequence(first.sequence)),
      (.mark(first.identity, later), .sequence(first.sequence)),
    ]
    #expect(try store.applyReplication(twice) == .applied)
    guard case .change(let marked)? = try store.change(of: first.identity) else { throw SecStatus.decode }
    #expect(marked.mark == later)
    #expect(marked.sequence > second.sequence)
  }

  @Test(arguments: StoreKind.allCases)
  func updatesAndDeletesMoveTheEntryAndKeepItsMark(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.synchronizable("alice"))
    let first = try Self.onlyChange(store)
    var marking = ReplicationBatch()
    marking.steps = [(.mark(first.identity, Self.mark), .sequence(first.sequence))]
    #expect(try store.applyReplication(marking) == .applied)
    // A mark changes neither the sequence nor the source.
    #expect(try Self.onlyChange(store).sequence == first.sequence)

    var filter = StoreContract.filter(sync: 1)
    filter.attributes = [:]
    filter.primaryKey = nil
    #expect(try StorageUpdates.update(store, filter, StoreContract.describing("changed"), backend: testBackend) == 1)
    let updated = try Self.onlyChange(store)
    #expect(updated.sequence > first.sequence)
    #expect(updated.mark == Self.mark)
    #expect(!updated.deleted)

    #expect(try store.delete(filter) == 1)
    let deleted = try Self.onlyChange(store)
    #expect(deleted.sequence > updated.sequence)
    #expect(deleted.deleted)
    #expect(deleted.persistentID == nil)
    #expect(deleted.identity == first.identity)
    #expect(deleted.mark == Self.mark)
  }

  @Test(arguments: StoreKind.allCases)
  func aRenameFeedsTheOldItemsDeletionAndTheNewItem(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    _ = try store.insert(try Self.synchronizable("before"))
    try Self.markAll(store)
    var rename = ItemChange()
    rename.attributes = ["acct": .string("after")]
    var filter = StoreContract.filter(sync: 1)
    filter.attributes = [:]
    filter.primaryKey = nil
    #expect(try StorageUpdates.update(store, filter, rename, backend: testBackend) == 1)
    let entries = try store.changes(after: 0, limit: 10).compactMap { entry -> FeedChange? in
      guard case .change(let change) = entry else { return nil }
      return change
    }
    #expect(entries.count == 2)
    #expect(entries.first?.deleted == true)
    #expect(entries.first?.identity.primaryKey.contains { $0.value == .bytes(Array("before".utf8)) } == true)
    #expect(entries.last?.deleted == false)
    #expect(entries.last?.identity.primaryKey.contains { $0.value == .bytes(Array("after".utf8)) } == true)
  }

  @Test(arguments: StoreKind.allCases)
  func aBatchAppliesOnlyWhenTheFeedIsAsRead(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    let incoming = try Self.synchronizable("incoming")
    let identity = ItemIdentity(.genericPassword, incoming.index)
    var batch = ReplicationBatch()
    batch.steps = [(.store(incoming, mark: Self.mark), .absent)]
    batch.values = ["state": Data("one".utf8)]
    #expect(try store.applyReplication(batch) == .applied)
    let stored = try Self.onlyChange(store)
    #expect(stored.source == .replica)
    #expect(stored.mark == Self.mark)
    #expect(try store.replicationValue("state") == Data("one".utf8))
    var byAccount = StoreContract.filter(["acct": .string("incoming")], sync: 1)
    byAccount.primaryKey = nil
    #expect(try store.find(byAccount, limit: nil, fetch: StoreContract.everything).first?.data == incoming.data)

    // A batch read before that write: nothing of it is written.
    var stale = ReplicationBatch()
    stale.steps = [(.remove(identity, mark: Self.mark), .absent)]
    stale.values = ["state": Data("two".utf8)]
    #expect(try store.applyReplication(stale) == .changedSinceRead)
    #expect(try store.replicationValue("state") == Data("one".utf8))
    #expect(try store.find(byAccount, limit: nil, fetch: StoreContract.everything).count == 1)

    // Fed again as a local change: a new sequence, the row's own persistent identifier.
    var refeed = ReplicationBatch()
    refeed.steps = [(.refeed(identity), .sequence(stored.sequence))]
    refeed.values = ["state": nil]
    #expect(try store.applyReplication(refeed) == .applied)
    let local = try Self.onlyChange(store)
    #expect(local.source == .local)
    #expect(local.sequence > stored.sequence)
    #expect(local.persistentID == stored.persistentID)
    #expect(try store.replicationValue("state") == nil)

    var removal = ReplicationBatch()
    removal.steps = [(.remove(identity, mark: Self.mark), .sequence(local.sequence))]
    #expect(try store.applyReplication(removal) == .applied)
    #expect(try store.find(byAccount, limit: nil, fetch: StoreContract.everything).isEmpty)
    #expect(try Self.onlyChange(store).deleted)
  }

  @Test(arguments: StoreKind.allCases)
  func markingAnItemWithNoEntryRecordsALocalDeletion(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    let identity = ItemIdentity(.genericPassword, try Self.synchronizable("gone").index)
    var batch = ReplicationBatch()
    batch.steps = [(.mark(identity, Self.mark), .absent)]
    #expect(try store.applyReplication(batch) == .applied)
    let change = try Self.onlyChange(store)
    #expect(change.deleted)
    #expect(change.source == .local)
    #expect(change.identity == identity)
    #expect(change.mark == Self.mark)
  }

  @Test(arguments: StoreKind.allCases)
  func purgingRemovesOnlyOldDeletionsUpToTheGivenSequence(kind: StoreKind) throws {
    let (store, cleanUp) = try kind.make()
    defer { cleanUp() }
    for account in ["a", "b", "c"] { _ = try store.insert(try Self.synchronizable(account)) }
    try Self.markAll(store)
    for account in ["a", "b"] {
      var filter = StoreContract.filter(["acct": .string(account)], sync: 1)
      filter.primaryKey = nil
      #expect(try store.delete(filter) == 1)
    }
    let entries = try store.changes(after: 0, limit: 10)
    let generation = store.writeGeneration
    // Only the first deletion is at or before the given sequence; nothing is old enough before now.
    let firstDeletion = try #require(entries.dropLast().last).sequence
    #expect(try store.purgeDeletions(changedBefore: 0, through: .max) == 0)
    #expect(try store.purgeDeletions(changedBefore: .max, through: firstDeletion) == 1)
    #expect(try store.changes(after: 0, limit: 10).count == 2)
    #expect(store.writeGeneration > generation)
  }
}

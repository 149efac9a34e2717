import Foundation
import Testing

@testable import KeychainStorageSQLite
@testable import Security

/// The SQLite storage's shortcut for an update (VersionedReadCache): `replace` takes the rows the
/// read with versions found without reading them again, but only while the file is exactly as
/// that read saw it. A commit by any connection in between must send `replace` back to the file,
/// or it would overwrite a change it never saw.
// The SQLite storage's own read cache, read through its type: not a rule, so not run over the agent.
@Suite(.enabled(if: !TemporaryStore.overAgent, "the SQLite storage's internals, in this process"))
struct VersionedReads {
  private static let readForRevision = ItemFetch(attributes: true, data: false, version: true)

  /// A second storage over the same files: another connection, as another process would have.
  private func openSecond(_ temporary: TemporaryStore) throws -> KeychainStore {
    try KeychainStore(directory: temporary.directory)
  }

  private func rowsReplaceCanTake(_ storage: SQLiteItemStorage) throws -> Int {
    let writer = try #require(storage.writer)
    return try writer.transaction { connection in storage.versionedReads.take(in: connection).count }
  }

  @Test func aReadLeftUnchangedIsTakenAndForgotten() throws {
    let temporary = try TemporaryStore()
    let storage = try #require(temporary.store.storage as? SQLiteItemStorage)
    _ = try storage.insert(try StoreContract.row(account: "alice"))
    _ = try storage.insert(try StoreContract.row(account: "bob"))
    #expect(try storage.find(StoreContract.filter(), limit: nil, fetch: Self.readForRevision).count == 2)
    #expect(try rowsReplaceCanTake(storage) == 2)
    // Taken once: forgotten, since the write that takes it changes the file.
    #expect(try rowsReplaceCanTake(storage) == 0)
    // A read without attributes has not authenticated every row's metadata: nothing is kept.
    _ = try storage.find(
      StoreContract.filter(), limit: nil, fetch: ItemFetch(attributes: false, data: true, version: true))
    #expect(try rowsReplaceCanTake(storage) == 0)
  }

  @Test func aCommitOnTheSameConnectionSendsReplaceBackToTheFile() throws {
    let temporary = try TemporaryStore()
    let storage = try #require(temporary.store.storage as? SQLiteItemStorage)
    _ = try storage.insert(try StoreContract.row(account: "alice"))
    _ = try storage.find(StoreContract.filter(), limit: nil, fetch: Self.readForRevision)
    _ = try storage.insert(try StoreContract.row(account: "carol"))
    #expect(try rowsReplaceCanTake(storage) == 0)
  }

  @Test func aCommitByAnotherConnectionSendsReplaceBackToTheFile() throws {
    let temporary = try TemporaryStore()
    let storage = try #require(temporary.store.storage as? SQLiteItemStorage)
    _ = try storage.insert(try StoreContract.row(account: "alice"))
    let second = try openSecond(temporary)
    _ = try storage.find(StoreContract.filter(), limit: nil, fetch: Self.readForRevision)
    _ = try second.storage!.insert(try StoreContract.row(account: "carol"))
    #expect(try rowsReplaceCanTake(storage) == 0)
  }

  /// The whole path: a row another connection changed after the read is not replaced, and the
  /// other connection's change is what stays.
  @Test func aRowAnotherConnectionChangedAfterTheReadIsNotReplaced() throws {
    let temporary = try TemporaryStore()
    let storage = try #require(temporary.store.storage as? SQLiteItemStorage)
    _ = try storage.insert(try StoreContract.row(account: "alice"))
    let second = try openSecond(temporary)
    let read = try storage.find(StoreContract.filter(), limit: nil, fetch: Self.readForRevision)
    let replacements = try read.map { item in
      ItemReplacement(
        itemClass: item.itemClass, persistentID: item.persistentID, expected: try #require(item.version),
        revision: try ItemRows.revision(of: item, StoreContract.describing("stale"), at: Date(), backend: testBackend))
    }
    #expect(
      try StorageUpdates.update(
        second.storage!, StoreContract.filter(), StoreContract.describing("other"), backend: testBackend) == 1)
    #expect(try storage.replace(replacements) == .changedSinceRead)
    let descriptions = try storage.find(StoreContract.filter(), limit: nil, fetch: StoreContract.everything)
      .map { $0.attributes["desc"] }
    #expect(descriptions == [.string("other")])
  }
}

import Foundation
import GRDB
import Security
import Testing

/// The store's sync journal without a server: what it records, and that it does not grow for ever.
@Suite struct SyncJournal {
  @Test func aStoreInNoGroupJournalsSynchronizableItemsOnly() throws {
    let store = try TestStore()
    store.add("synced", "1")
    store.add("local", "2", synchronizable: false)
    store.add("pinned", "3", accessible: kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
    store.delete("synced")
    let summary = try #require(try store.store.syncableBackend?.syncSummary())
    #expect(summary.liveItems == 0)
    #expect(summary.tombstones == 1)
    #expect(summary.pending == 1)
  }

  @Test func oldTombstonesOfAStoreInNoGroupArePurgedWhenItOpens() throws {
    let store = try TestStore()
    store.add("old", "1")
    store.delete("old")
    store.add("recent", "2")
    store.delete("recent")
    // Age one tombstone past the 30 days, behind the store's back.
    let database = try DatabaseQueue(path: store.directory.appendingPathComponent("keychain.db").path)
    let fortyDaysAgo = Int64((Date().timeIntervalSince1970 - 40 * 24 * 3600) * 1_000_000)
    try database.write { db in
      try db.execute(
        sql: """
          UPDATE sync_state SET changed = ? WHERE (class, pk, spi) IN (SELECT class, pk, spi FROM sync_state LIMIT 1)
          """,
        arguments: [fortyDaysAgo])
    }
    try database.close()
    let reopened = try KeychainStore(directory: store.directory)
    #expect(try reopened.syncableBackend?.syncSummary().tombstones == 1)
  }
}

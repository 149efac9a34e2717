import Foundation
import GRDB
import Security
import Testing

@testable import KeychainStoreSQLite

/// The store's sync journal without a server: what it records, and that it does not grow for ever.
@Suite struct SyncJournalBehaviour {
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

/// The binary form of a synchronizable item's key, which tombstones carry between stores.
@Suite struct SyncIdentityEncoding {
  static let identity = KeychainStoreSQLite.SyncIdentity(
    itemClass: "genp", accessGroup: "com.example.sync", synchronizable: 1,
    primaryKey: [
      .init(key: "acct", value: .bytes(Array("alice".utf8))), .init(key: "svce", value: .text("not bytes")),
      .init(key: "port", value: .integer(-443)), .init(key: "cdat", value: .date(123.5)),
      .init(key: "ratio", value: .double(0.25)),
    ],
    spiKey: [nil, .bytes([0, 255])])

  @Test func aKeyRoundTripsWithEveryValueKind() throws {
    #expect(try KeychainStoreSQLite.SyncIdentity.decoded(try Self.identity.encoded()) == Self.identity)
  }

  @Test func truncatedAndRandomBytesAreDecodeErrorsNeverCrashes() throws {
    let valid = try Self.identity.encoded()
    for length in 0..<valid.count {
      #expect(throws: SecStatus.self) { try KeychainStoreSQLite.SyncIdentity.decoded(Array(valid.prefix(length))) }
    }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<5_000 {
      var bytes = valid
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
      }
      _ = try? KeychainStoreSQLite.SyncIdentity.decoded(bytes)
    }
  }
}

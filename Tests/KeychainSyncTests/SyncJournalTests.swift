import Foundation
import GRDB
import KeychainCrypto
import KeychainSync
import Security
import Testing

@testable import KeychainStorageSQLite

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
  static let identity = KeychainStorageSQLite.SyncIdentity(
    itemClass: "genp", accessGroup: "com.example.sync", synchronizable: 1,
    primaryKey: [
      .init(key: "acct", value: .bytes(Array("alice".utf8))), .init(key: "svce", value: .text("not bytes")),
      .init(key: "port", value: .integer(-443)), .init(key: "cdat", value: .date(123.5)),
      .init(key: "ratio", value: .double(0.25)),
    ],
    spiKey: [nil, .bytes([0, 255])])

  @Test func aKeyRoundTripsWithEveryValueKind() throws {
    #expect(try KeychainStorageSQLite.SyncIdentity.decoded(try Self.identity.encoded()) == Self.identity)
  }

  @Test func truncatedAndRandomBytesAreDecodeErrorsNeverCrashes() throws {
    let valid = try Self.identity.encoded()
    for length in 0..<valid.count {
      #expect(throws: SecStatus.self) { try KeychainStorageSQLite.SyncIdentity.decoded(Array(valid.prefix(length))) }
    }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<5_000 {
      var bytes = valid
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
      }
      _ = try? KeychainStorageSQLite.SyncIdentity.decoded(bytes)
    }
  }
}

/// Journal format 1 (the entry's key only in its sealing) is sealed again in format 2 at open.
@Suite struct JournalFormatUpgrade {
  @Test func aFormatOneJournalIsSealedAgainAndStillSyncs() async throws {
    let store = try TestStore()
    store.add("kept", "1")
    let path = store.directory.appendingPathComponent("keychain.db").path
    // Seal the entry back into format 1, as a store of the previous version wrote it.
    let keyFile = [UInt8](try Data(contentsOf: store.directory.appendingPathComponent("keychain.key")))
    let ring = try KeyRing(storeKey: Array(keyFile[5...]))
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in
      let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM sync_state"))
      let key = LocalItemKey(
        itemClass: .genericPassword, primaryKey: row["pk"] as Data, spiKey: row["spi"] as Data)
      let identity = try SyncJournal.openIdentity(
        [UInt8](row["identity"] as Data), key, version: row["version"], origin: row["origin"],
        deleted: (row["deleted"] as Int64) == 1, ring)
      let formatOne = try AES.GCM.seal(
        try identity.encoded(), using: ring.metadataKey!, authenticating: key.formatOneAssociatedData)
      try db.execute(sql: "UPDATE sync_state SET identity = ?", arguments: [Data(formatOne)])
      try db.execute(sql: "UPDATE store_info SET value = x'01' WHERE name = 'journal_format'")
    }
    try queue.close()
    let reopened = try KeychainStore(directory: store.directory)
    let format = try await DatabaseQueue(path: path).read { db in
      try Data.fetchOne(db, sql: "SELECT value FROM store_info WHERE name = 'journal_format'")
    }
    #expect(format == Data([2]))
    let server = try PostgresTestServer.shared()
    let url = try server.makeDatabase()
    try await KeychainSyncGroup.create(
      store: reopened, server: url, passphrase: "journal upgrade passphrase", cost: .earlier)
    let report = try await KeychainSyncEngine(store: reopened).syncOnce()
    #expect(report.pushed == 1)
    #expect(report.damagedJournalEntries == 0)
  }
}

import Foundation
import GRDB
import KeychainCrypto
import Security
import Testing

@testable import KeychainStorageSQLite
@testable import KeychainSync

/// What sync reads from a store's change feed without a server: what counts, and what is pushed.
@Suite struct FeedSummary {
  @Test func aStoreInNoGroupCountsWhatMaySyncOnly() throws {
    let store = try TestStore()
    store.add("synced", "1")
    store.add("kept", "4")
    store.add("local", "2", synchronizable: false)
    store.add("pinned", "3", accessible: kSecAttrAccessibleWhenUnlockedThisDeviceOnly)
    store.delete("synced")
    let summary = try SyncReplica(storage: store.store.storage!, backend: try SecurityBackends.required()).syncSummary()
    // "kept" is live; "pinned" may not leave the device; "local" is not synchronizable.
    #expect(summary.liveItems == 1)
    // No replicator ever held "synced": its deletion leaves nothing behind.
    #expect(summary.tombstones == 0)
    #expect(summary.pending == 1)
  }
}

/// What a replica pushes, without a server, over both storages.
@Suite struct ReplicaOutgoing {
  private static func member(_ storage: StorageKind, keyFile: Data = groupKeyFile()) throws -> (TestStore, SyncReplica)
  {
    let store = try TestStore(storage: storage)
    let replica = SyncReplica(storage: store.store.storage!, backend: try SecurityBackends.required())
    _ = try replica.joinSyncGroup(server: "postgres://nobody@sync.invalid/none", keyFile: keyFile)
    return (store, replica)
  }

  private static func groupKeyFile() -> Data {
    Data("KBSG1".utf8) + Data((0..<32).map { _ in UInt8.random(in: 0...255) })
  }

  /// Found by keychain-bench's propagation figures: the entries an incoming batch wrote counted as
  /// pending, so the receiving engine ran one more round (a pull and a seen-mark on the server)
  /// after every batch it applied.
  @Test(arguments: StorageKind.allCases)
  func whatArrivedFromTheGroupIsNotPending(storage: StorageKind) throws {
    let keyFile = Self.groupKeyFile()
    let (sender, sending) = try Self.member(storage, keyFile: keyFile)
    let (receiver, receiving) = try Self.member(storage, keyFile: keyFile)
    sender.add("token", "one")
    let records = try sending.outgoingRecords(limit: 10).records
    try sending.acknowledge(records)
    #expect(try !sending.hasPendingChanges())
    let report = try receiving.applyIncoming(records.enumerated().map { (Int64($0 + 1), $1) }, through: 1)
    #expect(report.applied == 1)
    #expect(try !receiving.hasPendingChanges())
    #expect(receiver.secrets()["token"] == "one")
    // A change of its own is pending at once.
    #expect(receiver.update("token", "two") == errSecSuccess)
    #expect(try receiving.hasPendingChanges())
  }

  /// More arrived entries than are judged one by one: a round takes the position past them.
  @Test(arguments: StorageKind.allCases)
  func aLongBacklogOfArrivedEntriesIsLeftToARound(storage: StorageKind) throws {
    let keyFile = Self.groupKeyFile()
    let (sender, sending) = try Self.member(storage, keyFile: keyFile)
    let (_, receiving) = try Self.member(storage, keyFile: keyFile)
    for index in 0..<(SyncReplica.pendingScanLimit + 1) { sender.add("token-\(index)", "\(index)") }
    let records = try sending.outgoingRecords(limit: 100).records
    let positioned = records.enumerated().map { (Int64($0 + 1), $1) }
    #expect(try receiving.applyIncoming(positioned, through: Int64(records.count)).applied == records.count)
    #expect(try receiving.hasPendingChanges())
    #expect(try receiving.outgoingRecords(limit: 100).records.isEmpty)
    #expect(try !receiving.hasPendingChanges())
  }

  @Test(arguments: StorageKind.allCases)
  func aChangeSentAgainKeepsItsVersion(storage: StorageKind) throws {
    let (store, replica) = try Self.member(storage)
    store.add("token", "one")
    let first = try replica.outgoingRecords(limit: 10).records
    // Not acknowledged (the push failed): the same version goes again.
    let again = try replica.outgoingRecords(limit: 10).records
    #expect(first.count == 1)
    #expect(again.map(\.version) == first.map(\.version))
  }

  /// Found reading this code: a synchronizable row that fails authentication made every push
  /// answer errSecDecode, so one damaged item stopped every other item's sync. It is skipped now,
  /// as a search skips it (the storage counts and logs it), and the rest of the page goes.
  @Test func aDamagedItemRowHoldsBackNoOtherItem() throws {
    let (store, replica) = try Self.member(.sqlite)
    for account in ["first", "second", "third"] { store.add(account, account) }
    let queue = try DatabaseQueue(path: store.directory.appendingPathComponent("keychain.db").path)
    try queue.write { db in
      let id = try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")[1]
      var bytes = [UInt8](
        try #require(try Data.fetchOne(db, sql: "SELECT meta FROM item WHERE id = ?", arguments: [id])))
      bytes[bytes.count / 2] ^= 0x01
      try db.execute(sql: "UPDATE item SET meta = ? WHERE id = ?", arguments: [Data(bytes), id])
    }
    let outgoing = try replica.outgoingRecords(limit: 10)
    #expect(outgoing.records.count == 2)
    try replica.acknowledge(outgoing.records)
    #expect(try !replica.hasPendingChanges())
    // Once the item is written again (an add replaces a row that fails authentication) it goes too.
    #expect(store.add("second", "again") == errSecSuccess)
    #expect(try replica.outgoingRecords(limit: 10).records.map(\.deleted) == [false])
  }

  /// Found by the server-restart test: a tombstone whose push failed was not offered again.
  @Test(arguments: StorageKind.allCases)
  func aTombstoneWhosePushFailedIsOfferedAgain(storage: StorageKind) throws {
    let (store, replica) = try Self.member(storage)
    store.add("token", "one")
    try replica.acknowledge(try replica.outgoingRecords(limit: 10).records)
    #expect(store.delete("token") == errSecSuccess)
    let failed = try replica.outgoingRecords(limit: 10).records
    let again = try replica.outgoingRecords(limit: 10).records
    #expect(failed.map(\.deleted) == [true])
    #expect(again.map(\.deleted) == [true])
    #expect(again.map(\.version) == failed.map(\.version))
  }

  @Test(arguments: StorageKind.allCases)
  func aDeletionWhileTheItemIsOnItsWayFollowsIt(storage: StorageKind) throws {
    let (store, replica) = try Self.member(storage)
    store.add("token", "one")
    let live = try replica.outgoingRecords(limit: 10).records
    #expect(store.delete("token") == errSecSuccess)
    try replica.acknowledge(live)
    let next = try replica.outgoingRecords(limit: 10).records
    #expect(next.count == 1)
    #expect(next.first?.deleted == true)
    #expect(try #require(next.first).version > live[0].version)
  }
}

/// The binary form of an item's identity, which tombstones carry between stores and the feed
/// keeps: the bytes of journal format 1, unchanged.
@Suite struct ItemIdentityEncoding {
  static let identity = ItemIdentity(
    itemClass: .genericPassword, accessGroup: "com.example.sync", synchronizable: 1,
    primaryKey: [
      .init(key: "acct", value: .bytes(Array("alice".utf8))), .init(key: "svce", value: .text("not bytes")),
      .init(key: "port", value: .integer(-443)), .init(key: "cdat", value: .date(123.5)),
      .init(key: "ratio", value: .double(0.25)),
    ],
    spiKey: [nil, .bytes([0, 255])])

  @Test func aKeyRoundTripsWithEveryValueKind() throws {
    #expect(try ItemIdentity.decoded(Self.identity.encoded()) == Self.identity)
  }

  /// The form earlier versions wrote (a tombstone in flight, a legacy journal entry; lengths are
  /// little-endian): a change to the encoding fails here.
  @Test func theFormIsTheOneEarlierVersionsWrote() throws {
    let small = ItemIdentity(
      itemClass: .genericPassword, accessGroup: "g", synchronizable: 1,
      primaryKey: [.init(key: "acct", value: .bytes([0x61]))], spiKey: [nil])
    let hex = small.encoded().map { String(format: "%02x", $0) }.joined()
    #expect(
      hex
        == "01" + "04000000" + "67656e70" + "01000000" + "67" + "0100000000000000" + "01000000" + "04000000"
        + "61636374" + "02000000" + "6261" + "01000000" + "00")
  }

  @Test func truncatedAndRandomBytesAreDecodeErrorsNeverCrashes() throws {
    let valid = Self.identity.encoded()
    for length in 0..<valid.count {
      #expect(throws: SecStatus.self) { try ItemIdentity.decoded(Array(valid.prefix(length))) }
    }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<5_000 {
      var bytes = valid
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
      }
      _ = try? ItemIdentity.decoded(bytes)
    }
  }
}

/// Stores made before the change feed kept a sync journal (`sync_state`, formats 1 and 2) and their
/// membership in `store_info`; both are converted when the store is opened with its keys.
@Suite struct LegacyJournalConversion {
  /// A store as the previous version left it: one pending and one acknowledged entry in `format`,
  /// a membership of a group whose key file is returned, and no change feed.
  private static func legacyStore(format: UInt8) throws -> (TestStore, keyFile: Data, origin: Data) {
    let store = try TestStore()
    store.add("pending", "1")
    store.add("settled", "2")
    let groupKey = (0..<32).map { _ in UInt8.random(in: 0...255) }
    let origin = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
    let keyFile = [UInt8](try Data(contentsOf: store.directory.appendingPathComponent("keychain.key")))
    let ring = try KeyRing(storeKey: SecretKey(copying: Array(keyFile[5...])))
    // Each entry's identity and key, read through the storage before its tables are rewritten.
    let storage = try #require(store.store.storage! as? SQLiteItemStorage)
    let entries = try storage.changes(after: 0, limit: 10).map { entry throws -> (LocalItemKey, ItemIdentity) in
      guard case .change(let change) = entry else { throw SecStatus.decode }
      return (try storage.localKey(change.identity, try storage.keyRing()), change.identity)
    }
    #expect(entries.count == 2)
    let queue = try DatabaseQueue(path: store.directory.appendingPathComponent("keychain.db").path)
    try queue.write { db in
      try db.execute(
        sql: """
          CREATE TABLE sync_state (class TEXT NOT NULL, pk BLOB NOT NULL, spi BLOB NOT NULL, version INTEGER NOT NULL,
            origin BLOB NOT NULL, deleted INTEGER NOT NULL, pending INTEGER NOT NULL, identity BLOB NOT NULL,
            changed INTEGER NOT NULL, PRIMARY KEY (class, pk, spi)) WITHOUT ROWID
          """)
      for (position, (key, identity)) in entries.enumerated() {
        let version: Int64 = 1_700_000_000_000_000 + Int64(position)
        let associatedData =
          format == 1
          ? key.legacyFormatOneAssociatedData
          : key.legacyAssociatedData(version: version, origin: origin, deleted: false)
        let sealed = try AES.GCM.seal(identity.encoded(), using: ring.metadataKey!, authenticating: associatedData)
        try db.execute(
          sql: "INSERT INTO sync_state VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)",
          arguments: [
            key.itemClass.rawValue, key.primaryKey, key.spiKey, version, origin, position == 0 ? 1 : 0, Data(sealed),
            version,
          ])
      }
      let membership = try PropertyListEncoder().encode(
        SyncReplica.Membership(groupKey: groupKey, server: "postgres://legacy@sync.invalid/none"))
      let sealedMembership = try AES.GCM.seal(
        [UInt8](membership), using: ring.metadataKey!,
        authenticating: Array("keychain-bridge/sync/membership/v1".utf8))
      try db.execute(sql: "DELETE FROM item_change")
      try db.execute(sql: "DELETE FROM store_info WHERE name = 'change_sequence'")
      try db.execute(sql: "DROP TABLE replication_value")
      try db.execute(
        sql:
          "INSERT OR REPLACE INTO store_info (name, value) VALUES ('journal_format', ?), ('sync_group', ?), ('store_id', ?), ('sync_cursor', ?)",
        arguments: [Data([format]), Data(sealedMembership), origin, SyncReplica.counterValue(42)])
    }
    try queue.close()
    return (store, Data("KBSG1".utf8) + Data(groupKey), origin)
  }

  @Test(arguments: [UInt8(1), 2])
  func aLegacyJournalBecomesTheFeedAndKeepsItsVersions(format: UInt8) throws {
    let (legacy, keyFile, origin) = try Self.legacyStore(format: format)
    let reopened = try KeychainStore(directory: legacy.directory)
    let replica = SyncReplica(storage: reopened.storage!, backend: try SecurityBackends.required())
    let membership = try #require(try replica.syncMembership())
    #expect(membership.storeID == origin)
    #expect(membership.cursor == 42)
    #expect(try replica.exportSyncKey() == keyFile)
    let path = legacy.directory.appendingPathComponent("keychain.db").path
    let tables = try DatabaseQueue(path: path).read { db in
      try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    #expect(!tables.contains("sync_state"))
    // The pending entry is pushed with the version the journal gave it; the acknowledged one is not.
    let outgoing = try replica.outgoingRecords(limit: 10)
    #expect(outgoing.records.count == 1)
    #expect(outgoing.damagedEntries == 0)
    #expect(try #require(outgoing.records.first).version == 1_700_000_000_000_000)
    #expect(try replica.syncSummary().liveItems == 2)
  }
}

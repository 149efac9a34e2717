import Foundation
import KeychainSync
import Security
import Testing

/// The server is not trusted: what it alters, swaps, replays or moves is refused and counted by
/// the receiving store, and what it keeps reveals no secret and no attribute value.
@Suite struct HostileServer {
  let server: PostgresTestServer
  let url: String
  var database: String { databaseName(url) }

  init() throws {
    server = try PostgresTestServer.shared()
    url = try server.makeDatabase()
  }

  /// The server's record of an item, by the order the records were stored.
  func recordIDs() throws -> [String] {
    try server.sql("SELECT encode(record_id, 'hex') FROM keychain_bridge_record ORDER BY position", database: database)
      .split(separator: "\n").map(String.init)
  }

  /// Moves a record to the end of the log, as a server does when it (re)writes it.
  func bump(_ recordID: String) throws {
    try server.sql(
      "UPDATE keychain_bridge_record SET position = nextval('keychain_bridge_position') WHERE record_id = decode('\(recordID)', 'hex')",
      database: database)
  }

  @Test func alteredSwappedMovedAndFlaggedRecordsAreRefusedAndCounted() async throws {
    let writer = try TestStore()
    let reader = try TestStore()
    try await KeychainSyncGroup.create(
      store: writer.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    // Six items; the server's order of their records is not the order they were added in.
    for name in ["a", "b", "c", "d", "e", "f"] { writer.add(name, "secret-\(name)") }
    _ = try await writer.sync()
    let ids = try recordIDs()
    #expect(ids.count == 6)
    // A flipped ciphertext byte.
    try server.sql(
      "UPDATE keychain_bridge_record SET sealed = set_byte(sealed, 20, get_byte(sealed, 20) # 1) WHERE record_id = decode('\(ids[0])', 'hex')",
      database: database)
    // Two records' ciphertexts swapped.
    try server.sql(
      """
      UPDATE keychain_bridge_record r SET sealed = o.sealed FROM keychain_bridge_record o
      WHERE (r.record_id, o.record_id) IN ((decode('\(ids[1])', 'hex'), decode('\(ids[2])', 'hex')),
        (decode('\(ids[2])', 'hex'), decode('\(ids[1])', 'hex')))
      """, database: database)
    // A record moved to another item's identifier.
    try server.sql(
      "UPDATE keychain_bridge_record SET record_id = set_byte(record_id, 0, get_byte(record_id, 0) # 1) WHERE record_id = decode('\(ids[3])', 'hex')",
      database: database)
    // A live record marked as a deletion.
    try server.sql(
      "UPDATE keychain_bridge_record SET deleted = true WHERE record_id = decode('\(ids[4])', 'hex')",
      database: database)

    try await KeychainSyncGroup.join(
      store: reader.store, server: url, keyFile: try KeychainSyncGroup.exportKey(store: writer.store))
    let report = try await reader.sync()
    #expect(report.rejected == 5)
    #expect(report.applied == 1)
    // Only the untouched record's item arrived, intact.
    let arrived = reader.secrets()
    #expect(arrived.count == 1)
    for (account, secret) in arrived { #expect(secret == "secret-\(account)") }
    #expect(try KeychainSyncGroup.status(store: reader.store)?.rejectedRecords == 5)
    // No reason names a value.
    for rejection in report.rejections { #expect(!rejection.contains("secret-")) }
  }

  @Test func aReplayedOlderVersionIsRefusedAndTheNewerOneKept() async throws {
    let writer = try TestStore()
    let reader = try TestStore()
    try await KeychainSyncGroup.create(
      store: writer.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    try await KeychainSyncGroup.join(
      store: reader.store, server: url, keyFile: try KeychainSyncGroup.exportKey(store: writer.store))
    writer.add("token", "old")
    _ = try await writer.sync()
    try server.sql(
      "CREATE TABLE saved AS SELECT * FROM keychain_bridge_record", database: database)
    writer.update("token", "new")
    _ = try await writer.sync()
    _ = try await reader.sync()
    #expect(reader.secrets() == ["token": "new"])

    // The server puts the old version back, as a new entry of its log.
    try server.sql(
      """
      UPDATE keychain_bridge_record r SET version = s.version, origin = s.origin, sealed = s.sealed,
        position = nextval('keychain_bridge_position') FROM saved s WHERE r.record_id = s.record_id
      """, database: database)
    let report = try await reader.sync()
    #expect(report.rejected == 1)
    #expect(report.applied == 0)
    #expect(reader.secrets() == ["token": "new"])
  }

  @Test func aRecordOfAnotherGroupIsRefused() async throws {
    let first = try TestStore()
    let other = try TestStore()
    let reader = try TestStore()
    let otherURL = try server.makeDatabase()
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    try await KeychainSyncGroup.create(
      store: other.store, server: otherURL, passphrase: "sync test passphrase", cost: .earlier)
    try await KeychainSyncGroup.join(
      store: reader.store, server: url, keyFile: try KeychainSyncGroup.exportKey(store: first.store))
    other.add("foreign", "not yours")
    _ = try await other.sync()
    let foreign = try server.sql(
      "SELECT encode(record_id, 'hex') || ',' || version || ',' || encode(origin, 'hex') || ',' || encode(sealed, 'hex') FROM keychain_bridge_record",
      database: databaseName(otherURL)
    ).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
    let group = try server.sql("SELECT encode(group_id, 'hex') FROM keychain_bridge_group", database: database)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try server.sql(
      """
      INSERT INTO keychain_bridge_record (group_id, record_id, position, version, origin, deleted, sealed)
      VALUES (decode('\(group)', 'hex'), decode('\(foreign[0])', 'hex'), nextval('keychain_bridge_position'),
        \(foreign[1]), decode('\(foreign[2])', 'hex'), false, decode('\(foreign[3])', 'hex'))
      """, database: database)
    let report = try await reader.sync()
    #expect(report.rejected == 1)
    #expect(reader.secrets().isEmpty)
  }

  @Test func aDumpOfTheServerHoldsNoSecretOrAttributeValue() async throws {
    let writer = try TestStore()
    try await KeychainSyncGroup.create(store: writer.store, server: url, passphrase: "a passphrase", cost: .earlier)
    let values = [
      "account-7f3a9", "secret-c41e2", "label-9b8d7", "deleted-account-5e6f1", "deleted-secret-2a3b4",
    ]
    writer.add(values[0], values[1], label: values[2])
    writer.add(values[3], values[4])
    _ = try await writer.sync()
    writer.delete(values[3])
    _ = try await writer.sync()
    let dump = try server.dump(database: database)
    let text = String(decoding: dump, as: UTF8.self)
    #expect(text.contains("keychain_bridge_record"))
    for value in values + [TestStore.service, "com.example.sync", "a passphrase"] {
      #expect(!text.contains(value), "the dump holds \(value)")
      let hex = Data(value.utf8).map { String(format: "%02x", $0) }.joined()
      #expect(!text.contains(hex), "the dump holds \(value) as bytes")
    }
  }

  @Test func engineCatchesUpAfterTheServerRestarts() async throws {
    let first = try TestStore()
    let second = try TestStore()
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    try await KeychainSyncGroup.join(
      store: second.store, server: url, keyFile: try KeychainSyncGroup.exportKey(store: first.store))
    var options = KeychainSyncEngine.Options()
    options.maximumRetryDelay = .milliseconds(300)
    options.roundTimeout = .seconds(3)
    let engines = [
      try KeychainSyncEngine(store: first.store, options: options),
      try KeychainSyncEngine(store: second.store, options: options),
    ]
    let tasks = engines.map { engine in Task { await engine.run() } }
    defer { tasks.forEach { $0.cancel() } }
    first.add("before", "1")
    #expect(await eventually { second.secrets() == ["before": "1"] })
    // Other suites share the server: refuse connections to this database only, and drop the
    // engines' connections, which is what a restart does to them.
    try server.sql(
      """
      UPDATE pg_database SET datallowconn = false WHERE datname = '\(database)';
      SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)';
      """, database: "postgres")
    first.add("during", "2")
    first.delete("before")
    try await Task.sleep(for: .milliseconds(500))
    #expect(second.secrets() == ["before": "1"])
    try server.sql("UPDATE pg_database SET datallowconn = true WHERE datname = '\(database)'", database: "postgres")
    #expect(await eventually { second.secrets() == ["during": "2"] })
  }
}

import Foundation
import Testing

@testable import KeychainSync

/// The server's schema is versioned: a server at an earlier version is brought up to date by the
/// first store that connects, and one newer than this version is refused, not damaged.
@Suite struct ServerSchema {
  let server: PostgresTestServer
  let url: String
  var database: String { databaseName(url) }

  init() throws {
    server = try PostgresTestServer.shared()
    url = try server.makeDatabase()
  }

  @Test func aServerAtVersionOneIsMigratedAndKeepsItsGroups() async throws {
    // A server as version 1 left it, with a group on it.
    try server.sql(
      "CREATE TABLE keychain_bridge_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());"
        + SyncServer.migrations[0] + "; INSERT INTO keychain_bridge_schema (version) VALUES (1);",
      database: database)
    let first = try TestStore()
    try await KeychainSyncGroup.create(
      store: first.store, server: url, passphrase: "sync test passphrase", cost: .earlier)
    #expect(
      try server.sql("SELECT MAX(version) FROM keychain_bridge_schema", database: database)
        == "\(SyncServer.migrations.count)\n")
    first.add("item", "value")
    _ = try await first.sync()
    #expect(try await KeychainSyncGroup.members(store: first.store).count == 1)
  }

  @Test func aServerNewerThanThisVersionIsRefused() async throws {
    try server.sql(
      "CREATE TABLE keychain_bridge_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());"
        + "INSERT INTO keychain_bridge_schema (version) VALUES (99);",
      database: database)
    let error = await #expect(throws: KeychainSyncError.self) {
      try await KeychainSyncGroup.create(
        store: try TestStore().store, server: self.url, passphrase: "sync test passphrase", cost: .earlier)
    }
    #expect(error?.status == errSecNotAvailableCode)
    #expect(error?.message.contains("99") == true)
  }
}

private let errSecNotAvailableCode: Int32 = -25291

import Foundation
import Logging
import PostgresNIO
import Security

/// The server's side of sync: PostgreSQL tables that hold each group's wrapped key and the latest
/// sealed record of each item, and the queries that push, pull and purge them.
///
/// The server keeps only what the records carry in the clear (group and record identifiers,
/// versions, store identifiers, deletion flags) and ciphertext; no table, query or notification
/// holds a secret, an attribute value or a name. It is not trusted: every record is authenticated by
/// the store that applies it.
final class SyncServer: Sendable {
  /// The channel of LISTEN/NOTIFY; a notification's payload is the group identifier in hex.
  static let channel = "keychain_bridge_sync"

  let address: SyncServerAddress
  let connection: PostgresConnection
  private let logger: Logger

  private init(address: SyncServerAddress, connection: PostgresConnection, logger: Logger) {
    self.address = address
    self.connection = connection
    self.logger = logger
  }

  /// Connects and brings the server's schema up to date.
  static func connect(_ address: SyncServerAddress, logger: Logger) async throws(KeychainSyncError) -> SyncServer {
    let configuration = try address.configuration()
    let connection: PostgresConnection
    do {
      connection = try await PostgresConnection.connect(
        configuration: configuration, id: Int.random(in: 1...Int.max), logger: logger)
    } catch {
      throw KeychainSyncError(
        status: errSecNotAvailable,
        message: "Cannot reach the sync server \(address.redacted) (\(SyncServer.describe(error))).")
    }
    let server = SyncServer(address: address, connection: connection, logger: logger)
    do {
      try await server.migrate()
    } catch {
      try? await connection.close()
      throw error
    }
    return server
  }

  /// Connects, runs `body`, and closes the connection whatever `body` did.
  static func with<T>(
    _ address: SyncServerAddress, isolation: isolated (any Actor)? = #isolation,
    _ body: (SyncServer) async throws(KeychainSyncError) -> T
  ) async throws(KeychainSyncError) -> T {
    let server = try await connect(address, logger: syncLogger)
    do {
      let value = try await body(server)
      await server.close()
      return value
    } catch {
      await server.close()
      throw error
    }
  }

  func close() async {
    try? await connection.close()
  }

  /// A PostgreSQL error without the query or its bindings (which could hold ciphertext at most,
  /// but make messages unreadable).
  static func describe(_ error: any Error) -> String {
    if let error = error as? PSQLError {
      if let message = error.serverInfo?[.message] { return message }
      return "\(error.code)"
    }
    return String(describing: error)
  }

  @discardableResult
  private func run<T>(_ what: String, _ body: () async throws -> T) async throws(KeychainSyncError) -> T {
    do {
      return try await body()
    } catch let error as KeychainSyncError {
      throw error
    } catch {
      throw KeychainSyncError(
        status: errSecNotAvailable,
        message: "The sync server \(address.redacted) failed to \(what) (\(SyncServer.describe(error))).")
    }
  }

  // MARK: Schema

  /// The schema's migrations, in order; the server records which it has run. Each runs once, in a
  /// transaction holding an advisory lock, so stores migrating at once do not collide.
  static let migrations: [String] = [
    """
    CREATE TABLE keychain_bridge_group (
      group_id bytea PRIMARY KEY,
      wrapped_key bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE SEQUENCE keychain_bridge_position;
    CREATE TABLE keychain_bridge_record (
      group_id bytea NOT NULL REFERENCES keychain_bridge_group ON DELETE CASCADE,
      record_id bytea NOT NULL,
      position bigint NOT NULL,
      version bigint NOT NULL,
      origin bytea NOT NULL,
      deleted boolean NOT NULL,
      sealed bytea NOT NULL,
      stored_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (group_id, record_id)
    );
    CREATE INDEX keychain_bridge_record_position ON keychain_bridge_record (group_id, position);
    """
  ]

  private static let migrationLock: Int64 = 0x4B42_5359_4E43  // "KBSYNC"

  private func migrate() async throws(KeychainSyncError) {
    _ = try await run("update its schema") {
      try await connection.withTransaction(logger: logger) { connection in
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
        try await connection.query(
          """
          CREATE TABLE IF NOT EXISTS keychain_bridge_schema (
            version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
          """, logger: logger)
        var applied = 0
        for try await version in try await connection.query(
          "SELECT COALESCE(MAX(version), 0) FROM keychain_bridge_schema", logger: logger
        ).decode(Int.self) {
          applied = version
        }
        guard applied <= Self.migrations.count else {
          throw KeychainSyncError(
            status: errSecNotAvailable,
            message:
              "The sync server's schema is version \(applied), newer than this version knows (\(Self.migrations.count))."
          )
        }
        for (offset, migration) in Self.migrations.enumerated() where offset + 1 > applied {
          for statement in migration.split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
            try await connection.query(PostgresQuery(unsafeSQL: String(statement)), logger: logger)
          }
          try await connection.query(
            "INSERT INTO keychain_bridge_schema (version) VALUES (\(offset + 1))", logger: logger)
        }
      }
    }
  }

  // MARK: Groups

  func createGroup(_ key: WrappedSyncKey) async throws(KeychainSyncError) {
    try await run("record the new group") {
      try await connection.query(
        "INSERT INTO keychain_bridge_group (group_id, wrapped_key) VALUES (\(key.groupID), \(key.wrapped))",
        logger: logger)
    }
  }

  /// The wrapped keys of the server's groups (one, usually), oldest first.
  func groups() async throws(KeychainSyncError) -> [WrappedSyncKey] {
    try await run("list its groups") {
      var keys: [WrappedSyncKey] = []
      for try await (groupID, wrapped) in try await connection.query(
        "SELECT group_id, wrapped_key FROM keychain_bridge_group ORDER BY created_at, group_id", logger: logger
      ).decode((Data, Data).self) {
        keys.append(WrappedSyncKey(groupID: groupID, wrapped: wrapped))
      }
      return keys
    }
  }

  // MARK: Records

  /// Stores each record unless the server holds a newer version of its item, and notifies the
  /// group's listeners, in one transaction. The group's advisory lock makes positions commit in
  /// order, so a reader that has seen position P never misses a record committed later below P.
  func push(_ records: [SyncRecord], group: Data) async throws(KeychainSyncError) {
    guard !records.isEmpty else { return }
    try await run("store records") {
      try await connection.withTransaction(logger: logger) { connection in
        try await connection.query(
          "SELECT pg_advisory_xact_lock(hashtextextended(\(group.hexString), 0))", logger: logger)
        for record in records {
          try await connection.query(
            """
            INSERT INTO keychain_bridge_record (group_id, record_id, position, version, origin, deleted, sealed)
            VALUES (\(group), \(record.recordID), nextval('keychain_bridge_position'), \(record.version),
              \(record.origin), \(record.deleted), \(record.sealed))
            ON CONFLICT (group_id, record_id) DO UPDATE SET position = EXCLUDED.position,
              version = EXCLUDED.version, origin = EXCLUDED.origin, deleted = EXCLUDED.deleted,
              sealed = EXCLUDED.sealed, stored_at = now()
            WHERE (keychain_bridge_record.version, keychain_bridge_record.origin) < (EXCLUDED.version, EXCLUDED.origin)
            """, logger: logger)
        }
        try await connection.query("SELECT pg_notify(\(Self.channel), \(group.hexString))", logger: logger)
      }
    }
  }

  /// The group's records after `position`, in position order, at most `limit`.
  func pull(group: Data, after position: Int64, limit: Int) async throws(KeychainSyncError) -> [(
    position: Int64, record: SyncRecord
  )] {
    try await run("read records") {
      var records: [(Int64, SyncRecord)] = []
      let rows = try await connection.query(
        """
        SELECT position, record_id, version, origin, deleted, sealed FROM keychain_bridge_record
        WHERE group_id = \(group) AND position > \(position) ORDER BY position LIMIT \(limit)
        """, logger: logger)
      for try await (position, recordID, version, origin, deleted, sealed) in rows.decode(
        (Int64, Data, Int64, Data, Bool, Data).self)
      {
        records.append(
          (position, SyncRecord(recordID: recordID, version: version, origin: origin, deleted: deleted, sealed: sealed))
        )
      }
      return records
    }
  }

  /// Removes the group's tombstones stored longer ago than `age` seconds; returns how many.
  @discardableResult
  func purgeTombstones(group: Data, olderThan age: TimeInterval) async throws(KeychainSyncError) -> Int {
    try await run("purge tombstones") {
      var count = 0
      for try await removed in try await connection.query(
        """
        WITH removed AS (DELETE FROM keychain_bridge_record WHERE group_id = \(group) AND deleted
          AND stored_at < now() - make_interval(secs => \(age)) RETURNING 1)
        SELECT COUNT(*)::bigint FROM removed
        """, logger: logger
      ).decode(Int64.self) {
        count = Int(removed)
      }
      return count
    }
  }

  /// How many records the server holds for the group.
  func recordCount(group: Data) async throws(KeychainSyncError) -> Int {
    try await run("count records") {
      var count = 0
      for try await value in try await connection.query(
        "SELECT COUNT(*)::bigint FROM keychain_bridge_record WHERE group_id = \(group)", logger: logger
      ).decode(Int64.self) {
        count = Int(value)
      }
      return count
    }
  }
}

extension Data {
  /// Lowercase hexadecimal, for group identifiers in notifications and status.
  var hexString: String { map { String(format: "%02x", $0) }.joined() }
}

import Foundation
import Logging
import PostgresNIO
import Security
import Synchronization

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

  /// Connects and brings the server's schema up to date, within `deadline` (the address's
  /// `connect_timeout`, else 20 s). A connection that
  /// completes after the deadline gave up on it is closed: dropped open, it would leak its socket
  /// (and postgres-nio traps on a connection released unclosed).
  static func connect(_ address: SyncServerAddress, logger: Logger, deadline: Duration? = nil)
    async throws(KeychainSyncError) -> SyncServer
  {
    try await withinDeadline(
      deadline ?? address.connectTimeout,
      { () throws(KeychainSyncError) in try await connectAndMigrate(address, logger: logger) },
      late: { server in await server.close() })
  }

  private static func connectAndMigrate(_ address: SyncServerAddress, logger: Logger) async throws(KeychainSyncError)
    -> SyncServer
  {
    let configuration = try address.configuration()
    let connection: PostgresConnection
    do {
      connection = try await PostgresConnection.connect(
        configuration: configuration, id: Int.random(in: 1...Int.max), logger: logger)
    } catch let error as PSQLError where error.code == .authMechanismRequiresPassword {
      throw KeychainSyncError(
        status: errSecAuthFailed,
        message: "The sync server \(address.redacted) asks for \(address.user)'s password and none was given: "
          + KeychainSyncError.serverPasswordSources)
    } catch let error as PSQLError where error.serverInfo?[.message] != nil {
      // The server answered: a refused login or a database it does not have, not a network fault.
      throw KeychainSyncError(
        status: error.serverInfo?[.sqlState] == "28P01" ? errSecAuthFailed : errSecNotAvailable,
        message: "The sync server \(address.redacted) refused the connection: \(SyncServer.describe(error)).")
    } catch {
      throw KeychainSyncError(
        status: errSecNotAvailable,
        message: "Cannot reach the sync server \(address.redacted): \(SyncServer.describe(error)).")
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
    // A connection whose peer vanished may never answer the close either; do not wait on it.
    let connection = connection
    _ = try? await withinDeadline(.seconds(2)) { () throws(KeychainSyncError) in
      do { try await connection.close().get() } catch {}
    }
  }

  /// A PostgreSQL error without the query or its bindings (which could hold ciphertext at most,
  /// but make messages unreadable).
  /// A PostgreSQL client error as a sentence: the server's own words when it sent some, else what
  /// happened to the connection (never postgres-nio's case names).
  static func describe(_ error: any Error) -> String {
    if let error = error as? PSQLError {
      if let message = error.serverInfo?[.message] { return message }
      switch error.code {
      case .connectionError:
        return error.underlying.map { String(describing: $0) } ?? "the connection could not be made"
      case .serverClosedConnection, .uncleanShutdown: return "the server closed the connection"
      case .sslUnsupported: return "the server does not offer TLS"
      case .failedToAddSSLHandler: return "TLS could not be started"
      case .unsupportedAuthMechanism: return "the server asks for an authentication method this client does not speak"
      case .authMechanismRequiresPassword: return "the server asks for a password and none was given"
      case .saslError: return "the password exchange (SCRAM) failed"
      case .queryCancelled: return "the query was cancelled"
      default: return "the server's answer could not be used"
      }
    }
    return String(describing: error)
  }

  @discardableResult
  private func run<T>(_ what: String, _ body: () async throws -> T) async throws(KeychainSyncError) -> T {
    // A transaction started on a connection the server already closed never completes (seen with
    // postgres-nio 1.33 after pg_terminate_backend): fail at once, and reconnect.
    guard !connection.isClosed else {
      throw KeychainSyncError(
        status: errSecNotAvailable, message: "The connection to the sync server \(address.redacted) is closed.")
    }
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
    """,
    // Version 2: the stores of each group and when each last synced, for `status`.
    """
    CREATE TABLE keychain_bridge_store (
      group_id bytea NOT NULL REFERENCES keychain_bridge_group ON DELETE CASCADE,
      store_id bytea NOT NULL,
      last_seen timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (group_id, store_id)
    );
    """,
  ]

  private static let migrationLock: Int64 = 0x4B42_5359_4E43  // "KBSYNC"

  private func migrate() async throws(KeychainSyncError) {
    try await run("update its schema") {
      // Most connections find the schema current: they read its version and take no lock.
      if try await schemaVersion(connection) == Self.migrations.count { return }
      try await connection.withTransaction(logger: logger) { connection in
        // A migration that cannot get the lock fails and is tried again on the next connection,
        // rather than waiting behind a stuck one.
        try await connection.query("SET LOCAL lock_timeout = '10s'", logger: logger)
        try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
        try await connection.query(
          """
          CREATE TABLE IF NOT EXISTS keychain_bridge_schema (
            version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
          """, logger: logger)
        let applied = try await schemaVersion(connection)
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

  /// The schema version the server records; 0 before the first migration.
  private func schemaVersion(_ connection: PostgresConnection) async throws -> Int {
    var version = 0
    let exists = try await connection.query(
      "SELECT to_regclass('keychain_bridge_schema') IS NOT NULL", logger: logger
    ).decode(Bool.self)
    for try await present in exists where !present { return 0 }
    for try await applied in try await connection.query(
      "SELECT COALESCE(MAX(version), 0) FROM keychain_bridge_schema", logger: logger
    ).decode(Int.self) {
      version = applied
    }
    return version
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
        // One statement for the whole batch: a query per record would pay a round trip each.
        let recordIDs = records.map { ByteBuffer(bytes: $0.recordID) }
        let versions = records.map(\.version)
        let origins = records.map { ByteBuffer(bytes: $0.origin) }
        let deletions = records.map(\.deleted)
        let sealed = records.map { ByteBuffer(bytes: $0.sealed) }
        try await connection.query(
          """
          INSERT INTO keychain_bridge_record (group_id, record_id, position, version, origin, deleted, sealed)
          SELECT \(group), r.record_id, nextval('keychain_bridge_position'), r.version, r.origin, r.deleted, r.sealed
          FROM unnest(\(recordIDs)::bytea[], \(versions)::bigint[], \(origins)::bytea[], \(deletions)::boolean[],
            \(sealed)::bytea[]) WITH ORDINALITY AS r(record_id, version, origin, deleted, sealed, n)
          ORDER BY r.n
          ON CONFLICT (group_id, record_id) DO UPDATE SET position = EXCLUDED.position,
            version = EXCLUDED.version, origin = EXCLUDED.origin, deleted = EXCLUDED.deleted,
            sealed = EXCLUDED.sealed, stored_at = now()
          WHERE (keychain_bridge_record.version, keychain_bridge_record.origin) < (EXCLUDED.version, EXCLUDED.origin)
          """, logger: logger)
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

  /// Records that `store` of `group` synced now.
  func recordSeen(store: Data, group: Data) async throws(KeychainSyncError) {
    try await run("record this store's visit") {
      try await connection.query(
        """
        INSERT INTO keychain_bridge_store (group_id, store_id) VALUES (\(group), \(store))
        ON CONFLICT (group_id, store_id) DO UPDATE SET last_seen = now()
        """, logger: logger)
    }
  }

  /// The group's stores and when each last synced, most recent first.
  func members(group: Data) async throws(KeychainSyncError) -> [(store: Data, lastSeen: Date)] {
    try await run("list the group's stores") {
      var members: [(Data, Date)] = []
      for try await (store, seen) in try await connection.query(
        "SELECT store_id, last_seen FROM keychain_bridge_store WHERE group_id = \(group) ORDER BY last_seen DESC",
        logger: logger
      ).decode((Data, Date).self) {
        members.append((store, seen))
      }
      return members
    }
  }
}

extension Data {
  /// Lowercase hexadecimal, for group identifiers in notifications and status.
  var hexString: String { map { String(format: "%02x", $0) }.joined() }
}

/// Runs `body`, or gives up on it after `limit` with errSecNotAvailable. PostgreSQL connections
/// have no query timeout, and a peer that vanished without closing the socket (a cut network, a
/// killed proxy) would hold a query for ever; the work that timed out is cancelled and left behind.
/// A value `body` still produces after the deadline is handed to `late` (which releases what it
/// holds, a connection for instance) instead of being dropped.
func withinDeadline<T: Sendable>(
  _ limit: Duration, _ body: @escaping @Sendable () async throws(KeychainSyncError) -> T,
  late: @escaping @Sendable (T) async -> Void = { _ in }
) async throws(KeychainSyncError) -> T {
  let outcome = FirstOutcome<T>()
  let result = await withCheckedContinuation {
    (continuation: CheckedContinuation<Result<T, KeychainSyncError>, Never>) in
    outcome.install(continuation)
    let work = Task {
      do throws(KeychainSyncError) {
        let value = try await body()
        if !outcome.finish(.success(value)) { await late(value) }
      } catch {
        outcome.finish(.failure(error))
      }
    }
    Task {
      try? await Task.sleep(for: limit)
      outcome.finish(
        .failure(
          KeychainSyncError(status: errSecNotAvailable, message: "The sync server did not answer within \(limit).")))
      work.cancel()
    }
  }
  return try result.get()
}

/// The first of several outcomes, handed to one continuation.
private final class FirstOutcome<T: Sendable>: Sendable {
  private let state = Mutex<(CheckedContinuation<Result<T, KeychainSyncError>, Never>?, Bool)>((nil, false))

  func install(_ continuation: CheckedContinuation<Result<T, KeychainSyncError>, Never>) {
    state.withLock { $0.0 = continuation }
  }

  /// Hands `result` on if no outcome came first; returns whether it did.
  @discardableResult
  func finish(_ result: Result<T, KeychainSyncError>) -> Bool {
    let continuation = state.withLock { state -> CheckedContinuation<Result<T, KeychainSyncError>, Never>? in
      guard !state.1, let continuation = state.0 else { return nil }
      state.1 = true
      return continuation
    }
    continuation?.resume(returning: result)
    return continuation != nil
  }
}

import CSQLite
import Foundation
import Security
import Synchronization

// The store's one SQLite layer, on SQLite's C API. A lookup is the store's most frequent call, and
// a general-purpose layer's pooled read (a semaphore, a dispatch onto the reader's queue, a copy of
// every column and a cursor object) cost more than the SQLite work itself: about 40% of a lookup's
// instructions under callgrind, when GRDB served reads. So reads and writes both use this small
// layer: connections with cached statements, rows read in place, typed failures, and one writer
// connection that serializes transactions.

/// A failed SQLite call: its result code, and SQLite's message (which names no value).
struct SQLiteFailure: Error, CustomStringConvertible {
  /// The extended result code.
  let code: Int32
  let message: String

  /// The primary result code (SQLITE_CONSTRAINT, SQLITE_FULL...).
  var primaryCode: Int32 { code & 0xFF }

  var description: String { "SQLite error \(code): \(message)" }
}

/// One SQLite connection with its prepared statements.
///
/// Unchecked Sendable: its owner hands it to one user at a time (ReadConnections keeps it idle or
/// in one caller's hands; SQLiteWriter behind a mutex), which is what SQLite's NOMUTEX mode requires.
final class SQLiteConnection: @unchecked Sendable {
  let handle: OpaquePointer
  private var statements: [String: OpaquePointer] = [:]
  /// Statement SQL varies only with the shape of a query; the bound keeps a pathological caller from
  /// growing the cache without limit.
  private static let statementLimit = 64

  /// SQLite's process-wide settings, made before this process's first connection: no memory
  /// statistics, whose one global mutex every allocation takes (two reading threads queued on it).
  /// A static's initializer runs once, under Swift's own once-lock, before any open.
  private static let configureSQLiteOnce: Void = { _ = kb_sqlite_stop_counting_memory() }()

  /// Opens `uri` (a path or a `file:` URI) with `flags` (SQLITE_OPEN_READONLY, or READWRITE|CREATE).
  init(uri: String, flags: Int32, busyTimeoutMilliseconds: Int32 = 10_000) throws(SQLiteFailure) {
    _ = Self.configureSQLiteOnce
    var handle: OpaquePointer?
    // NOFOLLOW: a symbolic link planted in place of the database (or its journal) is refused
    // instead of followed out of the store directory.
    let code = sqlite3_open_v2(uri, &handle, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_NOFOLLOW, nil)
    guard code == SQLITE_OK, let handle else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open the database"
      sqlite3_close_v2(handle)
      throw SQLiteFailure(code: code, message: message)
    }
    self.handle = handle
    sqlite3_extended_result_codes(handle, 1)
    sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_close_v2(handle)
  }

  /// A prepared statement for `sql`, prepared once per connection.
  func statement(_ sql: String) throws(SQLiteFailure) -> OpaquePointer {
    if let cached = statements[sql] { return cached }
    if statements.count >= Self.statementLimit {
      for statement in statements.values { sqlite3_finalize(statement) }
      statements.removeAll()
    }
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard code == SQLITE_OK, let statement else {
      throw SQLiteFailure(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }
    statements[sql] = statement
    return statement
  }

  /// Runs one or more statements without parameters (schema, pragmas, transaction control).
  func execute(_ sql: String) throws(SQLiteFailure) {
    var error: UnsafeMutablePointer<CChar>?
    let code = sqlite3_exec(handle, sql, nil, nil, &error)
    let message = error.map { String(cString: $0) } ?? ""
    sqlite3_free(error)
    guard code == SQLITE_OK else { throw SQLiteFailure(code: sqlite3_extended_errcode(handle), message: message) }
  }

  /// Runs a statement with `arguments` to completion (an insert, an update, a delete).
  func run(_ sql: String, _ arguments: [SQLArgument] = []) throws(SQLiteFailure) {
    let prepared = try statement(sql)
    do {
      try stepRows(of: prepared, arguments: arguments) { _ throws(SecStatus) in true }
    } catch let failure as SQLiteFailure {
      throw failure
    } catch {
      throw SQLiteFailure(code: SQLITE_ERROR, message: "\(error)")
    }
  }

  /// The first column of the first row of `sql` as a blob, or nil when there is no row.
  func blob(_ sql: String, _ arguments: [SQLArgument] = []) throws(SecStatus) -> Data? {
    var value: Data?
    let prepared: OpaquePointer
    do { prepared = try statement(sql) } catch { throw SQLiteErrors.status(for: error) }
    try forEachRow(of: prepared, arguments: arguments) { row throws(SecStatus) in
      value = try row.optionalBlob(0)
      return false
    }
    return value
  }

  /// The first column of the first row of `sql` as an integer, or nil when there is no row.
  func integer(_ sql: String, _ arguments: [SQLArgument] = []) throws(SecStatus) -> Int64? {
    var value: Int64?
    let prepared: OpaquePointer
    do { prepared = try statement(sql) } catch { throw SQLiteErrors.status(for: error) }
    try forEachRow(of: prepared, arguments: arguments) { row throws(SecStatus) in
      value = try row.integer(0)
      return false
    }
    return value
  }

  /// The first column of every row of `sql`, as text.
  func strings(_ sql: String) throws(SecStatus) -> [String] {
    var values: [String] = []
    let prepared: OpaquePointer
    do { prepared = try statement(sql) } catch { throw SQLiteErrors.status(for: error) }
    try forEachRow(of: prepared, arguments: []) { row throws(SecStatus) in
      values.append(try row.text(0))
      return true
    }
    return values
  }
}

/// Read-only connections for searches. A search takes an idle connection (or opens one) and gives
/// it back, so concurrent searches run in parallel on WAL snapshots, never behind the writer.
final class ReadConnections: Sendable {
  /// The database as a `file:` URI, with `immutable=1` where asked for.
  private let uri: String
  /// Connections no search is using, each with the thread that used it last.
  private let idle = Mutex<[(connection: SQLiteConnection, lastThread: pthread_t)]>([])
  private static let idleLimit = 4

  /// Connections to the database at `path`; `immutable` tells SQLite that nothing can change the
  /// file (a read-only store), so it needs no lock or shared-memory file beside it.
  init(path: String, immutable: Bool) {
    uri = fileURI(path) + (immutable ? "?immutable=1" : "")
  }

  /// The `store_info` value called `name`.
  func storeInfo(_ name: String) throws(SecStatus) -> Data? {
    try withConnection { connection throws(SecStatus) in
      try connection.blob("SELECT value FROM store_info WHERE name = ?", [.text(name)])
    }
  }

  /// The first column of every row `sql` gives, as text.
  func strings(_ sql: String) throws(SecStatus) -> [String] {
    try withConnection { connection throws(SecStatus) in try connection.strings(sql) }
  }

  /// Runs `body` with a statement for `sql` on a connection no other thread is using.
  func withStatement<T>(_ sql: String, _ body: (OpaquePointer) throws(SecStatus) -> T) throws(SecStatus) -> T {
    try withConnection { connection throws(SecStatus) in
      let statement: OpaquePointer
      do { statement = try connection.statement(sql) } catch { throw SQLiteErrors.status(for: error) }
      return try body(statement)
    }
  }

  /// Runs `body` on one connection inside one read transaction, so that its several statements
  /// see one snapshot and pay for taking it once.
  func withSnapshot<T>(_ body: (SQLiteConnection) throws(SecStatus) -> T) throws(SecStatus) -> T {
    try withConnection { connection throws(SecStatus) in
      do { try connection.execute("BEGIN") } catch { throw SQLiteErrors.status(for: error) }
      let result: T
      do throws(SecStatus) {
        result = try body(connection)
      } catch {
        try? connection.execute("ROLLBACK")
        throw error
      }
      // A read transaction has nothing to commit: ending it only releases the snapshot.
      do { try connection.execute("COMMIT") } catch { throw SQLiteErrors.status(for: error) }
      return result
    }
  }

  private func withConnection<T>(_ body: (SQLiteConnection) throws(SecStatus) -> T) throws(SecStatus) -> T {
    let connection: SQLiteConnection
    // A thread takes back the connection it used last when it is idle: a connection's page cache
    // and prepared statements are then still in that core's cache. Handing connections round
    // between threads made two reading threads run every part of a lookup a third slower.
    let thread = pthread_self()
    let reused = idle.withLock { connections in
      connections.lastIndex { $0.lastThread == thread }.map { connections.remove(at: $0).connection }
        ?? connections.popLast()?.connection
    }
    if let reused {
      connection = reused
    } else {
      do {
        connection = try SQLiteConnection(uri: uri, flags: SQLITE_OPEN_READONLY)
      } catch {
        throw SQLiteErrors.status(for: error)
      }
    }
    defer {
      idle.withLock { connections in
        if connections.count < Self.idleLimit { connections.append((connection, thread)) }
      }
    }
    return try body(connection)
  }
}

/// The one connection that writes, which serializes the process's transactions.
final class SQLiteWriter: Sendable {
  private let connection: Mutex<SQLiteConnection>

  /// Opens the database at `path` for writing, creating it if needed, in WAL mode with the store's
  /// pragmas; `configure` runs once on the new connection (the checkpointer's hook).
  init(path: String, configure: (SQLiteConnection) -> Void) throws(SQLiteFailure) {
    let opened = try SQLiteConnection(uri: fileURI(path), flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
    try opened.execute(
      """
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      PRAGMA secure_delete = ON;
      PRAGMA journal_size_limit = 67108864;
      PRAGMA wal_autocheckpoint = 0;
      """)
    // synchronous = NORMAL is what the store has always run with (GRDB's pool set it after the
    // FULL this code once asked for): in WAL mode a commit survives the process being killed, and
    // a power loss can lose the last commits but never corrupts the file; FULL would fsync every
    // commit and cut adds and updates to a third (keychain-bench). Deleted rows are overwritten
    // with zeros rather than left in free pages (SQLite's default differs between builds). A WAL
    // restarted after a checkpoint is cut back to 64 MiB, the size at which WALCheckpointer makes
    // it restart: cutting it to 4 MiB, as before, made the first commit after each restart
    // truncate 60 MB in its own call (33 ms of ftruncate on ext4: the p99.9 of writes in a long
    // burst, keychain-bench), and the file then grew again block by block. Checkpoints run on a background queue
    // (WALCheckpointer), never in the caller's commit, and wal_autocheckpoint = 0 removes SQLite's
    // own hook, so the checkpointer's is installed after it.
    configure(opened)
    connection = Mutex(opened)
  }

  /// Runs `body` with the connection and no transaction (pragmas, checkpoints).
  func withConnection<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
    try connection.withLock { try body($0) }
  }

  /// Runs `body` in one `BEGIN IMMEDIATE` transaction, committed when it returns and rolled back
  /// when it throws.
  func transaction<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
    try connection.withLock { connection in
      try connection.execute("BEGIN IMMEDIATE")
      do {
        let value = try body(connection)
        try connection.execute("COMMIT")
        return value
      } catch {
        try? connection.execute("ROLLBACK")
        throw error
      }
    }
  }
}

/// `path` as a `file:` URI, escaped so that no character of a path is read as URI syntax.
func fileURI(_ path: String) -> String {
  var allowed = CharacterSet.urlPathAllowed
  allowed.remove(charactersIn: "?#%")
  return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)
}

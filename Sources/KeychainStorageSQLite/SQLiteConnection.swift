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

/// A value bound to a statement parameter.
enum SQLArgument {
  case integer(Int64)
  case text(String)
  case blob(Data)
  case digest(RowDigest)
  case null

  /// A blob, or NULL for nil.
  static func optionalBlob(_ data: Data?) -> SQLArgument { data.map { .blob($0) } ?? .null }

  /// A digest, or NULL for nil.
  static func optionalDigest(_ digest: RowDigest?) -> SQLArgument { digest.map { .digest($0) } ?? .null }
}

/// A failed SQLite call: its result code, and SQLite's message (which names no value).
struct SQLiteFailure: Error, CustomStringConvertible {
  /// The extended result code.
  let code: Int32
  let message: String

  /// The primary result code (SQLITE_CONSTRAINT, SQLITE_FULL...).
  var primaryCode: Int32 { code & 0xFF }

  var description: String { "SQLite error \(code): \(message)" }
}

/// The current row of a stepping statement. Column accessors report a wrongly typed value as
/// errSecDecode instead of trapping, since the database file may have been altered.
struct StatementRow {
  let statement: OpaquePointer

  func integer(_ column: Int32) throws(SecStatus) -> Int64 {
    guard sqlite3_column_type(statement, column) == SQLITE_INTEGER else { throw .decode }
    return sqlite3_column_int64(statement, column)
  }

  func text(_ column: Int32) throws(SecStatus) -> String {
    guard sqlite3_column_type(statement, column) == SQLITE_TEXT, let characters = sqlite3_column_text(statement, column)
    else { throw .decode }
    let count = Int(sqlite3_column_bytes(statement, column))
    return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
  }

  func bytes(_ column: Int32) throws(SecStatus) -> [UInt8] {
    guard sqlite3_column_type(statement, column) == SQLITE_BLOB else { throw .decode }
    // A zero-length blob comes back as a NULL pointer.
    guard let start = sqlite3_column_blob(statement, column) else { return [] }
    let count = Int(sqlite3_column_bytes(statement, column))
    return Array(UnsafeRawBufferPointer(start: start, count: count))
  }

  func blob(_ column: Int32) throws(SecStatus) -> Data {
    guard sqlite3_column_type(statement, column) == SQLITE_BLOB else { throw .decode }
    guard let start = sqlite3_column_blob(statement, column) else { return Data() }
    return Data(bytes: start, count: Int(sqlite3_column_bytes(statement, column)))
  }

  func optionalBlob(_ column: Int32) throws(SecStatus) -> Data? {
    sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : try blob(column)
  }

  /// A 16-byte digest column; errSecDecode for any other value.
  func digest(_ column: Int32) throws(SecStatus) -> RowDigest {
    try withBlob(column) { bytes throws(SecStatus) in
      guard let digest = RowDigest(bytes) else { throw .decode }
      return digest
    }
  }

  func optionalDigest(_ column: Int32) throws(SecStatus) -> RowDigest? {
    sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : try digest(column)
  }

  func optionalBytes(_ column: Int32) throws(SecStatus) -> [UInt8]? {
    sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : try bytes(column)
  }

  /// Whether the column holds a value (is not NULL).
  func isPresent(_ column: Int32) throws(SecStatus) -> Bool {
    sqlite3_column_type(statement, column) != SQLITE_NULL
  }

  /// `body` over a blob's bytes where SQLite holds them (valid only during the call); errSecDecode
  /// for any other value. For a ciphertext opened at once, which needs no copy of its own.
  func withBlob<T, E: Error>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(SecStatus) -> T {
    guard sqlite3_column_type(statement, column) == SQLITE_BLOB else { throw .decode }
    // The pointer first, then the length (SQLite's documented order); a zero-length blob is NULL.
    let start = sqlite3_column_blob(statement, column)
    let bytes = UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, column)))
    do {
      return try body(bytes)
    } catch let status as SecStatus {
      throw status
    } catch {
      throw .decode
    }
  }

  /// `body` over a blob's bytes where SQLite holds them (valid only during the call), or nil for
  /// NULL: for a value parsed at once, which needs no copy of its own.
  func withOptionalBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws(SecStatus) -> T)
    throws(SecStatus) -> T?
  {
    sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : try withBlob(column, body)
  }
}

/// Runs a prepared statement: binds `arguments`, hands each row to `body` until it returns false,
/// and always resets the statement, so that no read transaction outlives the call (a statement
/// left mid-step would pin its WAL snapshot and hold back checkpoints).
func forEachRow(
  of statement: OpaquePointer, arguments: [SQLArgument], _ body: (StatementRow) throws(SecStatus) -> Bool
) throws(SecStatus) {
  do {
    try stepRows(of: statement, arguments: arguments, body)
  } catch let failure as SQLiteFailure {
    throw SQLiteErrors.status(for: failure)
  } catch let status as SecStatus {
    throw status
  } catch {
    throw .notAvailable
  }
}

/// `forEachRow` with SQLite's failures as they are, for callers that tell them apart (a
/// constraint, a full disk).
func stepRows(
  of statement: OpaquePointer, arguments: [SQLArgument], _ body: (StatementRow) throws(SecStatus) -> Bool
) throws {
  defer {
    sqlite3_reset(statement)
    sqlite3_clear_bindings(statement)
  }
  for (offset, argument) in arguments.enumerated() {
    let index = Int32(offset + 1)
    let code: Int32
    switch argument {
    case .integer(let value):
      code = sqlite3_bind_int64(statement, index, value)
    case .text(let value):
      code = sqlite3_bind_text(statement, index, value, -1, transientDestructor)
    case .blob(let value):
      code = value.withUnsafeBytes { buffer in
        // A NULL pointer would bind NULL, not an empty blob.
        sqlite3_bind_blob(statement, index, buffer.baseAddress ?? emptyBlob, Int32(buffer.count), transientDestructor)
      }
    case .digest(let value):
      code = value.withUnsafeBytes { buffer in
        sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), transientDestructor)
      }
    case .null:
      code = sqlite3_bind_null(statement, index)
    }
    guard code == SQLITE_OK else { throw SQLiteFailure(code: code, message: "cannot bind parameter \(index)") }
  }
  let row = StatementRow(statement: statement)
  while true {
    let code = sqlite3_step(statement)
    if code == SQLITE_DONE { return }
    guard code == SQLITE_ROW else {
      throw SQLiteFailure(code: code, message: String(cString: sqlite3_errmsg(sqlite3_db_handle(statement))))
    }
    guard try body(row) else { return }
  }
}

/// SQLITE_TRANSIENT: SQLite copies the bound bytes, which may move once the call returns.
private nonisolated(unsafe) let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
private nonisolated(unsafe) let emptyBlob = UnsafeRawPointer(
  UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))

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

import Foundation
import GRDBSQLite
import Security
import Synchronization

// The search path talks to SQLite's C API directly. A lookup is the store's most frequent call, and
// GRDB's pooled read (a semaphore, a dispatch_sync onto the reader's queue, a Row copy of every
// column and a cursor object) cost more than the SQLite work itself: about 40% of a lookup's
// instructions under callgrind. Writes stay on GRDB's DatabasePool (transactions, busy handling),
// and reuse the same row code on the statements GRDB prepares for them.

/// A value bound to a statement parameter.
enum SQLArgument {
  case integer(Int64)
  case text(String)
  case blob(Data)
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

  func optionalBytes(_ column: Int32) throws(SecStatus) -> [UInt8]? {
    sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : try bytes(column)
  }
}

/// Runs a prepared statement: binds `arguments`, hands each row to `body` until it returns false,
/// and always resets the statement, so that no read transaction outlives the call (a statement
/// left mid-step would pin its WAL snapshot and hold back checkpoints).
func forEachRow(
  of statement: OpaquePointer, arguments: [SQLArgument], _ body: (StatementRow) throws(SecStatus) -> Bool
) throws(SecStatus) {
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
    }
    guard code == SQLITE_OK else { throw secStatus(sqliteResultCode: code) }
  }
  let row = StatementRow(statement: statement)
  while true {
    let code = sqlite3_step(statement)
    if code == SQLITE_DONE { return }
    guard code == SQLITE_ROW else { throw secStatus(sqliteResultCode: code) }
    guard try body(row) else { return }
  }
}

/// SQLITE_TRANSIENT: SQLite copies the bound bytes, which may move once the call returns.
private nonisolated(unsafe) let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
private nonisolated(unsafe) let emptyBlob = UnsafeRawPointer(
  UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))

/// One read-only connection with its prepared statements.
///
/// Unchecked Sendable: ReadConnections hands each connection to one search at a time (it is either
/// in the idle list or in one caller's hands), which is what SQLite's NOMUTEX mode requires.
private final class ReadConnection: @unchecked Sendable {
  private let handle: OpaquePointer
  private var statements: [String: OpaquePointer] = [:]
  /// Search SQL varies only with the shape of a query; the bound keeps a pathological caller from
  /// growing the cache without limit.
  private static let statementLimit = 64

  init(path: String) throws(SecStatus) {
    var handle: OpaquePointer?
    let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nil)
    guard code == SQLITE_OK, let handle else {
      sqlite3_close_v2(handle)
      throw secStatus(sqliteResultCode: code)
    }
    self.handle = handle
    sqlite3_busy_timeout(handle, 10_000)
  }

  deinit {
    for statement in statements.values { sqlite3_finalize(statement) }
    sqlite3_close_v2(handle)
  }

  func statement(_ sql: String) throws(SecStatus) -> OpaquePointer {
    if let cached = statements[sql] { return cached }
    if statements.count >= Self.statementLimit {
      for statement in statements.values { sqlite3_finalize(statement) }
      statements.removeAll()
    }
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard code == SQLITE_OK, let statement else { throw secStatus(sqliteResultCode: code) }
    statements[sql] = statement
    return statement
  }
}

/// Read-only connections for searches. A search takes an idle connection (or opens one) and gives
/// it back, so concurrent searches run in parallel on WAL snapshots, never behind the writer.
final class ReadConnections: Sendable {
  /// The database as a `file:` URI, with `immutable=1` where asked for.
  private let uri: String
  private let idle = Mutex<[ReadConnection]>([])
  private static let idleLimit = 4

  /// Connections to the database at `path`; `immutable` tells SQLite that nothing can change the
  /// file (a read-only store), so it needs no lock or shared-memory file beside it.
  init(path: String, immutable: Bool) {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "?#%")
    let escaped = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    uri = "file:\(escaped)" + (immutable ? "?immutable=1" : "")
  }

  /// The `store_info` value called `name`.
  func storeInfo(_ name: String) throws(SecStatus) -> Data? {
    try withStatement("SELECT value FROM store_info WHERE name = ?") { statement throws(SecStatus) in
      var value: Data?
      try forEachRow(of: statement, arguments: [.text(name)]) { row throws(SecStatus) in
        value = try row.blob(0)
        return false
      }
      return value
    }
  }

  /// The first column of every row `sql` gives, as text.
  func strings(_ sql: String) throws(SecStatus) -> [String] {
    try withStatement(sql) { statement throws(SecStatus) in
      var values: [String] = []
      try forEachRow(of: statement, arguments: []) { row throws(SecStatus) in
        values.append(try row.text(0))
        return true
      }
      return values
    }
  }

  /// Runs `body` with a statement for `sql` on a connection no other thread is using.
  func withStatement<T>(_ sql: String, _ body: (OpaquePointer) throws(SecStatus) -> T) throws(SecStatus) -> T {
    let connection: ReadConnection
    if let reused = idle.withLock({ $0.popLast() }) {
      connection = reused
    } else {
      connection = try ReadConnection(path: uri)
    }
    defer {
      idle.withLock { connections in
        if connections.count < Self.idleLimit { connections.append(connection) }
      }
    }
    return try body(try connection.statement(sql))
  }
}

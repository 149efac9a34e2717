import CSQLite
import Foundation
import Security

// Values bound to statements and rows read from them, in place: a row's columns are read where
// SQLite holds them, and a wrongly typed column is errSecDecode, never a trap.

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

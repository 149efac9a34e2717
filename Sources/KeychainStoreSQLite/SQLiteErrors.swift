import Foundation
import GRDB
import GRDBSQLite
import Security

/// SQLite's failures as errSec codes (the mapping of keychain-semantics.md 16.1), in one place for
/// both the GRDB writer and the C read path.
enum SQLiteErrors {
  /// Whether SQLite failed to write for want of space (ENOSPC is SQLITE_FULL; a file-size limit
  /// is an I/O error), as GRDB reports it or as the row code already mapped it (errSecIO).
  static func isOutOfSpace(_ error: any Error) -> Bool {
    if let status = error as? SecStatus { return status == .io }
    guard let error = error as? DatabaseError else { return false }
    let code = error.resultCode.primaryResultCode
    return code == .SQLITE_FULL || code == .SQLITE_IOERR
  }

  /// Runs a GRDB call, its failure as an errSec code.
  static func database<T>(_ body: () throws -> T) throws(SecStatus) -> T {
    do {
      return try body()
    } catch {
      throw status(for: error)
    }
  }

  /// SQLite's failures as errSec codes (the mapping of keychain-semantics.md 16.1).
  static func status(for error: any Error) -> SecStatus {
    if let status = error as? SecStatus { return status }
    guard let error = error as? DatabaseError else { return .notAvailable }
    return secStatus(sqliteResultCode: error.resultCode.primaryResultCode.rawValue)
  }
}

/// SQLite's primary result codes as errSec codes (the mapping of keychain-semantics.md 16.1).
func secStatus(sqliteResultCode code: Int32) -> SecStatus {
  switch code & 0xFF {
  case SQLITE_CONSTRAINT: .duplicateItem
  case SQLITE_READONLY: SecStatus(errSecReadOnly)
  case SQLITE_NOMEM: SecStatus(errSecAllocate)
  case SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN: .io
  case SQLITE_CORRUPT, SQLITE_NOTADB: SecStatus(errSecInvalidKeychain)
  case SQLITE_PERM, SQLITE_AUTH: SecStatus(errSecWrPerm)
  case SQLITE_MISMATCH: .noSuchAttribute
  case SQLITE_INTERNAL: SecStatus(errSecInternalComponent)
  default: .notAvailable
  }
}

import CSQLite
import Foundation
import Security

/// SQLite's failures as errSec codes (the mapping of rule 16.1), in one place for
/// reads and writes.
enum SQLiteErrors {
  /// Whether SQLite failed to write for want of space (ENOSPC is SQLITE_FULL; a file-size limit
  /// is an I/O error), as SQLite reports it or as the row code already mapped it (errSecIO).
  static func isOutOfSpace(_ error: any Error) -> Bool {
    if let status = error as? SecStatus { return status == .io }
    guard let failure = error as? SQLiteFailure else { return false }
    return failure.primaryCode == SQLITE_FULL || failure.primaryCode == SQLITE_IOERR
  }

  /// Whether SQLite refused a row for a constraint: here, a primary key that is taken.
  static func isConstraint(_ error: any Error) -> Bool {
    (error as? SQLiteFailure)?.primaryCode == SQLITE_CONSTRAINT
  }

  /// Runs SQLite calls, their failure as an errSec code.
  static func database<T>(_ body: () throws -> T) throws(SecStatus) -> T {
    do {
      return try body()
    } catch {
      throw status(for: error)
    }
  }

  /// SQLite's failures as errSec codes (the mapping of rule 16.1).
  static func status(for error: any Error) -> SecStatus {
    if let status = error as? SecStatus { return status }
    guard let failure = error as? SQLiteFailure else { return .notAvailable }
    return secStatus(sqliteResultCode: failure.code)
  }
}

/// SQLite's primary result codes as errSec codes (the mapping of rule 16.1).
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

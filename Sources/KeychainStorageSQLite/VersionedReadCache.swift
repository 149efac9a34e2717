import CSQLite
import Foundation
import Synchronization

/// The rows of the writer's last read with versions, kept for the `replace` that follows it.
///
/// Over the contract an update is two calls: `find` with versions, then `replace` at those
/// versions, which must make sure that no row changed in between. While the database has not
/// changed at all since that read, the rows the read decoded and authenticated are still the rows
/// in the file, so `replace` takes them from here instead of selecting and authenticating each one
/// again (keychain-bench's update did both twice). SQLite's data version of the writer's connection
/// tells: it moves with every commit to the file, by this connection or by any other, this
/// process's or another's (`SQLITE_FCNTL_DATA_VERSION`). Any other case (a different data version,
/// a row the read did not return) reads the row from the file as before.
///
/// It holds row ids, identities and ciphertexts, never an opened secret.
final class VersionedReadCache: Sendable {
  private struct Read {
    let dataVersion: UInt32
    let records: [Data: RowRecord]
  }

  private let last = Mutex<Read?>(nil)

  /// Keeps `records`, read by `connection` just now, in place of any earlier read.
  func remember(_ records: [RowRecord], readBy connection: SQLiteConnection) {
    guard let dataVersion = connection.dataVersion else { return }
    var byPersistentID = [Data: RowRecord](minimumCapacity: records.count)
    for record in records { byPersistentID[record.item.persistentID] = record }
    last.withLock { $0 = Read(dataVersion: dataVersion, records: byPersistentID) }
  }

  /// The last read's rows by persistent ID when the database is as that read saw it, else none;
  /// either way the read is forgotten, since the write that called this will change the file.
  /// `connection` must be in its write transaction, so that its data version is the file's.
  func take(in connection: SQLiteConnection) -> [Data: RowRecord] {
    guard let read = last.withLock({ $0.take() }) else { return [:] }
    guard let dataVersion = connection.dataVersion, dataVersion == read.dataVersion else { return [:] }
    return read.records
  }
}

extension SQLiteConnection {
  /// The main database's data version as of this connection's latest read transaction: it changes
  /// whenever the file's content changes, through this connection or another. Nil when SQLite
  /// does not answer.
  var dataVersion: UInt32? {
    var version: UInt32 = 0
    guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK else { return nil }
    return version
  }
}

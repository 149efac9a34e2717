import CSQLite
import Dispatch
import Foundation
import Logging
import Security
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Moves WAL checkpoints off the callers' commits: when the WAL has grown by enough pages, a
/// background queue runs a PASSIVE checkpoint on a connection of its own, which never blocks
/// readers or writers.
///
/// The trigger is pages, as SQLite's own autocheckpoint's is, not commits: a commit to a large store
/// touches more index pages, and a checkpoint that copies many megabytes into the database file
/// ends in an fsync that holds up the next commit's own. At 100k items, checkpoints every 1000
/// commits put 3-4 ms on the p99.9 of deletes; every ~500 pages keeps it under 1 ms.
///
/// When the file system runs short of space the trigger comes sooner: pages that only the WAL
/// holds cannot be moved into the database file once the disk is full, and then nothing, not even
/// a delete, could free space. Checkpointing while at least eight times the outstanding WAL is
/// still free keeps the database file holding nearly everything.
final class WALCheckpointer: Sendable {
  private static let pagesPerCheckpoint: Int32 = 500
  /// Below this many outstanding pages no free-space check is made.
  private static let pagesBeforeSpaceCheck: Int32 = 16
  private static let frameBytes = 4096 + 24
  private let path: String
  private let directory: String
  private let state = Mutex<(checkpointedAt: Int32, running: Bool, connection: SQLiteConnection?)>((0, false, nil))
  private let queue = DispatchQueue(label: "keychain-bridge.checkpoint", qos: .utility)
  /// Whether the last background checkpoint failed (only the first failure of a run is logged).
  private let failing = Mutex(false)

  init(path: String) {
    self.path = path
    directory = (path as NSString).deletingLastPathComponent
  }

  /// Installs the WAL hook on a writing connection; `unwatch` must run before the checkpointer is
  /// released (the hook holds no reference).
  func watch(_ connection: SQLiteConnection) {
    sqlite3_wal_hook(
      connection.handle,
      { context, _, _, pages in
        Unmanaged<WALCheckpointer>.fromOpaque(context!).takeUnretainedValue().walHolds(pages: pages)
        return SQLITE_OK
      }, Unmanaged.passUnretained(self).toOpaque())
  }

  func unwatch(_ connection: SQLiteConnection) {
    sqlite3_wal_hook(connection.handle, nil, nil)
  }

  /// Called inside every commit with the number of pages in the WAL.
  private func walHolds(pages: Int32) {
    let start = state.withLock { state -> Bool in
      // A new WAL (restarted after a complete checkpoint) starts counting again.
      if pages < state.checkpointedAt { state.checkpointedAt = 0 }
      let outstanding = pages - state.checkpointedAt
      guard !state.running, outstanding >= Self.pagesBeforeSpaceCheck else { return false }
      guard outstanding >= Self.pagesPerCheckpoint || isShortOfSpace(outstandingPages: outstanding) else {
        return false
      }
      state.checkpointedAt = pages
      state.running = true
      return true
    }
    guard start else { return }
    queue.async { [self] in
      let connection = state.withLock { state -> SQLiteConnection? in
        if state.connection == nil {
          state.connection = try? SQLiteConnection(
            uri: fileURI(path), flags: SQLITE_OPEN_READWRITE, busyTimeoutMilliseconds: 1000)
        }
        return state.connection
      }
      // A failed checkpoint loses nothing (the WAL keeps the data and the next one catches up), but
      // a WAL that cannot be checkpointed keeps growing: the first failure of a run is logged.
      do {
        guard let connection else { throw CheckpointUnavailable() }
        try connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        state.withLock { $0.running = false }
        failing.withLock { $0 = false }
      } catch {
        state.withLock { $0.running = false }
        let first = failing.withLock { wasFailing in
          defer { wasFailing = true }
          return !wasFailing
        }
        if first {
          storeLogger.warning(
            "A background WAL checkpoint failed; the WAL grows until one succeeds",
            metadata: ["database": .string(path), "error": .string("\(error)")])
        }
      }
    }
  }

  private func isShortOfSpace(outstandingPages: Int32) -> Bool {
    var fileSystem = statvfs()
    guard statvfs(directory, &fileSystem) == 0 else { return false }
    let free = UInt64(fileSystem.f_bavail) * UInt64(fileSystem.f_frsize)
    return free < UInt64(outstandingPages) * UInt64(Self.frameBytes) * 8
  }

  /// Moves the whole WAL into the database file and truncates it, waiting for a background
  /// checkpoint that is running; returns whether it completed.
  static func checkpointTruncating(_ connection: SQLiteConnection) -> Bool {
    for attempt in 0..<100 {
      if attempt > 0 { usleep(10_000) }
      var blocked: Int64?
      guard let statement = try? connection.statement("PRAGMA wal_checkpoint(TRUNCATE)") else { return false }
      do {
        try forEachRow(of: statement, arguments: []) { row throws(SecStatus) in
          blocked = try row.integer(0)
          return false
        }
      } catch {
        return false
      }
      // The first column is 1 when another connection's checkpoint or a reader was in the way.
      if blocked == 0 { return true }
    }
    return false
  }
}

/// The checkpoint connection could not be opened.
private struct CheckpointUnavailable: Error {}

import CSQLite
import Dispatch
import Foundation
import Logging
import Security
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Moves WAL checkpoints off the callers' commits and keeps the WAL bounded: when the WAL has grown
/// by enough pages, a background queue runs a PASSIVE checkpoint on a connection of its own, which
/// never blocks readers or writers, and runs it again while it leaves more than a few pages behind.
///
/// The trigger is pages, as SQLite's own autocheckpoint's is, not commits: a commit to a large store
/// touches more index pages, and a checkpoint that copies many megabytes into the database file
/// ends in an fsync that holds up the next commit's own. At 100k items, checkpoints every 1000
/// commits put 3-4 ms on the p99.9 of deletes; every ~500 pages keeps it under 1 ms.
///
/// A background checkpoint alone never lets the WAL start again while writes keep coming: SQLite
/// rewinds the WAL only at a write that begins when every frame is already in the database file,
/// and the writer appends frames while the checkpoint copies. Under a steady stream of writes the WAL
/// grew without bound (433 MB after 15,000 adds, updates and deletes in a row), and every commit
/// extended the file, which the kernel pays for by zeroing new blocks (29% of that write profile).
/// So when the WAL reaches `walPageLimit` pages and no background checkpoint is running, the
/// writer copies what is left itself, right after its commit (the hook runs with the write lock
/// released): a few frames, since the background has copied the rest, and one fsync. The next
/// commit then writes from the start of the file, which stays 64 MiB long (`journal_size_limit`)
/// so that the next burst overwrites blocks instead of extending the file, and no commit pays for
/// truncating it.
///
/// The limit is a safety valve, not the normal path: an fsync in a commit is what the background
/// checkpoints exist to avoid (at 1000 pages it put 4-25 ms on the p99.9 of every write in
/// keychain-bench), while ordinary bursts leave pauses in which the background catches up and the
/// WAL starts again on its own.
///
/// When the file system runs short of space the trigger comes sooner: pages that only the WAL
/// holds cannot be moved into the database file once the disk is full, and then nothing, not even
/// a delete, could free space. Checkpointing while at least eight times the outstanding WAL is
/// still free keeps the database file holding nearly everything.
final class WALCheckpointer: Sendable {
  private static let pagesPerCheckpoint: Int32 = 500
  /// A background checkpoint that leaves more pages than this behind runs again.
  private static let pagesLeftBehind: Int32 = 64
  /// At this many pages (64 MiB) the writer finishes the checkpoint so the WAL can start again.
  private static let walPageLimit: Int32 = 16384
  /// Free space is checked at most once per this many new pages.
  private static let pagesBetweenSpaceChecks: Int32 = 16
  private static let frameBytes = 4096 + 24
  private let path: String
  private let directory: String
  private let state = Mutex<CheckpointState>(CheckpointState())
  private let queue = DispatchQueue(label: "keychain-bridge.checkpoint", qos: .utility)
  /// Whether the last background checkpoint failed (only the first failure of a run is logged).
  private let failing = Mutex(false)

  private struct CheckpointState {
    /// The WAL's size in pages when the last checkpoint started.
    var checkpointedAt: Int32 = 0
    /// The WAL's size in pages at the last free-space check.
    var spaceCheckedAt: Int32 = 0
    var running = false
    var connection: SQLiteConnection?
  }

  init(path: String) {
    self.path = path
    directory = (path as NSString).deletingLastPathComponent
  }

  /// Installs the WAL hook on a writing connection; `unwatch` must run before the checkpointer is
  /// released (the hook holds no reference).
  func watch(_ connection: SQLiteConnection) {
    sqlite3_wal_hook(
      connection.handle,
      { context, database, _, pages in
        Unmanaged<WALCheckpointer>.fromOpaque(context!).takeUnretainedValue().walHolds(
          pages: pages, writer: database)
        return SQLITE_OK
      }, Unmanaged.passUnretained(self).toOpaque())
  }

  func unwatch(_ connection: SQLiteConnection) {
    sqlite3_wal_hook(connection.handle, nil, nil)
  }

  private enum Action { case none, background, catchUp }

  /// Called after every commit with the number of pages in the WAL and the writing connection.
  private func walHolds(pages: Int32, writer: OpaquePointer?) {
    let action = state.withLock { state -> Action in
      // A new WAL (restarted after a complete checkpoint) starts counting again.
      if pages < state.checkpointedAt { state.checkpointedAt = 0 }
      if pages < state.spaceCheckedAt { state.spaceCheckedAt = 0 }
      guard !state.running else { return .none }
      if pages >= Self.walPageLimit { return .catchUp }
      let outstanding = pages - state.checkpointedAt
      var due = outstanding >= Self.pagesPerCheckpoint
      if !due && outstanding >= Self.pagesBetweenSpaceChecks
        && pages - state.spaceCheckedAt >= Self.pagesBetweenSpaceChecks
      {
        state.spaceCheckedAt = pages
        due = isShortOfSpace(outstandingPages: outstanding)
      }
      guard due else { return .none }
      state.checkpointedAt = pages
      state.running = true
      return .background
    }
    switch action {
    case .none: return
    case .catchUp:
      // A failure here loses nothing: the WAL keeps the frames and the next commit tries again.
      if let writer { _ = sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil) }
    case .background:
      queue.async { [self] in checkpointInBackground() }
    }
  }

  private func checkpointInBackground() {
    let connection = state.withLock { state -> SQLiteConnection? in
      if state.connection == nil {
        state.connection = try? SQLiteConnection(
          uri: fileURI(path), flags: SQLITE_OPEN_READWRITE, busyTimeoutMilliseconds: 1000)
      }
      return state.connection
    }
    // A failed checkpoint loses nothing (the WAL keeps the data and the next one catches up), but
    // a WAL that cannot be checkpointed keeps growing: the first failure of a run is logged.
    var failure: String?
    if let connection {
      for _ in 0..<8 {
        do {
          let result = try Self.checkpoint(connection, mode: "PASSIVE")
          if (result?.walPages ?? 0) - (result?.copiedPages ?? 0) <= Int64(Self.pagesLeftBehind) { break }
        } catch {
          failure = "\(error)"
          break
        }
      }
      if failure == nil { failure = Self.syncDatabaseFile(connection) }
    } else {
      failure = "the checkpoint connection could not be opened"
    }
    state.withLock { $0.running = false }
    guard let failure else {
      failing.withLock { $0 = false }
      return
    }
    let first = failing.withLock { wasFailing in
      defer { wasFailing = true }
      return !wasFailing
    }
    if first {
      storeLogger.warning(
        "A background WAL checkpoint failed; the WAL grows until one succeeds",
        metadata: ["database": .string(path), "error": .string(failure)])
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
      do {
        if try checkpoint(connection, mode: "TRUNCATE")?.blocked == false { return true }
      } catch {
        return false
      }
    }
    return false
  }

  /// Flushes the pages checkpoints copied into the database file, on the checkpoint's own thread.
  ///
  /// SQLite syncs the database file only at a checkpoint that copies the whole WAL, the one the
  /// WAL's rewind needs; a PASSIVE checkpoint that leaves frames behind (every background one under
  /// a stream of writes) syncs only the WAL. So the writer's catch-up at `walPageLimit` flushed
  /// every page the background had copied since the last rewind, up to 64 MiB: a 15-25 ms
  /// fdatasync in one commit per ~2,500 writes at 100k items (strace), the p99.9 of the deletes in
  /// keychain-bench. Synced here, it leaves the catch-up only its own few pages. Returns a failure's
  /// description; a failed sync loses nothing (SQLite syncs again before the WAL can start over).
  private static func syncDatabaseFile(_ connection: SQLiteConnection) -> String? {
    var file: UnsafeMutablePointer<sqlite3_file>?
    let found = sqlite3_file_control(connection.handle, "main", SQLITE_FCNTL_FILE_POINTER, &file)
    guard found == SQLITE_OK, let file, let sync = file.pointee.pMethods?.pointee.xSync else {
      return "the database file's handle could not be read (\(found))"
    }
    let code = sync(file, SQLITE_SYNC_NORMAL | SQLITE_SYNC_DATAONLY)
    return code == SQLITE_OK ? nil : "syncing the database file failed (\(code))"
  }

  /// Runs `PRAGMA wal_checkpoint(mode)` and reads its row: whether another connection's checkpoint
  /// or a reader was in the way, the WAL's pages, and how many of them are in the database file.
  ///
  /// The pragma rather than sqlite3_wal_checkpoint_v2: on a connection that has not read the
  /// database yet the C call finds no WAL open and checkpoints nothing; the statement opens it first.
  private static func checkpoint(_ connection: SQLiteConnection, mode: String) throws
    -> (blocked: Bool, walPages: Int64, copiedPages: Int64)?
  {
    let statement = try connection.statement("PRAGMA wal_checkpoint(\(mode))")
    var result: (blocked: Bool, walPages: Int64, copiedPages: Int64)?
    try forEachRow(of: statement, arguments: []) { row throws(SecStatus) in
      result = (try row.integer(0) != 0, try row.integer(1), try row.integer(2))
      return false
    }
    return result
  }
}

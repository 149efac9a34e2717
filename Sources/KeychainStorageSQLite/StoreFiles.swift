import Foundation
import Security

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The files of a store: a directory (0700) holding the database and the key file (0600).
///
/// Permissions are set when each file is created, never widened and later narrowed, so there is no
/// moment when another user could open them.
struct StoreFiles {
  let directory: URL
  var databasePath: String { directory.appendingPathComponent("keychain.db").path }
  var keyFilePath: String { directory.appendingPathComponent("keychain.key").path }

  /// Creates the directory (0700) if needed and refuses one that others can read or write.
  ///
  /// Missing parent directories are created 0700 as well: mkdir's mode is narrowed by the umask,
  /// never widened, so even a umask of 000 cannot make them readable by others.
  func prepareDirectory() throws(KeychainStoreError) {
    let path = directory.path
    var info = stat()
    if stat(path, &info) != 0 {
      var missing: [String] = []
      var parent = directory.deletingLastPathComponent()
      while parent.path != "/" && !FileManager.default.fileExists(atPath: parent.path) {
        missing.append(parent.path)
        parent = parent.deletingLastPathComponent()
      }
      for ancestor in missing.reversed() where mkdir(ancestor, 0o700) != 0 && errno != EEXIST {
        throw KeychainStoreError(
          status: errSecIO, message: "Cannot create the directory \(ancestor): \(String(cString: strerror(errno))).")
      }
      if mkdir(path, 0o700) != 0 && errno != EEXIST {
        throw KeychainStoreError(
          status: errSecIO, message: "Cannot create the store directory \(path): \(String(cString: strerror(errno))).")
      }
      guard stat(path, &info) == 0 else {
        throw KeychainStoreError(status: errSecIO, message: "Cannot read the store directory \(path).")
      }
    }
    guard (info.st_mode & S_IFMT) == S_IFDIR else {
      throw KeychainStoreError(status: errSecInvalidKeychain, message: "The store path \(path) is not a directory.")
    }
    guard info.st_uid == geteuid() else {
      throw KeychainStoreError(
        status: errSecInvalidKeychain,
        message: "The store directory \(path) belongs to another user (uid \(info.st_uid)); it must be this user's.")
    }
    guard info.st_mode & 0o077 == 0 else {
      throw KeychainStoreError(
        status: errSecInvalidKeychain,
        message:
          "The store directory \(path) is accessible to other users (mode \(String(info.st_mode & 0o777, radix: 8))); it must be 0700."
      )
    }
  }

  /// Whether the store can only be read: its directory is on a read-only file system, or this
  /// process may not write the directory or an existing database file.
  var isReadOnly: Bool {
    var fileSystem = statvfs()
    if statvfs(directory.path, &fileSystem) == 0 && fileSystem.f_flag & UInt(ST_RDONLY) != 0 { return true }
    if access(directory.path, W_OK) != 0 { return true }
    return FileManager.default.fileExists(atPath: databasePath) && access(databasePath, W_OK) != 0
  }

  /// Whether the database has a write-ahead log beside it (left by a process that did not close it).
  var hasWriteAheadLog: Bool { FileManager.default.fileExists(atPath: databasePath + "-wal") }

  /// Takes an exclusive lock on the store directory until `body` returns, so that processes opening
  /// the same store create and migrate it one at a time.
  func whileLockedForOpening<T>(_ body: () throws(KeychainStoreError) -> T) throws(KeychainStoreError) -> T {
    let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw KeychainStoreError(
        status: errSecIO,
        message: "Cannot open the store directory \(directory.path): \(String(cString: strerror(errno))).")
    }
    defer { close(descriptor) }
    while flock(descriptor, LOCK_EX) != 0 {
      guard errno == EINTR else {
        throw KeychainStoreError(
          status: errSecIO,
          message: "Cannot lock the store directory \(directory.path): \(String(cString: strerror(errno))).")
      }
    }
    defer { flock(descriptor, LOCK_UN) }
    return try body()
  }

  /// Creates the database file empty with mode 0600, so SQLite (which gives its WAL and shared
  /// memory files the database's mode) never creates anything wider.
  func prepareDatabaseFile() throws(KeychainStoreError) {
    let descriptor = try Self.openPrivate(databasePath, O_RDWR | O_CREAT, what: "database")
    close(descriptor)
    // SQLITE_OPEN_NOFOLLOW covers the database file only: SQLite opens its write-ahead log and
    // shared memory by name, so a link planted in their place is refused here.
    try checkPrivate(databasePath + "-wal", what: "write-ahead log")
    try checkPrivate(databasePath + "-shm", what: "shared-memory file")
  }

  /// A file of `spaceReserveBytes` kept beside the database and given up when the disk is full, so
  /// that a delete can still run its checkpoint and commit.
  var spaceReservePath: String { directory.appendingPathComponent("keychain.reserve").path }
  static let spaceReserveBytes = 256 * 1024

  /// Creates the space reserve (0600) if it is missing and the space can be had; a reserve that
  /// cannot be allocated is simply not there.
  func createSpaceReserve() {
    let descriptor = open(spaceReservePath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return }
    let allocated = posix_fallocate(descriptor, 0, off_t(Self.spaceReserveBytes)) == 0
    close(descriptor)
    if !allocated { unlink(spaceReservePath) }
  }

  /// Removes the space reserve; returns whether there was one.
  func releaseSpaceReserve() -> Bool {
    unlink(spaceReservePath) == 0
  }

  /// The largest key file read: a key file is under 100 bytes, one sealed to a TPM (the TPM's
  /// blobs of it) under 600, so a larger one is damaged or planted, and is refused before it costs
  /// memory.
  static let keyFileLimit = 1024

  /// Reads the key file, or nil when there is none yet. A symbolic link, a file of another user or
  /// one others can read, and a file over `keyFileLimit` bytes are refused.
  func readKeyFile() throws(KeychainStoreError) -> [UInt8]? {
    let descriptor: Int32
    do {
      descriptor = try Self.openPrivate(keyFilePath, O_RDONLY, what: "key file")
    } catch let error where error.status == errSecItemNotFound {
      return nil
    }
    defer { close(descriptor) }
    var contents = [UInt8](repeating: 0, count: Self.keyFileLimit + 1)
    var filled = 0
    while filled < contents.count {
      let count = contents.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else {
        throw KeychainStoreError(
          status: errSecIO, message: "Cannot read the key file \(keyFilePath): \(String(cString: strerror(errno))).")
      }
      if count == 0 { break }
      filled += count
    }
    guard filled <= Self.keyFileLimit else {
      throw KeychainStoreError(
        status: errSecDecode,
        message:
          "The key file \(keyFilePath) is larger than any key file (over \(Self.keyFileLimit) bytes): damaged or replaced."
      )
    }
    return Array(contents[0..<filled])
  }

  /// Writes a new key file (0600) atomically; when another process wrote one first, returns that
  /// one instead, so concurrent first opens agree on one key.
  func createKeyFile(_ contents: [UInt8]) throws(KeychainStoreError) -> [UInt8] {
    let temporary = keyFilePath + ".new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw KeychainStoreError(
        status: errSecIO,
        message: "Cannot create the key file in \(directory.path): \(String(cString: strerror(errno))).")
    }
    let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    let synced = fsync(descriptor) == 0
    close(descriptor)
    defer { unlink(temporary) }
    guard written == contents.count, synced else {
      throw KeychainStoreError(
        status: errSecIO, message: "Cannot write the key file in \(directory.path) (disk full?).")
    }
    // link() fails if the name exists: exactly one process's key file wins.
    if link(temporary, keyFilePath) != 0 {
      guard errno == EEXIST, let existing = try readKeyFile() else {
        throw KeychainStoreError(
          status: errSecIO, message: "Cannot install the key file \(keyFilePath): \(String(cString: strerror(errno))).")
      }
      return existing
    }
    syncDirectory()
    return contents
  }

  private func syncDirectory() {
    let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if descriptor >= 0 {
      fsync(descriptor)
      close(descriptor)
    }
  }

  /// Refuses a file that is a symbolic link, is not a regular file, belongs to another user, or
  /// that others can read or write. A missing file passes (the caller decides what that means).
  func checkPrivate(_ path: String, what: String) throws(KeychainStoreError) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    try Self.checkPrivate(info, path, what: what)
  }

  private static func checkPrivate(_ info: stat, _ path: String, what: String) throws(KeychainStoreError) {
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      throw KeychainStoreError(
        status: errSecInvalidKeychain, message: "The \(what) \(path) is not a regular file; it was not opened.")
    }
    guard info.st_uid == geteuid() else {
      throw KeychainStoreError(
        status: errSecInvalidKeychain,
        message: "The \(what) \(path) belongs to another user (uid \(info.st_uid)); it was not opened.")
    }
    guard info.st_mode & 0o077 == 0 else {
      throw KeychainStoreError(
        status: errSecInvalidKeychain,
        message:
          "The \(what) \(path) is accessible to other users (mode \(String(info.st_mode & 0o777, radix: 8))); it must be 0600."
      )
    }
  }

  /// Opens a store file without following a symbolic link (O_NOFOLLOW) and without blocking
  /// (O_NONBLOCK: a FIFO put in a file's place would otherwise hang the open until someone writes
  /// to it, before the check below could refuse it), creating it 0600 when `flags` has O_CREAT,
  /// and checks the opened file itself (fstat), so nothing can be swapped in between the check and
  /// the use. A missing file is errSecItemNotFound.
  static func openPrivate(_ path: String, _ flags: Int32, what: String) throws(KeychainStoreError) -> Int32 {
    let descriptor = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
    guard descriptor >= 0 else {
      let reason = String(cString: strerror(errno))
      switch errno {
      case ENOENT:
        throw KeychainStoreError(status: errSecItemNotFound, message: "The \(what) \(path) does not exist.")
      case ELOOP:
        throw KeychainStoreError(
          status: errSecInvalidKeychain, message: "The \(what) \(path) is a symbolic link; it was not followed.")
      default:
        throw KeychainStoreError(status: errSecIO, message: "Cannot open the \(what) \(path): \(reason).")
      }
    }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      close(descriptor)
      throw KeychainStoreError(status: errSecIO, message: "Cannot read the \(what) \(path)'s status.")
    }
    do {
      try checkPrivate(info, path, what: what)
    } catch {
      close(descriptor)
      throw error
    }
    // A regular file: reads and writes block as usual from here on.
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
    return descriptor
  }
}

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
  func prepareDirectory() throws(KeychainStoreError) {
    let path = directory.path
    var info = stat()
    if stat(path, &info) != 0 {
      let parent = directory.deletingLastPathComponent().path
      if !FileManager.default.fileExists(atPath: parent) {
        do {
          try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
          throw KeychainStoreError(status: errSecIO, message: "Cannot create the directory \(parent).")
        }
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
    guard info.st_mode & 0o077 == 0 else {
      throw KeychainStoreError(
        status: errSecInvalidKeychain,
        message:
          "The store directory \(path) is accessible to other users (mode \(String(info.st_mode & 0o777, radix: 8))); it must be 0700."
      )
    }
  }

  /// Creates the database file empty with mode 0600, so SQLite (which gives its WAL and shared
  /// memory files the database's mode) never creates anything wider.
  func prepareDatabaseFile() throws(KeychainStoreError) {
    let descriptor = open(databasePath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw KeychainStoreError(
        status: errSecIO, message: "Cannot create the database \(databasePath): \(String(cString: strerror(errno))).")
    }
    close(descriptor)
    try checkPrivate(databasePath, what: "database")
  }

  /// Reads the key file, or nil when there is none yet.
  func readKeyFile() throws(KeychainStoreError) -> [UInt8]? {
    guard FileManager.default.fileExists(atPath: keyFilePath) else { return nil }
    try checkPrivate(keyFilePath, what: "key file")
    guard let contents = FileManager.default.contents(atPath: keyFilePath) else {
      throw KeychainStoreError(status: errSecIO, message: "Cannot read the key file \(keyFilePath).")
    }
    return [UInt8](contents)
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

  /// Refuses a file that others can read or write.
  func checkPrivate(_ path: String, what: String) throws(KeychainStoreError) {
    var info = stat()
    guard stat(path, &info) == 0 else { return }
    guard info.st_mode & 0o077 == 0 else {
      throw KeychainStoreError(
        status: errSecInvalidKeychain,
        message:
          "The \(what) \(path) is accessible to other users (mode \(String(info.st_mode & 0o777, radix: 8))); it must be 0600."
      )
    }
  }
}

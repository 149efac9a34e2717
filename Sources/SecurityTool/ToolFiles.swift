import Foundation
import Security
import SecurityCommandLine

#if canImport(Glibc)
  import Glibc
#endif

/// Files the tool reads and writes: bounded before they are read, written private.
enum ToolFiles {
  /// The bytes of the regular file at `path`, refused before reading when it is something else
  /// (a FIFO would block, a device never end) or longer than `maximumLength`.
  static func read(_ path: String, maximumLength: Int, operation: String, what: String) throws -> Data {
    var status = stat()
    guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      throw CommandFailure(operation: operation, status: errSecIO, detail: "\(path) is not a file that can be read.")
    }
    guard Int(status.st_size) <= maximumLength else {
      throw CommandFailure(operation: operation, status: errSecDecode, detail: "\(path) is too long to be \(what).")
    }
    guard let data = FileManager.default.contents(atPath: path), data.count <= maximumLength else {
      throw CommandFailure(operation: operation, status: errSecIO, detail: "\(path) could not be read.")
    }
    return data
  }

  /// Writes `data` to `path`, or to standard output for nil. The file is created 0600 and made
  /// 0600 if it existed (what is exported may hold private keys), and a symbolic link at `path`
  /// is refused rather than followed.
  static func write(_ data: Data, to path: String?, operation: String) throws {
    guard let path else {
      FileHandle.standardOutput.write(data)
      return
    }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw CommandFailure(
        operation: operation, status: errSecIO,
        detail: "\(path) could not be written: \(String(cString: strerror(errno))).")
    }
    defer { close(descriptor) }
    guard fchmod(descriptor, 0o600) == 0 else {
      throw CommandFailure(operation: operation, status: errSecIO, detail: "\(path) could not be made private.")
    }
    let written = data.withUnsafeBytes { bytes -> Bool in
      var offset = 0
      while offset < bytes.count {
        let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return false }
        offset += count
      }
      return true
    }
    guard written else {
      throw CommandFailure(operation: operation, status: errSecIO, detail: "\(path) could not be written completely.")
    }
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The folder of the agent's socket, which must be the user's alone: someone who may enter it
/// could replace the socket with one of their own, and read every secret a program then sends.
/// The agent checks it before it listens, and a program that starts the agent before it writes
/// the lock file and the agent's log there.
package enum SocketFolder {
  /// Creates the folder of `socketPath` (0700) when it is missing, and returns its path; throws a
  /// sentence when it cannot be made, is not a folder (a symbolic link is not followed), belongs
  /// to another user, or may be entered by others.
  @discardableResult
  package static func prepare(for socketPath: String) throws(SocketFolderError) -> String {
    let folder = URL(fileURLWithPath: socketPath).deletingLastPathComponent().path
    var status = stat()
    if lstat(folder, &status) != 0 {
      // EEXIST: another process made it a moment ago; it is checked below all the same.
      guard errno == ENOENT, mkdir(folder, 0o700) == 0 || errno == EEXIST, lstat(folder, &status) == 0 else {
        throw SocketFolderError("cannot create the socket's folder \(folder): \(String(cString: strerror(errno)))")
      }
    }
    guard status.st_mode & S_IFMT == S_IFDIR else {
      throw SocketFolderError("\(folder) is not a folder (a symbolic link is not followed)")
    }
    guard status.st_uid == getuid() else { throw SocketFolderError("\(folder) belongs to another user") }
    guard status.st_mode & 0o077 == 0 else {
      throw SocketFolderError(
        "\(folder) may be entered by other users (mode \(String(status.st_mode & 0o777, radix: 8))): the agent's "
          + "socket needs a folder of its own user's alone, such as $XDG_RUNTIME_DIR (chmod 700 it)")
    }
    return folder
  }
}

/// Why the socket's folder cannot be used, as a sentence.
package struct SocketFolderError: Error, CustomStringConvertible {
  /// The sentence.
  package let description: String

  init(_ description: String) { self.description = description }
}

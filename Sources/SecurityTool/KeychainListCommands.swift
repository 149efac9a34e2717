import ArgumentParser
import Foundation
import Security
import SecurityCommandLine

#if canImport(Glibc)
  import Glibc
#endif

/// `security list-keychains`: macOS's search list. Here one keychain is searched, the default
/// one, so the list is that keychain.
struct ListKeychains: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list-keychains",
    abstract: "Print the keychain search list: the default keychain.",
    discussion: """
      Programs search one keychain, the default one ($KEYCHAIN_BRIDGE_HOME, else $XDG_DATA_HOME/keychain-bridge, \
      else ~/.local/share/keychain-bridge). -d user, system, common or dynamic is accepted as on macOS; -s, \
      which sets the list, is refused with the variable to set instead.
      """)

  @Option(name: .customShort("d"), help: ArgumentHelp("The preference domain (user, system, common, dynamic)."))
  var domain: String?
  @Option(name: .customShort("s"), parsing: .upToNextOption, help: "The keychains to search (not supported).")
  var set: [String] = []

  func validate() throws {
    if let domain, !["user", "system", "common", "dynamic"].contains(domain) {
      throw ValidationError("-d takes user, system, common or dynamic")
    }
  }

  func run() throws {
    guard set.isEmpty else {
      FileHandle.standardError.write(
        Data(
          ("security: list-keychains -s: programs search one keychain, the one KEYCHAIN_BRIDGE_HOME names; "
            + "set it instead.\n").utf8))
      throw ExitCode(1)
    }
    print("    \"\(KeychainStore.defaultDirectory.path)\"")
  }
}

/// `security delete-keychain`: removes keychain stores, their files and then their folder.
struct DeleteKeychain: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete-keychain",
    abstract: "Delete keychains: their items, keys and files.",
    discussion: """
      Each keychain is a store folder. Only a folder holding a keychain (its database or key file) is touched, \
      and only the store's own files are removed; the folder goes too when nothing else is left in it. A folder \
      that is no keychain is refused (exit 50, errSecNoSuchKeychain). Stop an agent serving it first.
      """)

  @Argument(help: ArgumentHelp("The keychains (store folders) to delete.", valueName: "keychain"))
  var keychains: [String]

  /// The files a store is made of.
  static let storeFiles = [
    "keychain.db", "keychain.db-wal", "keychain.db-shm", "keychain.db-journal", "keychain.key", "keychain.reserve",
  ]

  func validate() throws {
    if keychains.isEmpty { throw ValidationError("name the keychain to delete") }
  }

  func run() throws {
    try runReportingFailures {
      for keychain in keychains {
        let folder = URL(fileURLWithPath: keychain, isDirectory: true).standardizedFileURL
        let present = Self.storeFiles.filter { lstatIsRegular(folder.appendingPathComponent($0).path) }
        guard present.contains("keychain.db") || present.contains("keychain.key") else {
          throw CommandFailure(
            operation: "SecKeychainDelete \(folder.path)", status: errSecNoSuchKeychain,
            detail: "\(folder.path) holds no keychain.")
        }
        for name in present where unlink(folder.appendingPathComponent(name).path) != 0 {
          throw CommandFailure(
            operation: "SecKeychainDelete \(folder.path)", status: errSecIO,
            detail: "\(name) could not be removed: \(String(cString: strerror(errno))).")
        }
        // The folder goes only when the store was all it held.
        _ = rmdir(folder.path)
      }
    }
  }

  /// Whether `path` is a regular file (a link is not followed, and is not a store's file).
  private func lstatIsRegular(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
  }
}

import Foundation
import Security

/// Sync configured by environment variables, for processes that cannot call the API (a service
/// started by a unit file, a container):
///
/// - `KEYCHAIN_BRIDGE_SYNC_SERVER`: the server's postgres:// URL.
/// - `KEYCHAIN_BRIDGE_SYNC_PASSPHRASE`: the group's passphrase, to join the server's group.
/// - `KEYCHAIN_BRIDGE_SYNC_KEY_FILE`: instead of the passphrase, a key file `exportKey` wrote.
/// - `KEYCHAIN_BRIDGE_SYNC_KEY`: instead of either, the key file's bytes in base64 (for secret stores
///   that hand out variables, not files).
///
/// A store already in a group needs none of them: its membership is kept in the store.
public struct KeychainSyncEnvironment: Sendable, Equatable {
  /// The server's URL, when set.
  public var server: String?
  /// The passphrase, when set.
  public var passphrase: String?
  /// The key file's path, when set.
  public var keyFilePath: String?
  /// The key file's bytes, base64-encoded, when set.
  public var keyBase64: String?

  /// Reads the variables from `environment` (the process's own by default); empty ones count as unset.
  public init(_ environment: [String: String] = ProcessInfo.processInfo.environment) {
    func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    server = value("KEYCHAIN_BRIDGE_SYNC_SERVER")
    passphrase = value("KEYCHAIN_BRIDGE_SYNC_PASSPHRASE")
    keyFilePath = value("KEYCHAIN_BRIDGE_SYNC_KEY_FILE")
    keyBase64 = value("KEYCHAIN_BRIDGE_SYNC_KEY")
  }

  /// The group key file the variables give (the base64 form first, then the file), or nil.
  ///
  /// - Throws: errSecDecode for a base64 value that does not decode, errSecIO for an unreadable file.
  public func keyFile() throws(KeychainSyncError) -> Data? {
    if let keyBase64 {
      guard let bytes = Data(base64Encoded: keyBase64.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw KeychainSyncError(status: errSecDecode, message: "KEYCHAIN_BRIDGE_SYNC_KEY is not base64.")
      }
      return bytes
    }
    guard let keyFilePath else { return nil }
    guard let contents = FileManager.default.contents(atPath: keyFilePath) else {
      throw KeychainSyncError(status: errSecIO, message: "The sync key file \(keyFilePath) cannot be read.")
    }
    return contents
  }

  /// An engine for `store`, joining the group the variables name when the store is in none.
  ///
  /// - Returns: nil when the store is in no group and the variables name no server.
  /// - Throws: what joining throws; errSecParam when a server is named without a passphrase or
  ///   key file, errSecIO when the key file cannot be read.
  public func engine(for store: KeychainStore, options: KeychainSyncEngine.Options = .init())
    async throws(KeychainSyncError) -> KeychainSyncEngine?
  {
    if try KeychainSyncGroup.status(store: store) == nil {
      guard let server else { return nil }
      if let keyFile = try keyFile() {
        try await KeychainSyncGroup.join(store: store, server: server, keyFile: keyFile)
      } else if let passphrase {
        try await KeychainSyncGroup.join(store: store, server: server, passphrase: passphrase)
      } else {
        throw KeychainSyncError(
          status: errSecParam,
          message:
            "KEYCHAIN_BRIDGE_SYNC_SERVER is set without KEYCHAIN_BRIDGE_SYNC_PASSPHRASE or KEYCHAIN_BRIDGE_SYNC_KEY_FILE."
        )
      }
    }
    return try KeychainSyncEngine(store: store, options: options)
  }
}

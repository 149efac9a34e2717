import Foundation
import KeychainStorageMemory
import KeychainSync
@_exported import LocalPostgres
import Security

/// Which storage implementation a test store runs over: the sync behaviour tests run over both,
/// since sync works through the storage contract alone.
enum StorageKind: String, CaseIterable, CustomStringConvertible, Sendable {
  case sqlite
  case memory

  var description: String { rawValue }
}

/// A store in a temporary directory, with Apple-style calls routed to it.
final class TestStore: Sendable {
  let directory: URL
  let store: KeychainStore
  static let service = "sync-tests"

  init(passphrase: String? = nil, storage: StorageKind = .sqlite) throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)")
    switch storage {
    case .sqlite: store = try KeychainStore(directory: directory, passphrase: passphrase)
    case .memory: store = KeychainStore(directory: directory, storage: InMemoryItemStorage(passphrase: passphrase))
    }
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  func call<T>(_ body: () throws -> T) rethrows -> T {
    try withKeychainContext(store: store, accessGroups: ["com.example.sync"], body)
  }

  @discardableResult
  func add(
    _ account: String, _ secret: String, synchronizable: Bool = true,
    accessible: CFString = kSecAttrAccessibleAfterFirstUnlock, label: String? = nil
  ) -> OSStatus {
    var attributes: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service,
      kSecAttrAccount as String: account, kSecValueData as String: Data(secret.utf8),
      kSecAttrSynchronizable as String: synchronizable, kSecAttrAccessible as String: accessible,
    ]
    if let label { attributes[kSecAttrLabel as String] = label }
    return call { SecItemAdd(attributes as CFDictionary, nil) }
  }

  @discardableResult
  func update(_ account: String, _ secret: String) -> OSStatus {
    let query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service,
      kSecAttrAccount as String: account, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
    ]
    return call {
      SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data(secret.utf8)] as CFDictionary)
    }
  }

  @discardableResult
  func delete(_ account: String) -> OSStatus {
    let query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service,
      kSecAttrAccount as String: account, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
    ]
    return call { SecItemDelete(query as CFDictionary) }
  }

  /// Every generic password of the test service (synchronizable or not): account -> secret.
  func secrets(synchronizable: CFTypeRef = kSecAttrSynchronizableAny) -> [String: String] {
    let query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service,
      kSecAttrSynchronizable as String: synchronizable, kSecMatchLimit as String: kSecMatchLimitAll,
      kSecReturnAttributes as String: true, kSecReturnData as String: true,
    ]
    var result: CFTypeRef?
    let status = call { SecItemCopyMatching(query as CFDictionary, &result) }
    guard status == errSecSuccess, let items = result as? [[String: Any]] else { return [:] }
    var secrets: [String: String] = [:]
    for item in items {
      guard let account = item[kSecAttrAccount as String] as? String,
        let data = item[kSecValueData as String] as? Data
      else { continue }
      secrets[account] = String(decoding: data, as: UTF8.self)
    }
    return secrets
  }

  /// The attributes of one item, as SecItemCopyMatching returns them.
  func attributes(_ account: String) -> [String: Any]? {
    let query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Self.service,
      kSecAttrAccount as String: account, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
      kSecReturnAttributes as String: true,
    ]
    var result: CFTypeRef?
    guard call({ SecItemCopyMatching(query as CFDictionary, &result) }) == errSecSuccess else { return nil }
    return result as? [String: Any]
  }

  func sync() async throws -> KeychainSyncReport {
    try await KeychainSyncEngine(store: store).syncOnce()
  }
}

/// Waits until `condition` holds, up to `seconds`; returns whether it did.
func eventually(seconds: Double = 15, _ condition: () -> Bool) async -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(50))
  }
  return condition()
}

/// The database name at the end of a postgres:// URL.
func databaseName(_ url: String) -> String {
  String(url.split(separator: "/").last!.split(separator: "?").first!)
}

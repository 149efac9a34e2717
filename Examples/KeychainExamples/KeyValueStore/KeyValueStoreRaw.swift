import Foundation
import Security

/// A string key-value store for one user, with the raw Security API.
struct RawKeyValueStore {
  let service: String

  private func query(_ key: String) -> [String: Any] {
    [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: key]
  }

  /// Stores `value`, replacing a previous one: update, and add when there was nothing to update.
  func set(_ value: String, for key: String) -> OSStatus {
    let changes: [String: Any] = [kSecValueData as String: Data(value.utf8)]
    let status = SecItemUpdate(query(key) as CFDictionary, changes as CFDictionary)
    guard status == errSecItemNotFound else { return status }
    var attributes = query(key)
    attributes[kSecValueData as String] = Data(value.utf8)
    return SecItemAdd(attributes as CFDictionary, nil)
  }

  /// The value for `key`; nil with errSecItemNotFound when there is none.
  func get(_ key: String) -> (status: OSStatus, value: String?) {
    var query = query(key)
    query[kSecReturnData as String] = true
    query[kSecMatchLimit as String] = kSecMatchLimitOne
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    guard status == errSecSuccess, let data = result as? Data else { return (status, nil) }
    return (status, String(data: data, encoding: .utf8))
  }
}

extension KeyValueStoreExample {
  public static let rawSource = #filePath

  public static func raw(_ environment: ExampleEnvironment) -> [String] {
    let store = RawKeyValueStore(service: "com.example.settings")
    var log = [
      "set theme=dark: \(describe(store.set("dark", for: "theme")))",
      "set theme=light: \(describe(store.set("light", for: "theme")))",
      "set token=abc: \(describe(store.set("abc", for: "token")))",
    ]
    for key in ["theme", "token", "missing"] {
      let (status, value) = store.get(key)
      log.append("get \(key): " + (value ?? (status == errSecItemNotFound ? "absent" : "error \(status)")))
    }
    return log
  }
}

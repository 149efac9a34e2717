import Foundation
import Keychain

/// A string key-value store for one user, with the DSL.
struct KeyValueStore {
  let service: String

  /// Stores `value`, replacing a previous one, in one transaction.
  func set(_ value: String, for key: String) -> Result<Void, KeychainError> {
    GenericPassword().service(service).account(key).set(value)
  }

  /// The value for `key`, or nil.
  func get(_ key: String) -> Result<String?, KeychainError> {
    GenericPassword().service(service).account(key).string()
  }
}

/// Example 1: a string key-value store.
public enum KeyValueStoreExample: KeychainExample {
  public static let name = "key-value-store"
  public static let title = "String key-value store: set (replaces), get (absent when missing)"
  public static let dslSource = #filePath

  public static func dsl(_ environment: ExampleEnvironment) -> [String] {
    let store = KeyValueStore(service: "com.example.settings")
    var log = [
      "set theme=dark: \(describe(store.set("dark", for: "theme")))",
      "set theme=light: \(describe(store.set("light", for: "theme")))",
      "set token=abc: \(describe(store.set("abc", for: "token")))",
    ]
    for key in ["theme", "token", "missing"] {
      switch store.get(key) {
      case .success(let value): log.append("get \(key): " + (value ?? "absent"))
      case .failure(let error): log.append("get \(key): error \(error.status)")
      }
    }
    return log
  }
}

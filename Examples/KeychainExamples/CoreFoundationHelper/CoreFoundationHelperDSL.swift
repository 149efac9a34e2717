import Foundation
import Keychain

/// The same helper with the DSL.
enum CFKeychainHelper {
  static func item(account: String, service: String) -> GenericPassword {
    GenericPassword().account(account).service(service).accessibility(.whenUnlocked)
  }

  static func set(_ data: Data, account: String, service: String) -> Result<Void, KeychainError> {
    item(account: account, service: service).set(data)
  }

  static func get(account: String, service: String) -> Data? {
    try? item(account: account, service: service).data().get()
  }
}

/// Example 4: a Core-Foundation-style helper.
public enum CoreFoundationHelperExample: KeychainExample {
  public static let name = "cf-helper"
  public static let title = "Core-Foundation-style helper: WhenUnlocked, set that replaces, get with limit one"
  public static let dslSource = #filePath

  public static func dsl(_ environment: ExampleEnvironment) -> [String] {
    [
      "set v1: \(describe(CFKeychainHelper.set(Data("v1".utf8), account: "alice", service: "cf.service")))",
      "set v2: \(describe(CFKeychainHelper.set(Data("v2".utf8), account: "alice", service: "cf.service")))",
      "get: "
        + (CFKeychainHelper.get(account: "alice", service: "cf.service").map { String(decoding: $0, as: UTF8.self) }
          ?? "absent"),
      "get other: "
        + (CFKeychainHelper.get(account: "bob", service: "cf.service").map { String(decoding: $0, as: UTF8.self) }
          ?? "absent"),
    ]
  }
}

import Foundation
import Security

/// A Core-Foundation-style helper, written the way much Objective-C-era code is: CFString keys,
/// kCFBooleanTrue, casts from CFTypeRef.
enum RawCFKeychainHelper {
  /// Finds the item by its primary key only (account and service), so a stored item with another
  /// accessibility is updated rather than added again as a duplicate.
  static func set(_ data: Data, account: String, service: String) -> OSStatus {
    let query: [CFString: Any] = [
      kSecClass: kSecClassGenericPassword, kSecAttrAccount: account, kSecAttrService: service,
    ]
    let update: [CFString: Any] = [kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked, kSecValueData: data]
    let status = SecItemUpdate(query as CFDictionary, update as CFDictionary)
    guard status == errSecItemNotFound else { return status }
    let add = query.merging(update) { _, new in new }
    return SecItemAdd(add as CFDictionary, nil)
  }

  static func get(account: String, service: String) -> Data? {
    let query: [CFString: Any] = [
      kSecClass: kSecClassGenericPassword, kSecAttrAccount: account, kSecAttrService: service,
      kSecAttrAccessible: kSecAttrAccessibleWhenUnlocked, kSecReturnData: kCFBooleanTrue!,
      kSecMatchLimit: kSecMatchLimitOne,
    ]
    var result: AnyObject?
    let status = withUnsafeMutablePointer(to: &result) { SecItemCopyMatching(query as CFDictionary, $0) }
    return status == noErr ? result as? Data : nil
  }
}

extension CoreFoundationHelperExample {
  public static let rawSource = #filePath

  public static func raw(_ environment: ExampleEnvironment) -> [String] {
    [
      "set v1: \(describe(RawCFKeychainHelper.set(Data("v1".utf8), account: "alice", service: "cf.service")))",
      "set v2: \(describe(RawCFKeychainHelper.set(Data("v2".utf8), account: "alice", service: "cf.service")))",
      "get: "
        + (RawCFKeychainHelper.get(account: "alice", service: "cf.service").map { String(decoding: $0, as: UTF8.self) }
          ?? "absent"),
      "get other: "
        + (RawCFKeychainHelper.get(account: "bob", service: "cf.service").map { String(decoding: $0, as: UTF8.self) }
          ?? "absent"),
    ]
  }
}

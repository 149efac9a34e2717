// A program written for Apple's Keychain Services, exactly as one would write it on macOS or iOS.
// It compiles unchanged against KeychainBridge's `Security` module and runs on Linux.
import Foundation
import Security

enum KeychainDemoError: Error {
  case unexpectedStatus(OSStatus, String)
}

func check(_ status: OSStatus, _ step: String) throws {
  guard status == errSecSuccess else {
    let message = SecCopyErrorMessageString(status, nil) as String? ?? "unknown"
    throw KeychainDemoError.unexpectedStatus(status, "\(step): \(message)")
  }
}

let service = "com.example.demo"
let account = "alice"

// Start from a clean slate, as many apps do on first launch.
_ = SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary)
_ = SecItemDelete(
  [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com"] as CFDictionary)

// Add a generic password.
let addQuery: [String: Any] = [
  kSecClass as String: kSecClassGenericPassword,
  kSecAttrService as String: service,
  kSecAttrAccount as String: account,
  kSecAttrLabel as String: "Demo token",
  kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
  kSecValueData as String: "s3cret".data(using: .utf8)!,
]
try check(SecItemAdd(addQuery as CFDictionary, nil), "add generic password")
print("added generic password for \(account)")

// A second add of the same account and service is a duplicate.
let duplicate = SecItemAdd(addQuery as CFDictionary, nil)
print(
  "adding it again: \(duplicate == errSecDuplicateItem ? "errSecDuplicateItem, as expected" : "status \(duplicate)")")

// Find it with data and attributes.
let findQuery: [String: Any] = [
  kSecClass as String: kSecClassGenericPassword,
  kSecAttrService as String: service,
  kSecAttrAccount as String: account,
  kSecMatchLimit as String: kSecMatchLimitOne,
  kSecReturnAttributes as String: true,
  kSecReturnData as String: true,
]
var item: CFTypeRef?
try check(SecItemCopyMatching(findQuery as CFDictionary, &item), "find generic password")
guard let existingItem = item as? [String: Any],
  let passwordData = existingItem[kSecValueData as String] as? Data,
  let password = String(data: passwordData, encoding: .utf8),
  let foundAccount = existingItem[kSecAttrAccount as String] as? String
else {
  throw KeychainDemoError.unexpectedStatus(errSecDecode, "unexpected result shape")
}
print(
  "found \(foundAccount) with password of \(password.count) characters, label \(existingItem[kSecAttrLabel as String] ?? "none")"
)

// Update the password.
let attributesToUpdate: [String: Any] = [kSecValueData as String: "n3w-s3cret".data(using: .utf8)!]
try check(
  SecItemUpdate(
    [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
      kSecAttrAccount as String: account,
    ]
      as CFDictionary, attributesToUpdate as CFDictionary), "update generic password")
var updated: AnyObject?
let status = withUnsafeMutablePointer(to: &updated) {
  SecItemCopyMatching(
    [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecReturnData: kCFBooleanTrue!] as CFDictionary, $0
  )
}
try check(status, "read updated password")
print("updated password is \(String(data: updated as! Data, encoding: .utf8)!.count) characters long")

// Internet passwords: add, find by server, delete.
let internetItem: [String: Any] = [
  kSecClass as String: kSecClassInternetPassword,
  kSecAttrServer as String: "example.com",
  kSecAttrAccount as String: account,
  kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
  kSecAttrPort as String: 443,
  kSecAttrPath as String: "/login",
  kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm,
  kSecValueData as String: Data("hunter2".utf8),
]
try check(SecItemAdd(internetItem as CFDictionary, nil), "add internet password")
var internetResults: CFTypeRef?
try check(
  SecItemCopyMatching(
    [
      kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
      kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
    ] as CFDictionary, &internetResults), "find internet passwords")
let entries = internetResults as? [[String: Any]] ?? []
for entry in entries {
  print(
    "internet password: \(entry[kSecAttrAccount as String] ?? "?")@\(entry[kSecAttrServer as String] ?? "?"):\(entry[kSecAttrPort as String] ?? "?")"
  )
}

// Delete both.
try check(
  SecItemDelete(
    [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com"] as CFDictionary),
  "delete internet password")
try check(
  SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary),
  "delete generic password")
let gone = SecItemCopyMatching(
  [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary, nil)
print("after delete: \(gone == errSecItemNotFound ? "errSecItemNotFound" : "status \(gone)")")

import Foundation
import Security

/// Replacing a WhenUnlocked secret while the device may be locked, with the raw Security API.
enum RawLockedSecret {
  static var query: [String: Any] {
    [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.vault",
      kSecAttrAccount as String: "master", kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
    ]
  }

  static func read() -> (OSStatus, String?) {
    var query = query
    query[kSecReturnData as String] = true
    query[kSecMatchLimit as String] = kSecMatchLimitOne
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
  }

  /// Replaces the secret the careful way: update the item found by its primary key (the
  /// accessibility is a change, not a filter), and add only when nothing was there.
  static func replace(with secret: String) -> OSStatus {
    var identity = query
    identity[kSecAttrAccessible as String] = nil
    let changes: [String: Any] = [
      kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked, kSecValueData as String: Data(secret.utf8),
    ]
    let status = SecItemUpdate(identity as CFDictionary, changes as CFDictionary)
    guard status == errSecItemNotFound else { return status }
    return SecItemAdd(identity.merging(changes) { _, new in new } as CFDictionary, nil)
  }

  /// Replaces the secret the common way: delete, then add. If the add fails, the secret is gone.
  static func replaceByDeleteThenAdd(with secret: String) -> OSStatus {
    _ = SecItemDelete(query as CFDictionary)
    var attributes = query
    attributes[kSecValueData as String] = Data(secret.utf8)
    return SecItemAdd(attributes as CFDictionary, nil)
  }
}

extension LockStateExample {
  public static let rawSource = #filePath

  public static func raw(_ environment: ExampleEnvironment) -> [String] {
    var log = ["store: \(describe(RawLockedSecret.replace(with: "original")))"]
    environment.lockDevice()
    let (lockedStatus, _) = RawLockedSecret.read()
    log.append("read while locked: \(describe(lockedStatus))")
    log.append("replace while locked: \(describe(RawLockedSecret.replace(with: "new")))")
    environment.unlockDevice()
    let (status, secret) = RawLockedSecret.read()
    log.append("read after unlock: \(secret ?? describe(status))")
    return log
  }

  /// The delete-then-add version of the same scenario, shown beside the comparison: it loses the secret.
  public static func rawDeleteThenAdd(_ environment: ExampleEnvironment) -> [String] {
    var log = ["store: \(describe(RawLockedSecret.replace(with: "original")))"]
    environment.lockDevice()
    log.append(
      "replace while locked by delete-then-add: \(describe(RawLockedSecret.replaceByDeleteThenAdd(with: "new")))")
    environment.unlockDevice()
    let (status, secret) = RawLockedSecret.read()
    log.append("read after unlock: \(secret ?? describe(status))")
    return log
  }
}

import Foundation
import KeychainCrypto
import Security
import Testing

@testable import KeychainStorageSQLite

/// The store's keys in memory: locking releases the keys it must drop, so they are wiped (a
/// `SecretKey` is wiped as it is freed), and a call in flight keeps the ring it started with.
@Suite struct KeyRingTests {
  static func ring() throws -> KeyRing {
    var storeKey = [UInt8](repeating: 7, count: 32)
    return try KeyRing(storeKey: SecretKey(taking: &storeKey))
  }

  @Test func lockingFreesTheStoreKeyAndTheWhenUnlockedKeysAndKeepsTheOthers() throws {
    var ring = try Self.ring()
    weak let storeKey = ring.storeKey
    weak let whenUnlocked = try ring.classKey(for: "ak")
    weak let whenPasscodeSet = try ring.classKey(for: "akpu")
    weak let afterFirstUnlock = try ring.classKey(for: "ck")
    weak let metadata = ring.metadataKey
    ring.lock()
    #expect(storeKey == nil)
    #expect(whenUnlocked == nil)
    #expect(whenPasscodeSet == nil)
    #expect(afterFirstUnlock != nil)
    #expect(metadata != nil)
    #expect(throws: SecStatus.interactionNotAllowed) { try ring.classKey(for: "ak") }
    ring.close()
    #expect(afterFirstUnlock == nil)
    #expect(metadata == nil)
    #expect(ring.locked)
  }

  @Test func aCallInFlightKeepsItsKeysUntilItEnds() throws {
    var ring = try Self.ring()
    weak let storeKey = ring.storeKey
    var inFlight: KeyRing? = ring
    ring.lock()
    #expect(storeKey != nil)
    #expect(try inFlight?.classKey(for: "ak") != nil)
    inFlight = nil
    #expect(storeKey == nil)
  }

  @Test func aStoreThatDroppedItsKeysAnswersInteractionNotAllowedUntilUnlocked() throws {
    // Embedded on purpose (keychaind calls this on SIGTERM): over the agent, a client's dropKeys
    // does nothing, since the keys are the agent's.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-drop-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try KeychainStore(directory: directory)
    let item: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "kept",
      kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
    ]
    let query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "kept",
      kSecReturnData as String: true,
    ]
    withKeychainContext(store: store, accessGroups: ["g"]) {
      var attributes = item
      attributes[kSecValueData as String] = Data("secret".utf8)
      #expect(SecItemAdd(attributes as CFDictionary, nil) == errSecSuccess)
    }
    store.keys.dropKeys()
    withKeychainContext(store: store, accessGroups: ["g"]) {
      // An AfterFirstUnlock item, which a lock leaves readable: after dropKeys nothing is.
      #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecInteractionNotAllowed)
      #expect(SecItemDelete(item as CFDictionary) == errSecInteractionNotAllowed)
    }
    #expect(store.unlock(passphrase: nil) == errSecSuccess)
    withKeychainContext(store: store, accessGroups: ["g"]) {
      var result: CFTypeRef?
      #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
      #expect(result as? Data == Data("secret".utf8))
    }
  }
}

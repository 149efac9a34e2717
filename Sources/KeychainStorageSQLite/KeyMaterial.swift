import Foundation
import KeychainCrypto
import Security

/// The keys of an open store, derived from its 256-bit store key.
///
/// Locking drops the store key and the keys of WhenUnlocked items; metadata, index and the
/// AfterFirstUnlock and Always keys stay, so metadata-only queries and those items keep working
/// (SpecificationDecisions, "Lock state"). Each key is a `SecretKey`: one allocation, in the
/// secure heap where the program enabled it (keychaind does), wiped when the last ring that holds
/// it is gone (a call in flight keeps the ring it started with).
struct KeyRing: Sendable {
  private(set) var storeKey: SecretKey?
  private(set) var metadataKey: SecretKey?
  private(set) var indexKey: SecretKey?
  /// The index key prepared for HMAC, so each digest skips OpenSSL's algorithm lookup.
  private(set) var indexMAC: HMAC.Prepared?
  private var classKeys: [String: SecretKey] = [:]
  /// A value that proves which store key is in use, kept in the database to detect a wrong key.
  private(set) var keyCheck: [UInt8]?
  private(set) var locked = true
  private(set) var everUnlocked = false

  /// A store that was never unlocked in this process (a passphrase store opened without it).
  static let sealed = KeyRing()

  init() {}

  init(storeKey: SecretKey) throws(CryptoError) {
    self.storeKey = storeKey
    metadataKey = try HKDF.subkeyKey(of: storeKey, label: "keychain-bridge/metadata/v1")
    let indexKey = try HKDF.subkeyKey(of: storeKey, label: "keychain-bridge/index/v1")
    self.indexKey = indexKey
    indexMAC = try HMAC.Prepared(key: indexKey)
    // Not secret: the database keeps it.
    keyCheck = try HKDF.subkey(of: storeKey, label: "keychain-bridge/key-check/v1")
    for protection in ItemIndex.protectionClasses.keys {
      classKeys[protection] = try HKDF.subkeyKey(of: storeKey, label: "keychain-bridge/class/\(protection)/v1")
    }
    locked = false
    everUnlocked = true
  }

  /// The key that seals the data of items with this protection, or errSecInteractionNotAllowed when
  /// the lock state makes it unavailable.
  func classKey(for protection: String) throws(SecStatus) -> SecretKey {
    guard let accessibility = ItemIndex.protectionClasses[protection] else { throw .decode }
    guard accessibility.isAvailable(locked: locked, everUnlocked: everUnlocked),
      let key = classKeys[protection]
    else { throw .interactionNotAllowed }
    return key
  }

  /// Drops the store key and the WhenUnlocked keys; each is wiped as soon as no call in flight
  /// holds it.
  mutating func lock() {
    guard !locked else { return }
    storeKey = nil
    keyCheck = nil
    for (protection, accessibility) in ItemIndex.protectionClasses
    where accessibility == .whenUnlocked || accessibility == .whenPasscodeSet {
      classKeys[protection] = nil
    }
    locked = true
  }

  /// Drops every key (the store is closing): what `lock` keeps goes too.
  mutating func close() {
    self = .sealed
  }
}

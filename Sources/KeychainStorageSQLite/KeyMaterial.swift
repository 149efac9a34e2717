import Foundation
import KeychainCrypto
import Security

/// The keys of an open store, derived from its 256-bit store key.
///
/// Locking drops the store key and the keys of WhenUnlocked items; metadata, index and the
/// AfterFirstUnlock and Always keys stay, so metadata-only queries and those items keep working
/// (SpecificationDecisions, "Lock state").
struct KeyRing: Sendable {
  private(set) var storeKey: [UInt8]?
  private(set) var metadataKey: [UInt8]?
  private(set) var indexKey: [UInt8]?
  /// The index key prepared for HMAC, so each digest skips OpenSSL's algorithm lookup.
  private(set) var indexMAC: HMAC.Prepared?
  private var classKeys: [String: [UInt8]] = [:]
  /// A value that proves which store key is in use, kept in the database to detect a wrong key.
  private(set) var keyCheck: [UInt8]?
  private(set) var locked = true
  private(set) var everUnlocked = false

  /// A store that was never unlocked in this process (a passphrase store opened without it).
  static let sealed = KeyRing()

  init() {}

  init(storeKey: [UInt8]) throws(CryptoError) {
    self.storeKey = storeKey
    metadataKey = try HKDF.subkey(of: storeKey, label: "keychain-bridge/metadata/v1")
    let indexKey = try HKDF.subkey(of: storeKey, label: "keychain-bridge/index/v1")
    self.indexKey = indexKey
    indexMAC = try HMAC.Prepared(key: indexKey)
    keyCheck = try HKDF.subkey(of: storeKey, label: "keychain-bridge/key-check/v1")
    for protection in ItemIndex.protectionClasses.keys {
      classKeys[protection] = try HKDF.subkey(of: storeKey, label: "keychain-bridge/class/\(protection)/v1")
    }
    locked = false
    everUnlocked = true
  }

  /// The key that seals the data of items with this protection, or errSecInteractionNotAllowed when
  /// the lock state makes it unavailable.
  func classKey(for protection: String) throws(SecStatus) -> [UInt8] {
    guard let accessibility = ItemIndex.protectionClasses[protection] else { throw .decode }
    guard accessibility.isAvailable(locked: locked, everUnlocked: everUnlocked),
      let key = classKeys[protection]
    else { throw .interactionNotAllowed }
    return key
  }

  mutating func lock() {
    guard !locked else { return }
    if storeKey != nil { SecureBytes.wipe(&storeKey!) }
    storeKey = nil
    keyCheck = nil
    for (protection, accessibility) in ItemIndex.protectionClasses
    where accessibility == .whenUnlocked || accessibility == .whenPasscodeSet {
      if classKeys[protection] != nil { SecureBytes.wipe(&classKeys[protection]!) }
      classKeys[protection] = nil
    }
    locked = true
  }
}

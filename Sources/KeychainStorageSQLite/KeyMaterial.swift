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
  /// The keys, in one immutable object: every call copies the ring it works with, and a copy
  /// then retains one object instead of each key (two threads reading at once made each of those
  /// shared reference counts a cache line the cores passed back and forth).
  private final class Keys: Sendable {
    let storeKey: SecretKey?
    let metadataKey: SecretKey?
    let indexKey: SecretKey?
    let indexMAC: HMAC.Prepared?
    let classKeys: [String: SecretKey]
    let keyCheck: [UInt8]?

    init(
      storeKey: SecretKey?, metadataKey: SecretKey?, indexKey: SecretKey?, indexMAC: HMAC.Prepared?,
      classKeys: [String: SecretKey], keyCheck: [UInt8]?
    ) {
      self.storeKey = storeKey
      self.metadataKey = metadataKey
      self.indexKey = indexKey
      self.indexMAC = indexMAC
      self.classKeys = classKeys
      self.keyCheck = keyCheck
    }

    static let none = Keys(
      storeKey: nil, metadataKey: nil, indexKey: nil, indexMAC: nil, classKeys: [:], keyCheck: nil)
  }

  private var keys: Keys
  private(set) var locked = true
  private(set) var everUnlocked = false

  var storeKey: SecretKey? { keys.storeKey }
  var metadataKey: SecretKey? { keys.metadataKey }
  var indexKey: SecretKey? { keys.indexKey }
  /// The index key prepared for HMAC, so each digest skips OpenSSL's algorithm lookup.
  var indexMAC: HMAC.Prepared? { keys.indexMAC }
  /// A value that proves which store key is in use, kept in the database to detect a wrong key.
  var keyCheck: [UInt8]? { keys.keyCheck }

  /// A store that was never unlocked in this process (a passphrase store opened without it).
  static let sealed = KeyRing()

  init() { keys = .none }

  init(storeKey: SecretKey) throws(CryptoError) {
    let indexKey = try HKDF.subkeyKey(of: storeKey, label: "keychain-bridge/index/v1")
    var classKeys: [String: SecretKey] = [:]
    for protection in ItemIndex.protectionClasses.keys {
      classKeys[protection] = try HKDF.subkeyKey(of: storeKey, label: "keychain-bridge/class/\(protection)/v1")
    }
    keys = Keys(
      storeKey: storeKey, metadataKey: try HKDF.subkeyKey(of: storeKey, label: "keychain-bridge/metadata/v1"),
      indexKey: indexKey, indexMAC: try HMAC.Prepared(key: indexKey), classKeys: classKeys,
      // Not secret: the database keeps it.
      keyCheck: try HKDF.subkey(of: storeKey, label: "keychain-bridge/key-check/v1"))
    locked = false
    everUnlocked = true
  }

  /// The key that seals the data of items with this protection, or errSecInteractionNotAllowed when
  /// the lock state makes it unavailable.
  func classKey(for protection: String) throws(SecStatus) -> SecretKey {
    guard let accessibility = ItemIndex.protectionClasses[protection] else { throw .decode }
    guard accessibility.isAvailable(locked: locked, everUnlocked: everUnlocked),
      let key = keys.classKeys[protection]
    else { throw .interactionNotAllowed }
    return key
  }

  /// Drops the store key and the WhenUnlocked keys; each is wiped as soon as no call in flight
  /// holds it.
  mutating func lock() {
    guard !locked else { return }
    let kept = keys.classKeys.filter { protection, _ in
      let accessibility = ItemIndex.protectionClasses[protection]
      return accessibility != .whenUnlocked && accessibility != .whenPasscodeSet
    }
    keys = Keys(
      storeKey: nil, metadataKey: keys.metadataKey, indexKey: keys.indexKey, indexMAC: keys.indexMAC,
      classKeys: kept, keyCheck: nil)
    locked = true
  }

  /// Drops every key (the store is closing): what `lock` keeps goes too.
  mutating func close() {
    self = .sealed
  }
}

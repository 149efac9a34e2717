import Foundation
import Security

/// The keys of an open store, derived from its 256-bit store key.
///
/// Locking drops the store key and the keys of WhenUnlocked items; metadata, index and the
/// AfterFirstUnlock and Always keys stay, so metadata-only queries and those items keep working
/// (shared/spec/README.md, "Lock state").
struct KeyRing: Sendable {
  private(set) var storeKey: [UInt8]?
  private(set) var metadataKey: [UInt8]?
  private(set) var indexKey: [UInt8]?
  /// The index key prepared for HMAC, so each digest skips OpenSSL's algorithm lookup.
  private(set) var indexMAC: OpenSSLCrypto.KeyedHMAC?
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
    metadataKey = try OpenSSLCrypto.deriveKey(from: storeKey, label: "keychain-bridge/metadata/v1")
    let indexKey = try OpenSSLCrypto.deriveKey(from: storeKey, label: "keychain-bridge/index/v1")
    self.indexKey = indexKey
    indexMAC = try OpenSSLCrypto.KeyedHMAC(key: indexKey)
    keyCheck = try OpenSSLCrypto.deriveKey(from: storeKey, label: "keychain-bridge/key-check/v1")
    for protection in ItemSchema.accessibilityValues.keys {
      classKeys[protection] = try OpenSSLCrypto.deriveKey(
        from: storeKey, label: "keychain-bridge/class/\(protection)/v1")
    }
    locked = false
    everUnlocked = true
  }

  /// The key that seals the data of items with this protection, or errSecInteractionNotAllowed when
  /// the lock state makes it unavailable.
  func classKey(for protection: String) throws(SecStatus) -> [UInt8] {
    guard let accessibility = ItemSchema.accessibilityValues[protection] else { throw .decode }
    guard accessibility.isAvailable(locked: locked, everUnlocked: everUnlocked),
      let key = classKeys[protection]
    else { throw .interactionNotAllowed }
    return key
  }

  mutating func lock() {
    guard !locked else { return }
    if storeKey != nil { OpenSSLCrypto.wipe(&storeKey!) }
    storeKey = nil
    keyCheck = nil
    for (protection, accessibility) in ItemSchema.accessibilityValues
    where accessibility == .whenUnlocked || accessibility == .whenPasscodeSet {
      if classKeys[protection] != nil { OpenSSLCrypto.wipe(&classKeys[protection]!) }
      classKeys[protection] = nil
    }
    locked = true
  }
}

/// The key file: the store key itself, or the store key sealed under a passphrase.
///
/// Layout: "KBK1", a mode byte, then for mode 0 the 32-byte key; for mode 1 scrypt's log2(N), r and
/// p, a 16-byte salt and the AES-256-GCM sealed key (the header is its associated data).
enum KeyFile {
  static let magic = Array("KBK1".utf8)
  static let scryptLogN: UInt8 = 15
  static let scryptR: UInt32 = 8
  static let scryptP: UInt32 = 1

  /// The contents of a new key file holding `storeKey`, sealed when a passphrase is given.
  static func encode(storeKey: [UInt8], passphrase: String?) throws(SecStatus) -> [UInt8] {
    guard let passphrase else { return magic + [0] + storeKey }
    do {
      let salt = try OpenSSLCrypto.randomBytes(16)
      var header = magic + [1, scryptLogN]
      withUnsafeBytes(of: scryptR.littleEndian) { header.append(contentsOf: $0) }
      withUnsafeBytes(of: scryptP.littleEndian) { header.append(contentsOf: $0) }
      header += salt
      let wrappingKey = try OpenSSLCrypto.scrypt(
        passphrase: Array(passphrase.utf8), salt: salt, logN: scryptLogN, r: UInt64(scryptR), p: UInt64(scryptP))
      return header + (try OpenSSLCrypto.seal(storeKey, key: wrappingKey, associatedData: header))
    } catch {
      throw error.status
    }
  }

  /// Whether the file's key is sealed by a passphrase.
  static func needsPassphrase(_ contents: [UInt8]) throws(SecStatus) -> Bool {
    guard contents.count >= 5, Array(contents[0..<4]) == magic else { throw .decode }
    switch contents[4] {
    case 0: return false
    case 1: return true
    default: throw .decode
    }
  }

  /// The store key in `contents`: errSecDecode for a damaged file, errSecAuthFailed for a wrong
  /// passphrase, errSecInteractionNotAllowed when a passphrase is needed and none was given.
  static func decode(_ contents: [UInt8], passphrase: String?) throws(SecStatus) -> [UInt8] {
    if try !needsPassphrase(contents) {
      guard contents.count == 5 + OpenSSLCrypto.keyLength else { throw .decode }
      return Array(contents[5...])
    }
    let headerLength = 4 + 1 + 1 + 4 + 4 + 16
    guard contents.count == headerLength + OpenSSLCrypto.nonceLength + OpenSSLCrypto.keyLength + OpenSSLCrypto.tagLength
    else { throw .decode }
    guard let passphrase else { throw .interactionNotAllowed }
    let header = Array(contents[0..<headerLength])
    let logN = contents[5]
    let r = contents[6..<10].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let p = contents[10..<14].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    // Bounds keep a hostile key file from asking scrypt for unbounded memory or time.
    guard (10...20).contains(logN), (1...16).contains(r), (1...4).contains(p) else { throw .decode }
    let salt = Array(contents[14..<30])
    do {
      let wrappingKey = try OpenSSLCrypto.scrypt(
        passphrase: Array(passphrase.utf8), salt: salt, logN: logN, r: r, p: p)
      return try OpenSSLCrypto.open(Array(contents[headerLength...]), key: wrappingKey, associatedData: header)
    } catch .authenticationFailed {
      throw .authFailed
    } catch {
      throw error.status
    }
  }
}

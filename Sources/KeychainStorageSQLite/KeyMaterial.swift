import Foundation
import KeychainCrypto
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
    for protection in ItemSchema.accessibilityValues.keys {
      classKeys[protection] = try HKDF.subkey(of: storeKey, label: "keychain-bridge/class/\(protection)/v1")
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
    if storeKey != nil { SecureBytes.wipe(&storeKey!) }
    storeKey = nil
    keyCheck = nil
    for (protection, accessibility) in ItemSchema.accessibilityValues
    where accessibility == .whenUnlocked || accessibility == .whenPasscodeSet {
      if classKeys[protection] != nil { SecureBytes.wipe(&classKeys[protection]!) }
      classKeys[protection] = nil
    }
    locked = true
  }
}

/// The cost of one scrypt: log2 of N, the block size r and the parallelism p.
///
/// Key files name their cost in their header; a reader accepts only the costs the project writes
/// (never a cost read from the file alone), so a planted header cannot make an open take gigabytes
/// of memory or minutes before it fails.
struct ScryptCost: Equatable, Sendable {
  var logN: UInt8
  var r: UInt32
  var p: UInt32

  /// A store's key file: about 32 MiB and 0.1 s per unlock, paid by every process that unlocks.
  static let storeKey = ScryptCost(logN: 15, r: 8, p: 1)
  /// A sync group's key as the server keeps it: 1 GiB and about 5 s per try, so that a server
  /// operator guessing the passphrase pays that for every guess (KeychainSync's threat model).
  static let syncGroup = ScryptCost(logN: 20, r: 8, p: 1)
}

/// The key file: the store key itself, or the store key sealed under a passphrase.
///
/// Layout: "KBK1", a mode byte, then for mode 0 the 32-byte key; for mode 1 scrypt's log2(N), r and
/// p, a 16-byte salt and the AES-256-GCM sealed key (the header is its associated data).
enum KeyFile {
  static let magic = Array("KBK1".utf8)
  private static let headerLength = 4 + 1 + 1 + 4 + 4 + 16
  /// The length of a sealed key file; a plain one is 5 + 32 bytes.
  static let sealedLength = headerLength + AES.GCM.standardNonceByteCount + StoreKeys.keyLength + AES.GCM.tagByteCount

  /// The contents of a new key file holding `storeKey`, sealed at `cost` when a passphrase is given.
  static func encode(storeKey: [UInt8], passphrase: String?, cost: ScryptCost = .storeKey) throws(SecStatus)
    -> [UInt8]
  {
    guard let passphrase else { return magic + [0] + storeKey }
    do {
      let salt = try SecureBytes.random(count: 16)
      var header = magic + [1, cost.logN]
      withUnsafeBytes(of: cost.r.littleEndian) { header.append(contentsOf: $0) }
      withUnsafeBytes(of: cost.p.littleEndian) { header.append(contentsOf: $0) }
      header += salt
      var wrappingKey = try Scrypt.deriveKey(
        passphrase: Array(passphrase.utf8), salt: salt, logN: cost.logN, r: cost.r, p: cost.p)
      defer { SecureBytes.wipe(&wrappingKey) }
      return header + (try AES.GCM.seal(storeKey, using: wrappingKey, authenticating: header))
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

  /// The scrypt cost a sealed key file names in its header.
  static func cost(_ contents: [UInt8]) throws(SecStatus) -> ScryptCost {
    guard contents.count == sealedLength, try needsPassphrase(contents) else { throw .decode }
    func uint32(_ offset: Int) -> UInt32 {
      contents[offset..<offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
    return ScryptCost(logN: contents[5], r: uint32(6), p: uint32(10))
  }

  /// The store key in `contents`: errSecDecode for a damaged file (or one naming a scrypt cost
  /// outside `accepted`), errSecAuthFailed for a wrong passphrase, errSecInteractionNotAllowed when
  /// a passphrase is needed and none was given.
  static func decode(_ contents: [UInt8], passphrase: String?, accepted: [ScryptCost] = [.storeKey])
    throws(SecStatus) -> [UInt8]
  {
    if try !needsPassphrase(contents) {
      guard contents.count == 5 + StoreKeys.keyLength else { throw .decode }
      return Array(contents[5...])
    }
    let cost = try cost(contents)
    guard accepted.contains(cost) else {
      throw SecStatus(errSecDecode, detail: "the key file names a key-derivation cost this project never writes")
    }
    guard let passphrase else { throw .interactionNotAllowed }
    let header = Array(contents[0..<headerLength])
    let salt = Array(contents[14..<30])
    do {
      var wrappingKey = try Scrypt.deriveKey(
        passphrase: Array(passphrase.utf8), salt: salt, logN: cost.logN, r: cost.r, p: cost.p)
      defer { SecureBytes.wipe(&wrappingKey) }
      return try AES.GCM.open(combined: Array(contents[headerLength...]), using: wrappingKey, authenticating: header)
    } catch .authenticationFailed {
      throw .authFailed
    } catch {
      throw error.status
    }
  }
}

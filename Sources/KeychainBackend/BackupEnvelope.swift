import Foundation
import KeychainCrypto
import KeychainStorageSQLite
import Security

/// The sealed envelope of a keychain backup (what `security export-keychain` writes), and of the
/// secret of an item protected by an application password, which is sealed the same way under
/// that password (the item's data, key material included, cannot be read without it).
///
/// Layout: "KBBK" ("KBAP" for an item's secret), a format byte (1), scrypt's log2(N), r and p (little-endian UInt32s), a 16-byte
/// salt, then AES-256-GCM's nonce, ciphertext and tag. The header is the cipher's associated data,
/// so changing a parameter is as detectable as changing a ciphertext byte. The parameters travel in
/// the file so that a later version can raise them and still read older backups.
enum BackupEnvelope {
  /// What an envelope holds: its magic, and the name its errors give it.
  struct Kind {
    let magic: [UInt8]
    /// What the errors start with, and what they call the sealed bytes.
    let context: String
    let subject: String
    /// What the bytes should have been.
    let what: String
    var name: String { "\(context): \(subject)" }
    static let backup = Kind(
      magic: Array("KBBK".utf8), context: "Backup", subject: "the file", what: "a keychain backup")
    static let itemSecret = Kind(
      magic: Array("KBAP".utf8), context: "Application password", subject: "the item's sealed secret",
      what: "sealed under an application password")
  }

  static let formatVersion: UInt8 = 1
  static let scryptLogN: UInt8 = 15
  static let scryptR: UInt32 = 8
  static let scryptP: UInt32 = 1
  static let headerLength = 4 + 1 + 1 + 4 + 4 + 16

  /// The envelope of `plaintext`, sealed under a key scrypt derives from `passphrase`.
  static func seal(_ plaintext: [UInt8], passphrase: [UInt8], kind: Kind = .backup) throws(SecStatus) -> [UInt8] {
    do {
      let salt = try SecureBytes.random(count: 16)
      var header = kind.magic + [formatVersion, scryptLogN]
      withUnsafeBytes(of: scryptR.littleEndian) { header.append(contentsOf: $0) }
      withUnsafeBytes(of: scryptP.littleEndian) { header.append(contentsOf: $0) }
      header += salt
      var key = try Scrypt.deriveKey(
        passphrase: passphrase, salt: salt, logN: scryptLogN, r: scryptR, p: scryptP)
      defer { SecureBytes.wipe(&key) }
      return header + (try AES.GCM.seal(plaintext, using: key, authenticating: header))
    } catch {
      throw error.status
    }
  }

  /// The plaintext of an envelope: errSecDecode when the bytes are not one or are cut short,
  /// errSecAuthFailed when the passphrase is wrong or any byte was changed.
  static func open(_ envelope: [UInt8], passphrase: [UInt8], kind: Kind = .backup) throws(SecStatus) -> [UInt8] {
    guard envelope.count >= 5, Array(envelope[0..<4]) == kind.magic else {
      throw SecStatus(errSecDecode, detail: "\(kind.name) is not \(kind.what)")
    }
    guard envelope[4] == formatVersion else {
      throw SecStatus(errSecDecode, detail: "\(kind.name)'s format \(envelope[4]) is newer than this version reads")
    }
    guard envelope.count >= headerLength + AES.GCM.standardNonceByteCount + AES.GCM.tagByteCount else {
      throw SecStatus(errSecDecode, detail: "\(kind.name) is cut short")
    }
    let header = Array(envelope[0..<headerLength])
    let logN = envelope[5]
    let r = envelope[6..<10].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    let p = envelope[10..<14].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    // Bounds keep a hostile file from asking scrypt for unbounded memory or time.
    guard (10...20).contains(logN), (1...16).contains(r), (1...4).contains(p) else {
      throw SecStatus(errSecDecode, detail: "\(kind.name)'s key-derivation parameters are out of range")
    }
    let salt = Array(envelope[14..<headerLength])
    do {
      var key = try Scrypt.deriveKey(passphrase: passphrase, salt: salt, logN: logN, r: r, p: p)
      defer { SecureBytes.wipe(&key) }
      return try AES.GCM.open(combined: Array(envelope[headerLength...]), using: key, authenticating: header)
    } catch .authenticationFailed {
      throw SecStatus(
        errSecAuthFailed,
        detail: "\(kind.context): the passphrase is wrong, or \(kind.subject) was altered or cut short")
    } catch {
      throw error.status
    }
  }
}

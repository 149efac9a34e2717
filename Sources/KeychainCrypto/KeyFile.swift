import Foundation

/// Why a key file could not be read or written.
package enum KeyFileError: Error, Equatable {
  /// The file is not a key file this project writes (the reason, when there is more to say).
  case damaged(String?)
  /// The passphrase does not open the file.
  case wrongPassphrase
  /// The file is sealed by a passphrase and none was given.
  case passphraseRequired
  /// The crypto library failed.
  case crypto(CryptoError)
}

/// The cost of one scrypt: log2 of N, the block size r and the parallelism p.
///
/// Key files name their cost in their header; a reader accepts only the costs the project writes
/// (never a cost read from the file alone), so a planted header cannot make an open take gigabytes
/// of memory or minutes before it fails.
package struct ScryptCost: Equatable, Sendable {
  package var logN: UInt8
  package var r: UInt32
  package var p: UInt32

  /// A store's key file: about 32 MiB and 0.1 s per unlock, paid by every process that unlocks.
  package static let storeKey = ScryptCost(logN: 15, r: 8, p: 1)
  /// A sync group's key as the server keeps it: 1 GiB and about 5 s per try, so that a server
  /// operator guessing the passphrase pays that for every guess (KeychainSync's threat model).
  package static let syncGroup = ScryptCost(logN: 20, r: 8, p: 1)
}

/// The key file: a 256-bit key itself (a store's key file), or the key sealed under a passphrase (a
/// passphrase store's key file, a sync group's key as its server keeps it).
///
/// Layout: "KBK1", a mode byte, then for mode 0 the 32-byte key; for mode 1 scrypt's log2(N), r and
/// p, a 16-byte salt and the AES-256-GCM sealed key (the header is its associated data).
package enum KeyFile {
  package static let magic = Array("KBK1".utf8)
  private static let headerLength = 4 + 1 + 1 + 4 + 4 + 16
  /// The length of a sealed key file; a plain one is 5 + 32 bytes.
  package static let sealedLength = headerLength + AES.GCM.standardNonceByteCount + keyLength + AES.GCM.tagByteCount
  /// The length of the key a file holds (AES-256).
  package static let keyLength = 32

  /// The contents of a new key file holding `storeKey`, sealed at `cost` when a passphrase is given.
  package static func encode(storeKey: [UInt8], passphrase: String?, cost: ScryptCost = .storeKey) throws(KeyFileError)
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
      throw .crypto(error)
    }
  }

  /// Whether the file's key is sealed by a passphrase.
  package static func needsPassphrase(_ contents: [UInt8]) throws(KeyFileError) -> Bool {
    guard contents.count >= 5, Array(contents[0..<4]) == magic else { throw .damaged(nil) }
    switch contents[4] {
    case 0: return false
    case 1: return true
    default: throw .damaged(nil)
    }
  }

  /// The scrypt cost a sealed key file names in its header.
  package static func cost(_ contents: [UInt8]) throws(KeyFileError) -> ScryptCost {
    guard contents.count == sealedLength, try needsPassphrase(contents) else { throw .damaged(nil) }
    func uint32(_ offset: Int) -> UInt32 {
      contents[offset..<offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
    return ScryptCost(logN: contents[5], r: uint32(6), p: uint32(10))
  }

  /// The store key in `contents`: errSecDecode for a damaged file (or one naming a scrypt cost
  /// outside `accepted`), errSecAuthFailed for a wrong passphrase, errSecInteractionNotAllowed when
  /// a passphrase is needed and none was given.
  package static func decode(_ contents: [UInt8], passphrase: String?, accepted: [ScryptCost] = [.storeKey])
    throws(KeyFileError) -> [UInt8]
  {
    var bytes = passphrase.map { Array($0.utf8) }
    defer { if bytes != nil { SecureBytes.wipe(&bytes!) } }
    return try decode(contents, passphraseBytes: bytes, accepted: accepted)
  }

  /// `decode` with the passphrase as bytes, which the caller wipes: the agent's path, where the
  /// passphrase never becomes a String (a String's storage cannot be wiped).
  package static func decode(
    _ contents: [UInt8], passphraseBytes passphrase: [UInt8]?, accepted: [ScryptCost] = [.storeKey]
  ) throws(KeyFileError) -> [UInt8] {
    if try !needsPassphrase(contents) {
      guard contents.count == 5 + keyLength else { throw .damaged(nil) }
      return Array(contents[5...])
    }
    let cost = try cost(contents)
    guard accepted.contains(cost) else {
      throw .damaged("the key file names a key-derivation cost this project never writes")
    }
    guard let passphrase else { throw .passphraseRequired }
    let header = Array(contents[0..<headerLength])
    let salt = Array(contents[14..<30])
    do {
      var wrappingKey = try Scrypt.deriveKey(
        passphrase: passphrase, salt: salt, logN: cost.logN, r: cost.r, p: cost.p)
      defer { SecureBytes.wipe(&wrappingKey) }
      return try AES.GCM.open(combined: Array(contents[headerLength...]), using: wrappingKey, authenticating: header)
    } catch .authenticationFailed {
      throw .wrongPassphrase
    } catch {
      throw .crypto(error)
    }
  }
}

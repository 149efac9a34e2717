import Foundation
import KeychainCrypto
import Security

/// The keys of a sync group, derived from its 256-bit group key (never the store key: a store can
/// leave one group and join another, and the group key is the same on every store).
struct SyncKeys {
  static let groupIDLength = 16
  static let recordIDLength = 32
  static let originLength = 16

  let groupKey: [UInt8]
  let groupID: Data
  private let recordIDKey: [UInt8]
  private let sealKey: [UInt8]

  init(groupKey: [UInt8]) throws(SecStatus) {
    guard groupKey.count == KeyFile.keyLength else {
      throw SecStatus(errSecDecode, detail: "a sync group key must be 32 bytes")
    }
    self.groupKey = groupKey
    do {
      groupID = Data(
        try Self.subkey(of: groupKey, label: "keychain-bridge/sync/group-id/v1").prefix(
          Self.groupIDLength))
      recordIDKey = try Self.subkey(of: groupKey, label: "keychain-bridge/sync/record-id/v1")
      sealKey = try Self.subkey(of: groupKey, label: "keychain-bridge/sync/seal/v1")
    } catch {
      throw Self.status(error)
    }
  }

  /// The record identifier of an item: the same on every store of the group, and nothing a server
  /// can link to an account, a service or any other value without the key.
  func recordID(_ identity: ItemIdentity) throws(SecStatus) -> Data {
    do { return Data(try HMAC.sha256(identity.canonicalBytes, key: recordIDKey)) } catch { throw Self.status(error) }
  }

  /// The 32-byte subkey of `key` named by `label` (HKDF-Expand, one block, as the store's).
  private static func subkey(of key: [UInt8], label: String) throws(CryptoError) -> [UInt8] {
    try HKDF.expand(pseudoRandomKey: key, info: Array(label.utf8), outputByteCount: KeyFile.keyLength)
  }

  /// The associated data of a record: the group and every field a server keeps in the clear, so a
  /// record moved to another item, group or version, or with its deletion flag flipped, fails to
  /// open.
  private func associatedData(recordID: Data, version: Int64, origin: Data, deleted: Bool) -> [UInt8] {
    var bytes = Array("keychain-bridge/sync/record/v1".utf8)
    bytes += groupID
    bytes += recordID
    withUnsafeBytes(of: version.littleEndian) { bytes += $0 }
    bytes += origin
    bytes.append(deleted ? 1 : 0)
    return bytes
  }

  func seal(_ plaintext: [UInt8], recordID: Data, version: Int64, origin: Data, deleted: Bool) throws(SecStatus)
    -> SyncRecord
  {
    do {
      let sealed = try AES.GCM.seal(
        plaintext, using: sealKey,
        authenticating: associatedData(recordID: recordID, version: version, origin: origin, deleted: deleted))
      return SyncRecord(recordID: recordID, version: version, origin: origin, deleted: deleted, sealed: Data(sealed))
    } catch {
      throw Self.status(error)
    }
  }

  /// The plaintext of a record, or errSecDecode when it is not exactly what a member of this group
  /// sealed with these fields.
  func open(_ record: SyncRecord) throws(SecStatus) -> [UInt8] {
    guard record.recordID.count == Self.recordIDLength, record.origin.count == Self.originLength else {
      throw SecStatus(errSecDecode, detail: "its identifier or origin has the wrong length")
    }
    do {
      return try AES.GCM.open(
        combined: [UInt8](record.sealed), using: sealKey,
        authenticating: associatedData(
          recordID: record.recordID, version: record.version, origin: record.origin, deleted: record.deleted))
    } catch {
      throw SecStatus(errSecDecode, detail: "it failed authentication (altered, or sealed for another item or version)")
    }
  }

  // MARK: Key files and wrapped keys

  private static let keyFileMagic = Array("KBSG1".utf8)

  /// The group key as a file: the key itself, for stores that join without the passphrase.
  var keyFile: Data { Data(Self.keyFileMagic + groupKey) }

  static func fromKeyFile(_ file: Data) throws(SecStatus) -> SyncKeys {
    let bytes = [UInt8](file)
    guard bytes.count == keyFileMagic.count + KeyFile.keyLength,
      Array(bytes.prefix(keyFileMagic.count)) == keyFileMagic
    else { throw SecStatus(errSecDecode, detail: "Sync: the file is not a sync group key file") }
    return try SyncKeys(groupKey: Array(bytes.dropFirst(keyFileMagic.count)))
  }

  /// The group key sealed under scrypt of `passphrase` (the store key file's format, at the sync
  /// group's cost), for the server; errSecParam for a passphrase `SyncPassphrasePolicy` refuses.
  func wrapped(passphrase: String, cost: ScryptCost = .syncGroup) throws(SecStatus) -> WrappedSyncKey {
    guard !passphrase.isEmpty else { throw SecStatus(errSecParam, detail: "Sync: the passphrase is empty") }
    try SyncPassphrasePolicy.check(passphrase)
    return WrappedSyncKey(
      groupID: groupID,
      wrapped: Data(
        try Self.keyFileCall { () throws(KeyFileError) in
          try KeyFile.encode(storeKey: groupKey, passphrase: passphrase, cost: cost)
        }))
  }

  /// The costs a wrapped group key may name: the current one, and the store key's cost that groups
  /// created before it were wrapped at (README, "Sync").
  static let acceptedWrappingCosts: [ScryptCost] = [.syncGroup, .storeKey]

  /// The group key a server keeps wrapped: errSecAuthFailed for a wrong passphrase, errSecDecode when
  /// the wrapped key is not the named group's (a server that swapped groups' keys).
  static func unwrapped(_ wrappedKey: WrappedSyncKey, passphrase: String) throws(SecStatus) -> SyncKeys {
    let contents = [UInt8](wrappedKey.wrapped)
    guard (try? KeyFile.needsPassphrase(contents)) == true else {
      throw SecStatus(errSecDecode, detail: "Sync: the server's wrapped group key is damaged")
    }
    let keys = try SyncKeys(
      groupKey: try keyFileCall { () throws(KeyFileError) in
        try KeyFile.decode(contents, passphrase: passphrase, accepted: acceptedWrappingCosts)
      })
    guard keys.groupID == wrappedKey.groupID else {
      throw SecStatus(errSecDecode, detail: "Sync: the server's wrapped key belongs to another group")
    }
    return keys
  }

  /// The status a sync call reports for a key file failure.
  private static func keyFileCall<T>(_ body: () throws(KeyFileError) -> T) throws(SecStatus) -> T {
    do {
      return try body()
    } catch {
      switch error {
      case .damaged(let reason):
        throw SecStatus(errSecDecode, detail: reason ?? "Sync: the wrapped group key is damaged")
      case .wrongPassphrase: throw .authFailed
      case .passphraseRequired: throw SecStatus(errSecParam, detail: "Sync: a passphrase is needed")
      case .crypto(let error): throw SecStatus(errSecInternalComponent, detail: error.description)
      }
    }
  }

  /// The status a sync call reports for a crypto failure (an authentication failure is handled
  /// where it can happen, with its reason).
  private static func status(_ error: CryptoError) -> SecStatus {
    switch error {
    case .authenticationFailed: .decode
    case .outOfMemory: SecStatus(errSecAllocate, detail: error.description)
    default: SecStatus(errSecInternalComponent, detail: error.description)
    }
  }
}

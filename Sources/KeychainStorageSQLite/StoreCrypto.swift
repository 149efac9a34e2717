import KeychainCrypto
import Security

// How the store uses the package's crypto module (KeychainCrypto): its key sizes, how it names
// subkeys, and the errSec code a SecItem call reports for each crypto failure.

/// The store's keys: AES-256 keys and HMAC-SHA-256 keys, all 32 bytes.
enum StoreKeys {
  static let keyLength = KeyFile.keyLength
}

extension HKDF {
  /// The 32-byte subkey of `key` named by `label` (HKDF-Expand, RFC 5869: one block, which is
  /// HMAC-SHA-256(key, label ‖ 0x01), so stores made before this module read the same keys).
  static func subkey(of key: some KeyBytes, label: String) throws(CryptoError) -> [UInt8] {
    try expand(pseudoRandomKey: key, info: Array(label.utf8), outputByteCount: StoreKeys.keyLength)
  }

  /// The same subkey as a `SecretKey`, for a key the store holds while it is open.
  static func subkeyKey(of key: some KeyBytes, label: String) throws(CryptoError) -> SecretKey {
    try expandKey(pseudoRandomKey: key, info: Array(label.utf8), outputByteCount: StoreKeys.keyLength)
  }
}

extension CryptoError {
  /// The errSec code a SecItem call reports for this failure.
  package var status: SecStatus {
    switch self {
    case .authenticationFailed: .decode
    case .outOfMemory: SecStatus(errSecAllocate, detail: description)
    case .inputTooLarge, .invalidParameter: SecStatus(errSecParam, detail: description)
    case .randomGeneratorFailed, .callFailed: SecStatus(errSecInternalComponent, detail: description)
    }
  }
}

extension KeyFileError {
  /// The errSec code opening a store reports for this failure.
  package var status: SecStatus {
    switch self {
    case .damaged(let reason): SecStatus(errSecDecode, detail: reason)
    case .wrongPassphrase: .authFailed
    case .passphraseRequired: .interactionNotAllowed
    case .crypto(let error): error.status
    }
  }
}

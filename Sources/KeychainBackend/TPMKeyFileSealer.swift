import Foundation
import KeychainStorageSQLite
import KeychainTPM
import Security

/// A store's key file sealed to the machine's TPM (issue 33): a keyed-hash data object under the
/// keychain's storage primary, which only that TPM can unseal.
struct TPMKeyFileSealer: KeyFileSealer {
  func seal(_ contents: [UInt8]) throws(KeychainStoreError) -> [UInt8] {
    do {
      return [UInt8](try TPMConnections.run { connection throws(TPMError) in try connection.seal(contents) }.encoded)
    } catch {
      throw Self.failure(error, "Cannot seal the new store's key file to a TPM")
    }
  }

  func unseal(_ blob: [UInt8]) throws(KeychainStoreError) -> [UInt8] {
    guard let sealed = TPMObjectBlob(encoded: Data(blob)) else {
      throw KeychainStoreError(status: errSecDecode, message: "The store's key file is sealed, but damaged.")
    }
    do {
      return try TPMConnections.run { connection throws(TPMError) in try connection.unseal(sealed) }
    } catch {
      throw Self.failure(error, "Cannot unseal the store's key file")
    }
  }

  /// No TPM, or none reachable: errSecNotAvailable. The TPM refusing the blob (the layer bits of
  /// its status are 0): it is another machine's TPM, errSecAuthFailed.
  private static func failure(_ error: TPMError, _ what: String) -> KeychainStoreError {
    let refused = error.code != 0 && error.code >> 16 == 0
    return KeychainStoreError(
      status: refused ? errSecAuthFailed : errSecNotAvailable,
      message: refused
        ? "\(what): this machine's TPM refuses it (it was sealed on another machine): \(error.message)"
        : "\(what): \(error.message)")
  }
}

import Foundation

// Keys a token holds (issue 33): Apple's Secure Enclave keys, made here inside a TPM 2.0. The
// private half never leaves the token; the keychain stores the token's wrapped blob (a key item's
// data) and the item's kSecAttrTokenID says which token can use it.

/// A private key whose operations run inside a token.
package protocol TokenEngineKey: EngineKey {
  /// kSecAttrTokenID of the token that holds the key ("com.apple.setoken").
  var tokenID: String { get }
  /// What a key item stores: the token's wrapped blob, usable by that token alone.
  var tokenBlob: Data { get }
}

/// The token behind kSecAttrTokenIDSecureEnclave.
package protocol SecureEnclaveEngine: Sendable {
  /// A new P-256 private key inside the token.
  func generateP256() throws(KeyOperationFailure) -> any TokenEngineKey
  /// The key a stored blob stands for; fails when the blob is not this token's.
  func key(fromBlob blob: Data) throws(KeyOperationFailure) -> any TokenEngineKey
}

/// The Secure Enclave's token ID.
package let secureEnclaveTokenID = "com.apple.setoken"

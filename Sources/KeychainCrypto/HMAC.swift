internal import CKeychainCrypto

/// HMAC-SHA-256 (swift-crypto's `HMAC<SHA256>`), over OpenSSL's SHA-256.
package enum HMAC {
  /// The HMAC-SHA-256 of `message` under `key`.
  package static func sha256(_ message: some Collection<UInt8>, key: some KeyBytes) throws(CryptoError) -> [UInt8] {
    try Prepared(key: key).authenticationCode(for: message)
  }

  /// HMAC-SHA-256 under one fixed key, prepared once: the SHA-256 states after the key's two pads,
  /// in OpenSSL's secure heap, copied for each code. The store computes several codes per call
  /// (a search's primary key, an add's four search digests), and OpenSSL 3's EVP_MAC allocated
  /// about ten heap objects for each by duplicating its context.
  package final class Prepared: @unchecked Sendable {
    // The prepared states are only ever copied, never updated, so sharing them is safe.
    private let prepared: OpaquePointer

    /// Prepares HMAC-SHA-256 under `key`.
    package init(key: some KeyBytes) throws(CryptoError) {
      let prepared = key.withKeyBytes { key in
        keychain_hmac_sha256_prepare(key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count)
      }
      guard let prepared else { throw .outOfMemory(operation: "HMAC") }
      self.prepared = prepared
    }

    deinit { keychain_hmac_sha256_free(prepared) }

    /// The 32-byte HMAC-SHA-256 of `message`.
    package func authenticationCode(for message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
      let code = message.withContiguousStorageIfAvailable(authenticationCode(of:))
      return try (code ?? Array(message).withUnsafeBufferPointer(authenticationCode(of:))).get()
    }

    private func authenticationCode(of message: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], CryptoError> {
      var output = [UInt8](repeating: 0, count: 32)
      guard keychain_hmac_sha256(prepared, message.baseAddress, message.count, &output) == 1 else {
        return .failure(CryptoError.failure(of: "SHA256_Update"))
      }
      return .success(output)
    }
  }
}

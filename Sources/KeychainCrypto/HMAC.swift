internal import COpenSSL

/// HMAC-SHA-256 (swift-crypto's `HMAC<SHA256>`), over OpenSSL 3's EVP_MAC.
package enum HMAC {
  /// The HMAC-SHA-256 of `message` under `key`.
  package static func sha256(_ message: some Collection<UInt8>, key: some KeyBytes) throws(CryptoError) -> [UInt8] {
    try Prepared(key: key).authenticationCode(for: message)
  }

  /// HMAC-SHA-256 under one fixed key, prepared once: each code duplicates the keyed context
  /// instead of looking the algorithms up again, which a one-shot HMAC does per call (the store
  /// computes several per row).
  package final class Prepared: @unchecked Sendable {
    // The prepared context is only ever duplicated, never updated, so sharing it is safe.
    private let prepared: OpaquePointer

    /// Prepares HMAC-SHA-256 under `key`.
    package init(key: some KeyBytes) throws(CryptoError) {
      guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { throw CryptoError.failure(of: "EVP_MAC_fetch") }
      defer { EVP_MAC_free(mac) }
      guard let context = EVP_MAC_CTX_new(mac) else { throw .outOfMemory(operation: "HMAC") }
      var digest = Array("SHA256".utf8CString)
      let initialized = digest.withUnsafeMutableBufferPointer { name -> Int32 in
        var parameters = [
          OSSL_PARAM_construct_utf8_string(ParameterNames.macDigest, name.baseAddress, 0), OSSL_PARAM_construct_end(),
        ]
        return key.withKeyBytes { key in
          EVP_MAC_init(context, key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count, &parameters)
        }
      }
      guard initialized == 1 else {
        EVP_MAC_CTX_free(context)
        throw CryptoError.failure(of: "EVP_MAC_init")
      }
      prepared = context
    }

    deinit { EVP_MAC_CTX_free(prepared) }

    /// The 32-byte HMAC-SHA-256 of `message`.
    package func authenticationCode(for message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
      guard let context = EVP_MAC_CTX_dup(prepared) else { throw .outOfMemory(operation: "HMAC") }
      defer { EVP_MAC_CTX_free(context) }
      var output = [UInt8](repeating: 0, count: 32)
      var length = 0
      let updated = message.withContiguousStorageIfAvailable { buffer in
        EVP_MAC_update(context, buffer.baseAddress, buffer.count)
      }
      try check(
        updated
          ?? {
            let bytes = Array(message)
            return EVP_MAC_update(context, bytes, bytes.count)
          }(), "EVP_MAC_update")
      try check(EVP_MAC_final(context, &output, &length, output.count), "EVP_MAC_final")
      return output
    }
  }
}

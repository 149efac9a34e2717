internal import COpenSSL

/// Random bytes and the wiping of secrets, over libcrypto's CSPRNG and `OPENSSL_cleanse`.
package enum SecureBytes {
  /// `count` bytes from OpenSSL's CSPRNG (swift-crypto's `SymmetricKey(size:)` draws from the same
  /// kind of source).
  package static func random(count: Int) throws(CryptoError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    guard count > 0 else { return bytes }
    guard RAND_bytes(&bytes, try cLength(count, for: "RAND_bytes")) == 1 else { throw .randomGeneratorFailed }
    return bytes
  }

  /// Overwrites key material before it is released and empties the array (best effort: Swift may
  /// have copied it before). `OPENSSL_cleanse` is used because a plain loop of zeros may be
  /// optimized away.
  package static func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
      if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
    }
    bytes.removeAll()
  }
}

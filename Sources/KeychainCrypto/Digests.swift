internal import COpenSSL

/// The hash functions the package uses, by OpenSSL's names.
package enum HashFunction: String, Sendable, CaseIterable {
  /// SHA-1: only for Apple's fingerprints (kSecAttrApplicationLabel, kSecAttrPublicKeyHash, the
  /// `sha1` attribute) and the legacy RSA/ECDSA SHA-1 algorithms, never as a security boundary.
  case sha1 = "SHA1"
  case sha224 = "SHA224"
  case sha256 = "SHA256"
  case sha384 = "SHA384"
  case sha512 = "SHA512"

  /// The digest's length in bytes.
  package var byteCount: Int {
    switch self {
    case .sha1: 20
    case .sha224: 28
    case .sha256: 32
    case .sha384: 48
    case .sha512: 64
    }
  }

  /// The digest of `message` (OpenSSL's EVP_Q_digest).
  package func hash(_ message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: byteCount)
    var length = 0
    let result = message.withContiguousStorageIfAvailable { buffer in
      EVP_Q_digest(nil, rawValue, nil, buffer.baseAddress, buffer.count, &output, &length)
    }
    let digested =
      result
      ?? {
        let bytes = Array(message)
        return EVP_Q_digest(nil, rawValue, nil, bytes, bytes.count, &output, &length)
      }()
    try check(digested, "EVP_Q_digest(\(rawValue))")
    guard length == byteCount else { throw .callFailed(function: "EVP_Q_digest(\(rawValue))", reason: "short digest") }
    return output
  }
}

/// SHA-256, as swift-crypto names it.
package enum SHA256 {
  /// The SHA-256 digest of `data`.
  package static func hash(data: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
    try HashFunction.sha256.hash(data)
  }
}

/// Hash functions kept for compatibility, not security, as swift-crypto's `Insecure` namespace.
package enum Insecure {
  /// SHA-1, for Apple's fingerprint attributes.
  package enum SHA1 {
    /// The SHA-1 digest of `data`.
    package static func hash(data: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
      try HashFunction.sha1.hash(data)
    }
  }
}

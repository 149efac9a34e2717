internal import COpenSSL

#if canImport(Glibc)
  import Glibc
#endif

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

  /// The digest of `message`, with the algorithm fetched once per process: OpenSSL 3 looks an
  /// algorithm up by name on every one-shot call (EVP_Q_digest), which cost an add a tenth of its
  /// time (every item's `sha1` attribute is one digest).
  package func hash(_ message: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
    guard let algorithm = FetchedDigests.algorithm(self) else {
      throw CryptoError.failure(of: "EVP_MD_fetch(\(rawValue))")
    }
    var output = [UInt8](repeating: 0, count: byteCount)
    var length: UInt32 = 0
    let result = message.withContiguousStorageIfAvailable { buffer in
      EVP_Digest(buffer.baseAddress, buffer.count, &output, &length, algorithm, nil)
    }
    let digested =
      result
      ?? {
        let bytes = Array(message)
        return EVP_Digest(bytes, bytes.count, &output, &length, algorithm, nil)
      }()
    try check(digested, "EVP_Digest(\(rawValue))")
    guard length == byteCount else { throw .callFailed(function: "EVP_Digest(\(rawValue))", reason: "short digest") }
    return output
  }
}

/// Each digest algorithm fetched from the default provider once and kept: fetched algorithms are
/// immutable and OpenSSL allows sharing them between threads.
enum FetchedDigests {
  nonisolated(unsafe) static let sha1 = EVP_MD_fetch(nil, "SHA1", nil)
  nonisolated(unsafe) static let sha224 = EVP_MD_fetch(nil, "SHA224", nil)
  nonisolated(unsafe) static let sha256 = EVP_MD_fetch(nil, "SHA256", nil)
  nonisolated(unsafe) static let sha384 = EVP_MD_fetch(nil, "SHA384", nil)
  nonisolated(unsafe) static let sha512 = EVP_MD_fetch(nil, "SHA512", nil)

  static func algorithm(_ function: HashFunction) -> OpaquePointer? {
    switch function {
    case .sha1: sha1
    case .sha224: sha224
    case .sha256: sha256
    case .sha384: sha384
    case .sha512: sha512
    }
  }
}

/// SHA-256, as swift-crypto names it.
package enum SHA256 {
  /// The SHA-256 digest of `data`.
  package static func hash(data: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
    try HashFunction.sha256.hash(data)
  }

  /// The SHA-256 digest of what `descriptor` reads until its end, read in blocks of 1 MiB, so
  /// that a file of any size is hashed in bounded memory. nil when a read fails.
  package static func hash(readingToEnd descriptor: Int32) throws(CryptoError) -> [UInt8]? {
    guard let algorithm = FetchedDigests.algorithm(.sha256) else {
      throw CryptoError.failure(of: "EVP_MD_fetch(SHA256)")
    }
    guard let context = EVP_MD_CTX_new() else { throw .outOfMemory(operation: "SHA-256") }
    defer { EVP_MD_CTX_free(context) }
    try check(EVP_DigestInit_ex(context, algorithm, nil), "EVP_DigestInit_ex")
    var block = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        return nil
      }
      if count == 0 { break }
      try check(EVP_DigestUpdate(context, block, count), "EVP_DigestUpdate")
    }
    var output = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    try check(EVP_DigestFinal_ex(context, &output, &length), "EVP_DigestFinal_ex")
    return output
  }
}

/// Hash functions kept for compatibility, not security, as swift-crypto's `Insecure` namespace.
package enum Insecure {
  /// MD5, only to check that a GNOME Keyring file decrypted whole (the format's own check).
  package enum MD5 {
    nonisolated(unsafe) private static let algorithm = EVP_MD_fetch(nil, "MD5", nil)

    /// The MD5 digest of `data`.
    package static func hash(data: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
      guard let algorithm else { throw CryptoError.failure(of: "EVP_MD_fetch(MD5)") }
      let bytes = Array(data)
      var output = [UInt8](repeating: 0, count: 16)
      var length: UInt32 = 0
      try check(EVP_Digest(bytes, bytes.count, &output, &length, algorithm, nil), "EVP_Digest(MD5)")
      return output
    }
  }

  /// SHA-1, for Apple's fingerprint attributes.
  package enum SHA1 {
    /// The SHA-1 digest of `data`.
    package static func hash(data: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
      try HashFunction.sha1.hash(data)
    }
  }
}

internal import COpenSSL

/// The key of a Secret Service session opened with `dh-ietf1024-sha256-aes128-cbc-pkcs7`
/// (freedesktop Secret Service specification 0.2, "Transfer of Secrets"): Diffie-Hellman in the
/// 1024-bit MODP group of RFC 2409 (generator 2), the shared secret as 128 big-endian bytes, HKDF
/// with SHA-256, no salt and no info, 16 bytes of output, and AES-128-CBC with PKCS#7 padding and a
/// fresh 16-byte IV per secret.
///
/// The group is weak by today's measure; the specification fixes it, libsecret and Python's
/// SecretStorage use it, and it only hides secrets from a bus monitor: the bus already trusts both
/// ends. Written over OpenSSL's big numbers because OpenSSL 3's DH keys have no 1024-bit named
/// group (the specification's group is not FFDHE), and the arithmetic is three calls.
package final class SecretServiceSessionKey: Sendable {
  /// The public value the service answers OpenSession with, big-endian.
  package let publicKey: [UInt8]
  private let key: SecretKey

  /// The length of the group's prime in bytes, the length of a shared secret.
  static let primeByteCount = 128

  /// Agrees on a key with a client whose public value is `peerPublicKey` (big-endian): makes the
  /// service's own key pair, computes the shared secret and derives the AES key from it. Throws
  /// `invalidParameter` for a public value outside 2 ... p - 2 (which would fix the secret).
  package init(peerPublicKey: [UInt8]) throws(CryptoError) {
    guard !peerPublicKey.isEmpty, peerPublicKey.count <= Self.primeByteCount + 1 else {
      throw .invalidParameter("a Diffie-Hellman public value of \(peerPublicKey.count) bytes")
    }
    guard let context = BN_CTX_secure_new() else { throw .outOfMemory(operation: "Diffie-Hellman") }
    defer { BN_CTX_free(context) }
    guard let prime = BN_get_rfc2409_prime_1024(nil), let generator = BN_new(), let peer = BN_new(),
      let largest = BN_new(), let ownPublic = BN_new(), let privateKey = BN_secure_new(), let shared = BN_secure_new()
    else { throw .outOfMemory(operation: "Diffie-Hellman") }
    defer {
      BN_free(prime)
      BN_free(generator)
      BN_free(peer)
      BN_free(largest)
      BN_free(ownPublic)
      BN_clear_free(privateKey)
      BN_clear_free(shared)
    }
    BN_set_flags(privateKey, Int32(BN_FLG_CONSTTIME))
    try check(BN_set_word(generator, 2), "BN_set_word")
    try check(BN_sub(largest, prime, generator), "BN_sub")
    let read = peerPublicKey.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), peer) }
    guard read != nil, BN_cmp(peer, generator) >= 0, BN_cmp(peer, largest) <= 0 else {
      throw .invalidParameter("a Diffie-Hellman public value outside the group")
    }
    // A 256-bit exponent: the group gives at most 80 bits of security, far less than that.
    try check(BN_priv_rand_ex(privateKey, 256, BN_RAND_TOP_ONE, BN_RAND_BOTTOM_ANY, 0, context), "BN_priv_rand_ex")
    try check(BN_mod_exp_mont_consttime(ownPublic, generator, privateKey, prime, context, nil), "BN_mod_exp")
    try check(BN_mod_exp_mont_consttime(shared, peer, privateKey, prime, context, nil), "BN_mod_exp")
    var publicBytes = [UInt8](repeating: 0, count: Self.primeByteCount)
    guard BN_bn2binpad(ownPublic, &publicBytes, Int32(Self.primeByteCount)) == Int32(Self.primeByteCount) else {
      throw CryptoError.failure(of: "BN_bn2binpad")
    }
    publicKey = publicBytes
    let secret = try SecretKey(byteCount: Self.primeByteCount) {
      (output: UnsafeMutableRawBufferPointer) throws(CryptoError) in
      let written = BN_bn2binpad(
        shared, output.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(Self.primeByteCount))
      guard written == Int32(Self.primeByteCount) else { throw CryptoError.failure(of: "BN_bn2binpad") }
    }
    key = try HKDF.extractAndExpandKey(inputKeyMaterial: secret, outputByteCount: 16)
  }

  /// `secret` encrypted for the client: the IV (the Secret structure's parameters) and the
  /// ciphertext (its value).
  package func encrypt(_ secret: [UInt8]) throws(CryptoError) -> (iv: [UInt8], ciphertext: [UInt8]) {
    let iv = try SecureBytes.random(count: 16)
    return (iv, try AES.CBC.transform(secret, key: key, iv: iv, encrypting: true))
  }

  /// The secret a client sent encrypted under `iv`; `authenticationFailed` when the padding is
  /// wrong (a wrong key or damaged bytes: CBC has no other check).
  package func decrypt(_ ciphertext: [UInt8], iv: [UInt8]) throws(CryptoError) -> [UInt8] {
    guard iv.count == 16, !ciphertext.isEmpty, ciphertext.count % 16 == 0 else { throw .authenticationFailed }
    return try AES.CBC.transform(ciphertext, key: key, iv: iv, encrypting: false)
  }
}

extension AES {
  /// AES-128-CBC, for the Secret Service's sessions (PKCS#7 padding) and GNOME Keyring's files (no
  /// padding: the format pads itself); the store seals with GCM.
  package enum CBC {
    nonisolated(unsafe) static let cipher = EVP_CIPHER_fetch(nil, "AES-128-CBC", nil)

    /// `input` encrypted or decrypted under the 16-byte `key` and `iv`. Without `padding`, the
    /// input must be whole blocks. A decryption whose padding is wrong throws `authenticationFailed`.
    package static func transform(
      _ input: [UInt8], key: some KeyBytes, iv: [UInt8], encrypting: Bool, padding: Bool = true
    ) throws(CryptoError) -> [UInt8] {
      guard key.keyByteCount == 16, iv.count == 16 else { throw .invalidParameter("an AES-128-CBC key or IV") }
      guard let cipher else { throw CryptoError.failure(of: "EVP_CIPHER_fetch(AES-128-CBC)") }
      guard let context = EVP_CIPHER_CTX_new() else { throw .outOfMemory(operation: "AES-CBC") }
      defer { EVP_CIPHER_CTX_free(context) }
      let length = try cLength(input.count, for: "AES-CBC")
      var output = [UInt8](repeating: 0, count: input.count + 16)
      var written: Int32 = 0
      var final: Int32 = 0
      let started = key.withKeyBytes { key in
        EVP_CipherInit_ex(
          context, cipher, nil, key.baseAddress?.assumingMemoryBound(to: UInt8.self), iv, encrypting ? 1 : 0)
      }
      try check(started, "EVP_CipherInit_ex")
      if !padding {
        guard input.count % 16 == 0 else { throw .invalidParameter("AES-CBC input of \(input.count) bytes") }
        try check(EVP_CIPHER_CTX_set_padding(context, 0), "EVP_CIPHER_CTX_set_padding")
      }
      try check(EVP_CipherUpdate(context, &output, &written, input, length), "EVP_CipherUpdate")
      let finished = output.withUnsafeMutableBufferPointer {
        EVP_CipherFinal_ex(context, $0.baseAddress! + Int(written), &final)
      }
      guard finished == 1 else {
        LibcryptoErrorQueue.clear()
        SecureBytes.wipe(&output)
        throw encrypting ? CryptoError.failure(of: "EVP_CipherFinal_ex") : .authenticationFailed
      }
      let count = Int(written) + Int(final)
      defer { SecureBytes.wipe(&output) }
      return Array(output[..<count])
    }
  }
}

extension HKDF {
  /// HKDF (extract then expand) of `inputKeyMaterial` with no salt and no info, into a key.
  static func extractAndExpandKey(inputKeyMaterial: some KeyBytes, outputByteCount: Int) throws(CryptoError)
    -> SecretKey
  {
    try SecretKey(byteCount: outputByteCount) { (output: UnsafeMutableRawBufferPointer) throws(CryptoError) in
      var mode = Int32(EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND)
      try derive("HKDF", into: output) { digest, run in
        inputKeyMaterial.withKeyBytes { key in
          withUnsafeMutablePointer(to: &mode) { mode in
            var parameters = [
              OSSL_PARAM_construct_utf8_string(ParameterNames.digest, digest, 0),
              OSSL_PARAM_construct_int(ParameterNames.mode, mode),
              OSSL_PARAM_construct_octet_string(
                ParameterNames.key, UnsafeMutableRawPointer(mutating: key.baseAddress), key.count),
              OSSL_PARAM_construct_end(),
            ]
            return run(&parameters)
          }
        }
      }
    }
  }
}

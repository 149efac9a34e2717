import COpenSSL
import Foundation
import Security

/// A failure inside libcrypto or an authentication tag that did not verify.
enum CryptoError: Error, Equatable {
  /// The ciphertext, nonce, tag, key or associated data do not belong together.
  case authenticationFailed
  /// libcrypto reported an internal failure (allocation, bad parameters).
  case libraryFailure(String)
}

/// The primitives the store needs, each a thin call into OpenSSL's libcrypto.
///
/// AES-256-GCM seals every row; HMAC-SHA-256 turns searchable values into keyed digests and derives
/// subkeys (HKDF-Expand); scrypt stretches a passphrase once per unlock.
enum OpenSSLCrypto {
  static let keyLength = 32
  static let nonceLength = 12
  static let tagLength = 16

  /// Fills `count` bytes from OpenSSL's CSPRNG.
  static func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    guard count == 0 || RAND_bytes(&bytes, Int32(count)) == 1 else {
      throw .libraryFailure("RAND_bytes")
    }
    return bytes
  }

  /// HMAC-SHA-256 of `message` under `key`.
  static func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    key.withUnsafeBufferPointer { keyBuffer in
      message.withUnsafeBufferPointer { messageBuffer in
        _ = HMAC(
          EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count),
          messageBuffer.baseAddress, messageBuffer.count, &output, &length)
      }
    }
    return output
  }

  /// HMAC-SHA-256 under one fixed key, prepared once: each digest duplicates the keyed context
  /// instead of looking the algorithms up again, which OpenSSL 3's one-shot HMAC() does per call.
  final class KeyedHMAC: @unchecked Sendable {
    // The prepared context is only ever duplicated, never updated, so sharing it is safe.
    private let prepared: OpaquePointer

    init?(key: [UInt8]) {
      guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { return nil }
      defer { EVP_MAC_free(mac) }
      guard let context = EVP_MAC_CTX_new(mac) else { return nil }
      var digest = Array("SHA256".utf8CString)
      let initialized = digest.withUnsafeMutableBufferPointer { name -> Bool in
        var parameters = [
          OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, name.baseAddress, 0), OSSL_PARAM_construct_end(),
        ]
        return EVP_MAC_init(context, key, key.count, &parameters) == 1
      }
      guard initialized else {
        EVP_MAC_CTX_free(context)
        return nil
      }
      prepared = context
    }

    deinit { EVP_MAC_CTX_free(prepared) }

    func digest(_ message: [UInt8]) -> [UInt8] {
      var output = [UInt8](repeating: 0, count: 32)
      guard let context = EVP_MAC_CTX_dup(prepared) else { return output }
      defer { EVP_MAC_CTX_free(context) }
      var length = 0
      _ = EVP_MAC_update(context, message, message.count)
      _ = EVP_MAC_final(context, &output, &length, output.count)
      return output
    }
  }

  /// HKDF-Expand (RFC 5869) for one 32-byte block: a subkey of `key` named by `label`.
  static func deriveKey(from key: [UInt8], label: String) -> [UInt8] {
    hmacSHA256(key: key, Array(label.utf8) + [1])
  }

  /// SHA-1, used only for Apple's `sha1` attribute (an item fingerprint, not a security boundary).
  static func sha1(_ message: [UInt8]) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 20)
    message.withUnsafeBufferPointer { buffer in
      _ = SHA1(buffer.baseAddress, buffer.count, &output)
    }
    return output
  }

  /// scrypt (RFC 7914) of a passphrase: the key-encryption key of a passphrase store.
  static func scrypt(
    passphrase: [UInt8], salt: [UInt8], logN: UInt8, r: UInt64, p: UInt64
  ) throws(CryptoError) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: keyLength)
    let n = UInt64(1) << UInt64(logN)
    let maxMemory = 128 * n * r + 1024 * 1024
    let passChars = passphrase.map { CChar(bitPattern: $0) } + [0]
    let status = EVP_PBE_scrypt(
      passChars, passphrase.count, salt, salt.count, n, r, p, maxMemory, &output, output.count)
    guard status == 1 else { throw .libraryFailure("EVP_PBE_scrypt") }
    return output
  }

  /// Seals `plaintext` with AES-256-GCM under a fresh random nonce: returns nonce ‖ ciphertext ‖ tag.
  static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
    let nonce = try randomBytes(nonceLength)
    guard let context = EVP_CIPHER_CTX_new() else { throw .libraryFailure("EVP_CIPHER_CTX_new") }
    defer { EVP_CIPHER_CTX_free(context) }
    var output = [UInt8](repeating: 0, count: nonceLength + plaintext.count + tagLength)
    var length: Int32 = 0
    var ok = EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
    ok = ok && EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1
    output.withUnsafeMutableBufferPointer { buffer in
      let body = buffer.baseAddress! + nonceLength
      if ok, !plaintext.isEmpty {
        ok = EVP_EncryptUpdate(context, body, &length, plaintext, Int32(plaintext.count)) == 1
      }
      if ok {
        ok = EVP_EncryptFinal_ex(context, body + plaintext.count, &length) == 1
      }
      if ok {
        ok =
          EVP_CIPHER_CTX_ctrl(
            context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), body + plaintext.count) == 1
      }
    }
    guard ok else { throw .libraryFailure("AES-256-GCM seal") }
    output.replaceSubrange(0..<nonceLength, with: nonce)
    return output
  }

  /// Opens what `seal` produced; any change to the bytes, the key or the associated data fails.
  static func open(_ sealed: [UInt8], key: [UInt8], associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
    guard sealed.count >= nonceLength + tagLength else { throw .authenticationFailed }
    let bodyLength = sealed.count - nonceLength - tagLength
    guard let context = EVP_CIPHER_CTX_new() else { throw .libraryFailure("EVP_CIPHER_CTX_new") }
    defer { EVP_CIPHER_CTX_free(context) }
    var plaintext = [UInt8](repeating: 0, count: bodyLength)
    var length: Int32 = 0
    var ok = true
    sealed.withUnsafeBufferPointer { input in
      let nonce = input.baseAddress!
      let body = nonce + nonceLength
      var tag = Array(input[(nonceLength + bodyLength)...])
      ok = EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1
      ok = ok && EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1
      if ok, bodyLength > 0 {
        ok = EVP_DecryptUpdate(context, &plaintext, &length, body, Int32(bodyLength)) == 1
      }
      ok = ok && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1
      // GCM's final step writes no bytes; a scratch buffer avoids a nil pointer for empty input.
      var finalLength: Int32 = 0
      var scratch = [UInt8](repeating: 0, count: 16)
      ok = ok && EVP_DecryptFinal_ex(context, &scratch, &finalLength) == 1
    }
    guard ok else { throw .authenticationFailed }
    return plaintext
  }

  /// Overwrites key material before it is released (best effort: Swift may have copied it).
  static func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
      if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
    }
    bytes.removeAll()
  }
}

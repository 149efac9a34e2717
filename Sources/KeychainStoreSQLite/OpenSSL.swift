import COpenSSL
import Foundation
import Security

/// A libcrypto failure, named by what failed. Every primitive below throws one of these instead of
/// returning zeros or a flag, so a caller can tell a forged ciphertext from a broken library.
enum CryptoError: Error, Equatable, CustomStringConvertible {
  /// The ciphertext, nonce, tag, key or associated data do not belong together.
  case authenticationFailed
  /// The random generator could not produce bytes.
  case randomGeneratorFailed
  /// libcrypto could not allocate a context for `operation`.
  case outOfMemory(operation: String)
  /// An input is longer than libcrypto's `int` lengths allow.
  case inputTooLarge(operation: String, count: Int)
  /// A libcrypto call failed: which one, and the reason libcrypto queued for it.
  case callFailed(function: String, reason: String)

  var description: String {
    switch self {
    case .authenticationFailed: "the data failed authentication"
    case .randomGeneratorFailed: "the random generator failed"
    case .outOfMemory(let operation): "libcrypto could not allocate memory for \(operation)"
    case .inputTooLarge(let operation, let count): "\(count) bytes are too many for \(operation)"
    case .callFailed(let function, let reason): "\(function) failed: \(reason)"
    }
  }

  /// The errSec code a SecItem call reports for this failure.
  var status: SecStatus {
    switch self {
    case .authenticationFailed: .decode
    case .outOfMemory: SecStatus(errSecAllocate, detail: description)
    case .inputTooLarge: SecStatus(errSecParam, detail: description)
    case .randomGeneratorFailed, .callFailed: SecStatus(errSecInternalComponent, detail: description)
    }
  }

  /// The failure of `function`, with the reason at the head of libcrypto's error queue (which is
  /// then emptied, so that it cannot be mistaken for a later call's).
  static func failure(of function: String) -> CryptoError {
    let code = ERR_get_error()
    ERR_clear_error()
    guard code != 0 else { return .callFailed(function: function, reason: "no reason given") }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return .callFailed(function: function, reason: reason)
  }
}

/// The primitives the store needs, each a thin call into OpenSSL's libcrypto.
///
/// AES-256-GCM seals every row; HMAC-SHA-256 turns searchable values into keyed digests and derives
/// subkeys (HKDF-Expand); scrypt stretches a passphrase once per unlock.
enum OpenSSLCrypto {
  static let keyLength = 32
  static let nonceLength = 12
  static let tagLength = 16

  /// Succeeds when a libcrypto call returned 1 (its success value), else throws its failure.
  private static func check(_ result: Int32, _ function: String) throws(CryptoError) {
    guard result == 1 else { throw CryptoError.failure(of: function) }
  }

  /// `count` as libcrypto's `int` length.
  private static func length(_ count: Int, for operation: String) throws(CryptoError) -> Int32 {
    guard let length = Int32(exactly: count) else { throw .inputTooLarge(operation: operation, count: count) }
    return length
  }

  /// Fills `count` bytes from OpenSSL's CSPRNG.
  static func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    guard count > 0 else { return bytes }
    guard RAND_bytes(&bytes, try length(count, for: "RAND_bytes")) == 1 else { throw .randomGeneratorFailed }
    return bytes
  }

  /// HMAC-SHA-256 of `message` under `key`.
  static func hmacSHA256(key: [UInt8], _ message: [UInt8]) throws(CryptoError) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let keyLength = try Self.length(key.count, for: "HMAC")
    let written = HMAC(EVP_sha256(), key, keyLength, message, message.count, &output, &length)
    guard written != nil, length == 32 else { throw CryptoError.failure(of: "HMAC") }
    return output
  }

  /// HMAC-SHA-256 under one fixed key, prepared once: each digest duplicates the keyed context
  /// instead of looking the algorithms up again, which OpenSSL 3's one-shot HMAC() does per call.
  final class KeyedHMAC: @unchecked Sendable {
    // The prepared context is only ever duplicated, never updated, so sharing it is safe.
    private let prepared: OpaquePointer

    init(key: [UInt8]) throws(CryptoError) {
      guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { throw CryptoError.failure(of: "EVP_MAC_fetch") }
      defer { EVP_MAC_free(mac) }
      guard let context = EVP_MAC_CTX_new(mac) else { throw .outOfMemory(operation: "HMAC") }
      var digest = Array("SHA256".utf8CString)
      let initialized = digest.withUnsafeMutableBufferPointer { name -> Int32 in
        var parameters = [
          OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, name.baseAddress, 0), OSSL_PARAM_construct_end(),
        ]
        return EVP_MAC_init(context, key, key.count, &parameters)
      }
      guard initialized == 1 else {
        EVP_MAC_CTX_free(context)
        throw CryptoError.failure(of: "EVP_MAC_init")
      }
      prepared = context
    }

    deinit { EVP_MAC_CTX_free(prepared) }

    func digest(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
      guard let context = EVP_MAC_CTX_dup(prepared) else { throw .outOfMemory(operation: "HMAC") }
      defer { EVP_MAC_CTX_free(context) }
      var output = [UInt8](repeating: 0, count: 32)
      var length = 0
      try check(EVP_MAC_update(context, message, message.count), "EVP_MAC_update")
      try check(EVP_MAC_final(context, &output, &length, output.count), "EVP_MAC_final")
      return output
    }
  }

  /// HKDF-Expand (RFC 5869) for one 32-byte block: a subkey of `key` named by `label`.
  static func deriveKey(from key: [UInt8], label: String) throws(CryptoError) -> [UInt8] {
    try hmacSHA256(key: key, Array(label.utf8) + [1])
  }

  /// SHA-1, used only for Apple's `sha1` attribute (an item fingerprint, not a security boundary).
  static func sha1(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: 20)
    guard SHA1(message, message.count, &output) != nil else { throw CryptoError.failure(of: "SHA1") }
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
    try check(
      EVP_PBE_scrypt(passChars, passphrase.count, salt, salt.count, n, r, p, maxMemory, &output, output.count),
      "EVP_PBE_scrypt")
    return output
  }

  /// Seals `plaintext` with AES-256-GCM under a fresh random nonce: returns nonce ‖ ciphertext ‖ tag.
  static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
    let plaintextLength = try length(plaintext.count, for: "AES-256-GCM")
    let associatedLength = try length(associatedData.count, for: "AES-256-GCM")
    let nonce = try randomBytes(nonceLength)
    guard let context = EVP_CIPHER_CTX_new() else { throw .outOfMemory(operation: "AES-256-GCM") }
    defer { EVP_CIPHER_CTX_free(context) }
    var output = [UInt8](repeating: 0, count: nonceLength + plaintext.count + tagLength)
    var written: Int32 = 0
    try check(EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce), "EVP_EncryptInit_ex")
    try check(EVP_EncryptUpdate(context, nil, &written, associatedData, associatedLength), "EVP_EncryptUpdate")
    try output.withUnsafeMutableBufferPointer { buffer throws(CryptoError) in
      let body = buffer.baseAddress! + nonceLength
      if plaintextLength > 0 {
        try check(EVP_EncryptUpdate(context, body, &written, plaintext, plaintextLength), "EVP_EncryptUpdate")
      }
      try check(EVP_EncryptFinal_ex(context, body + plaintext.count, &written), "EVP_EncryptFinal_ex")
      try check(
        EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), body + plaintext.count),
        "EVP_CIPHER_CTX_ctrl(GET_TAG)")
    }
    output.replaceSubrange(0..<nonceLength, with: nonce)
    return output
  }

  /// Opens what `seal` produced; any change to the bytes, the key or the associated data throws
  /// `authenticationFailed`.
  static func open(_ sealed: [UInt8], key: [UInt8], associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
    try open(sealed, key: key, associatedData: associatedData, [])
  }

  /// `open` with associated data given in two parts, `associatedData` then `moreAssociatedData`,
  /// which GCM authenticates as if they were one (a row's two ciphertexts share all but a label).
  static func open(
    _ sealed: [UInt8], key: [UInt8], associatedData: [UInt8], _ moreAssociatedData: ArraySlice<UInt8>
  ) throws(CryptoError) -> [UInt8] {
    guard sealed.count >= nonceLength + tagLength else { throw .authenticationFailed }
    let bodyLength = try length(sealed.count - nonceLength - tagLength, for: "AES-256-GCM")
    let associatedLength = try length(associatedData.count, for: "AES-256-GCM")
    let moreAssociatedLength = try length(moreAssociatedData.count, for: "AES-256-GCM")
    guard let context = EVP_CIPHER_CTX_new() else { throw .outOfMemory(operation: "AES-256-GCM") }
    defer { EVP_CIPHER_CTX_free(context) }
    var plaintext = [UInt8](repeating: 0, count: Int(bodyLength))
    var written: Int32 = 0
    try sealed.withUnsafeBufferPointer { input throws(CryptoError) in
      let nonce = input.baseAddress!
      let body = nonce + nonceLength
      var tag = Array(input[(nonceLength + Int(bodyLength))...])
      try check(EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce), "EVP_DecryptInit_ex")
      try check(EVP_DecryptUpdate(context, nil, &written, associatedData, associatedLength), "EVP_DecryptUpdate")
      if moreAssociatedLength > 0 {
        try moreAssociatedData.withUnsafeBufferPointer { more throws(CryptoError) in
          try check(
            EVP_DecryptUpdate(context, nil, &written, more.baseAddress, moreAssociatedLength), "EVP_DecryptUpdate")
        }
      }
      if bodyLength > 0 {
        try check(EVP_DecryptUpdate(context, &plaintext, &written, body, bodyLength), "EVP_DecryptUpdate")
      }
      try check(
        EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag), "EVP_CIPHER_CTX_ctrl(SET_TAG)")
      // GCM's final step writes no bytes; a scratch buffer avoids a nil pointer for empty input. Its
      // failure is the tag check failing: the one outcome a forged or damaged row produces.
      var scratch = [UInt8](repeating: 0, count: 16)
      guard EVP_DecryptFinal_ex(context, &scratch, &written) == 1 else {
        ERR_clear_error()
        throw .authenticationFailed
      }
    }
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

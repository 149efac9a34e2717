internal import COpenSSL

/// AES, as swift-crypto names it.
package enum AES {
  /// AES-GCM over OpenSSL's EVP cipher interface: AES-128 or AES-256 by the key's length.
  package enum GCM {
    /// The nonce length of `seal(_:using:authenticating:)`: 12 bytes, GCM's standard.
    package static let standardNonceByteCount = 12
    /// The tag length every function here writes and expects.
    package static let tagByteCount = 16

    /// Seals `plaintext` under a fresh random 12-byte nonce and returns swift-crypto's `combined`
    /// form: nonce ‖ ciphertext ‖ tag.
    package static func seal(
      _ plaintext: [UInt8], using key: [UInt8], authenticating associatedData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
      let nonce = try SecureBytes.random(count: standardNonceByteCount)
      let context = try CipherContext(key: key, nonce: nonce, encrypting: true)
      try context.authenticate(associatedData[...])
      // One buffer, written in place: rows are sealed on every write, so no intermediate copies.
      var combined = nonce + [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
      try combined.withUnsafeMutableBufferPointer { buffer throws(CryptoError) in
        let body = buffer.baseAddress! + standardNonceByteCount
        try context.transform(plaintext[...], into: body)
        try context.finishSealing(tagInto: body + plaintext.count)
      }
      return combined
    }

    /// Opens a `combined` box that `seal(_:using:authenticating:)` made. The associated data may
    /// come in two parts, which GCM authenticates as if they were one (a row's two ciphertexts
    /// share all of it but a label, so the caller need not concatenate). Any change to the bytes,
    /// the key or the associated data throws `authenticationFailed`.
    package static func open(
      combined: [UInt8], using key: [UInt8], authenticating associatedData: [UInt8],
      _ moreAssociatedData: ArraySlice<UInt8> = []
    ) throws(CryptoError) -> [UInt8] {
      guard combined.count >= standardNonceByteCount + tagByteCount else { throw .authenticationFailed }
      let bodyEnd = combined.count - tagByteCount
      return try open(
        ciphertext: combined[standardNonceByteCount..<bodyEnd], tag: combined[bodyEnd...], using: key,
        nonce: combined[..<standardNonceByteCount], authenticating: associatedData, moreAssociatedData)
    }

    /// Seals `plaintext` under `nonce` (any length from 1 byte, as Apple's ECIES framing uses 16)
    /// and returns the ciphertext and the 16-byte tag apart. The caller guarantees the nonce is
    /// never used twice under one key.
    package static func seal(
      _ plaintext: [UInt8], using key: [UInt8], nonce: some Collection<UInt8>, authenticating associatedData: [UInt8]
    ) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
      let context = try CipherContext(key: key, nonce: Array(nonce), encrypting: true)
      try context.authenticate(associatedData[...])
      var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
      try ciphertext.withUnsafeMutableBufferPointer { buffer throws(CryptoError) in
        try context.transform(plaintext[...], into: buffer.baseAddress)
      }
      var tag = [UInt8](repeating: 0, count: tagByteCount)
      try tag.withUnsafeMutableBufferPointer { buffer throws(CryptoError) in
        try context.finishSealing(tagInto: buffer.baseAddress!)
      }
      return (ciphertext, tag)
    }

    /// Opens `ciphertext` sealed under `nonce` with `tag`; `authenticationFailed` when anything
    /// does not belong together.
    package static func open(
      ciphertext: ArraySlice<UInt8>, tag: ArraySlice<UInt8>, using key: [UInt8], nonce: some Collection<UInt8>,
      authenticating associatedData: [UInt8], _ moreAssociatedData: ArraySlice<UInt8> = []
    ) throws(CryptoError) -> [UInt8] {
      guard tag.count == tagByteCount else { throw .authenticationFailed }
      let context = try CipherContext(key: key, nonce: Array(nonce), encrypting: false)
      try context.authenticate(associatedData[...])
      try context.authenticate(moreAssociatedData)
      var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
      try plaintext.withUnsafeMutableBufferPointer { buffer throws(CryptoError) in
        try context.transform(ciphertext, into: buffer.baseAddress)
      }
      var expected = Array(tag)
      try check(
        EVP_CIPHER_CTX_ctrl(context.pointer, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), &expected),
        "EVP_CIPHER_CTX_ctrl(SET_TAG)")
      // GCM's final step writes no bytes; a scratch buffer avoids a nil pointer for empty input. Its
      // failure is the tag check failing: the one outcome a forged or damaged input produces.
      var scratch = [UInt8](repeating: 0, count: 16)
      var written: Int32 = 0
      guard EVP_DecryptFinal_ex(context.pointer, &scratch, &written) == 1 else {
        LibcryptoErrorQueue.clear()
        SecureBytes.wipe(&plaintext)
        throw .authenticationFailed
      }
      return plaintext
    }
  }
}

/// One AES-GCM operation's EVP context, freed with the value.
private final class CipherContext {
  let pointer: OpaquePointer
  let encrypting: Bool

  init(key: [UInt8], nonce: [UInt8], encrypting: Bool) throws(CryptoError) {
    let cipher: OpaquePointer?
    switch key.count {
    case 16: cipher = EVP_aes_128_gcm()
    case 32: cipher = EVP_aes_256_gcm()
    default: throw .invalidParameter("an AES key of \(key.count) bytes")
    }
    guard !nonce.isEmpty else { throw .invalidParameter("an empty AES-GCM nonce") }
    let nonceLength = try cLength(nonce.count, for: "AES-GCM nonce")
    guard let context = EVP_CIPHER_CTX_new() else { throw .outOfMemory(operation: "AES-GCM") }
    pointer = context
    self.encrypting = encrypting
    let initialize = encrypting ? EVP_EncryptInit_ex : EVP_DecryptInit_ex
    try check(initialize(context, cipher, nil, nil, nil), "EVP_CipherInit_ex")
    if nonce.count != AES.GCM.standardNonceByteCount {
      try check(EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, nonceLength, nil), "EVP_CIPHER_CTX_ctrl(IVLEN)")
    }
    try check(initialize(context, nil, nil, key, nonce), "EVP_CipherInit_ex")
  }

  deinit { EVP_CIPHER_CTX_free(pointer) }

  /// Feeds associated data (nothing to do for none).
  func authenticate(_ data: ArraySlice<UInt8>) throws(CryptoError) {
    guard !data.isEmpty else { return }
    let length = try cLength(data.count, for: "AES-GCM associated data")
    var written: Int32 = 0
    let update = encrypting ? EVP_EncryptUpdate : EVP_DecryptUpdate
    try data.withUnsafeBufferPointer { buffer throws(CryptoError) in
      try check(update(pointer, nil, &written, buffer.baseAddress, length), "EVP_CipherUpdate")
    }
  }

  /// Encrypts or decrypts `input` into `output`, which has room for its length (GCM is a stream
  /// mode); `output` may be nil only for empty input.
  func transform(_ input: ArraySlice<UInt8>, into output: UnsafeMutablePointer<UInt8>?) throws(CryptoError) {
    guard !input.isEmpty, let output else { return }
    let length = try cLength(input.count, for: "AES-GCM")
    var written: Int32 = 0
    let update = encrypting ? EVP_EncryptUpdate : EVP_DecryptUpdate
    try input.withUnsafeBufferPointer { buffer throws(CryptoError) in
      try check(update(pointer, output, &written, buffer.baseAddress, length), "EVP_CipherUpdate")
    }
    guard Int(written) == input.count else {
      throw .callFailed(function: "EVP_CipherUpdate", reason: "wrote \(written) of \(input.count) bytes")
    }
  }

  /// Ends an encryption and writes its 16-byte tag at `tag`.
  func finishSealing(tagInto tag: UnsafeMutablePointer<UInt8>) throws(CryptoError) {
    // GCM's final step writes no bytes; a scratch buffer keeps the pointer valid.
    var scratch = [UInt8](repeating: 0, count: 16)
    var written: Int32 = 0
    try check(EVP_EncryptFinal_ex(pointer, &scratch, &written), "EVP_EncryptFinal_ex")
    try check(
      EVP_CIPHER_CTX_ctrl(pointer, EVP_CTRL_GCM_GET_TAG, Int32(AES.GCM.tagByteCount), tag),
      "EVP_CIPHER_CTX_ctrl(GET_TAG)")
  }
}

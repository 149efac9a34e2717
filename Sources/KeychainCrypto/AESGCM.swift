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
      _ plaintext: [UInt8], using key: some KeyBytes, authenticating associatedData: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
      let nonce = try SecureBytes.random(count: standardNonceByteCount)
      let context = try CipherContext(keyByteCount: key.keyByteCount, nonceLength: nonce.count, encrypting: true)
      try nonce.withUnsafeBufferPointer { nonce throws(CryptoError) in try context.start(key: key, nonce: nonce) }
      try context.authenticate(associatedData[...])
      // One buffer, written in place: rows are sealed on every write, so no intermediate copies
      // (the nonce is copied in once, not concatenated with a second array).
      let total = standardNonceByteCount + plaintext.count + tagByteCount
      var failure: CryptoError?
      let combined = [UInt8](unsafeUninitializedCapacity: total) { buffer, count in
        let start = buffer.baseAddress!
        nonce.withUnsafeBufferPointer { start.initialize(from: $0.baseAddress!, count: standardNonceByteCount) }
        // The rest is initialised before it is counted; a failure leaves it zeroed, not uninitialised.
        (start + standardNonceByteCount).initialize(repeating: 0, count: total - standardNonceByteCount)
        count = total
        do throws(CryptoError) {
          let body = start + standardNonceByteCount
          try context.transform(plaintext[...], into: body)
          try context.finishSealing(tagInto: body + plaintext.count)
        } catch {
          failure = error
        }
      }
      if let failure { throw failure }
      return combined
    }

    /// Opens a `combined` box that `seal(_:using:authenticating:)` made. The associated data may
    /// come in two parts, which GCM authenticates as if they were one (a row's two ciphertexts
    /// share all of it but a label, so the caller need not concatenate). Any change to the bytes,
    /// the key or the associated data throws `authenticationFailed`.
    package static func open(
      combined: [UInt8], using key: some KeyBytes, authenticating associatedData: [UInt8],
      _ moreAssociatedData: ArraySlice<UInt8> = []
    ) throws(CryptoError) -> [UInt8] {
      try combined.withUnsafeBufferPointer { box throws(CryptoError) in
        try open(
          combinedBytes: UnsafeRawBufferPointer(box), using: key, authenticating: associatedData, moreAssociatedData)
      }
    }

    /// `open(combined:...)` over bytes held elsewhere (a database row's column, read in place), so
    /// the box is not copied into an array first.
    package static func open(
      combinedBytes box: UnsafeRawBufferPointer, using key: some KeyBytes, authenticating associatedData: [UInt8],
      _ moreAssociatedData: ArraySlice<UInt8> = []
    ) throws(CryptoError) -> [UInt8] {
      guard box.count >= standardNonceByteCount + tagByteCount, let start = box.baseAddress else {
        throw .authenticationFailed
      }
      let bytes = start.assumingMemoryBound(to: UInt8.self)
      let bodyLength = box.count - standardNonceByteCount - tagByteCount
      // Every row read opens one or two of these: the nonce and tag are read in place from the box,
      // and the context is a value freed on return, so an open allocates only its plaintext.
      var plaintext = [UInt8](repeating: 0, count: bodyLength)
      let context = try CipherContext(
        keyByteCount: key.keyByteCount, nonceLength: standardNonceByteCount, encrypting: false)
      try context.start(key: key, nonce: UnsafeBufferPointer(start: bytes, count: standardNonceByteCount))
      try context.authenticate(associatedData[...])
      try context.authenticate(moreAssociatedData)
      try plaintext.withUnsafeMutableBufferPointer { output throws(CryptoError) in
        try context.transform(
          UnsafeBufferPointer(start: bytes + standardNonceByteCount, count: bodyLength), into: output.baseAddress)
      }
      try context.finishOpening(tag: bytes + standardNonceByteCount + bodyLength, wiping: &plaintext)
      return plaintext
    }

    /// Seals `plaintext` under `nonce` (any length from 1 byte, as Apple's ECIES framing uses 16)
    /// and returns the ciphertext and the 16-byte tag apart. The caller guarantees the nonce is
    /// never used twice under one key.
    package static func seal(
      _ plaintext: [UInt8], using key: some KeyBytes, nonce: some Collection<UInt8>,
      authenticating associatedData: [UInt8]
    ) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
      let nonce = Array(nonce)
      let context = try CipherContext(keyByteCount: key.keyByteCount, nonceLength: nonce.count, encrypting: true)
      try nonce.withUnsafeBufferPointer { nonce throws(CryptoError) in try context.start(key: key, nonce: nonce) }
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
      ciphertext: ArraySlice<UInt8>, tag: ArraySlice<UInt8>, using key: some KeyBytes, nonce: some Collection<UInt8>,
      authenticating associatedData: [UInt8], _ moreAssociatedData: ArraySlice<UInt8> = []
    ) throws(CryptoError) -> [UInt8] {
      guard tag.count == tagByteCount else { throw .authenticationFailed }
      let nonce = Array(nonce)
      let context = try CipherContext(keyByteCount: key.keyByteCount, nonceLength: nonce.count, encrypting: false)
      try nonce.withUnsafeBufferPointer { nonce throws(CryptoError) in try context.start(key: key, nonce: nonce) }
      try context.authenticate(associatedData[...])
      try context.authenticate(moreAssociatedData)
      var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
      try plaintext.withUnsafeMutableBufferPointer { buffer throws(CryptoError) in
        try context.transform(ciphertext, into: buffer.baseAddress)
      }
      let expected = Array(tag)
      try expected.withUnsafeBufferPointer { tag throws(CryptoError) in
        try context.finishOpening(tag: tag.baseAddress!, wiping: &plaintext)
      }
      return plaintext
    }
  }
}

/// The AES-GCM implementations, fetched from OpenSSL's default provider once per process.
///
/// `EVP_aes_256_gcm()` is a legacy handle: every initialisation with it fetches the provider's
/// implementation again, under a lock of OpenSSL's method store that every thread shares, so two
/// threads reading rows at once queued on it. A fetched cipher is only referenced by each context.
/// Never freed: the process keeps using them until it ends.
private enum FetchedCipher {
  // nonisolated(unsafe): an EVP_CIPHER is immutable once fetched and OpenSSL lets threads share it.
  nonisolated(unsafe) static let aes128GCM = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil)
  nonisolated(unsafe) static let aes256GCM = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)
}

/// One AES-GCM operation's EVP context, freed with the value (a noncopyable value, so no object is
/// allocated for it).
private struct CipherContext: ~Copyable {
  let pointer: OpaquePointer
  let encrypting: Bool
  /// The cipher `start` sets with the key and the nonce, in one EVP call; nil when `init` has set
  /// it already (a nonce of another length must be declared before the key and nonce are given).
  let pendingCipher: OpaquePointer?

  /// A context for AES-GCM with a key of `key`'s length (16 or 32 bytes) and a nonce of
  /// `nonceLength` bytes (any length from 1); `start` then gives the key and the nonce.
  init(keyByteCount: Int, nonceLength: Int, encrypting: Bool) throws(CryptoError) {
    let cipher: OpaquePointer?
    switch keyByteCount {
    case 16: cipher = FetchedCipher.aes128GCM
    case 32: cipher = FetchedCipher.aes256GCM
    default: throw .invalidParameter("an AES key of \(keyByteCount) bytes")
    }
    guard let cipher else { throw CryptoError.failure(of: "EVP_CIPHER_fetch(AES-GCM)") }
    guard nonceLength > 0 else { throw .invalidParameter("an empty AES-GCM nonce") }
    let length = try cLength(nonceLength, for: "AES-GCM nonce")
    guard let context = EVP_CIPHER_CTX_new() else { throw .outOfMemory(operation: "AES-GCM") }
    // With the standard 12-byte nonce, the cipher, key and nonce go in with one initialisation
    // (`start`): each row read or written seals or opens one or two boxes, and a second
    // EVP_CipherInit_ex was a tenth of a seal's instructions.
    if nonceLength == AES.GCM.standardNonceByteCount {
      pendingCipher = cipher
    } else {
      do throws(CryptoError) {
        try check(
          (encrypting ? EVP_EncryptInit_ex : EVP_DecryptInit_ex)(context, cipher, nil, nil, nil), "EVP_CipherInit_ex")
        try check(EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, length, nil), "EVP_CIPHER_CTX_ctrl(IVLEN)")
      } catch {
        // The value is not made, so its deinit will not free the context.
        EVP_CIPHER_CTX_free(context)
        throw error
      }
      pendingCipher = nil
    }
    pointer = context
    self.encrypting = encrypting
  }

  /// Gives the key and the nonce (of the length the context was made for).
  func start(key: some KeyBytes, nonce: UnsafeBufferPointer<UInt8>) throws(CryptoError) {
    let initialized = key.withKeyBytes { key in
      (encrypting ? EVP_EncryptInit_ex : EVP_DecryptInit_ex)(
        pointer, pendingCipher, nil, key.baseAddress?.assumingMemoryBound(to: UInt8.self), nonce.baseAddress)
    }
    try check(initialized, "EVP_CipherInit_ex")
  }

  deinit { EVP_CIPHER_CTX_free(pointer) }

  /// Ends a decryption: checks the 16-byte tag at `tag`. On a mismatch (the one outcome a forged
  /// or damaged input produces) `plaintext` is wiped and `authenticationFailed` thrown.
  func finishOpening(tag: UnsafePointer<UInt8>, wiping plaintext: inout [UInt8]) throws(CryptoError) {
    // OpenSSL's SET_TAG takes a mutable pointer but only reads the 16 bytes.
    try check(
      EVP_CIPHER_CTX_ctrl(
        pointer, EVP_CTRL_GCM_SET_TAG, Int32(AES.GCM.tagByteCount), UnsafeMutablePointer(mutating: tag)),
      "EVP_CIPHER_CTX_ctrl(SET_TAG)")
    // GCM's final step writes no bytes; a scratch buffer avoids a nil pointer for empty input.
    var scratch: (UInt64, UInt64) = (0, 0)
    var written: Int32 = 0
    let verified = withUnsafeMutableBytes(of: &scratch) { buffer in
      EVP_DecryptFinal_ex(pointer, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), &written)
    }
    guard verified == 1 else {
      LibcryptoErrorQueue.clear()
      SecureBytes.wipe(&plaintext)
      throw .authenticationFailed
    }
  }

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
    try input.withUnsafeBufferPointer { buffer throws(CryptoError) in try transform(buffer, into: output) }
  }

  func transform(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>?) throws(CryptoError) {
    guard !input.isEmpty, let output else { return }
    let length = try cLength(input.count, for: "AES-GCM")
    var written: Int32 = 0
    let update = encrypting ? EVP_EncryptUpdate : EVP_DecryptUpdate
    try check(update(pointer, output, &written, input.baseAddress, length), "EVP_CipherUpdate")
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

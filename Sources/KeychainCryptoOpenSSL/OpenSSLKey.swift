import COpenSSL
import Foundation
import Security

/// One half of a key pair as an EVP_PKEY.
///
/// EVP_PKEY is reference-counted and safe to use from several threads at once as long as nobody
/// changes it; nothing here changes a key after it is made, hence `@unchecked Sendable`.
final class OpenSSLKey: EngineKey, @unchecked Sendable {
  let key: OpaquePointer
  let type: Security.KeyType
  let isPrivate: Bool

  init(_ key: OpaquePointer, type: Security.KeyType, isPrivate: Bool) {
    self.key = key
    self.type = type
    self.isPrivate = isPrivate
  }

  deinit { EVP_PKEY_free(key) }

  var bits: Int { Int(EVP_PKEY_get_bits(key)) }
  private var fieldSize: Int { (bits + 7) / 8 }

  /// A fresh operation context on this key.
  private func context() throws(KeyOperationFailure) -> OpaquePointer {
    guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
      throw libcryptoFailure("EVP_PKEY_CTX_new_from_pkey", status: errSecAllocate)
    }
    return context
  }

  // MARK: Representation

  func externalRepresentation() throws(KeyOperationFailure) -> Data {
    guard isPrivate else { return try publicRepresentation() }
    switch type {
    case .rsa:
      var output: UnsafeMutablePointer<UInt8>?
      // PKCS#1 RSAPrivateKey: the "type-specific" DER of OpenSSL's RSA keys.
      let length = i2d_PrivateKey(key, &output)
      guard length > 0, let output else { throw libcryptoFailure("i2d_PrivateKey", status: errSecInternalComponent) }
      defer {
        OPENSSL_cleanse(output, Int(length))
        CRYPTO_free(output, #fileID, #line)
      }
      return Data(bytes: output, count: Int(length))
    case .ec:
      let point = try publicRepresentation()
      var scalar: OpaquePointer?
      try check(EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &scalar), "EVP_PKEY_get_bn_param")
      defer { BN_clear_free(scalar) }
      var secret = [UInt8](repeating: 0, count: fieldSize)
      guard BN_bn2binpad(scalar, &secret, Int32(fieldSize)) == Int32(fieldSize) else {
        throw libcryptoFailure("BN_bn2binpad", status: errSecInternalComponent)
      }
      defer { secret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
      return point + Data(secret)
    }
  }

  /// The public half's external representation, whatever the class: the X9.63 point, or PKCS#1
  /// RSAPublicKey DER.
  func publicRepresentation() throws(KeyOperationFailure) -> Data {
    switch type {
    case .ec:
      var point = [UInt8](repeating: 0, count: 2 * fieldSize + 1)
      var length = 0
      try check(
        EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, &point, point.count, &length),
        "EVP_PKEY_get_octet_string_param")
      guard length == point.count, point[0] == 0x04 else {
        throw KeyOperationFailure(errSecInternalComponent, "the EC public key is not an uncompressed point")
      }
      return Data(point)
    case .rsa:
      var output: UnsafeMutablePointer<UInt8>?
      let length = i2d_PublicKey(key, &output)
      guard length > 0, let output else { throw libcryptoFailure("i2d_PublicKey", status: errSecInternalComponent) }
      defer { CRYPTO_free(output, #fileID, #line) }
      return Data(bytes: output, count: Int(length))
    }
  }

  func publicKey() throws(KeyOperationFailure) -> any EngineKey {
    guard isPrivate else { return self }
    return try OpenSSLKeyEngine.shared.importKey(type, isPrivate: false, data: try publicRepresentation())
  }

  // MARK: Signatures

  func ecdsaSign(digest: Data) throws(KeyOperationFailure) -> Data {
    let context = try context()
    defer { EVP_PKEY_CTX_free(context) }
    try check(EVP_PKEY_sign_init(context), "EVP_PKEY_sign_init")
    return try sign(context, Array(digest))
  }

  func ecdsaVerify(digest: Data, signature: Data) throws(KeyOperationFailure) -> Bool {
    let context = try context()
    defer { EVP_PKEY_CTX_free(context) }
    try check(EVP_PKEY_verify_init(context), "EVP_PKEY_verify_init")
    return verify(context, Array(digest), Array(signature))
  }

  func rsaSign(_ input: Data, padding: RSASignaturePadding) throws(KeyOperationFailure) -> Data {
    let context = try context()
    defer { EVP_PKEY_CTX_free(context) }
    try check(EVP_PKEY_sign_init(context), "EVP_PKEY_sign_init")
    try configure(context, padding)
    return try sign(context, padding == .raw ? leftPadded(input) : Array(input))
  }

  func rsaVerify(_ input: Data, signature: Data, padding: RSASignaturePadding) throws(KeyOperationFailure) -> Bool {
    let context = try context()
    defer { EVP_PKEY_CTX_free(context) }
    let signatureBytes = leftPadded(signature)
    guard padding == .raw else {
      try check(EVP_PKEY_verify_init(context), "EVP_PKEY_verify_init")
      try configure(context, padding)
      return verify(context, Array(input), signatureBytes)
    }
    // Raw: recover the block and compare it with the input, leading zeros aside (5.4.3).
    try check(EVP_PKEY_verify_recover_init(context), "EVP_PKEY_verify_recover_init")
    try check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
    var recovered = [UInt8](repeating: 0, count: fieldSize)
    var length = recovered.count
    guard EVP_PKEY_verify_recover(context, &recovered, &length, signatureBytes, signatureBytes.count) == 1 else {
      ERR_clear_error()
      return false
    }
    return recovered.prefix(length).drop { $0 == 0 }.elementsEqual(input.drop { $0 == 0 })
  }

  private func configure(_ context: OpaquePointer, _ padding: RSASignaturePadding) throws(KeyOperationFailure) {
    switch padding {
    case .raw:
      try check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
    case .pkcs1v15(let hash):
      try check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
      // With a digest named, OpenSSL wraps the input in its DigestInfo and checks its length.
      if let hash {
        try check(EVP_PKEY_CTX_set_signature_md(context, try Self.digest(hash)), "EVP_PKEY_CTX_set_signature_md")
      }
    case .pss(let hash):
      let md = try Self.digest(hash)
      try check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
      try check(EVP_PKEY_CTX_set_signature_md(context, md), "EVP_PKEY_CTX_set_signature_md")
      try check(EVP_PKEY_CTX_set_rsa_mgf1_md(context, md), "EVP_PKEY_CTX_set_rsa_mgf1_md")
      try check(EVP_PKEY_CTX_set_rsa_pss_saltlen(context, RSA_PSS_SALTLEN_DIGEST), "EVP_PKEY_CTX_set_rsa_pss_saltlen")
    }
  }

  private func sign(_ context: OpaquePointer, _ input: [UInt8]) throws(KeyOperationFailure) -> Data {
    var length = 0
    try check(EVP_PKEY_sign(context, nil, &length, input, input.count), "EVP_PKEY_sign")
    var signature = [UInt8](repeating: 0, count: length)
    try check(EVP_PKEY_sign(context, &signature, &length, input, input.count), "EVP_PKEY_sign")
    return Data(signature.prefix(length))
  }

  private func verify(_ context: OpaquePointer, _ input: [UInt8], _ signature: [UInt8]) -> Bool {
    let verdict = EVP_PKEY_verify(context, signature, signature.count, input, input.count)
    // 0 is a signature that does not verify; a negative value one that does not even parse.
    ERR_clear_error()
    return verdict == 1
  }

  /// `bytes` left-padded with zeros to the modulus length (a shorter number is the same number).
  private func leftPadded(_ bytes: Data) -> [UInt8] {
    bytes.count >= fieldSize ? Array(bytes) : [UInt8](repeating: 0, count: fieldSize - bytes.count) + bytes
  }

  static func digest(_ kind: DigestKind) throws(KeyOperationFailure) -> OpaquePointer {
    guard let md = EVP_get_digestbyname(kind.rawValue) else { throw libcryptoFailure("EVP_get_digestbyname") }
    return md
  }

  // MARK: Encryption

  func rsaEncrypt(_ plaintext: Data, padding: RSAEncryptionPadding) throws(KeyOperationFailure) -> Data {
    let context = try context()
    defer { EVP_PKEY_CTX_free(context) }
    try check(EVP_PKEY_encrypt_init(context), "EVP_PKEY_encrypt_init")
    try configure(context, padding)
    let input = padding == .raw ? leftPadded(plaintext) : Array(plaintext)
    var length = 0
    try check(EVP_PKEY_encrypt(context, nil, &length, input, input.count), "EVP_PKEY_encrypt")
    var output = [UInt8](repeating: 0, count: length)
    try check(EVP_PKEY_encrypt(context, &output, &length, input, input.count), "EVP_PKEY_encrypt")
    return Data(output.prefix(length))
  }

  func rsaDecrypt(_ ciphertext: Data, padding: RSAEncryptionPadding) throws(KeyOperationFailure) -> Data {
    let context = try context()
    defer { EVP_PKEY_CTX_free(context) }
    try check(EVP_PKEY_decrypt_init(context), "EVP_PKEY_decrypt_init")
    try configure(context, padding)
    let input = Array(ciphertext)
    var length = 0
    try check(EVP_PKEY_decrypt(context, nil, &length, input, input.count), "EVP_PKEY_decrypt")
    var output = [UInt8](repeating: 0, count: length)
    try check(EVP_PKEY_decrypt(context, &output, &length, input, input.count), "EVP_PKEY_decrypt")
    defer { output.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
    return Data(output.prefix(length))
  }

  private func configure(_ context: OpaquePointer, _ padding: RSAEncryptionPadding) throws(KeyOperationFailure) {
    switch padding {
    case .raw: try check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
    case .pkcs1: try check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
    case .oaep(let hash):
      let md = try Self.digest(hash)
      try check(EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING), "EVP_PKEY_CTX_set_rsa_padding")
      try check(EVP_PKEY_CTX_set_rsa_oaep_md(context, md), "EVP_PKEY_CTX_set_rsa_oaep_md")
      try check(EVP_PKEY_CTX_set_rsa_mgf1_md(context, md), "EVP_PKEY_CTX_set_rsa_mgf1_md")
    }
  }

  // MARK: Key exchange

  func ecdh(peer: any EngineKey, cofactor: Bool) throws(KeyOperationFailure) -> Data {
    guard let peer = peer as? OpenSSLKey else {
      throw KeyOperationFailure(errSecParam, "the peer key does not come from this engine")
    }
    let context = try context()
    defer { EVP_PKEY_CTX_free(context) }
    try check(EVP_PKEY_derive_init(context), "EVP_PKEY_derive_init")
    if cofactor {
      // Cofactor ECDH gives the same bytes on the NIST prime curves, whose cofactor is 1.
      try check(EVP_PKEY_CTX_set_ecdh_cofactor_mode(context, 1), "EVP_PKEY_CTX_set_ecdh_cofactor_mode")
    }
    try check(EVP_PKEY_derive_set_peer_ex(context, peer.key, 1), "EVP_PKEY_derive_set_peer_ex")
    var length = 0
    try check(EVP_PKEY_derive(context, nil, &length), "EVP_PKEY_derive")
    var secret = [UInt8](repeating: 0, count: length)
    try check(EVP_PKEY_derive(context, &secret, &length), "EVP_PKEY_derive")
    defer { secret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
    return Data(secret.prefix(length))
  }
}

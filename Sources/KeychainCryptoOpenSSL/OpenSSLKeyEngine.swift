import COpenSSL
import Foundation
import KeychainCrypto
import Security

// SecKey's primitives over OpenSSL 3's EVP interface (no deprecated RSA_* or EC_KEY_* call):
// KeysImplementationNotes lists the call behind each.

/// The failure of the libcrypto call `function`, with the reason at the head of its error queue
/// (which is then emptied so that it cannot be mistaken for a later call's).
func libcryptoFailure(_ function: String, status: OSStatus = errSecParam) -> KeyOperationFailure {
  guard let reason = LibcryptoErrorQueue.takeReason() else { return KeyOperationFailure(status, "\(function) failed") }
  return KeyOperationFailure(status, "\(function) failed: \(reason)")
}

extension KeyOperationFailure {
  /// A failure of the crypto module as SecKey reports it: errSecParam for what the caller gave
  /// (a forged ciphertext included, as Apple answers), errSecAllocate for memory.
  init(_ error: CryptoError) {
    switch error {
    case .authenticationFailed: self.init(errSecParam, "the ciphertext failed authentication")
    case .outOfMemory: self.init(errSecAllocate, error.description)
    case .randomGeneratorFailed, .callFailed: self.init(errSecInternalComponent, error.description)
    case .inputTooLarge, .invalidParameter: self.init(errSecParam, error.description)
    }
  }
}

/// Throws the failure of `function` unless `result` is 1 (libcrypto's success).
func check(_ result: Int32, _ function: String) throws(KeyOperationFailure) {
  guard result == 1 else { throw libcryptoFailure(function) }
}

/// Parameter names as C strings that live as long as the process: OSSL_PARAM arrays and the
/// OSSL_PARAM_BLD builder keep the name pointers they are given, which a Swift string passed as
/// an argument would not keep valid past the call. Never written after their creation.
enum ParameterName {
  nonisolated(unsafe) static let groupName = permanent(OSSL_PKEY_PARAM_GROUP_NAME)
  nonisolated(unsafe) static let publicKey = permanent(OSSL_PKEY_PARAM_PUB_KEY)
  nonisolated(unsafe) static let privateKey = permanent(OSSL_PKEY_PARAM_PRIV_KEY)
  nonisolated(unsafe) static let digest = permanent(OSSL_KDF_PARAM_DIGEST)
  nonisolated(unsafe) static let key = permanent(OSSL_KDF_PARAM_KEY)
  nonisolated(unsafe) static let info = permanent(OSSL_KDF_PARAM_INFO)
  nonisolated(unsafe) static let rsaModulus = permanent(OSSL_PKEY_PARAM_RSA_N)
  nonisolated(unsafe) static let rsaExponent = permanent(OSSL_PKEY_PARAM_RSA_E)

  private static func permanent(_ name: String) -> UnsafePointer<CChar> { UnsafePointer(strdup(name)!) }
}

package final class OpenSSLKeyEngine: KeyEngine {
  /// The one engine: it holds no state, so every caller shares it.
  package static let shared = OpenSSLKeyEngine()

  /// The NIST curve of each size Apple's EC keys have (keys rule 1.2, decision D4).
  static func curveName(bits: Int) -> String? {
    switch bits {
    case 192: "prime192v1"
    case 224: "secp224r1"
    case 256: "prime256v1"
    case 384: "secp384r1"
    case 521: "secp521r1"
    default: nil
    }
  }

  /// The curve size whose X9.63 public point is `length` bytes (2n+1), or private blob (3n+1).
  static func curveBits(forLength length: Int, isPrivate: Bool) -> Int? {
    for bits in [192, 224, 256, 384, 521] {
      let field = (bits + 7) / 8
      if length == (isPrivate ? 3 * field + 1 : 2 * field + 1) { return bits }
    }
    return nil
  }

  package func generate(_ type: Security.KeyType, bits: Int) throws(KeyOperationFailure) -> any EngineKey {
    guard let context = EVP_PKEY_CTX_new_from_name(nil, type == .ec ? "EC" : "RSA", nil) else {
      throw libcryptoFailure("EVP_PKEY_CTX_new_from_name", status: errSecAllocate)
    }
    defer { EVP_PKEY_CTX_free(context) }
    try check(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
    switch type {
    case .ec:
      guard let curve = Self.curveName(bits: bits) else {
        throw KeyOperationFailure(errSecParam, "no NIST curve has \(bits) bits")
      }
      try check(EVP_PKEY_CTX_set_group_name(context, curve), "EVP_PKEY_CTX_set_group_name")
    case .rsa:
      try check(EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)), "EVP_PKEY_CTX_set_rsa_keygen_bits")
    }
    var key: OpaquePointer?
    try check(EVP_PKEY_generate(context, &key), "EVP_PKEY_generate")
    guard let key else { throw libcryptoFailure("EVP_PKEY_generate") }
    return OpenSSLKey(key, type: type, isPrivate: true)
  }

  package func importKey(_ type: Security.KeyType, isPrivate: Bool, data: Data) throws(KeyOperationFailure)
    -> any EngineKey
  {
    switch type {
    case .rsa: try importRSA(isPrivate: isPrivate, data: Array(data))
    case .ec: try importEC(isPrivate: isPrivate, data: Array(data))
    }
  }

  private func importRSA(isPrivate: Bool, data: [UInt8]) throws(KeyOperationFailure) -> any EngineKey {
    let key: OpaquePointer? = data.withUnsafeBufferPointer { buffer in
      var cursor = buffer.baseAddress
      let count = buffer.count
      if isPrivate {
        // PKCS#1 RSAPrivateKey only (keys rule 3.8): the "traditional" DER form d2i_PrivateKey reads.
        let key = d2i_PrivateKey(EVP_PKEY_RSA, nil, &cursor, count)
        return cursor.map { $0 - buffer.baseAddress! } == count
          ? key
          : key.flatMap {
            EVP_PKEY_free($0); return nil
          }
      }
      if let key = d2i_PublicKey(EVP_PKEY_RSA, nil, &cursor, count) {
        if cursor.map({ $0 - buffer.baseAddress! }) == count { return key }
        EVP_PKEY_free(key)
        return nil
      }
      // A SubjectPublicKeyInfo is accepted too (keys rule 3.8).
      ERR_clear_error()
      cursor = buffer.baseAddress
      guard let key = d2i_PUBKEY(nil, &cursor, count) else { return nil }
      guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA, cursor.map({ $0 - buffer.baseAddress! }) == count else {
        EVP_PKEY_free(key)
        return nil
      }
      return key
    }
    guard let key else { throw libcryptoFailure("d2i RSA key") }
    let imported = OpenSSLKey(key, type: .rsa, isPrivate: isPrivate)
    try Self.checkRSAComponents(key)
    return imported
  }

  /// The modulus sizes an imported RSA key may have: decision D2's range, the one generation
  /// accepts, so every key the library holds works for every operation it offers.
  static let rsaModulusBits = 1024...8192

  /// Refuses an RSA key Apple's import refuses too: an even modulus or one of an unsupported
  /// size, an even public exponent or one below 3. (The DER parser accepts any integers.)
  private static func checkRSAComponents(_ key: OpaquePointer) throws(KeyOperationFailure) {
    var modulus: OpaquePointer?
    var exponent: OpaquePointer?
    defer {
      BN_free(modulus)
      BN_free(exponent)
    }
    guard EVP_PKEY_get_bn_param(key, ParameterName.rsaModulus, &modulus) == 1, let modulus,
      EVP_PKEY_get_bn_param(key, ParameterName.rsaExponent, &exponent) == 1, let exponent
    else { throw libcryptoFailure("EVP_PKEY_get_bn_param") }
    let bits = Int(BN_num_bits(modulus))
    guard rsaModulusBits.contains(bits) else {
      throw KeyOperationFailure(
        errSecParam,
        "RSA modulus of \(bits) bits; keys of \(rsaModulusBits.lowerBound) to \(rsaModulusBits.upperBound) bits are supported"
      )
    }
    guard BN_is_odd(modulus) == 1 else { throw KeyOperationFailure(errSecParam, "RSA modulus is even") }
    guard BN_is_odd(exponent) == 1, BN_num_bits(exponent) >= 2 else {
      throw KeyOperationFailure(errSecParam, "RSA public exponent must be odd and at least 3")
    }
  }

  private func importEC(isPrivate: Bool, data: [UInt8]) throws(KeyOperationFailure) -> any EngineKey {
    // The curve follows from the length alone (keys rule 3.7); only uncompressed points.
    guard let bits = Self.curveBits(forLength: data.count, isPrivate: isPrivate), data.first == 0x04,
      let curve = Self.curveName(bits: bits)
    else {
      throw KeyOperationFailure(errSecParam, "not an X9.63 uncompressed EC key of a supported curve")
    }
    let field = (bits + 7) / 8
    let point = Array(data[0..<(2 * field + 1)])
    guard let builder = OSSL_PARAM_BLD_new() else {
      throw libcryptoFailure("OSSL_PARAM_BLD_new", status: errSecAllocate)
    }
    defer { OSSL_PARAM_BLD_free(builder) }
    var scalar: OpaquePointer?
    defer { if let scalar { BN_clear_free(scalar) } }
    if isPrivate {
      var secret = Array(data[(2 * field + 1)...])
      defer { secret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
      scalar = BN_bin2bn(secret, Int32(secret.count), nil)
      guard let scalar else { throw libcryptoFailure("BN_bin2bn", status: errSecAllocate) }
      try check(OSSL_PARAM_BLD_push_BN(builder, ParameterName.privateKey, scalar), "OSSL_PARAM_BLD_push_BN")
    }
    // The builder keeps pointers to the values it is given until OSSL_PARAM_BLD_to_param copies
    // them, so both buffers must outlive that call.
    let curveName = Array(curve.utf8CString)
    let built = curveName.withUnsafeBufferPointer { name in
      point.withUnsafeBufferPointer { point -> OpaquePointer? in
        guard OSSL_PARAM_BLD_push_utf8_string(builder, ParameterName.groupName, name.baseAddress, 0) == 1,
          OSSL_PARAM_BLD_push_octet_string(builder, ParameterName.publicKey, point.baseAddress, point.count) == 1
        else { return nil }
        return OpaquePointer(OSSL_PARAM_BLD_to_param(builder))
      }
    }
    guard let built else { throw libcryptoFailure("OSSL_PARAM_BLD_to_param", status: errSecAllocate) }
    let parameters = UnsafeMutablePointer<OSSL_PARAM>(built)
    defer { OSSL_PARAM_free(parameters) }
    guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
      throw libcryptoFailure("EVP_PKEY_CTX_new_from_name", status: errSecAllocate)
    }
    defer { EVP_PKEY_CTX_free(context) }
    try check(EVP_PKEY_fromdata_init(context), "EVP_PKEY_fromdata_init")
    var key: OpaquePointer?
    // EVP_PKEY_KEYPAIR and EVP_PKEY_PUBLIC_KEY: macros Swift does not import.
    let selection: Int32 = isPrivate ? 0x87 : 0x86
    try check(EVP_PKEY_fromdata(context, &key, selection, parameters), "EVP_PKEY_fromdata")
    guard let key else { throw libcryptoFailure("EVP_PKEY_fromdata") }
    let imported = OpenSSLKey(key, type: .ec, isPrivate: isPrivate)
    // A point that is not on the curve must not become a key.
    guard let checker = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
      throw libcryptoFailure("EVP_PKEY_CTX_new_from_pkey", status: errSecAllocate)
    }
    defer { EVP_PKEY_CTX_free(checker) }
    try check(EVP_PKEY_public_check(checker), "EVP_PKEY_public_check")
    // A private scalar outside 1..n-1 must not become a key either (a range check, not a pairwise
    // one: keys are imported on every lookup that returns a reference).
    if isPrivate { try check(EVP_PKEY_private_check(checker), "EVP_PKEY_private_check") }
    return imported
  }

  package func digest(_ kind: DigestKind, _ data: Data) throws(KeyOperationFailure) -> Data {
    guard let function = HashFunction(rawValue: kind.rawValue) else {
      throw KeyOperationFailure(errSecParam, "the digest \(kind.rawValue)")
    }
    do { return Data(try function.hash(data)) } catch { throw KeyOperationFailure(error) }
  }

  package func x963KDF(_ kind: DigestKind, secret: Data, sharedInfo: Data, length: Int) throws(KeyOperationFailure)
    -> Data
  {
    guard let kdf = EVP_KDF_fetch(nil, "X963KDF", nil) else { throw libcryptoFailure("EVP_KDF_fetch") }
    defer { EVP_KDF_free(kdf) }
    guard let context = EVP_KDF_CTX_new(kdf) else { throw libcryptoFailure("EVP_KDF_CTX_new", status: errSecAllocate) }
    defer { EVP_KDF_CTX_free(context) }
    var secretBytes = Array(secret)
    defer { secretBytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
    var info = Array(sharedInfo)
    var digestName = Array(kind.rawValue.utf8CString)
    var output = [UInt8](repeating: 0, count: length)
    let result = digestName.withUnsafeMutableBufferPointer { name in
      secretBytes.withUnsafeMutableBytes { key in
        info.withUnsafeMutableBytes { info in
          var parameters = [
            OSSL_PARAM_construct_utf8_string(ParameterName.digest, name.baseAddress, 0),
            OSSL_PARAM_construct_octet_string(ParameterName.key, key.baseAddress, key.count),
            OSSL_PARAM_construct_octet_string(ParameterName.info, info.baseAddress, info.count),
            OSSL_PARAM_construct_end(),
          ]
          return EVP_KDF_derive(context, &output, length, &parameters)
        }
      }
    }
    try check(result, "EVP_KDF_derive")
    return Data(output)
  }

  package func aesGCMSeal(key: Data, iv: Data, plaintext: Data, additionalData: Data) throws(KeyOperationFailure)
    -> Data
  {
    // Apple's ECIES and RSA-AESGCM frame AES-GCM with a 16-byte IV and tag (decision D12).
    do {
      let (ciphertext, tag) = try AES.GCM.seal(
        Array(plaintext), using: Array(key), nonce: Array(iv), authenticating: Array(additionalData))
      return Data(ciphertext + tag)
    } catch {
      throw KeyOperationFailure(error)
    }
  }

  package func aesGCMOpen(key: Data, iv: Data, sealed: Data, additionalData: Data) throws(KeyOperationFailure) -> Data {
    let bytes = Array(sealed)
    guard bytes.count >= AES.GCM.tagByteCount else {
      throw KeyOperationFailure(errSecParam, "the ciphertext has no tag")
    }
    let bodyEnd = bytes.count - AES.GCM.tagByteCount
    do {
      return Data(
        try AES.GCM.open(
          ciphertext: bytes[..<bodyEnd], tag: bytes[bodyEnd...], using: Array(key), nonce: Array(iv),
          authenticating: Array(additionalData)))
    } catch {
      throw KeyOperationFailure(error)
    }
  }
}

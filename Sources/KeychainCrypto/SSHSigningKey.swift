internal import COpenSSL

/// A private key an ssh-agent signs with (OpenSSH's key types: Ed25519, ECDSA on the NIST curves,
/// RSA), loaded from the fields OpenSSH's agent protocol carries and held as an OpenSSL key,
/// which it frees when done.
///
/// The fields are turned into the DER OpenSSL reads (SEC1 for ECDSA, PKCS#1 for RSA) and that
/// DER is wiped after it is read; Ed25519's seed is handed to OpenSSL as it is.
package final class SSHSigningKey: @unchecked Sendable {
  // @unchecked: the EVP_PKEY is never changed after init, and OpenSSL's signing reads it from any
  // thread.
  /// The kind of key and, for ECDSA, its curve.
  package enum Kind: Sendable, Equatable {
    case ed25519
    /// The curve's OpenSSH name: nistp256, nistp384, nistp521.
    case ecdsa(curve: String)
    case rsa
  }

  package let kind: Kind
  private let key: OpaquePointer

  private init(kind: Kind, key: OpaquePointer) {
    self.kind = kind
    self.key = key
  }

  deinit { EVP_PKEY_free(key) }

  /// An Ed25519 key from its 32-byte seed; its public key must be `publicKey`.
  package convenience init(ed25519Seed seed: [UInt8], publicKey: [UInt8]) throws(CryptoError) {
    guard seed.count == 32, publicKey.count == 32 else {
      throw .invalidParameter("an Ed25519 key is a 32-byte seed and a 32-byte public key")
    }
    guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, 32) else {
      throw CryptoError.failure(of: "EVP_PKEY_new_raw_private_key")
    }
    self.init(kind: .ed25519, key: key)
    var derived = [UInt8](repeating: 0, count: 32)
    var length = 32
    guard EVP_PKEY_get_raw_public_key(key, &derived, &length) == 1, derived == publicKey else {
      LibcryptoErrorQueue.clear()
      throw .invalidParameter("the Ed25519 private key does not match its public key")
    }
  }

  /// An ECDSA key on `curve` (nistp256, nistp384, nistp521) from its private scalar and its public
  /// point (uncompressed, as OpenSSH sends it); `checkPair` says whether the two belong together.
  package convenience init(ecdsaCurve curve: String, privateScalar: [UInt8], publicPoint: [UInt8])
    throws(CryptoError)
  {
    guard let size = Self.curves[curve] else { throw .invalidParameter("no such ECDSA curve") }
    let scalar = Array(privateScalar.drop { $0 == 0 })
    guard scalar.count <= size, publicPoint.count == 2 * size + 1, publicPoint.first == 4 else {
      throw .invalidParameter("the ECDSA key's fields do not fit its curve")
    }
    // Built from its parts (EVP_PKEY_fromdata): OpenSSL 3's DER decoders cost a millisecond a
    // key, which every signature would pay.
    let key = try Self.build(
      "EC",
      [
        .text(ParameterNames.group, Self.curveNames[curve] ?? ""), .number(ParameterNames.privateKey, scalar),
        .octets(ParameterNames.publicKey, publicPoint),
      ])
    self.init(kind: .ecdsa(curve: curve), key: key)
  }

  /// An RSA key from the fields OpenSSH sends (big-endian magnitudes): the modulus, the public and
  /// private exponents, q⁻¹ mod p, and the primes.
  package convenience init(
    rsaModulus modulus: [UInt8], publicExponent: [UInt8], privateExponent: [UInt8], coefficient: [UInt8],
    prime1: [UInt8], prime2: [UInt8]
  ) throws(CryptoError) {
    guard modulus.count <= 2048,
      [publicExponent, privateExponent, coefficient, prime1, prime2].allSatisfy({ $0.count <= 1024 })
    else { throw .invalidParameter("an RSA key of more than 16,384 bits") }
    var exponent1 = try Self.remainder(privateExponent, byOneLessThan: prime1)
    var exponent2 = try Self.remainder(privateExponent, byOneLessThan: prime2)
    defer {
      SecureBytes.wipe(&exponent1)
      SecureBytes.wipe(&exponent2)
    }
    let key = try Self.build(
      "RSA",
      [
        .number(ParameterNames.rsaModulus, modulus), .number(ParameterNames.rsaPublicExponent, publicExponent),
        .number(ParameterNames.rsaPrivateExponent, privateExponent), .number(ParameterNames.rsaFactor1, prime1),
        .number(ParameterNames.rsaFactor2, prime2), .number(ParameterNames.rsaExponent1, exponent1),
        .number(ParameterNames.rsaExponent2, exponent2), .number(ParameterNames.rsaCoefficient1, coefficient),
      ])
    self.init(kind: .rsa, key: key)
  }

  /// Checks that the private and public halves belong together (OpenSSL's pairwise check: the
  /// public point or modulus is the private key's): for a key a client sent, before it is kept.
  package func checkPair() throws(CryptoError) {
    guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
      throw .outOfMemory(operation: "EVP_PKEY_CTX_new_from_pkey")
    }
    defer { EVP_PKEY_CTX_free(context) }
    guard EVP_PKEY_pairwise_check(context) == 1 else {
      LibcryptoErrorQueue.clear()
      throw .invalidParameter("the private key does not match its public key")
    }
  }

  /// The key's size in bits.
  package var bits: Int { Int(EVP_PKEY_get_bits(key)) }

  /// The signature of `message`: Ed25519's 64 bytes; ECDSA's DER (r and s) over the curve's hash;
  /// RSA PKCS#1 v1.5 over `digest` (SHA-256 or SHA-512).
  package func sign(_ message: [UInt8], digest: HashFunction? = nil) throws(CryptoError) -> [UInt8] {
    let function: HashFunction?
    switch kind {
    case .ed25519: function = nil
    case .ecdsa(let curve): function = curve == "nistp256" ? .sha256 : curve == "nistp384" ? .sha384 : .sha512
    case .rsa:
      guard let digest, digest == .sha256 || digest == .sha512 else {
        throw .invalidParameter("an RSA signature here is over SHA-256 or SHA-512")
      }
      function = digest
    }
    guard let context = EVP_MD_CTX_new() else { throw .outOfMemory(operation: "EVP_MD_CTX_new") }
    defer { EVP_MD_CTX_free(context) }
    let algorithm = function.flatMap(FetchedDigests.algorithm)
    try check(EVP_DigestSignInit(context, nil, algorithm, nil, key), "EVP_DigestSignInit")
    var length = 0
    try check(EVP_DigestSign(context, nil, &length, message, message.count), "EVP_DigestSign")
    var signature = [UInt8](repeating: 0, count: length)
    try check(EVP_DigestSign(context, &signature, &length, message, message.count), "EVP_DigestSign")
    return Array(signature.prefix(length))
  }

  /// The curves by OpenSSH's name, and their field size in bytes.
  private static let curves = ["nistp256": 32, "nistp384": 48, "nistp521": 66]

  /// OpenSSL's names of the curves.
  private static let curveNames = ["nistp256": "P-256", "nistp384": "P-384", "nistp521": "P-521"]

  /// One parameter of a key being built.
  private enum Parameter {
    case text(UnsafePointer<CChar>, String)
    /// A non-negative big number from its big-endian magnitude, held in the secure heap.
    case number(UnsafePointer<CChar>, [UInt8])
    case octets(UnsafePointer<CChar>, [UInt8])
  }

  /// A key pair of `algorithm` ("EC", "RSA") built from `parameters`.
  private static func build(_ algorithm: String, _ parameters: [Parameter]) throws(CryptoError) -> OpaquePointer {
    guard let builder = OSSL_PARAM_BLD_new() else { throw .outOfMemory(operation: "OSSL_PARAM_BLD_new") }
    defer { OSSL_PARAM_BLD_free(builder) }
    var numbers: [OpaquePointer] = []
    defer { numbers.forEach { BN_clear_free($0) } }
    // The builder keeps pointers to texts and octets until OSSL_PARAM_BLD_to_param copies them:
    // they are copied into buffers that outlive that call, and wiped after.
    var buffers: [UnsafeMutableBufferPointer<UInt8>] = []
    defer {
      for buffer in buffers {
        OPENSSL_cleanse(buffer.baseAddress, buffer.count)
        buffer.deallocate()
      }
    }
    func keep(_ bytes: [UInt8]) -> UnsafeMutableBufferPointer<UInt8> {
      let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
      _ = buffer.initialize(from: bytes)
      buffers.append(buffer)
      return buffer
    }
    for parameter in parameters {
      let pushed: Int32
      switch parameter {
      case .text(let name, let value):
        let buffer = keep(Array(value.utf8) + [0])
        pushed = buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
          OSSL_PARAM_BLD_push_utf8_string(builder, name, $0, 0)
        }
      case .number(let name, let magnitude):
        guard let number = BN_secure_new() else { throw .outOfMemory(operation: "BN_secure_new") }
        numbers.append(number)
        guard BN_bin2bn(magnitude, Int32(magnitude.count), number) != nil else {
          throw CryptoError.failure(of: "BN_bin2bn")
        }
        pushed = OSSL_PARAM_BLD_push_BN(builder, name, number)
      case .octets(let name, let value):
        let buffer = keep(value)
        pushed = OSSL_PARAM_BLD_push_octet_string(builder, name, buffer.baseAddress, value.count)
      }
      try check(pushed, "OSSL_PARAM_BLD_push")
    }
    guard let built = OSSL_PARAM_BLD_to_param(builder) else { throw CryptoError.failure(of: "OSSL_PARAM_BLD_to_param") }
    // The private numbers were copied into a secure-heap block (they came from secure big numbers),
    // which OSSL_PARAM_free clears as it frees it.
    defer { OSSL_PARAM_free(built) }
    guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
      throw CryptoError.failure(of: "EVP_PKEY_CTX_new_from_name")
    }
    defer { EVP_PKEY_CTX_free(context) }
    try check(EVP_PKEY_fromdata_init(context), "EVP_PKEY_fromdata_init")
    var key: OpaquePointer?
    // EVP_PKEY_KEYPAIR: a macro Swift does not import.
    try check(EVP_PKEY_fromdata(context, &key, 0x87, built), "EVP_PKEY_fromdata")
    guard let key else { throw CryptoError.failure(of: "EVP_PKEY_fromdata") }
    return key
  }

  /// `value` mod (`prime` - 1), big-endian, through OpenSSL's constant-time big numbers.
  private static func remainder(_ value: [UInt8], byOneLessThan prime: [UInt8]) throws(CryptoError) -> [UInt8] {
    guard let context = BN_CTX_secure_new(), let dividend = BN_secure_new(), let divisor = BN_new(),
      let result = BN_secure_new()
    else { throw .outOfMemory(operation: "BN_new") }
    defer {
      BN_clear_free(dividend)
      BN_free(divisor)
      BN_clear_free(result)
      BN_CTX_free(context)
    }
    guard BN_bin2bn(value, Int32(value.count), dividend) != nil, BN_bin2bn(prime, Int32(prime.count), divisor) != nil,
      BN_sub_word(divisor, 1) == 1, BN_is_zero(divisor) == 0
    else { throw CryptoError.failure(of: "BN_bin2bn") }
    try check(BN_div(nil, result, dividend, divisor, context), "BN_div")
    var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(result) + 7) / 8))
    BN_bn2bin(result, &bytes)
    return bytes
  }
}

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

  /// An ECDSA key on `curve` (nistp256, nistp384, nistp521) from its private scalar; its public
  /// point must be `publicPoint` (uncompressed, as OpenSSH sends it).
  package convenience init(ecdsaCurve curve: String, privateScalar: [UInt8], publicPoint: [UInt8])
    throws(CryptoError)
  {
    guard let (oid, size) = Self.curves[curve] else { throw .invalidParameter("no such ECDSA curve") }
    let scalar = Array(privateScalar.drop { $0 == 0 })
    guard scalar.count <= size, publicPoint.count == 2 * size + 1, publicPoint.first == 4 else {
      throw .invalidParameter("the ECDSA key's fields do not fit its curve")
    }
    // SEC1's ECPrivateKey: version 1, the scalar at the curve's size, the curve, the point.
    var der = DERWriter.sequence(
      DERWriter.integer([1]) + DERWriter.element(0x04, [UInt8](repeating: 0, count: size - scalar.count) + scalar)
        + DERWriter.element(0xA0, oid) + DERWriter.element(0xA1, DERWriter.element(0x03, [0] + publicPoint)))
    defer { SecureBytes.wipe(&der) }
    let key = try Self.readPrivateKey(der)
    self.init(kind: .ecdsa(curve: curve), key: key)
    var derived = [UInt8](repeating: 0, count: publicPoint.count)
    var length = 0
    guard
      EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, &derived, derived.count, &length)
        == 1, derived.prefix(length) == publicPoint[...]
    else {
      LibcryptoErrorQueue.clear()
      throw .invalidParameter("the ECDSA private key does not match its public point")
    }
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
    // PKCS#1's RSAPrivateKey: version 0, n, e, d, p, q, d mod (p-1), d mod (q-1), q⁻¹ mod p.
    var der = DERWriter.sequence(
      DERWriter.integer([0])
        + [modulus, publicExponent, privateExponent, prime1, prime2, exponent1, exponent2, coefficient].flatMap(
          DERWriter.integer))
    defer { SecureBytes.wipe(&der) }
    self.init(kind: .rsa, key: try Self.readPrivateKey(der))
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

  /// The curves by OpenSSH's name: their DER object identifier and field size in bytes.
  private static let curves: [String: (oid: [UInt8], size: Int)] = [
    "nistp256": ([0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07], 32),
    "nistp384": ([0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22], 48),
    "nistp521": ([0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23], 66),
  ]

  private static func readPrivateKey(_ der: [UInt8]) throws(CryptoError) -> OpaquePointer {
    let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
      var cursor = buffer.baseAddress
      return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
    }
    guard let key else { throw CryptoError.failure(of: "d2i_AutoPrivateKey") }
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

/// The few DER encodings the keys above are built from (lengths in the definite form).
enum DERWriter {
  static func element(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
    var length: [UInt8]
    if contents.count < 0x80 {
      length = [UInt8(contents.count)]
    } else {
      var count = contents.count
      var digits: [UInt8] = []
      while count > 0 {
        digits.insert(UInt8(count & 0xFF), at: 0)
        count >>= 8
      }
      length = [0x80 | UInt8(digits.count)] + digits
    }
    return [tag] + length + contents
  }

  static func sequence(_ contents: [UInt8]) -> [UInt8] { element(0x30, contents) }

  /// A non-negative INTEGER from big-endian magnitude bytes.
  static func integer(_ magnitude: [UInt8]) -> [UInt8] {
    var digits = Array(magnitude.drop { $0 == 0 })
    if digits.isEmpty { digits = [0] }
    if digits[0] & 0x80 != 0 { digits.insert(0, at: 0) }
    return element(0x02, digits)
  }
}

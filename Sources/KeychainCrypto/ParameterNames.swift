internal import COpenSSL

/// OSSL_PARAM names as C strings that live as long as the process. An OSSL_PARAM keeps the name
/// pointer it is given, and Swift imports OpenSSL's name macros as `String`s whose C form lives
/// only for one call, so a parameter array built from them points at freed memory by the time
/// OpenSSL reads it (a derivation then fails with no reason queued). Never written after creation.
enum ParameterNames {
  nonisolated(unsafe) static let digest = permanent(OSSL_KDF_PARAM_DIGEST)
  nonisolated(unsafe) static let mode = permanent(OSSL_KDF_PARAM_MODE)
  nonisolated(unsafe) static let key = permanent(OSSL_KDF_PARAM_KEY)
  nonisolated(unsafe) static let info = permanent(OSSL_KDF_PARAM_INFO)
  nonisolated(unsafe) static let password = permanent(OSSL_KDF_PARAM_PASSWORD)
  nonisolated(unsafe) static let salt = permanent(OSSL_KDF_PARAM_SALT)
  nonisolated(unsafe) static let scryptN = permanent(OSSL_KDF_PARAM_SCRYPT_N)
  nonisolated(unsafe) static let scryptR = permanent(OSSL_KDF_PARAM_SCRYPT_R)
  nonisolated(unsafe) static let scryptP = permanent(OSSL_KDF_PARAM_SCRYPT_P)
  nonisolated(unsafe) static let scryptMaxMemory = permanent(OSSL_KDF_PARAM_SCRYPT_MAXMEM)
  nonisolated(unsafe) static let group = permanent(OSSL_PKEY_PARAM_GROUP_NAME)
  nonisolated(unsafe) static let privateKey = permanent(OSSL_PKEY_PARAM_PRIV_KEY)
  nonisolated(unsafe) static let publicKey = permanent(OSSL_PKEY_PARAM_PUB_KEY)
  nonisolated(unsafe) static let rsaModulus = permanent(OSSL_PKEY_PARAM_RSA_N)
  nonisolated(unsafe) static let rsaPublicExponent = permanent(OSSL_PKEY_PARAM_RSA_E)
  nonisolated(unsafe) static let rsaPrivateExponent = permanent(OSSL_PKEY_PARAM_RSA_D)
  // The CRT parameters: OpenSSL spells their names with macros Swift does not import.
  nonisolated(unsafe) static let rsaFactor1 = permanent("rsa-factor1")
  nonisolated(unsafe) static let rsaFactor2 = permanent("rsa-factor2")
  nonisolated(unsafe) static let rsaExponent1 = permanent("rsa-exponent1")
  nonisolated(unsafe) static let rsaExponent2 = permanent("rsa-exponent2")
  nonisolated(unsafe) static let rsaCoefficient1 = permanent("rsa-coefficient1")

  /// A copy of `name` that is never freed. Should the copy fail (no memory at all), an empty name
  /// is used, which OpenSSL does not recognize: the operation then fails with an error.
  private static func permanent(_ name: String) -> UnsafePointer<CChar> {
    if let copy = strdup(name) { return UnsafePointer(copy) }
    let empty: StaticString = ""
    return UnsafeRawPointer(empty.utf8Start).assumingMemoryBound(to: CChar.self)
  }
}

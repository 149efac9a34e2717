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

  /// A copy of `name` that is never freed. Should the copy fail (no memory at all), an empty name
  /// is used, which OpenSSL does not recognize: the operation then fails with an error.
  private static func permanent(_ name: String) -> UnsafePointer<CChar> {
    if let copy = strdup(name) { return UnsafePointer(copy) }
    let empty: StaticString = ""
    return UnsafeRawPointer(empty.utf8Start).assumingMemoryBound(to: CChar.self)
  }
}

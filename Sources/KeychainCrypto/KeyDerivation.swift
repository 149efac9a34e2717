internal import COpenSSL

/// HKDF (RFC 5869) with SHA-256, over OpenSSL 3's EVP_KDF "HKDF".
package enum HKDF {
  /// HKDF-Expand of `pseudoRandomKey` with `info`, `outputByteCount` bytes long. The store's and
  /// the sync group's subkeys are HKDF-Expand of their 32-byte key under a label, so their keys
  /// are uniformly random already and the Extract step would add nothing.
  package static func expand(
    pseudoRandomKey: some KeyBytes, info: some Collection<UInt8>, outputByteCount: Int
  ) throws(CryptoError) -> [UInt8] {
    var output = [UInt8](repeating: 0, count: outputByteCount)
    try output.withUnsafeMutableBufferPointer { output throws(CryptoError) in
      try expand(pseudoRandomKey: pseudoRandomKey, info: info, into: UnsafeMutableRawBufferPointer(output))
    }
    return output
  }

  /// HKDF-Expand into a `SecretKey`: the subkey is written straight into its allocation (the
  /// secure heap, where the program enabled it), never into an array first.
  package static func expandKey(
    pseudoRandomKey: some KeyBytes, info: some Collection<UInt8>, outputByteCount: Int
  ) throws(CryptoError) -> SecretKey {
    try SecretKey(byteCount: outputByteCount) { (output: UnsafeMutableRawBufferPointer) throws(CryptoError) in
      try expand(pseudoRandomKey: pseudoRandomKey, info: info, into: output)
    }
  }

  private static func expand(
    pseudoRandomKey: some KeyBytes, info: some Collection<UInt8>, into output: UnsafeMutableRawBufferPointer
  ) throws(CryptoError) {
    let outputByteCount = output.count
    guard outputByteCount > 0, outputByteCount <= 255 * 32 else {
      throw .invalidParameter("HKDF-Expand cannot produce \(outputByteCount) bytes")
    }
    var mode = Int32(EVP_KDF_HKDF_MODE_EXPAND_ONLY)
    var infoBytes = Array(info)
    try derive("HKDF", into: output) { digest, run in
      pseudoRandomKey.withKeyBytes { key in
        infoBytes.withUnsafeMutableBytes { info in
          withUnsafeMutablePointer(to: &mode) { mode in
            var parameters = [
              OSSL_PARAM_construct_utf8_string(ParameterNames.digest, digest, 0),
              OSSL_PARAM_construct_int(ParameterNames.mode, mode),
              // OpenSSL reads the key through this pointer; it never writes it.
              OSSL_PARAM_construct_octet_string(
                ParameterNames.key, UnsafeMutableRawPointer(mutating: key.baseAddress), key.count),
              OSSL_PARAM_construct_octet_string(ParameterNames.info, info.baseAddress, info.count),
              OSSL_PARAM_construct_end(),
            ]
            return run(&parameters)
          }
        }
      }
    }
  }
}

/// scrypt (RFC 7914), over OpenSSL 3's EVP_KDF "SCRYPT".
package enum Scrypt {
  /// A 32-byte key scrypt derives from `passphrase` and `salt` with N = 2^`logN`, `r` and `p`.
  /// libcrypto's memory ceiling is raised to what those parameters need (128·N·r bytes, plus a
  /// margin), so the cost is bounded by the parameters the caller accepted.
  package static func deriveKey(
    passphrase: [UInt8], salt: [UInt8], logN: UInt8, r: UInt32, p: UInt32
  ) throws(CryptoError) -> [UInt8] {
    guard logN >= 1, logN <= 30, r >= 1, p >= 1 else {
      throw .invalidParameter("scrypt parameters log2(N) \(logN), r \(r), p \(p) are out of range")
    }
    var n = UInt64(1) << UInt64(logN)
    var rValue = r
    var pValue = p
    let (memory, overflow) = UInt64(128).multipliedReportingOverflow(by: n * UInt64(r))
    guard !overflow, memory <= UInt64(Int.max) - 1024 * 1024 else {
      throw .invalidParameter("scrypt parameters log2(N) \(logN), r \(r) need too much memory")
    }
    var maxMemory = memory + 1024 * 1024
    var secret = passphrase
    var saltBytes = salt
    defer { SecureBytes.wipe(&secret) }
    var output = [UInt8](repeating: 0, count: 32)
    try output.withUnsafeMutableBufferPointer { output throws(CryptoError) in
      try derive("SCRYPT", into: UnsafeMutableRawBufferPointer(output)) { _, run in
        secret.withUnsafeMutableBytes { secret in
          saltBytes.withUnsafeMutableBytes { salt in
            withUnsafeMutablePointer(to: &n) { n in
              withUnsafeMutablePointer(to: &rValue) { r in
                withUnsafeMutablePointer(to: &pValue) { p in
                  withUnsafeMutablePointer(to: &maxMemory) { maxMemory in
                    var parameters = [
                      // An empty passphrase still needs a pointer for OpenSSL to take it as empty.
                      OSSL_PARAM_construct_octet_string(
                        ParameterNames.password, secret.baseAddress ?? salt.baseAddress, secret.count),
                      OSSL_PARAM_construct_octet_string(ParameterNames.salt, salt.baseAddress, salt.count),
                      OSSL_PARAM_construct_uint64(ParameterNames.scryptN, n),
                      OSSL_PARAM_construct_uint32(ParameterNames.scryptR, r),
                      OSSL_PARAM_construct_uint32(ParameterNames.scryptP, p),
                      OSSL_PARAM_construct_uint64(ParameterNames.scryptMaxMemory, maxMemory),
                      OSSL_PARAM_construct_end(),
                    ]
                    return run(&parameters)
                  }
                }
              }
            }
          }
        }
      }
    }
    return output
  }
}

/// Runs the EVP_KDF `name` into `output`. `body` gets the digest name "SHA256" as a C string and
/// a function that derives with the parameters it is given; it builds them inside the scopes that
/// keep their pointers valid and returns what that function returned.
func derive(
  _ name: String, into output: UnsafeMutableRawBufferPointer,
  _ body: (UnsafeMutablePointer<CChar>, (inout [OSSL_PARAM]) -> Int32) -> Int32
) throws(CryptoError) {
  guard let kdf = EVP_KDF_fetch(nil, name, nil) else { throw CryptoError.failure(of: "EVP_KDF_fetch(\(name))") }
  defer { EVP_KDF_free(kdf) }
  guard let context = EVP_KDF_CTX_new(kdf) else { throw .outOfMemory(operation: name) }
  defer { EVP_KDF_CTX_free(context) }
  var digest = Array("SHA256".utf8CString)
  let result = digest.withUnsafeMutableBufferPointer { digest in
    body(digest.baseAddress!) { parameters in
      EVP_KDF_derive(
        context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count, &parameters)
    }
  }
  try check(result, "EVP_KDF_derive(\(name))")
}

internal import COpenSSL

/// HKDF (RFC 5869) with SHA-256, over OpenSSL 3's EVP_KDF "HKDF".
package enum HKDF {
  /// HKDF-Expand of `pseudoRandomKey` with `info`, `outputByteCount` bytes long. The store's and
  /// the sync group's subkeys are HKDF-Expand of their 32-byte key under a label, so their keys
  /// are uniformly random already and the Extract step would add nothing.
  package static func expand(
    pseudoRandomKey: [UInt8], info: some Collection<UInt8>, outputByteCount: Int
  ) throws(CryptoError) -> [UInt8] {
    guard outputByteCount > 0, outputByteCount <= 255 * 32 else {
      throw .invalidParameter("HKDF-Expand cannot produce \(outputByteCount) bytes")
    }
    var mode = Int32(EVP_KDF_HKDF_MODE_EXPAND_ONLY)
    var key = pseudoRandomKey
    var infoBytes = Array(info)
    defer { SecureBytes.wipe(&key) }
    return try derive("HKDF", outputByteCount: outputByteCount) { digest, run in
      key.withUnsafeMutableBytes { key in
        infoBytes.withUnsafeMutableBytes { info in
          withUnsafeMutablePointer(to: &mode) { mode in
            var parameters = [
              OSSL_PARAM_construct_utf8_string(ParameterNames.digest, digest, 0),
              OSSL_PARAM_construct_int(ParameterNames.mode, mode),
              OSSL_PARAM_construct_octet_string(ParameterNames.key, key.baseAddress, key.count),
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
    return try derive("SCRYPT", outputByteCount: 32) { _, run in
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
}

/// Runs the EVP_KDF `name` into `outputByteCount` bytes. `body` gets the digest name "SHA256" as a C
/// string and a function that derives with the parameters it is given; it builds them inside the
/// scopes that keep their pointers valid and returns what that function returned.
private func derive(
  _ name: String, outputByteCount: Int,
  _ body: (UnsafeMutablePointer<CChar>, (inout [OSSL_PARAM]) -> Int32) -> Int32
) throws(CryptoError) -> [UInt8] {
  guard let kdf = EVP_KDF_fetch(nil, name, nil) else { throw CryptoError.failure(of: "EVP_KDF_fetch(\(name))") }
  defer { EVP_KDF_free(kdf) }
  guard let context = EVP_KDF_CTX_new(kdf) else { throw .outOfMemory(operation: name) }
  defer { EVP_KDF_CTX_free(context) }
  var digest = Array("SHA256".utf8CString)
  var output = [UInt8](repeating: 0, count: outputByteCount)
  let result = digest.withUnsafeMutableBufferPointer { digest in
    body(digest.baseAddress!) { parameters in EVP_KDF_derive(context, &output, outputByteCount, &parameters) }
  }
  try check(result, "EVP_KDF_derive(\(name))")
  return output
}

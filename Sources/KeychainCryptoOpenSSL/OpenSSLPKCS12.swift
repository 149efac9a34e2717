import CKeychainCrypto
import COpenSSL
import Foundation
import KeychainCrypto
import Security

// PKCS#12 files read and written through libcrypto's PKCS12_* functions (keys rules 9.1 to 9.7).

/// The safe bags of a PKCS#12 file and the stacks that own them.
final class SafeBags {
  var stacks: [OpaquePointer] = []
  var items: [OpaquePointer] = []

  deinit {
    for stack in stacks {
      OPENSSL_sk_pop_free(stack) { PKCS12_SAFEBAG_free(OpaquePointer($0)) }
    }
  }
}

extension OpenSSLKeyEngine {
  /// The default and legacy providers, loaded once: OpenSSL 3 reads RC2 and RC4 (older PKCS#12
  /// files, `openssl pkcs12 -legacy`) only with the legacy provider. A system without it still
  /// reads modern files.
  static let providersLoaded: Bool = {
    _ = OSSL_PROVIDER_load(nil, "default")
    let legacy = OSSL_PROVIDER_load(nil, "legacy") != nil
    ERR_clear_error()
    return legacy
  }()

  package func importPKCS12(_ data: Data, passphrase: String) throws(KeyOperationFailure) -> [PKCS12Identity] {
    _ = Self.providersLoaded
    let bytes = Array(data)
    let file: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
      var cursor = buffer.baseAddress
      return d2i_PKCS12(nil, &cursor, buffer.count)
    }
    guard let file else {
      ERR_clear_error()
      throw KeyOperationFailure(errSecDecode, "the data is not a PKCS#12 file")
    }
    defer { PKCS12_free(file) }
    guard PKCS12_mac_present(file) == 1 else {
      throw KeyOperationFailure(errSecDecode, "the PKCS#12 file has no integrity MAC")
    }
    try Self.checkIterations(keychain_pkcs12_mac_iterations(UnsafeRawPointer(file)), of: "its MAC")
    let password = Array(passphrase.utf8CString)
    guard PKCS12_verify_mac(file, password, Int32(password.count - 1)) == 1 else {
      ERR_clear_error()
      throw KeyOperationFailure(errSecAuthFailed, "the passphrase is wrong")
    }
    // Every key bag paired with its certificate (9.4), as PKCS12_parse, which returns one key,
    // does not: by localKeyID, else friendlyName, else the certificate whose key it is.
    let bags = try Self.safeBags(file, password)
    var keys: [(key: OpenSSLKey, keyID: Data?, label: String?)] = []
    var certificates: [(certificate: OpaquePointer, keyID: Data?, label: String?)] = []
    defer { for entry in certificates { X509_free(entry.certificate) } }
    for bag in bags.items {
      let keyID = Self.localKeyID(of: bag)
      let label = PKCS12_get_friendlyname(bag).map { name in
        defer { CRYPTO_free(name, #fileID, #line) }
        return String(cString: name)
      }
      switch PKCS12_SAFEBAG_get_nid(bag) {
      case NID_keyBag, NID_pkcs8ShroudedKeyBag:
        keys.append((try Self.privateKey(of: bag, password), keyID, label))
      case NID_certBag where PKCS12_SAFEBAG_get_bag_nid(bag) == NID_x509Certificate:
        guard let certificate = PKCS12_SAFEBAG_get1_cert(bag) else {
          throw libcryptoFailure("PKCS12_SAFEBAG_get1_cert", status: errSecDecode)
        }
        certificates.append((certificate, keyID, label))
      default:
        continue
      }
    }
    var identities: [PKCS12Identity] = []
    var paired = Set<Int>()
    for key in keys {
      let match =
        certificates.indices.first { key.keyID != nil && certificates[$0].keyID == key.keyID }
        ?? certificates.indices.first { key.label != nil && certificates[$0].label == key.label }
        ?? certificates.indices.first { X509_check_private_key(certificates[$0].certificate, key.key.key) == 1 }
      ERR_clear_error()
      guard let match, X509_check_private_key(certificates[match].certificate, key.key.key) == 1 else {
        ERR_clear_error()
        throw KeyOperationFailure(errSecDecode, "a PKCS#12 key does not match its certificate")
      }
      paired.insert(match)
      guard let leaf = Self.der(of: certificates[match].certificate) else {
        throw libcryptoFailure("i2d_X509", status: errSecDecode)
      }
      identities.append(
        PKCS12Identity(
          key: key.key, certificate: leaf, chain: [], label: key.label ?? certificates[match].label,
          keyID: key.keyID ?? certificates[match].keyID))
    }
    // The certificates no key goes with are the chain (iOS ignores them otherwise, 9.6).
    let chain = certificates.indices.filter { !paired.contains($0) }.compactMap {
      Self.der(of: certificates[$0].certificate)
    }
    return identities.map { identity in
      var identity = identity
      identity.chain = chain
      return identity
    }
  }

  /// The safe bags of every authenticated safe, decrypted with `password`; freed with the result.
  static func safeBags(_ file: OpaquePointer, _ password: [CChar]) throws(KeyOperationFailure) -> SafeBags {
    guard let safes = PKCS12_unpack_authsafes(file) else {
      throw libcryptoFailure("PKCS12_unpack_authsafes", status: errSecDecode)
    }
    defer { OPENSSL_sk_pop_free(safes) { PKCS7_free($0?.assumingMemoryBound(to: PKCS7.self)) } }
    let result = SafeBags()
    for index in 0..<OPENSSL_sk_num(safes) {
      guard let safe = OPENSSL_sk_value(safes, index)?.assumingMemoryBound(to: PKCS7.self) else { continue }
      let bags: OpaquePointer?
      switch OBJ_obj2nid(safe.pointee.type) {
      case NID_pkcs7_data: bags = PKCS12_unpack_p7data(safe)
      case NID_pkcs7_encrypted:
        guard let algorithm = keychain_pkcs7_encryption_algorithm(UnsafeRawPointer(safe)) else {
          throw KeyOperationFailure(errSecDecode, "a PKCS#12 file's encrypted content names no algorithm")
        }
        try checkIterations(keychain_pbe_iterations(algorithm), of: "its encrypted content")
        bags = PKCS12_unpack_p7encdata(safe, password, Int32(password.count - 1))
      default: continue
      }
      guard let bags else { throw libcryptoFailure("PKCS12_unpack_p7", status: errSecDecode) }
      result.stacks.append(bags)
      for bagIndex in 0..<OPENSSL_sk_num(bags) {
        if let bag = OPENSSL_sk_value(bags, bagIndex) { result.items.append(OpaquePointer(bag)) }
      }
    }
    return result
  }

  /// The most key-derivation iterations an import runs for one derivation. Exporters write 2,048
  /// (OpenSSL, macOS) to a few hundred thousand; a million takes about half a second here, and
  /// a file asking for 2^31-1 would hold the import for minutes (issue 63).
  static let maximumIterations = 1_000_000

  /// Refuses a count over `maximumIterations`, or one that cannot be read (-1), before anything
  /// is derived with it.
  static func checkIterations(_ iterations: Int, of part: String) throws(KeyOperationFailure) {
    guard iterations >= 0 else {
      throw KeyOperationFailure(errSecDecode, "the PKCS#12 file's iteration count for \(part) cannot be read")
    }
    guard iterations <= maximumIterations else {
      throw KeyOperationFailure(
        errSecDecode,
        "the PKCS#12 file asks for \(iterations) key-derivation iterations for \(part), more than the "
          + "\(maximumIterations) an import runs")
    }
  }

  /// The private key of a key bag, decrypted with `password` when it is shrouded; RSA or EC only.
  static func privateKey(of bag: OpaquePointer, _ password: [CChar]) throws(KeyOperationFailure) -> OpenSSLKey {
    let key: OpaquePointer?
    if PKCS12_SAFEBAG_get_nid(bag) == NID_pkcs8ShroudedKeyBag {
      guard let algorithm = keychain_safebag_encryption_algorithm(UnsafeRawPointer(bag)) else {
        throw KeyOperationFailure(errSecDecode, "a PKCS#12 key bag names no algorithm")
      }
      try checkIterations(keychain_pbe_iterations(algorithm), of: "a key")
      guard let info = PKCS12_decrypt_skey(bag, password, Int32(password.count - 1)) else {
        throw libcryptoFailure("PKCS12_decrypt_skey", status: errSecDecode)
      }
      defer { PKCS8_PRIV_KEY_INFO_free(info) }
      key = EVP_PKCS82PKEY(info)
    } else {
      key = PKCS12_SAFEBAG_get0_p8inf(bag).flatMap { EVP_PKCS82PKEY($0) }
    }
    guard let key else { throw libcryptoFailure("EVP_PKCS82PKEY", status: errSecDecode) }
    switch EVP_PKEY_get_base_id(key) {
    case EVP_PKEY_RSA: return OpenSSLKey(key, type: .rsa, isPrivate: true)
    case EVP_PKEY_EC: return OpenSSLKey(key, type: .ec, isPrivate: true)
    default:
      EVP_PKEY_free(key)
      throw KeyOperationFailure(errSecDecode, "a PKCS#12 key is neither RSA nor EC")
    }
  }

  /// A bag's localKeyID attribute.
  static func localKeyID(of bag: OpaquePointer) -> Data? {
    guard let attribute = PKCS12_SAFEBAG_get0_attr(bag, NID_localKeyID),
      let octets = attribute.pointee.value.octet_string, let bytes = ASN1_STRING_get0_data(octets)
    else { return nil }
    return Data(bytes: bytes, count: Int(ASN1_STRING_length(octets)))
  }

  static func der(of certificate: OpaquePointer) -> Data? {
    var output: UnsafeMutablePointer<UInt8>?
    let length = i2d_X509(certificate, &output)
    guard length > 0, let output else { return nil }
    defer { CRYPTO_free(output, #fileID, #line) }
    return Data(bytes: output, count: Int(length))
  }
}

extension OpenSSLKeyEngine {
  /// PBKDF2 rounds for the keys and certificates and for the MAC: OpenSSL's own default (2,048)
  /// is old; a MAC weaker than the encryption would let a passphrase be guessed through it, so
  /// both use the same count.
  static let pkcs12Iterations: Int32 = 100_000

  package func exportPKCS12(_ identities: [PKCS12Identity], passphrase: String) throws(KeyOperationFailure) -> Data {
    _ = Self.providersLoaded
    guard !identities.isEmpty else { throw KeyOperationFailure(errSecParam, "there is no identity to export") }
    let password = Array(passphrase.utf8CString)
    let passwordLength = Int32(password.count - 1)
    var certificateBags: OpaquePointer?
    var keyBags: OpaquePointer?
    var safes: OpaquePointer?
    defer {
      for bags in [certificateBags, keyBags] {
        if let bags { OPENSSL_sk_pop_free(bags) { PKCS12_SAFEBAG_free(OpaquePointer($0)) } }
      }
      if let safes { OPENSSL_sk_pop_free(safes) { PKCS7_free($0?.assumingMemoryBound(to: PKCS7.self)) } }
    }
    var added = Set<Data>()
    for identity in identities {
      guard let key = identity.key as? OpenSSLKey, key.isPrivate else {
        throw KeyOperationFailure(errSecKeyIsSensitive, "a private key kept by a hardware token cannot be exported")
      }
      // The key and its certificate share a localKeyID (the certificate's SHA-1, as OpenSSL's
      // own tool writes) and a friendlyName, which is how readers pair them.
      let keyID: Data
      if let given = identity.keyID { keyID = given } else { keyID = try digest(.sha1, identity.certificate) }
      for (index, der) in ([identity.certificate] + identity.chain).enumerated() {
        // Each certificate once; the leaf always, as its key's pair.
        guard added.insert(der).inserted || index == 0 else { continue }
        let certificate = try Self.certificate(der)
        defer { X509_free(certificate) }
        guard let bag = PKCS12_add_cert(&certificateBags, certificate) else {
          throw libcryptoFailure("PKCS12_add_cert", status: errSecAllocate)
        }
        if index == 0 { try Self.name(bag, label: identity.label, keyID: keyID) }
      }
      guard let bag = PKCS12_add_key(&keyBags, key.key, 0, Self.pkcs12Iterations, NID_aes_256_cbc, password) else {
        throw libcryptoFailure("PKCS12_add_key", status: errSecAllocate)
      }
      try Self.name(bag, label: identity.label, keyID: keyID)
    }
    // Certificates in an encrypted safe, keys shrouded in a plain one: the layout of
    // `openssl pkcs12 -export` and of macOS's files.
    guard PKCS12_add_safe(&safes, certificateBags, NID_aes_256_cbc, Self.pkcs12Iterations, password) == 1,
      PKCS12_add_safe(&safes, keyBags, -1, 0, nil) == 1
    else { throw libcryptoFailure("PKCS12_add_safe", status: errSecAllocate) }
    guard let file = PKCS12_add_safes(safes, 0) else {
      throw libcryptoFailure("PKCS12_add_safes", status: errSecAllocate)
    }
    defer { PKCS12_free(file) }
    try check(
      PKCS12_set_mac(file, password, passwordLength, nil, 0, Self.pkcs12Iterations, EVP_sha256()), "PKCS12_set_mac")
    var output: UnsafeMutablePointer<UInt8>?
    let length = i2d_PKCS12(file, &output)
    guard length > 0, let output else { throw libcryptoFailure("i2d_PKCS12", status: errSecAllocate) }
    defer { CRYPTO_free(output, #fileID, #line) }
    return Data(bytes: output, count: Int(length))
  }

  /// The friendlyName and localKeyID attributes of a bag.
  private static func name(_ bag: OpaquePointer, label: String?, keyID: Data) throws(KeyOperationFailure) {
    if let label, PKCS12_add_friendlyname_utf8(bag, label, -1) != 1 {
      throw libcryptoFailure("PKCS12_add_friendlyname_utf8", status: errSecAllocate)
    }
    let added = keyID.withUnsafeBytes { bytes in
      PKCS12_add_localkeyid(
        bag, UnsafeMutablePointer(mutating: bytes.bindMemory(to: UInt8.self).baseAddress), Int32(bytes.count))
    }
    guard added == 1 else { throw libcryptoFailure("PKCS12_add_localkeyid", status: errSecAllocate) }
  }

  /// A certificate from its DER, all of it; freed by the caller.
  static func certificate(_ der: Data) throws(KeyOperationFailure) -> OpaquePointer {
    guard let parsed = WholeDER.decode(Array(der), { d2i_X509(nil, $0, $1) }, free: { X509_free($0) }) else {
      throw KeyOperationFailure(errSecDecode, "the data is not a DER certificate")
    }
    return parsed
  }
}

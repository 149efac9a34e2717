import Foundation

// Signing, verifying, encrypting, decrypting and key exchange (keys rule 5): Apple's
// rules on top of the engine's primitives.

/// Signs `dataToSign` with a private key, as Apple's `SecKeyCreateSignature` does.
///
/// Fails with errSecParam when the key does not support the algorithm for signing (keys rule 5.1.4) or
/// the input does not fit it (a digest of the wrong length, keys rules 5.3.3 and D6).
@discardableResult
public func SecKeyCreateSignature(
  _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
  keyCall(error) { () throws(KeyOperationFailure) -> CFData in
    let parsed = try KeyOperations.supported(key, .sign, algorithm)
    return try KeyOperations.sign(key, parsed, dataToSign as Data) as NSData
  }
}

/// Verifies a signature with a public key, as Apple's `SecKeyVerifySignature` does: false with
/// errSecVerifyFailed for a signature that does not verify (keys rules 5.3.7, 5.4.5).
@discardableResult
public func SecKeyVerifySignature(
  _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
  keyCall(error) { () throws(KeyOperationFailure) -> Bool in
    let parsed = try KeyOperations.supported(key, .verify, algorithm)
    guard try KeyOperations.verify(key, parsed, signedData as Data, signature as Data) else {
      throw KeyOperationFailure(
        errSecVerifyFailed, "\(key.keyType == .rsa ? "RSA" : "EC") signature verification failed")
    }
    return true
  } ?? false
}

/// Encrypts `plaintext` with a public key, as Apple's `SecKeyCreateEncryptedData` does.
@discardableResult
public func SecKeyCreateEncryptedData(
  _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
  keyCall(error) { () throws(KeyOperationFailure) -> CFData in
    let parsed = try KeyOperations.supported(key, .encrypt, algorithm)
    return try KeyOperations.encrypt(key, parsed, plaintext as Data) as NSData
  }
}

/// Decrypts `ciphertext` with a private key, as Apple's `SecKeyCreateDecryptedData` does;
/// errSecParam for a ciphertext that is malformed, altered or not for this key.
@discardableResult
public func SecKeyCreateDecryptedData(
  _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
  keyCall(error) { () throws(KeyOperationFailure) -> CFData in
    let parsed = try KeyOperations.supported(key, .decrypt, algorithm)
    return try KeyOperations.decrypt(key, parsed, ciphertext as Data) as NSData
  }
}

/// Performs ECDH between a private key and a peer's public key, as Apple's
/// `SecKeyCopyKeyExchangeResult` does (keys rule 5.7): the raw shared secret, or for the X963 forms
/// kSecKeyKeyExchangeParameterRequestedSize bytes derived with the optional SharedInfo.
@discardableResult
public func SecKeyCopyKeyExchangeResult(
  _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: CFDictionary,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
  keyCall(error) { () throws(KeyOperationFailure) -> CFData in
    let parsed = try KeyOperations.supported(privateKey, .keyExchange, algorithm)
    guard case .ecdh(let cofactor, let kdf) = parsed else { throw KeyOperations.unsupported }
    // Decision D7: any peer key that cannot take part is errSecParam, another curve included.
    guard publicKey.keyType == .ec, !publicKey.isPrivate, publicKey.bits == privateKey.bits else {
      throw KeyOperationFailure(errSecParam, "bad public key: not an EC public key on the private key's curve")
    }
    let secret = try privateKey.material.ecdh(peer: publicKey.material, cofactor: cofactor)
    guard let kdf else { return secret as NSData }
    let values = try KeyParameters(parameters).top
    guard let size = KeyParameters.integer(values[kSecKeyKeyExchangeParameterRequestedSize as String]), size > 0 else {
      throw KeyOperationFailure(errSecParam, "kSecKeyKeyExchangeParameterRequestedSize is missing")
    }
    var sharedInfo = Data()
    if let info = values[kSecKeyKeyExchangeParameterSharedInfo as String] {
      guard let data = info as? Data else {
        throw KeyOperationFailure(errSecParam, "kSecKeyKeyExchangeParameterSharedInfo must be data")
      }
      sharedInfo = data
    }
    return try privateKey.backend.keyEngine.x963KDF(kdf, secret: secret, sharedInfo: sharedInfo, length: size) as NSData
  }
}

/// The rules of each operation, over the engine's primitives.
enum KeyOperations {
  static let unsupported = KeyOperationFailure(errSecParam, "algorithm not supported by the key")

  /// The parsed algorithm when `key` supports it for `operation` (keys rule 5.1.4).
  static func supported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm)
    throws(KeyOperationFailure) -> KeyAlgorithm
  {
    guard let parsed = KeyAlgorithm(algorithm.rawValue as String), parsed.isSupported(by: key, for: operation) else {
      throw unsupported
    }
    return parsed
  }

  /// The digest a signature covers: the caller's, of the named hash's length (5.3.3, D6), or
  /// the message hashed by `key`'s engine.
  static func signedDigest(_ input: KeyAlgorithm.SignatureInput, _ data: Data, of key: SecKey)
    throws(KeyOperationFailure) -> Data
  {
    switch input {
    case .digest(let hash?):
      guard data.count == hash.length else {
        throw KeyOperationFailure(errSecParam, "bad digest size: \(data.count) bytes for \(hash.rawValue)")
      }
      return data
    case .digest(nil): return data
    case .message(let hash): return try key.backend.keyEngine.digest(hash, data)
    }
  }

  static func rsaPadding(_ scheme: KeyAlgorithm.RSASignatureScheme, _ input: KeyAlgorithm.SignatureInput)
    -> RSASignaturePadding
  {
    switch scheme {
    case .raw: .raw
    case .pkcs1v15: .pkcs1v15(input.hash)
    case .pss: .pss(input.hash ?? .sha1)
    }
  }

  static func sign(_ key: SecKey, _ algorithm: KeyAlgorithm, _ data: Data) throws(KeyOperationFailure) -> Data {
    switch algorithm {
    case .ecdsa(let input, let format):
      let der = try key.material.ecdsaSign(digest: try signedDigest(input, data, of: key))
      guard format == .rfc4754 else { return der }
      guard let raw = key.backend.keyEngine.ecdsaRawSignature(fromDER: der, fieldSize: key.blockSize) else {
        throw KeyOperationFailure(errSecParam, "the engine produced a malformed ECDSA signature")
      }
      return raw
    case .rsaSignature(let input, let scheme):
      let digest = try signedDigest(input, data, of: key)
      if scheme == .raw && digest.count > key.blockSize {
        throw KeyOperationFailure(errSecParam, "the input is longer than the key's block size")
      }
      return try key.material.rsaSign(digest, padding: rsaPadding(scheme, input))
    default:
      throw unsupported
    }
  }

  static func verify(_ key: SecKey, _ algorithm: KeyAlgorithm, _ data: Data, _ signature: Data)
    throws(KeyOperationFailure) -> Bool
  {
    switch algorithm {
    case .ecdsa(let input, let format):
      let digest = try signedDigest(input, data, of: key)
      let der: Data
      if format == .rfc4754 {
        guard let converted = key.backend.keyEngine.ecdsaDERSignature(fromRaw: signature, fieldSize: key.blockSize)
        else { return false }
        der = converted
      } else {
        der = signature
      }
      return try key.material.ecdsaVerify(digest: digest, signature: der)
    case .rsaSignature(let input, let scheme):
      let digest = try signedDigest(input, data, of: key)
      guard signature.count <= key.blockSize else { return false }
      return try key.material.rsaVerify(digest, signature: signature, padding: rsaPadding(scheme, input))
    default:
      throw unsupported
    }
  }

  /// The largest plaintext an RSA padding takes (keys rules 5.5.1, 5.5.2).
  static func maximumPlaintext(_ padding: RSAEncryptionPadding, blockSize: Int) -> Int {
    switch padding {
    case .raw: blockSize
    case .pkcs1: blockSize - 11
    case .oaep(let hash): blockSize - 2 * hash.length - 2
    }
  }

  static func encrypt(_ key: SecKey, _ algorithm: KeyAlgorithm, _ plaintext: Data) throws(KeyOperationFailure) -> Data {
    switch algorithm {
    case .rsaEncryption(.raw): return try rsaEncrypt(key, plaintext, .raw)
    case .rsaEncryption(.pkcs1): return try rsaEncrypt(key, plaintext, .pkcs1)
    case .rsaEncryption(.oaep(let hash)): return try rsaEncrypt(key, plaintext, .oaep(hash))
    case .rsaEncryption(.oaepAESGCM(let hash)):
      // 5.5.6: a random AES key wrapped with OAEP, then AES-GCM under a zero IV (decision D12).
      var sessionKey = Data(count: key.bits >= 4096 ? 32 : 16)
      var generator = SystemRandomNumberGenerator()
      for index in sessionKey.indices { sessionKey[index] = generator.next() }
      let wrapped = try rsaEncrypt(key, sessionKey, .oaep(hash))
      let sealed = try key.backend.keyEngine.aesGCMSeal(
        key: sessionKey, iv: Data(count: 16), plaintext: plaintext, additionalData: key.publicBytes)
      return wrapped + sealed
    case .ecies(let cofactor, let kdf, let variableIV):
      let engine = key.backend.keyEngine
      let ephemeral = try engine.generate(.ec, bits: key.bits)
      let ephemeralPublic = try ephemeral.publicKey().externalRepresentation()
      let secret = try ephemeral.ecdh(peer: key.material, cofactor: cofactor)
      let (aesKey, iv) = try eciesKey(engine, kdf, secret, ephemeralPublic, bits: key.bits, variableIV: variableIV)
      return ephemeralPublic
        + (try engine.aesGCMSeal(key: aesKey, iv: iv, plaintext: plaintext, additionalData: Data()))
    default:
      throw unsupported
    }
  }

  static func decrypt(_ key: SecKey, _ algorithm: KeyAlgorithm, _ ciphertext: Data) throws(KeyOperationFailure) -> Data
  {
    switch algorithm {
    case .rsaEncryption(.raw): return try rsaDecrypt(key, ciphertext, .raw)
    case .rsaEncryption(.pkcs1): return try rsaDecrypt(key, ciphertext, .pkcs1)
    case .rsaEncryption(.oaep(let hash)): return try rsaDecrypt(key, ciphertext, .oaep(hash))
    case .rsaEncryption(.oaepAESGCM(let hash)):
      let k = key.blockSize
      guard ciphertext.count >= k + 16 else {
        throw KeyOperationFailure(errSecParam, "RSAdecrypt wrong input: too short")
      }
      let sessionKey = try rsaDecrypt(key, Data(ciphertext.prefix(k)), .oaep(hash))
      guard sessionKey.count == 16 || sessionKey.count == 32 else {
        throw KeyOperationFailure(errSecParam, "RSAdecrypt wrong input: bad session key size")
      }
      let publicBytes = key.publicBytes
      return try key.backend.keyEngine.aesGCMOpen(
        key: sessionKey, iv: Data(count: 16), sealed: Data(ciphertext.dropFirst(k)), additionalData: publicBytes)
    case .ecies(let cofactor, let kdf, let variableIV):
      let engine = key.backend.keyEngine
      let pointLength = 2 * key.blockSize + 1
      guard ciphertext.count >= pointLength + 16 else {
        throw KeyOperationFailure(errSecParam, "ECIES: too small input packet")
      }
      let ephemeralPublic = Data(ciphertext.prefix(pointLength))
      let peer: any EngineKey
      do {
        peer = try engine.importKey(.ec, isPrivate: false, data: ephemeralPublic)
      } catch {
        throw KeyOperationFailure(errSecParam, "ECIES: the ephemeral public key is not a point of the curve")
      }
      let secret = try key.material.ecdh(peer: peer, cofactor: cofactor)
      let (aesKey, iv) = try eciesKey(engine, kdf, secret, ephemeralPublic, bits: key.bits, variableIV: variableIV)
      return try engine.aesGCMOpen(
        key: aesKey, iv: iv, sealed: Data(ciphertext.dropFirst(pointLength)), additionalData: Data())
    default:
      throw unsupported
    }
  }

  /// ECIES's AES key (16 bytes up to 256-bit curves, 32 above) and IV (5.6.4, 5.6.5).
  static func eciesKey(
    _ engine: any KeyEngine, _ kdf: DigestKind, _ secret: Data, _ ephemeralPublic: Data, bits: Int, variableIV: Bool
  ) throws(KeyOperationFailure) -> (Data, Data) {
    let keyLength = bits > 256 ? 32 : 16
    let derived = try engine.x963KDF(
      kdf, secret: secret, sharedInfo: ephemeralPublic, length: keyLength + (variableIV ? 16 : 0))
    let aesKey = Data(derived.prefix(keyLength))
    return (aesKey, variableIV ? Data(derived.dropFirst(keyLength)) : Data(count: 16))
  }

  static func rsaEncrypt(_ key: SecKey, _ plaintext: Data, _ padding: RSAEncryptionPadding) throws(KeyOperationFailure)
    -> Data
  {
    guard plaintext.count <= maximumPlaintext(padding, blockSize: key.blockSize) else {
      throw KeyOperationFailure(errSecParam, "the plaintext is too long for the key and padding")
    }
    return try key.material.rsaEncrypt(plaintext, padding: padding)
  }

  static func rsaDecrypt(_ key: SecKey, _ ciphertext: Data, _ padding: RSAEncryptionPadding) throws(KeyOperationFailure)
    -> Data
  {
    let k = key.blockSize
    guard ciphertext.count <= k else { throw KeyOperationFailure(errSecParam, "RSAdecrypt wrong input: too long") }
    // A shorter ciphertext is a number with its leading zeros dropped (5.5.4).
    let block = Data(count: k - ciphertext.count) + ciphertext
    do {
      return try key.material.rsaDecrypt(block, padding: padding)
    } catch {
      throw KeyOperationFailure(errSecParam, "RSAdecrypt wrong input")
    }
  }
}

import Foundation

// The deprecated iOS functions that libraries still call (keys rule 10.8), each mapped
// onto the modern function as Apple maps them: a padding names an algorithm, and the buffers are
// the caller's.

/// Makes a key pair, as Apple's deprecated `SecKeyGeneratePair` does: SecKeyCreateRandomKey, then
/// its public key; the status is the CFError's code (keys rule 2.12).
@available(*, deprecated, message: "Use SecKeyCreateRandomKey")
@discardableResult
public func SecKeyGeneratePair(
  _ parameters: CFDictionary, _ publicKey: UnsafeMutablePointer<SecKey?>?, _ privateKey: UnsafeMutablePointer<SecKey?>?
) -> OSStatus {
  var error: Unmanaged<CFError>?
  guard let key = SecKeyCreateRandomKey(parameters, &error) else { return LegacyPadding.status(error) }
  publicKey?.pointee = SecKeyCopyPublicKey(key)
  privateKey?.pointee = key
  return errSecSuccess
}

/// Signs a digest, as Apple's deprecated `SecKeyRawSign` does: an EC key signs with ECDSA (X9.62
/// DER) whatever the padding; an RSA key with the PKCS#1 v1.5 form the padding names, or raw.
@available(*, deprecated, message: "Use SecKeyCreateSignature")
@discardableResult
public func SecKeyRawSign(
  _ key: SecKey, _ padding: SecPadding, _ dataToSign: UnsafePointer<UInt8>, _ dataToSignLen: Int,
  _ sig: UnsafeMutablePointer<UInt8>, _ sigLen: UnsafeMutablePointer<Int>
) -> OSStatus {
  guard let algorithm = LegacyPadding.signingAlgorithm(key, padding) else { return errSecParam }
  let input = Data(bytes: dataToSign, count: dataToSignLen)
  var error: Unmanaged<CFError>?
  guard let signature = SecKeyCreateSignature(key, algorithm, input as CFData, &error) as Data? else {
    return LegacyPadding.status(error)
  }
  return LegacyPadding.copy(signature, into: sig, capacity: sigLen)
}

/// Checks a signature of a digest, as Apple's deprecated `SecKeyRawVerify` does; a signature that
/// does not verify is errSSLCrypto, as on Apple.
@available(*, deprecated, message: "Use SecKeyVerifySignature")
@discardableResult
public func SecKeyRawVerify(
  _ key: SecKey, _ padding: SecPadding, _ signedData: UnsafePointer<UInt8>, _ signedDataLen: Int,
  _ sig: UnsafePointer<UInt8>, _ sigLen: Int
) -> OSStatus {
  guard let algorithm = LegacyPadding.signingAlgorithm(key, padding) else { return errSecParam }
  let data = Data(bytes: signedData, count: signedDataLen)
  let signature = Data(bytes: sig, count: sigLen)
  var error: Unmanaged<CFError>?
  if SecKeyVerifySignature(key, algorithm, data as CFData, signature as CFData, &error) { return errSecSuccess }
  let status = LegacyPadding.status(error)
  return status == errSecVerifyFailed ? LegacyPadding.sslCryptoFailure : status
}

/// Encrypts a block, as Apple's deprecated `SecKeyEncrypt` does: raw, PKCS#1 or OAEP-SHA1 RSA.
@available(*, deprecated, message: "Use SecKeyCreateEncryptedData")
@discardableResult
public func SecKeyEncrypt(
  _ key: SecKey, _ padding: SecPadding, _ plainText: UnsafePointer<UInt8>, _ plainTextLen: Int,
  _ cipherText: UnsafeMutablePointer<UInt8>, _ cipherTextLen: UnsafeMutablePointer<Int>
) -> OSStatus {
  guard let algorithm = LegacyPadding.encryptionAlgorithm(padding) else { return errSecParam }
  var error: Unmanaged<CFError>?
  let input = Data(bytes: plainText, count: plainTextLen)
  guard let ciphertext = SecKeyCreateEncryptedData(key, algorithm, input as CFData, &error) as Data? else {
    return LegacyPadding.status(error)
  }
  return LegacyPadding.copy(ciphertext, into: cipherText, capacity: cipherTextLen)
}

/// Decrypts a block, as Apple's deprecated `SecKeyDecrypt` does.
@available(*, deprecated, message: "Use SecKeyCreateDecryptedData")
@discardableResult
public func SecKeyDecrypt(
  _ key: SecKey, _ padding: SecPadding, _ cipherText: UnsafePointer<UInt8>, _ cipherTextLen: Int,
  _ plainText: UnsafeMutablePointer<UInt8>, _ plainTextLen: UnsafeMutablePointer<Int>
) -> OSStatus {
  guard let algorithm = LegacyPadding.encryptionAlgorithm(padding) else { return errSecParam }
  var error: Unmanaged<CFError>?
  let input = Data(bytes: cipherText, count: cipherTextLen)
  guard let plaintext = SecKeyCreateDecryptedData(key, algorithm, input as CFData, &error) as Data? else {
    return LegacyPadding.status(error)
  }
  return LegacyPadding.copy(plaintext, into: plainText, capacity: plainTextLen)
}

/// How the legacy paddings map onto algorithms.
enum LegacyPadding {
  /// SecureTransport's errSSLCrypto (-9809), which SecKeyRawVerify reports for a bad signature;
  /// SecureTransport's codes are not part of this runtime's headers.
  static let sslCryptoFailure: OSStatus = -9809

  static func signingAlgorithm(_ key: SecKey, _ padding: SecPadding) -> SecKeyAlgorithm? {
    if key.keyType == .ec { return .ecdsaSignatureDigestX962 }
    switch padding {
    case .PKCS1SHA1: return .rsaSignatureDigestPKCS1v15SHA1
    case .PKCS1SHA224: return .rsaSignatureDigestPKCS1v15SHA224
    case .PKCS1SHA256: return .rsaSignatureDigestPKCS1v15SHA256
    case .PKCS1SHA384: return .rsaSignatureDigestPKCS1v15SHA384
    case .PKCS1SHA512: return .rsaSignatureDigestPKCS1v15SHA512
    case .PKCS1: return .rsaSignatureDigestPKCS1v15Raw
    case [], .sigRaw: return .rsaSignatureRaw
    default: return nil  // MD2 and MD5 are not supported
    }
  }

  static func encryptionAlgorithm(_ padding: SecPadding) -> SecKeyAlgorithm? {
    switch padding {
    case []: .rsaEncryptionRaw
    case .PKCS1: .rsaEncryptionPKCS1
    case .OAEP: .rsaEncryptionOAEPSHA1
    default: nil
    }
  }

  /// The code of the CFError a modern function reported, as the status the legacy one returns.
  static func status(_ error: Unmanaged<CFError>?) -> OSStatus {
    OSStatus(truncatingIfNeeded: error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? Int(errSecParam))
  }

  /// Copies `bytes` into the caller's buffer of `capacity` bytes; errSecParam when it is too small.
  static func copy(_ bytes: Data, into buffer: UnsafeMutablePointer<UInt8>, capacity: UnsafeMutablePointer<Int>)
    -> OSStatus
  {
    guard bytes.count <= capacity.pointee else { return errSecParam }
    bytes.copyBytes(to: buffer, count: bytes.count)
    capacity.pointee = bytes.count
    return errSecSuccess
  }
}

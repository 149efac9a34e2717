import COpenSSL
import Foundation
import KeychainCrypto
import Security

// Keys in the standard files other tools write (PKCS#8, SubjectPublicKeyInfo, and the
// traditional PKCS#1 and SEC 1 forms), beside Apple's external representation.

extension OpenSSLKeyEngine {
  package func encodedKey(_ key: any EngineKey) throws(KeyOperationFailure) -> Data {
    guard let key = key as? OpenSSLKey else {
      throw KeyOperationFailure(errSecKeyIsSensitive, "a private key kept by a hardware token cannot be exported")
    }
    var output: UnsafeMutablePointer<UInt8>?
    let length: Int32
    if key.isPrivate {
      guard let info = EVP_PKEY2PKCS8(key.key) else { throw libcryptoFailure("EVP_PKEY2PKCS8", status: errSecAllocate) }
      defer { PKCS8_PRIV_KEY_INFO_free(info) }
      length = i2d_PKCS8_PRIV_KEY_INFO(info, &output)
    } else {
      length = i2d_PUBKEY(key.key, &output)
    }
    guard length > 0, let output else { throw libcryptoFailure("i2d key", status: errSecAllocate) }
    // A private key's DER is wiped before it is given back to OpenSSL's heap.
    defer { CRYPTO_clear_free(output, Int(length), #fileID, #line) }
    return Data(bytes: output, count: Int(length))
  }

  package func decodeKey(_ der: Data, isPrivate: Bool, passphrase: String?) throws(KeyOperationFailure)
    -> any EngineKey
  {
    let bytes = Array(der)
    let key: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
      var cursor = buffer.baseAddress
      let key: OpaquePointer?
      if !isPrivate {
        key = d2i_PUBKEY(nil, &cursor, buffer.count)
      } else if let passphrase, let sealed = d2i_X509_SIG(nil, &cursor, buffer.count) {
        // An encrypted PKCS#8 key ("ENCRYPTED PRIVATE KEY").
        defer { X509_SIG_free(sealed) }
        let password = Array(passphrase.utf8CString)
        guard let info = PKCS8_decrypt(sealed, password, Int32(password.count - 1)) else { return nil }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        key = EVP_PKCS82PKEY(info)
      } else {
        // PKCS#8, else the traditional form of the key's own type.
        ERR_clear_error()
        cursor = buffer.baseAddress
        key = d2i_AutoPrivateKey(nil, &cursor, buffer.count)
      }
      guard let key else { return nil }
      guard cursor.map({ $0 - buffer.baseAddress! }) == buffer.count || passphrase != nil && isPrivate else {
        EVP_PKEY_free(key)
        return nil
      }
      return key
    }
    guard let key else {
      throw libcryptoFailure(
        "decoding the key", status: passphrase != nil && isPrivate ? errSecAuthFailed : errSecUnknownFormat)
    }
    switch EVP_PKEY_get_base_id(key) {
    case EVP_PKEY_RSA: return OpenSSLKey(key, type: .rsa, isPrivate: isPrivate)
    case EVP_PKEY_EC: return OpenSSLKey(key, type: .ec, isPrivate: isPrivate)
    default:
      EVP_PKEY_free(key)
      throw KeyOperationFailure(errSecUnsupportedFormat, "the key is neither RSA nor elliptic-curve")
    }
  }
}

// ECDSA signatures between DER (X9.62) and r‖s (RFC 4754), through OpenSSL's ECDSA_SIG.
extension OpenSSLKeyEngine {
  package func ecdsaRawSignature(fromDER der: Data, fieldSize: Int) -> Data? {
    guard fieldSize > 0,
      let signature = WholeDER.decode(Array(der), { d2i_ECDSA_SIG(nil, $0, $1) }, free: { ECDSA_SIG_free($0) })
    else { return nil }
    defer { ECDSA_SIG_free(signature) }
    var output = [UInt8](repeating: 0, count: 2 * fieldSize)
    for (index, number) in [ECDSA_SIG_get0_r(signature), ECDSA_SIG_get0_s(signature)].enumerated() {
      guard let number, BN_is_negative(number) == 0, (Int(BN_num_bits(number)) + 7) / 8 <= fieldSize else { return nil }
      let written = output.withUnsafeMutableBufferPointer { buffer in
        BN_bn2binpad(number, buffer.baseAddress! + index * fieldSize, Int32(fieldSize))
      }
      guard written == Int32(fieldSize) else { return nil }
    }
    return Data(output)
  }

  package func ecdsaDERSignature(fromRaw raw: Data, fieldSize: Int) -> Data? {
    guard fieldSize > 0, raw.count == 2 * fieldSize, let signature = ECDSA_SIG_new() else { return nil }
    defer { ECDSA_SIG_free(signature) }
    let bytes = Array(raw)
    let numbers = bytes.withUnsafeBufferPointer { buffer in
      (
        BN_bin2bn(buffer.baseAddress, Int32(fieldSize), nil),
        BN_bin2bn(buffer.baseAddress! + fieldSize, Int32(fieldSize), nil)
      )
    }
    guard let r = numbers.0, let s = numbers.1 else {
      BN_free(numbers.0)
      BN_free(numbers.1)
      return nil
    }
    // The signature owns both numbers from here.
    guard ECDSA_SIG_set0(signature, r, s) == 1 else {
      BN_free(r)
      BN_free(s)
      return nil
    }
    var output: UnsafeMutablePointer<UInt8>?
    let length = i2d_ECDSA_SIG(signature, &output)
    guard length > 0, let output else { return nil }
    defer { CRYPTO_free(output, #fileID, #line) }
    return Data(bytes: output, count: Int(length))
  }
}

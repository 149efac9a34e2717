import Foundation
import Security

// Typed keys over SecKey. Every operation calls the wrapper secgen generates from SecKey.h
// (KeychainFunctions), so errors arrive as KeychainError and algorithms as the generated enums.
// It lives in a folder of its own because it needs SecKey.h's declarations: the generator's
// reference fixtures compile the top-level support files only, which need SecItem.h alone.

/// The kinds of key pair the runtime generates.
public enum KeyPairKind: Hashable, Sendable {
  /// An elliptic-curve key on NIST P-256, P-384 or P-521 (bits 256, 384 or 521; 192 and 224 work too).
  case ellipticCurve(bits: Int)
  /// An RSA key of 1024 to 8192 bits.
  case rsa(bits: Int)

  /// EC P-256, the usual signing and key-agreement key.
  public static let p256 = KeyPairKind.ellipticCurve(bits: 256)

  var parameters: [String: Any] {
    switch self {
    case .ellipticCurve(let bits):
      [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: bits]
    case .rsa(let bits): [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: bits]
    }
  }

  var typeConstant: CFString {
    switch self {
    case .ellipticCurve: kSecAttrKeyTypeECSECPrimeRandom
    case .rsa: kSecAttrKeyTypeRSA
    }
  }
}

/// The private half of a key pair: signs, decrypts and agrees on secrets.
public struct PrivateKey: Hashable, Sendable {
  /// The runtime's key.
  public let secKey: SecKey

  /// Wraps `secKey`; nil when it is a public key.
  public init?(_ secKey: SecKey) {
    guard secKey.isPrivate else { return nil }
    self.secKey = secKey
  }

  /// A new key pair of `kind`, kept in memory only (store it with `KeychainKey().add(_:)`).
  public static func generate(_ kind: KeyPairKind) -> Result<PrivateKey, KeychainError> {
    KeychainFunctions.keyCreateRandomKey(kind.parameters as CFDictionary).map { PrivateKey(unchecked: $0) }
  }

  /// The key whose external representation (X9.63 for EC, PKCS#1 for RSA) is `data`.
  public static func from(externalRepresentation data: Data, kind: KeyPairKind) -> Result<PrivateKey, KeychainError> {
    let attributes = [
      kSecAttrKeyType as String: kind.typeConstant, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
    ]
    return KeychainFunctions.keyCreateWithData(data as CFData, attributes as CFDictionary).map {
      PrivateKey(unchecked: $0)
    }
  }

  private init(unchecked secKey: SecKey) { self.secKey = secKey }

  /// The public half.
  public var publicKey: PublicKey? { KeychainFunctions.keyCopyPublicKey(secKey).flatMap(PublicKey.init) }

  /// The block size in bytes: the modulus length of an RSA key, the field size of an EC key.
  public var blockSize: Int { KeychainFunctions.keyGetBlockSize(secKey) }

  /// The key's bytes in Apple's format, which hold the private key: keep them secret.
  public func externalRepresentation() -> Result<Data, KeychainError> {
    KeychainFunctions.keyCopyExternalRepresentation(secKey).map { $0 as Data }
  }

  /// Whether this key can sign with `algorithm`.
  public func canSign(with algorithm: SigningAlgorithm) -> Bool {
    KeychainFunctions.keyIsAlgorithmSupported(secKey, .sign, algorithm.keyAlgorithm)
  }

  /// A signature of `data` (a message, or a digest for the Digest algorithms).
  public func signature(for data: Data, algorithm: SigningAlgorithm) -> Result<Data, KeychainError> {
    KeychainFunctions.keyCreateSignature(secKey, algorithm.keyAlgorithm, data as CFData).map { $0 as Data }
  }

  /// The plaintext of `ciphertext`, which the public key encrypted with `algorithm`.
  public func decrypt(_ ciphertext: Data, algorithm: EncryptionAlgorithm) -> Result<Data, KeychainError> {
    KeychainFunctions.keyCreateDecryptedData(secKey, algorithm.keyAlgorithm, ciphertext as CFData).map { $0 as Data }
  }

  /// The secret this key and `peer` agree on; the X9.63 algorithms derive `requestedSize` bytes
  /// with `sharedInfo`.
  public func sharedSecret(
    with peer: PublicKey, algorithm: KeyExchangeAlgorithm, requestedSize: Int? = nil, sharedInfo: Data? = nil
  ) -> Result<Data, KeychainError> {
    var parameters: [String: Any] = [:]
    if let requestedSize { parameters[kSecKeyKeyExchangeParameterRequestedSize as String] = requestedSize }
    if let sharedInfo { parameters[kSecKeyKeyExchangeParameterSharedInfo as String] = sharedInfo }
    return KeychainFunctions.keyCopyKeyExchangeResult(
      secKey, algorithm.keyAlgorithm, peer.secKey, parameters as CFDictionary
    ).map { $0 as Data }
  }
}

/// The public half of a key pair: verifies and encrypts.
public struct PublicKey: Hashable, Sendable {
  /// The runtime's key.
  public let secKey: SecKey

  /// Wraps `secKey`; nil when it is a private key.
  public init?(_ secKey: SecKey) {
    guard !secKey.isPrivate else { return nil }
    self.secKey = secKey
  }

  /// The key whose external representation (X9.63 for EC, PKCS#1 or SubjectPublicKeyInfo for
  /// RSA) is `data`.
  public static func from(externalRepresentation data: Data, kind: KeyPairKind) -> Result<PublicKey, KeychainError> {
    let attributes = [kSecAttrKeyType as String: kind.typeConstant, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
    return KeychainFunctions.keyCreateWithData(data as CFData, attributes as CFDictionary).flatMap { key in
      PublicKey(key).map { .success($0) } ?? .failure(.param)
    }
  }

  /// The key's bytes in Apple's format: X9.63 for EC, PKCS#1 for RSA.
  public func externalRepresentation() -> Result<Data, KeychainError> {
    KeychainFunctions.keyCopyExternalRepresentation(secKey).map { $0 as Data }
  }

  /// Success when `signature` is a valid signature of `data` by the private key, otherwise
  /// `.verifyFailed` (or the reason the check could not run).
  public func isValidSignature(_ signature: Data, for data: Data, algorithm: SigningAlgorithm)
    -> Result<Void, KeychainError>
  {
    KeychainFunctions.keyVerifySignature(secKey, algorithm.keyAlgorithm, data as CFData, signature as CFData)
  }

  /// `plaintext` encrypted for the private key.
  public func encrypt(_ plaintext: Data, algorithm: EncryptionAlgorithm) -> Result<Data, KeychainError> {
    KeychainFunctions.keyCreateEncryptedData(secKey, algorithm.keyAlgorithm, plaintext as CFData).map { $0 as Data }
  }
}

extension KeychainKey {
  /// Stores `key`: its class, type, sizes and application label come from the key, the rest from
  /// this description (keys-semantics.md 6.3).
  public func add(_ key: PrivateKey) -> Result<Void, KeychainError> { addReference(.key(key.secKey)) }

  /// Stores a public key, as `add(_:)` stores a private one.
  public func add(_ key: PublicKey) -> Result<Void, KeychainError> { addReference(.key(key.secKey)) }

  /// The first matching private key, or nil when none matches.
  public func privateKey() -> Result<PrivateKey?, KeychainError> {
    firstReference(as: SecKey.self).map { $0.flatMap(PrivateKey.init) }
  }

  /// The first matching public key, or nil when none matches.
  public func publicKey() -> Result<PublicKey?, KeychainError> {
    firstReference(as: SecKey.self).map { $0.flatMap(PublicKey.init) }
  }
}

import Foundation
import Security

// The hand-written part of the typed keys. PrivateKey and PublicKey themselves, and every member
// that is one SecKey function, are generated from SecKey.h and the API notes (TypedReferences.swift);
// what is here are the values no declaration describes: the parameter sets those functions take
// as dictionaries, and a constructor that builds one. It lives in a folder of its own because it
// needs SecKey.h's declarations: the generator's reference fixtures compile the top-level support
// files only, which need SecItem.h alone.

/// The kinds of key pair the runtime generates.
public enum KeyPairKind: Hashable, Sendable, RuntimeArgument {
  /// An elliptic-curve key on NIST P-256, P-384 or P-521 (bits 256, 384 or 521; 192 and 224 work too).
  case ellipticCurve(bits: Int)
  /// An RSA key of 1024 to 8192 bits.
  case rsa(bits: Int)
  /// An elliptic-curve key on P-256 made in the Secure Enclave (the machine's TPM 2.0 here, which
  /// `KEYCHAIN_BRIDGE_TCTI` may name): it signs and agrees there, is never extractable, and its
  /// item's `tokenID` is `.secureEnclave`, as Valet's SecureEnclaveValet makes one.
  case secureEnclaveP256

  /// EC P-256, the usual signing and key-agreement key.
  public static let p256 = KeyPairKind.ellipticCurve(bits: 256)

  /// SecKeyCreateRandomKey's parameters for this kind.
  var runtimeArgument: CFDictionary {
    var parameters: [String: Any] = [kSecAttrKeyType as String: typeConstant, kSecAttrKeySizeInBits as String: bits]
    if self == .secureEnclaveP256 { parameters[kSecAttrTokenID as String] = TokenID.secureEnclave.constant }
    return parameters as CFDictionary
  }

  private var bits: Int {
    switch self {
    case .ellipticCurve(let bits), .rsa(let bits): bits
    case .secureEnclaveP256: 256
    }
  }

  var typeConstant: CFString {
    switch self {
    case .ellipticCurve, .secureEnclaveP256: kSecAttrKeyTypeECSECPrimeRandom
    case .rsa: kSecAttrKeyTypeRSA
    }
  }

  /// SecKeyCreateWithData's attributes for a key of this kind and `keyClass`.
  func attributes(_ keyClass: CFString) -> CFDictionary {
    [kSecAttrKeyType as String: typeConstant, kSecAttrKeyClass as String: keyClass] as CFDictionary
  }
}

/// What a key agreement derives: with the X9.63 algorithms, `requestedSize` bytes from the shared
/// secret and `sharedInfo`; the standard and cofactor algorithms ignore both.
public struct KeyExchangeParameters: Hashable, Sendable, RuntimeArgument {
  /// How many bytes the KDF derives.
  public var requestedSize: Int?
  /// The KDF's shared information.
  public var sharedInfo: Data?

  /// Parameters for the key agreement; none by default.
  public init(requestedSize: Int? = nil, sharedInfo: Data? = nil) {
    self.requestedSize = requestedSize
    self.sharedInfo = sharedInfo
  }

  /// SecKeyCopyKeyExchangeResult's parameters.
  var runtimeArgument: CFDictionary {
    var parameters: [String: Any] = [:]
    if let requestedSize { parameters[kSecKeyKeyExchangeParameterRequestedSize as String] = requestedSize }
    if let sharedInfo { parameters[kSecKeyKeyExchangeParameterSharedInfo as String] = sharedInfo }
    return parameters as CFDictionary
  }
}

extension PrivateKey {
  /// The key whose external representation (X9.63 for EC, PKCS#1 for RSA) is `data`.
  public static func from(externalRepresentation data: Data, kind: KeyPairKind) -> Result<PrivateKey, KeychainError> {
    KeychainFunctions.keyCreateWithData(data as CFData, kind.attributes(kSecAttrKeyClassPrivate)).flatMap { key in
      PrivateKey(key).map { .success($0) } ?? .failure(.param)
    }
  }
}

extension PublicKey {
  /// The key whose external representation (X9.63 for EC, PKCS#1 or SubjectPublicKeyInfo for
  /// RSA) is `data`.
  public static func from(externalRepresentation data: Data, kind: KeyPairKind) -> Result<PublicKey, KeychainError> {
    KeychainFunctions.keyCreateWithData(data as CFData, kind.attributes(kSecAttrKeyClassPublic)).flatMap { key in
      PublicKey(key).map { .success($0) } ?? .failure(.param)
    }
  }
}

extension KeyQuery {
  /// Stores `key`: its class, type, sizes and application label come from the key, the rest from
  /// this description (keys rule 6.3).
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

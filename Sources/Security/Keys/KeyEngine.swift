import Foundation

// The contract between SecKey and the cryptography under it. SecKey applies Apple's rules: which
// algorithm a key supports, input sizes, signature formats, digests before signing, error codes.
// The engine (KeychainCryptoOpenSSL, the backend's `SecurityBackend.keyEngine`) performs primitives
// on key material it keeps: generate, import, export, sign, verify, encrypt, decrypt, derive.

/// The key types Apple's software keys have (keys rule 1.1).
package enum KeyType: Sendable, Equatable {
  /// RSA, kSecAttrKeyTypeRSA ("42").
  case rsa
  /// Elliptic curve over a NIST prime field, kSecAttrKeyTypeECSECPrimeRandom ("73").
  case ec
}

/// A hash function an algorithm names.
package enum DigestKind: String, Sendable, CaseIterable {
  case sha1 = "SHA1"
  case sha224 = "SHA224"
  case sha256 = "SHA256"
  case sha384 = "SHA384"
  case sha512 = "SHA512"

  /// The digest's length in bytes.
  package var length: Int {
    switch self {
    case .sha1: 20
    case .sha224: 28
    case .sha256: 32
    case .sha384: 48
    case .sha512: 64
    }
  }
}

/// How an RSA signature is padded.
package enum RSASignaturePadding: Sendable, Equatable {
  /// No padding: the input, left-padded with zeros to the block size, is raised to d.
  case raw
  /// EMSA-PKCS1-v1_5, with the DigestInfo of the hash when one is named.
  case pkcs1v15(DigestKind?)
  /// EMSA-PSS with MGF1 of the same hash and a salt as long as the hash.
  case pss(DigestKind)
}

/// How an RSA encryption is padded.
package enum RSAEncryptionPadding: Sendable, Equatable {
  case raw
  case pkcs1
  /// OAEP with the hash for both the label and MGF1, and an empty label.
  case oaep(DigestKind)
}

/// A failed primitive: the errSec code SecKey reports and a sentence without any secret.
package struct KeyOperationFailure: Error, Sendable {
  package var status: OSStatus
  package var reason: String

  package init(_ status: OSStatus, _ reason: String) {
    self.status = status
    self.reason = reason
  }
}

/// Key material inside the engine: one half of a key pair, public or private.
package protocol EngineKey: AnyObject, Sendable {
  var type: KeyType { get }
  var isPrivate: Bool { get }
  /// The size Apple reports as kSecAttrKeySizeInBits: the modulus's bit length, or the curve's
  /// (521 for P-521).
  var bits: Int { get }

  /// Apple's external representation: X9.63 `04‖X‖Y(‖K)` for EC, PKCS#1 DER for RSA.
  func externalRepresentation() throws(KeyOperationFailure) -> Data
  /// The public half (itself, for a public key).
  func publicKey() throws(KeyOperationFailure) -> any EngineKey
  /// The public half's external representation, read without making the public key.
  func publicRepresentation() throws(KeyOperationFailure) -> Data

  /// An ECDSA signature (DER) of `digest`, any length (truncated by the curve's rules).
  func ecdsaSign(digest: Data) throws(KeyOperationFailure) -> Data
  /// Whether `signature` (DER) is a valid ECDSA signature of `digest`.
  func ecdsaVerify(digest: Data, signature: Data) throws(KeyOperationFailure) -> Bool
  /// An RSA signature of `input` (a digest, or the raw block), block-size bytes long.
  func rsaSign(_ input: Data, padding: RSASignaturePadding) throws(KeyOperationFailure) -> Data
  /// Whether `signature` is a valid RSA signature of `input`; for `.raw`, the recovered block
  /// compared with the input after leading zeros are stripped from both.
  func rsaVerify(_ input: Data, signature: Data, padding: RSASignaturePadding) throws(KeyOperationFailure) -> Bool
  func rsaEncrypt(_ plaintext: Data, padding: RSAEncryptionPadding) throws(KeyOperationFailure) -> Data
  func rsaDecrypt(_ ciphertext: Data, padding: RSAEncryptionPadding) throws(KeyOperationFailure) -> Data
  /// The raw ECDH shared secret (the X coordinate, field-size bytes) with `peer`'s public key.
  func ecdh(peer: any EngineKey, cofactor: Bool) throws(KeyOperationFailure) -> Data
}

/// One private key of a PKCS#12 file with the certificate that matches it.
package struct PKCS12Identity: Sendable {
  package var key: any EngineKey
  /// The certificate's DER.
  package var certificate: Data
  /// The other certificates of the file, in its order (the chain).
  package var chain: [Data]
  /// The friendlyName and localKeyID bag attributes, when the file has them.
  package var label: String?
  package var keyID: Data?

  package init(key: any EngineKey, certificate: Data, chain: [Data], label: String?, keyID: Data?) {
    self.key = key
    self.certificate = certificate
    self.chain = chain
    self.label = label
    self.keyID = keyID
  }
}

/// The engine's key-independent primitives.
package protocol KeyEngine: AnyObject, Sendable {
  /// A new private key: RSA of `bits` bits (e = 65537), or EC on the NIST curve of `bits` bits.
  func generate(_ type: KeyType, bits: Int) throws(KeyOperationFailure) -> any EngineKey
  /// A key from Apple's external representation (3.1 to 3.8); RSA public keys may also be SPKI.
  func importKey(_ type: KeyType, isPrivate: Bool, data: Data) throws(KeyOperationFailure) -> any EngineKey
  func digest(_ kind: DigestKind, _ data: Data) throws(KeyOperationFailure) -> Data
  /// ANSI X9.63 KDF.
  func x963KDF(_ kind: DigestKind, secret: Data, sharedInfo: Data, length: Int) throws(KeyOperationFailure) -> Data
  /// AES-GCM with a 16-byte IV and a 16-byte tag (Apple's ECIES and RSA-AESGCM framing).
  func aesGCMSeal(key: Data, iv: Data, plaintext: Data, additionalData: Data) throws(KeyOperationFailure) -> Data
  /// The identity of a PKCS#12 file: errSecAuthFailed for a wrong passphrase (MAC mismatch),
  /// errSecDecode for bytes that are not PKCS#12, a file without a MAC, or a key that is neither
  /// RSA nor EC or does not match its certificate.
  func importPKCS12(_ data: Data, passphrase: String) throws(KeyOperationFailure) -> [PKCS12Identity]
  /// A PKCS#12 file of `identities` (each key shrouded, the certificates in an encrypted safe,
  /// AES-256-CBC with PBKDF2, a SHA-256 MAC, all from `passphrase`); errSecKeyIsSensitive for a
  /// key a hardware token keeps.
  func exportPKCS12(_ identities: [PKCS12Identity], passphrase: String) throws(KeyOperationFailure) -> Data
  /// A private key as PKCS#8 DER, a public key as SubjectPublicKeyInfo DER: what other tools
  /// read; errSecKeyIsSensitive for a key a hardware token keeps.
  func encodedKey(_ key: any EngineKey) throws(KeyOperationFailure) -> Data
  /// A key from PKCS#8 (encrypted when `passphrase` is given), PKCS#1 or SEC 1 DER, or a public
  /// key from SubjectPublicKeyInfo DER; errSecUnknownFormat for other bytes, errSecAuthFailed
  /// for an encrypted key the passphrase does not open.
  func decodeKey(_ der: Data, isPrivate: Bool, passphrase: String?) throws(KeyOperationFailure) -> any EngineKey
  /// An ECDSA signature's r‖s, each left-padded to `fieldSize` bytes, from its DER
  /// `SEQUENCE { r, s }` (all of `der`); nil for anything else or a number that does not fit.
  func ecdsaRawSignature(fromDER der: Data, fieldSize: Int) -> Data?
  /// The DER form of an r‖s signature; nil unless it is 2 × `fieldSize` bytes.
  func ecdsaDERSignature(fromRaw raw: Data, fieldSize: Int) -> Data?
  /// Opens what aesGCMSeal made (ciphertext ‖ tag); errSecParam when it does not authenticate.
  func aesGCMOpen(key: Data, iv: Data, sealed: Data, additionalData: Data) throws(KeyOperationFailure) -> Data
}

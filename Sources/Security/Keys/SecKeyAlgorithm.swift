import Foundation

// The public SecKeyAlgorithm values of Apple's SecKey.h, with the strings Apple's implementation
// gives them (shared/spec/keys-constants.json). Apple's headers declare each as a
// `const SecKeyAlgorithm` of a CF_STRING_ENUM type, which Swift imports as static members only:
// `.ecdsaSignatureMessageX962SHA256`, never `kSecKeyAlgorithmECDSASignatureMessageX962SHA256`.

/// An algorithm a key can sign, verify, encrypt, decrypt or exchange keys with, named by Apple's
/// string (`"algid:sign:ECDSA:message-X962:SHA256"`).
public struct SecKeyAlgorithm: Hashable, RawRepresentable {
  /// Apple's string for the algorithm.
  public let rawValue: CFString

  /// Wraps an algorithm string; an unknown one is supported by no key.
  public init(rawValue: CFString) { self.rawValue = rawValue }

  /// Algorithms are equal when their strings are.
  public static func == (lhs: SecKeyAlgorithm, rhs: SecKeyAlgorithm) -> Bool {
    (lhs.rawValue as String) == (rhs.rawValue as String)
  }

  /// Hashes the string.
  public func hash(into hasher: inout Hasher) { hasher.combine(rawValue as String) }
}

// NSString is immutable here and never mutated: the wrapper is safe to share.
extension SecKeyAlgorithm: @unchecked Sendable {}

extension SecKeyAlgorithm {
  /// `kSecKeyAlgorithmRSASignatureRaw`: "algid:sign:RSA:raw".
  public static let rsaSignatureRaw = SecKeyAlgorithm(rawValue: "algid:sign:RSA:raw" as NSString)
  /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw`: "algid:sign:RSA:digest-PKCS1v15".
  public static let rsaSignatureDigestPKCS1v15Raw = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:digest-PKCS1v15" as NSString)
  /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1`: "algid:sign:RSA:digest-PKCS1v15:SHA1".
  public static let rsaSignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA1" as NSString)
  /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224`: "algid:sign:RSA:digest-PKCS1v15:SHA224".
  public static let rsaSignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA224" as NSString)
  /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256`: "algid:sign:RSA:digest-PKCS1v15:SHA256".
  public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA256" as NSString)
  /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384`: "algid:sign:RSA:digest-PKCS1v15:SHA384".
  public static let rsaSignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA384" as NSString)
  /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512`: "algid:sign:RSA:digest-PKCS1v15:SHA512".
  public static let rsaSignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA512" as NSString)
  /// `kSecKeyAlgorithmRSASignatureDigestPSSSHA1`: "algid:sign:RSA:digest-PSS:SHA1:SHA1:20".
  public static let rsaSignatureDigestPSSSHA1 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:digest-PSS:SHA1:SHA1:20" as NSString)
  /// `kSecKeyAlgorithmRSASignatureDigestPSSSHA224`: "algid:sign:RSA:digest-PSS:SHA224:SHA224:24".
  public static let rsaSignatureDigestPSSSHA224 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:digest-PSS:SHA224:SHA224:24" as NSString)
  /// `kSecKeyAlgorithmRSASignatureDigestPSSSHA256`: "algid:sign:RSA:digest-PSS:SHA256:SHA256:32".
  public static let rsaSignatureDigestPSSSHA256 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:digest-PSS:SHA256:SHA256:32" as NSString)
  /// `kSecKeyAlgorithmRSASignatureDigestPSSSHA384`: "algid:sign:RSA:digest-PSS:SHA384:SHA384:48".
  public static let rsaSignatureDigestPSSSHA384 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:digest-PSS:SHA384:SHA384:48" as NSString)
  /// `kSecKeyAlgorithmRSASignatureDigestPSSSHA512`: "algid:sign:RSA:digest-PSS:SHA512:SHA512:64".
  public static let rsaSignatureDigestPSSSHA512 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:digest-PSS:SHA512:SHA512:64" as NSString)
  /// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1`: "algid:sign:RSA:message-PKCS1v15:SHA1".
  public static let rsaSignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:message-PKCS1v15:SHA1" as NSString)
  /// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224`: "algid:sign:RSA:message-PKCS1v15:SHA224".
  public static let rsaSignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:message-PKCS1v15:SHA224" as NSString)
  /// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256`: "algid:sign:RSA:message-PKCS1v15:SHA256".
  public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:message-PKCS1v15:SHA256" as NSString)
  /// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384`: "algid:sign:RSA:message-PKCS1v15:SHA384".
  public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:message-PKCS1v15:SHA384" as NSString)
  /// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512`: "algid:sign:RSA:message-PKCS1v15:SHA512".
  public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:message-PKCS1v15:SHA512" as NSString)
  /// `kSecKeyAlgorithmRSASignatureMessagePSSSHA1`: "algid:sign:RSA:message-PSS:SHA1:SHA1:20".
  public static let rsaSignatureMessagePSSSHA1 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:message-PSS:SHA1:SHA1:20" as NSString)
  /// `kSecKeyAlgorithmRSASignatureMessagePSSSHA224`: "algid:sign:RSA:message-PSS:SHA224:SHA224:24".
  public static let rsaSignatureMessagePSSSHA224 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:message-PSS:SHA224:SHA224:24" as NSString)
  /// `kSecKeyAlgorithmRSASignatureMessagePSSSHA256`: "algid:sign:RSA:message-PSS:SHA256:SHA256:32".
  public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:message-PSS:SHA256:SHA256:32" as NSString)
  /// `kSecKeyAlgorithmRSASignatureMessagePSSSHA384`: "algid:sign:RSA:message-PSS:SHA384:SHA384:48".
  public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:message-PSS:SHA384:SHA384:48" as NSString)
  /// `kSecKeyAlgorithmRSASignatureMessagePSSSHA512`: "algid:sign:RSA:message-PSS:SHA512:SHA512:64".
  public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm(
    rawValue: "algid:sign:RSA:message-PSS:SHA512:SHA512:64" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureRFC4754`: "algid:sign:ECDSA:RFC4754".
  public static let ecdsaSignatureRFC4754 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:RFC4754" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestRFC4754`: "algid:sign:ECDSA:digest-RFC4754".
  public static let ecdsaSignatureDigestRFC4754 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:digest-RFC4754" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA1`: "algid:sign:ECDSA:digest-RFC4754:SHA1".
  public static let ecdsaSignatureDigestRFC4754SHA1 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA1" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA224`: "algid:sign:ECDSA:digest-RFC4754:SHA224".
  public static let ecdsaSignatureDigestRFC4754SHA224 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA224" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA256`: "algid:sign:ECDSA:digest-RFC4754:SHA256".
  public static let ecdsaSignatureDigestRFC4754SHA256 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA256" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA384`: "algid:sign:ECDSA:digest-RFC4754:SHA384".
  public static let ecdsaSignatureDigestRFC4754SHA384 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA384" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA512`: "algid:sign:ECDSA:digest-RFC4754:SHA512".
  public static let ecdsaSignatureDigestRFC4754SHA512 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:digest-RFC4754:SHA512" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA1`: "algid:sign:ECDSA:message-RFC4754:SHA1".
  public static let ecdsaSignatureMessageRFC4754SHA1 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:message-RFC4754:SHA1" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA224`: "algid:sign:ECDSA:message-RFC4754:SHA224".
  public static let ecdsaSignatureMessageRFC4754SHA224 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:message-RFC4754:SHA224" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA256`: "algid:sign:ECDSA:message-RFC4754:SHA256".
  public static let ecdsaSignatureMessageRFC4754SHA256 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:message-RFC4754:SHA256" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA384`: "algid:sign:ECDSA:message-RFC4754:SHA384".
  public static let ecdsaSignatureMessageRFC4754SHA384 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:message-RFC4754:SHA384" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA512`: "algid:sign:ECDSA:message-RFC4754:SHA512".
  public static let ecdsaSignatureMessageRFC4754SHA512 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:message-RFC4754:SHA512" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestX962`: "algid:sign:ECDSA:digest-X962".
  public static let ecdsaSignatureDigestX962 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestX962SHA1`: "algid:sign:ECDSA:digest-X962:SHA1".
  public static let ecdsaSignatureDigestX962SHA1 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:digest-X962:SHA1" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestX962SHA224`: "algid:sign:ECDSA:digest-X962:SHA224".
  public static let ecdsaSignatureDigestX962SHA224 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:digest-X962:SHA224" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestX962SHA256`: "algid:sign:ECDSA:digest-X962:SHA256".
  public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:digest-X962:SHA256" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestX962SHA384`: "algid:sign:ECDSA:digest-X962:SHA384".
  public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:digest-X962:SHA384" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureDigestX962SHA512`: "algid:sign:ECDSA:digest-X962:SHA512".
  public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:digest-X962:SHA512" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA1`: "algid:sign:ECDSA:message-X962:SHA1".
  public static let ecdsaSignatureMessageX962SHA1 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:message-X962:SHA1" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA224`: "algid:sign:ECDSA:message-X962:SHA224".
  public static let ecdsaSignatureMessageX962SHA224 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:message-X962:SHA224" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA256`: "algid:sign:ECDSA:message-X962:SHA256".
  public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:message-X962:SHA256" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA384`: "algid:sign:ECDSA:message-X962:SHA384".
  public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:message-X962:SHA384" as NSString)
  /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA512`: "algid:sign:ECDSA:message-X962:SHA512".
  public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm(
    rawValue: "algid:sign:ECDSA:message-X962:SHA512" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionRaw`: "algid:encrypt:RSA:raw".
  public static let rsaEncryptionRaw = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:raw" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionPKCS1`: "algid:encrypt:RSA:PKCS1".
  public static let rsaEncryptionPKCS1 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:PKCS1" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA1`: "algid:encrypt:RSA:OAEP:SHA1".
  public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA1" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA224`: "algid:encrypt:RSA:OAEP:SHA224".
  public static let rsaEncryptionOAEPSHA224 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA224" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA256`: "algid:encrypt:RSA:OAEP:SHA256".
  public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA256" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA384`: "algid:encrypt:RSA:OAEP:SHA384".
  public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA384" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA512`: "algid:encrypt:RSA:OAEP:SHA512".
  public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm(rawValue: "algid:encrypt:RSA:OAEP:SHA512" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM`: "algid:encrypt:RSA:OAEP:SHA1:AESGCM".
  public static let rsaEncryptionOAEPSHA1AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:RSA:OAEP:SHA1:AESGCM" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA224AESGCM`: "algid:encrypt:RSA:OAEP:SHA224:AESGCM".
  public static let rsaEncryptionOAEPSHA224AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:RSA:OAEP:SHA224:AESGCM" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM`: "algid:encrypt:RSA:OAEP:SHA256:AESGCM".
  public static let rsaEncryptionOAEPSHA256AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:RSA:OAEP:SHA256:AESGCM" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM`: "algid:encrypt:RSA:OAEP:SHA384:AESGCM".
  public static let rsaEncryptionOAEPSHA384AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:RSA:OAEP:SHA384:AESGCM" as NSString)
  /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM`: "algid:encrypt:RSA:OAEP:SHA512:AESGCM".
  public static let rsaEncryptionOAEPSHA512AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:RSA:OAEP:SHA512:AESGCM" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM`: "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM".
  public static let eciesEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM`: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM".
  public static let eciesEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM`: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM".
  public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM`: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM".
  public static let eciesEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM`: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM".
  public static let eciesEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM`: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM".
  public static let eciesEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM`: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM".
  public static let eciesEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM`: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM".
  public static let eciesEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM`: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM".
  public static let eciesEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM`: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM".
  public static let eciesEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM`: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV".
  public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM`: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV".
  public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM`: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV".
  public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM`: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV".
  public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM`: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV".
  public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM`: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV".
  public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM`: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV".
  public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV" as NSString)
  /// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM`: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV".
  public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm(
    rawValue: "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeStandard`: "algid:keyexchange:ECDH".
  public static let ecdhKeyExchangeStandard = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1`: "algid:keyexchange:ECDH:KDFX963:SHA1".
  public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm(
    rawValue: "algid:keyexchange:ECDH:KDFX963:SHA1" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224`: "algid:keyexchange:ECDH:KDFX963:SHA224".
  public static let ecdhKeyExchangeStandardX963SHA224 = SecKeyAlgorithm(
    rawValue: "algid:keyexchange:ECDH:KDFX963:SHA224" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256`: "algid:keyexchange:ECDH:KDFX963:SHA256".
  public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm(
    rawValue: "algid:keyexchange:ECDH:KDFX963:SHA256" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384`: "algid:keyexchange:ECDH:KDFX963:SHA384".
  public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm(
    rawValue: "algid:keyexchange:ECDH:KDFX963:SHA384" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512`: "algid:keyexchange:ECDH:KDFX963:SHA512".
  public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm(
    rawValue: "algid:keyexchange:ECDH:KDFX963:SHA512" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeCofactor`: "algid:keyexchange:ECDHC".
  public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDHC" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1`: "algid:keyexchange:ECDHC:KDFX963:SHA1".
  public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm(
    rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA1" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224`: "algid:keyexchange:ECDHC:KDFX963:SHA224".
  public static let ecdhKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm(
    rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA224" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256`: "algid:keyexchange:ECDHC:KDFX963:SHA256".
  public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm(
    rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA256" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384`: "algid:keyexchange:ECDHC:KDFX963:SHA384".
  public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm(
    rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA384" as NSString)
  /// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512`: "algid:keyexchange:ECDHC:KDFX963:SHA512".
  public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm(
    rawValue: "algid:keyexchange:ECDHC:KDFX963:SHA512" as NSString)
}

/// `kSecKeyKeyExchangeParameterRequestedSize`: how many bytes an X963 key exchange derives, a CFNumber.
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterRequestedSize: CFString = SecConstantString("requestedSize")
/// `kSecKeyKeyExchangeParameterSharedInfo`: the SharedInfo of an X963 key exchange, a CFData.
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterSharedInfo: CFString = SecConstantString("sharedInfo")

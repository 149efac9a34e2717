/*!
    @header SecKey
    Declarations of cryptographic keys in the style of Apple's SecKey: key pairs made at random or
    from their external representation, and the algorithms that sign, verify, encrypt, decrypt and
    agree on keys with them. Written for KeychainBridge; secgen reads this file and the Security
    module implements it over OpenSSL 3.
*/

#ifndef _KEYCHAINBRIDGE_SECKEY_H_
#define _KEYCHAINBRIDGE_SECKEY_H_

#include <Security/SecBase.h>
#include <CoreFoundation/CFDictionary.h>
#include <CoreFoundation/CFData.h>
#include <CoreFoundation/CFError.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @typedef SecKeyAlgorithm
    @abstract The name of an algorithm a key can perform, one of the kSecKeyAlgorithm constants.
*/
typedef CFStringRef SecKeyAlgorithm CF_STRING_ENUM;

/*!
    @enum SecKeyOperationType
    @abstract The operations SecKeyIsAlgorithmSupported asks about.
    @constant kSecKeyOperationTypeSign Making a signature with SecKeyCreateSignature.
    @constant kSecKeyOperationTypeVerify Checking a signature with SecKeyVerifySignature.
    @constant kSecKeyOperationTypeEncrypt Encrypting with SecKeyCreateEncryptedData.
    @constant kSecKeyOperationTypeDecrypt Decrypting with SecKeyCreateDecryptedData.
    @constant kSecKeyOperationTypeKeyExchange Agreeing on a secret with SecKeyCopyKeyExchangeResult.
*/
typedef CF_ENUM(CFIndex, SecKeyOperationType) {
    kSecKeyOperationTypeSign = 0,
    kSecKeyOperationTypeVerify = 1,
    kSecKeyOperationTypeEncrypt = 2,
    kSecKeyOperationTypeDecrypt = 3,
    kSecKeyOperationTypeKeyExchange = 4,
} API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @enum Signing Algorithm Constants
    @discussion The algorithms SecKeyCreateSignature and SecKeyVerifySignature take.
    @constant kSecKeyAlgorithmRSASignatureRaw Raw RSA: the input, padded with zeros on the left to the block size, raised to the private exponent.
    @constant kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw RSA PKCS#1 v1.5 padding of the input without a DigestInfo.
    @constant kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1 RSA PKCS#1 v1.5 of a SHA1 digest the caller made.
    @constant kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224 RSA PKCS#1 v1.5 of a SHA224 digest the caller made.
    @constant kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256 RSA PKCS#1 v1.5 of a SHA256 digest the caller made.
    @constant kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384 RSA PKCS#1 v1.5 of a SHA384 digest the caller made.
    @constant kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512 RSA PKCS#1 v1.5 of a SHA512 digest the caller made.
    @constant kSecKeyAlgorithmRSASignatureDigestPSSSHA1 RSA PSS of a SHA1 digest the caller made, MGF1 with SHA1 and a salt as long as the digest.
    @constant kSecKeyAlgorithmRSASignatureDigestPSSSHA224 RSA PSS of a SHA224 digest the caller made, MGF1 with SHA224 and a salt as long as the digest.
    @constant kSecKeyAlgorithmRSASignatureDigestPSSSHA256 RSA PSS of a SHA256 digest the caller made, MGF1 with SHA256 and a salt as long as the digest.
    @constant kSecKeyAlgorithmRSASignatureDigestPSSSHA384 RSA PSS of a SHA384 digest the caller made, MGF1 with SHA384 and a salt as long as the digest.
    @constant kSecKeyAlgorithmRSASignatureDigestPSSSHA512 RSA PSS of a SHA512 digest the caller made, MGF1 with SHA512 and a salt as long as the digest.
    @constant kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1 RSA PKCS#1 v1.5 of a message hashed with SHA1.
    @constant kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224 RSA PKCS#1 v1.5 of a message hashed with SHA224.
    @constant kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256 RSA PKCS#1 v1.5 of a message hashed with SHA256.
    @constant kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384 RSA PKCS#1 v1.5 of a message hashed with SHA384.
    @constant kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512 RSA PKCS#1 v1.5 of a message hashed with SHA512.
    @constant kSecKeyAlgorithmRSASignatureMessagePSSSHA1 RSA PSS of a message hashed with SHA1, MGF1 with SHA1 and a salt as long as the digest.
    @constant kSecKeyAlgorithmRSASignatureMessagePSSSHA224 RSA PSS of a message hashed with SHA224, MGF1 with SHA224 and a salt as long as the digest.
    @constant kSecKeyAlgorithmRSASignatureMessagePSSSHA256 RSA PSS of a message hashed with SHA256, MGF1 with SHA256 and a salt as long as the digest.
    @constant kSecKeyAlgorithmRSASignatureMessagePSSSHA384 RSA PSS of a message hashed with SHA384, MGF1 with SHA384 and a salt as long as the digest.
    @constant kSecKeyAlgorithmRSASignatureMessagePSSSHA512 RSA PSS of a message hashed with SHA512, MGF1 with SHA512 and a salt as long as the digest.
    @constant kSecKeyAlgorithmECDSASignatureRFC4754 ECDSA of a digest of any length, giving an RFC 4754 signature; the earlier name of kSecKeyAlgorithmECDSASignatureDigestRFC4754.
    @constant kSecKeyAlgorithmECDSASignatureDigestRFC4754 ECDSA of a digest of any length, giving an RFC 4754 signature (r and s, each padded to the field size).
    @constant kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA1 ECDSA of a SHA1 digest the caller made, giving an RFC 4754 signature (r and s, each padded to the field size).
    @constant kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA224 ECDSA of a SHA224 digest the caller made, giving an RFC 4754 signature (r and s, each padded to the field size).
    @constant kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA256 ECDSA of a SHA256 digest the caller made, giving an RFC 4754 signature (r and s, each padded to the field size).
    @constant kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA384 ECDSA of a SHA384 digest the caller made, giving an RFC 4754 signature (r and s, each padded to the field size).
    @constant kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA512 ECDSA of a SHA512 digest the caller made, giving an RFC 4754 signature (r and s, each padded to the field size).
    @constant kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA1 ECDSA of a message hashed with SHA1, giving an RFC 4754 signature (r and s, each padded to the field size).
    @constant kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA224 ECDSA of a message hashed with SHA224, giving an RFC 4754 signature (r and s, each padded to the field size).
    @constant kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA256 ECDSA of a message hashed with SHA256, giving an RFC 4754 signature (r and s, each padded to the field size).
    @constant kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA384 ECDSA of a message hashed with SHA384, giving an RFC 4754 signature (r and s, each padded to the field size).
    @constant kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA512 ECDSA of a message hashed with SHA512, giving an RFC 4754 signature (r and s, each padded to the field size).
    @constant kSecKeyAlgorithmECDSASignatureDigestX962 ECDSA of a digest of any length, giving an X9.62 DER signature.
    @constant kSecKeyAlgorithmECDSASignatureDigestX962SHA1 ECDSA of a SHA1 digest the caller made, giving an X9.62 DER signature.
    @constant kSecKeyAlgorithmECDSASignatureDigestX962SHA224 ECDSA of a SHA224 digest the caller made, giving an X9.62 DER signature.
    @constant kSecKeyAlgorithmECDSASignatureDigestX962SHA256 ECDSA of a SHA256 digest the caller made, giving an X9.62 DER signature.
    @constant kSecKeyAlgorithmECDSASignatureDigestX962SHA384 ECDSA of a SHA384 digest the caller made, giving an X9.62 DER signature.
    @constant kSecKeyAlgorithmECDSASignatureDigestX962SHA512 ECDSA of a SHA512 digest the caller made, giving an X9.62 DER signature.
    @constant kSecKeyAlgorithmECDSASignatureMessageX962SHA1 ECDSA of a message hashed with SHA1, giving an X9.62 DER signature.
    @constant kSecKeyAlgorithmECDSASignatureMessageX962SHA224 ECDSA of a message hashed with SHA224, giving an X9.62 DER signature.
    @constant kSecKeyAlgorithmECDSASignatureMessageX962SHA256 ECDSA of a message hashed with SHA256, giving an X9.62 DER signature.
    @constant kSecKeyAlgorithmECDSASignatureMessageX962SHA384 ECDSA of a message hashed with SHA384, giving an X9.62 DER signature.
    @constant kSecKeyAlgorithmECDSASignatureMessageX962SHA512 ECDSA of a message hashed with SHA512, giving an X9.62 DER signature.
*/
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureRaw
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureDigestPSSSHA1
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureDigestPSSSHA224
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureDigestPSSSHA256
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureDigestPSSSHA384
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureDigestPSSSHA512
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureMessagePSSSHA1
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureMessagePSSSHA224
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureMessagePSSSHA256
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureMessagePSSSHA384
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureMessagePSSSHA512
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureRFC4754
    API_DEPRECATED_WITH_REPLACEMENT("kSecKeyAlgorithmECDSASignatureDigestRFC4754", macos(10.12, 14.0), ios(10.0, 17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestRFC4754
    API_AVAILABLE(macos(14.0), ios(17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA1
    API_AVAILABLE(macos(14.0), ios(17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA224
    API_AVAILABLE(macos(14.0), ios(17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA256
    API_AVAILABLE(macos(14.0), ios(17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA384
    API_AVAILABLE(macos(14.0), ios(17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA512
    API_AVAILABLE(macos(14.0), ios(17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA1
    API_AVAILABLE(macos(14.0), ios(17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA224
    API_AVAILABLE(macos(14.0), ios(17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA256
    API_AVAILABLE(macos(14.0), ios(17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA384
    API_AVAILABLE(macos(14.0), ios(17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA512
    API_AVAILABLE(macos(14.0), ios(17.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestX962
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestX962SHA1
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestX962SHA224
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestX962SHA256
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestX962SHA384
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureDigestX962SHA512
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureMessageX962SHA1
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureMessageX962SHA224
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureMessageX962SHA256
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureMessageX962SHA384
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureMessageX962SHA512
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @enum Encryption Algorithm Constants
    @discussion The algorithms SecKeyCreateEncryptedData and SecKeyCreateDecryptedData take.
    @constant kSecKeyAlgorithmRSAEncryptionRaw Raw RSA encryption of at most a block of input.
    @constant kSecKeyAlgorithmRSAEncryptionPKCS1 RSA PKCS#1 v1.5 encryption of at most the block size less 11 bytes.
    @constant kSecKeyAlgorithmRSAEncryptionOAEPSHA1 RSA OAEP with SHA1 and MGF1 with SHA1, an empty label.
    @constant kSecKeyAlgorithmRSAEncryptionOAEPSHA224 RSA OAEP with SHA224 and MGF1 with SHA224, an empty label.
    @constant kSecKeyAlgorithmRSAEncryptionOAEPSHA256 RSA OAEP with SHA256 and MGF1 with SHA256, an empty label.
    @constant kSecKeyAlgorithmRSAEncryptionOAEPSHA384 RSA OAEP with SHA384 and MGF1 with SHA384, an empty label.
    @constant kSecKeyAlgorithmRSAEncryptionOAEPSHA512 RSA OAEP with SHA512 and MGF1 with SHA512, an empty label.
    @constant kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM A random AES key wrapped with RSA OAEP (SHA1), then AES-GCM of any length of input.
    @constant kSecKeyAlgorithmRSAEncryptionOAEPSHA224AESGCM A random AES key wrapped with RSA OAEP (SHA224), then AES-GCM of any length of input.
    @constant kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM A random AES key wrapped with RSA OAEP (SHA256), then AES-GCM of any length of input.
    @constant kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM A random AES key wrapped with RSA OAEP (SHA384), then AES-GCM of any length of input.
    @constant kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM A random AES key wrapped with RSA OAEP (SHA512), then AES-GCM of any length of input.
    @constant kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM ECIES: ECDH with an ephemeral key, the X9.63 KDF with SHA1, AES-GCM with a zero IV.
    @constant kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM ECIES: ECDH with an ephemeral key, the X9.63 KDF with SHA224, AES-GCM with a zero IV.
    @constant kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM ECIES: ECDH with an ephemeral key, the X9.63 KDF with SHA256, AES-GCM with a zero IV.
    @constant kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM ECIES: ECDH with an ephemeral key, the X9.63 KDF with SHA384, AES-GCM with a zero IV.
    @constant kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM ECIES: ECDH with an ephemeral key, the X9.63 KDF with SHA512, AES-GCM with a zero IV.
    @constant kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM ECIES: cofactor ECDH with an ephemeral key, the X9.63 KDF with SHA1, AES-GCM with a zero IV.
    @constant kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM ECIES: cofactor ECDH with an ephemeral key, the X9.63 KDF with SHA224, AES-GCM with a zero IV.
    @constant kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM ECIES: cofactor ECDH with an ephemeral key, the X9.63 KDF with SHA256, AES-GCM with a zero IV.
    @constant kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM ECIES: cofactor ECDH with an ephemeral key, the X9.63 KDF with SHA384, AES-GCM with a zero IV.
    @constant kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM ECIES: cofactor ECDH with an ephemeral key, the X9.63 KDF with SHA512, AES-GCM with a zero IV.
    @constant kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM ECIES: ECDH with an ephemeral key, the X9.63 KDF with SHA224, AES-GCM with an IV derived with the key.
    @constant kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM ECIES: ECDH with an ephemeral key, the X9.63 KDF with SHA256, AES-GCM with an IV derived with the key.
    @constant kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM ECIES: ECDH with an ephemeral key, the X9.63 KDF with SHA384, AES-GCM with an IV derived with the key.
    @constant kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM ECIES: ECDH with an ephemeral key, the X9.63 KDF with SHA512, AES-GCM with an IV derived with the key.
    @constant kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM ECIES: cofactor ECDH with an ephemeral key, the X9.63 KDF with SHA224, AES-GCM with an IV derived with the key.
    @constant kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM ECIES: cofactor ECDH with an ephemeral key, the X9.63 KDF with SHA256, AES-GCM with an IV derived with the key.
    @constant kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM ECIES: cofactor ECDH with an ephemeral key, the X9.63 KDF with SHA384, AES-GCM with an IV derived with the key.
    @constant kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM ECIES: cofactor ECDH with an ephemeral key, the X9.63 KDF with SHA512, AES-GCM with an IV derived with the key.
*/
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionRaw
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionPKCS1
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionOAEPSHA1
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionOAEPSHA224
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionOAEPSHA256
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionOAEPSHA384
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionOAEPSHA512
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionOAEPSHA224AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM
    API_AVAILABLE(macos(10.13), ios(11.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM
    API_AVAILABLE(macos(10.13), ios(11.0));

/*!
    @enum Key Exchange Algorithm Constants
    @discussion The algorithms SecKeyCopyKeyExchangeResult takes.
    @constant kSecKeyAlgorithmECDHKeyExchangeStandard ECDH: the raw shared secret, as long as the field size.
    @constant kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1 ECDH, then the X9.63 KDF with SHA1 to kSecKeyKeyExchangeParameterRequestedSize bytes.
    @constant kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224 ECDH, then the X9.63 KDF with SHA224 to kSecKeyKeyExchangeParameterRequestedSize bytes.
    @constant kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256 ECDH, then the X9.63 KDF with SHA256 to kSecKeyKeyExchangeParameterRequestedSize bytes.
    @constant kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384 ECDH, then the X9.63 KDF with SHA384 to kSecKeyKeyExchangeParameterRequestedSize bytes.
    @constant kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512 ECDH, then the X9.63 KDF with SHA512 to kSecKeyKeyExchangeParameterRequestedSize bytes.
    @constant kSecKeyAlgorithmECDHKeyExchangeCofactor Cofactor ECDH: the raw shared secret, as long as the field size.
    @constant kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1 Cofactor ECDH, then the X9.63 KDF with SHA1 to kSecKeyKeyExchangeParameterRequestedSize bytes.
    @constant kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224 Cofactor ECDH, then the X9.63 KDF with SHA224 to kSecKeyKeyExchangeParameterRequestedSize bytes.
    @constant kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256 Cofactor ECDH, then the X9.63 KDF with SHA256 to kSecKeyKeyExchangeParameterRequestedSize bytes.
    @constant kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384 Cofactor ECDH, then the X9.63 KDF with SHA384 to kSecKeyKeyExchangeParameterRequestedSize bytes.
    @constant kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512 Cofactor ECDH, then the X9.63 KDF with SHA512 to kSecKeyKeyExchangeParameterRequestedSize bytes.
*/
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeStandard
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeCofactor
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @enum Key Exchange Parameter Constants
    @discussion The keys of the parameters dictionary of SecKeyCopyKeyExchangeResult.
    @constant kSecKeyKeyExchangeParameterRequestedSize How many bytes the X9.63 algorithms derive, a value of type CFNumberRef.
    @constant kSecKeyKeyExchangeParameterSharedInfo The SharedInfo the X9.63 algorithms derive with, a value of type CFDataRef.
*/
extern const CFStringRef kSecKeyKeyExchangeParameterRequestedSize
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const CFStringRef kSecKeyKeyExchangeParameterSharedInfo
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @enum SecPadding
    @abstract The paddings of the legacy raw functions (SecKeyRawSign, SecKeyEncrypt...).
    @constant kSecPaddingNone No padding: raw RSA, or ECDSA of the input as a digest.
    @constant kSecPaddingPKCS1 PKCS#1 v1.5 padding without a DigestInfo, or for encryption.
    @constant kSecPaddingOAEP OAEP with SHA-1, for encryption.
    @constant kSecPaddingSigRaw No padding, for signatures.
    @constant kSecPaddingPKCS1MD2 PKCS#1 v1.5 with an MD2 DigestInfo; not supported.
    @constant kSecPaddingPKCS1MD5 PKCS#1 v1.5 with an MD5 DigestInfo; not supported.
    @constant kSecPaddingPKCS1SHA1 PKCS#1 v1.5 signature of a SHA-1 digest.
    @constant kSecPaddingPKCS1SHA224 PKCS#1 v1.5 signature of a SHA-224 digest.
    @constant kSecPaddingPKCS1SHA256 PKCS#1 v1.5 signature of a SHA-256 digest.
    @constant kSecPaddingPKCS1SHA384 PKCS#1 v1.5 signature of a SHA-384 digest.
    @constant kSecPaddingPKCS1SHA512 PKCS#1 v1.5 signature of a SHA-512 digest.
*/
typedef CF_OPTIONS(uint32_t, SecPadding) {
    kSecPaddingNone = 0,
    kSecPaddingPKCS1 = 1,
    kSecPaddingOAEP = 2,
    kSecPaddingSigRaw = 0x4000,
    kSecPaddingPKCS1MD2 = 0x8000,
    kSecPaddingPKCS1MD5 = 0x8001,
    kSecPaddingPKCS1SHA1 = 0x8002,
    kSecPaddingPKCS1SHA224 = 0x8003,
    kSecPaddingPKCS1SHA256 = 0x8004,
    kSecPaddingPKCS1SHA384 = 0x8005,
    kSecPaddingPKCS1SHA512 = 0x8006,
};

/*!
    @function SecKeyGetTypeID
    @abstract The Core Foundation type identifier of keys.
    @result The type identifier.
*/
CFTypeID SecKeyGetTypeID(void)
    API_AVAILABLE(macos(10.3), ios(2.0));

/*!
    @function SecKeyCreateRandomKey
    @abstract Makes a new key pair and returns its private key.
    @param parameters The key type (kSecAttrKeyType), size (kSecAttrKeySizeInBits) and, for keys to store, kSecAttrIsPermanent with the attributes of each half (kSecPublicKeyAttrs, kSecPrivateKeyAttrs).
    @param error On failure, a CFError whose code is the status. Pass NULL to ignore it.
    @result The new private key, or NULL on failure: errSecParam for a type or size that is not allowed,
        errSecUnimplemented for a token key, or the status of the add that stored a half.
*/
SecKeyRef _Nullable SecKeyCreateRandomKey(CFDictionaryRef parameters, CFErrorRef __nullable * __nullable error)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyCreateWithData
    @abstract Restores a key from its external representation.
    @param keyData The bytes SecKeyCopyExternalRepresentation gives: X9.63 for EC keys, PKCS#1 for RSA keys.
    @param attributes The key type (kSecAttrKeyType) and class (kSecAttrKeyClass).
    @param error On failure, a CFError whose code is the status. Pass NULL to ignore it.
    @result The key, or NULL when the bytes are not a key of that type and class (errSecParam), or
        for a symmetric key class (errSecUnimplemented).
*/
SecKeyRef _Nullable SecKeyCreateWithData(CFDataRef keyData, CFDictionaryRef attributes, CFErrorRef __nullable * __nullable error)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyGetBlockSize
    @abstract The key's block size: the modulus length of an RSA key, the field size of an EC key.
    @param key The key.
    @result The block size in bytes.
*/
size_t SecKeyGetBlockSize(SecKeyRef key)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyCopyExternalRepresentation
    @abstract The key's bytes in Apple's format: X9.63 for EC keys, PKCS#1 for RSA keys.
    @param key The key.
    @param error On failure, a CFError whose code is the status. Pass NULL to ignore it.
    @result The bytes, or NULL on failure.
*/
CFDataRef _Nullable SecKeyCopyExternalRepresentation(SecKeyRef key, CFErrorRef __nullable * __nullable error)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyCopyAttributes
    @abstract The key's attributes: class, type, sizes, application label and usage.
    @param key The key.
    @result The attributes, or NULL.
*/
CFDictionaryRef _Nullable SecKeyCopyAttributes(SecKeyRef key)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyCopyPublicKey
    @abstract The public key of a key pair.
    @param key A private or public key.
    @result The public key, or NULL when none can be derived.
*/
SecKeyRef _Nullable SecKeyCopyPublicKey(SecKeyRef key)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyCreateSignature
    @abstract Signs data with a private key.
    @param key The private key.
    @param algorithm One of the signing algorithms.
    @param dataToSign The digest or message the algorithm signs.
    @param error On failure, a CFError whose code is the status (errSecParam for an algorithm the key does not support). Pass NULL to ignore it.
    @result The signature, or NULL on failure: errSecParam for an algorithm the key does not support
        or an input it does not take.
*/
CFDataRef _Nullable SecKeyCreateSignature(SecKeyRef key, SecKeyAlgorithm algorithm, CFDataRef dataToSign, CFErrorRef __nullable * __nullable error)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyVerifySignature
    @abstract Checks a signature with a public key.
    @param key The public key.
    @param algorithm The signing algorithm the signature was made with.
    @param signedData The digest or message that was signed.
    @param signature The signature.
    @param error On failure, a CFError whose code is the status (errSecVerifyFailed for a signature that does not verify). Pass NULL to ignore it.
    @result Whether the signature is valid: false with errSecVerifyFailed for a signature that does
        not verify, errSecParam for an algorithm the key does not support.
*/
Boolean SecKeyVerifySignature(SecKeyRef key, SecKeyAlgorithm algorithm, CFDataRef signedData, CFDataRef signature, CFErrorRef __nullable * __nullable error)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyCreateEncryptedData
    @abstract Encrypts data with a public key.
    @param key The public key.
    @param algorithm One of the encryption algorithms.
    @param plaintext The data to encrypt.
    @param error On failure, a CFError whose code is the status. Pass NULL to ignore it.
    @result The ciphertext, or NULL on failure.
*/
CFDataRef _Nullable SecKeyCreateEncryptedData(SecKeyRef key, SecKeyAlgorithm algorithm, CFDataRef plaintext, CFErrorRef __nullable * __nullable error)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyCreateDecryptedData
    @abstract Decrypts data with a private key.
    @param key The private key.
    @param algorithm The encryption algorithm the data was encrypted with.
    @param ciphertext The data to decrypt.
    @param error On failure, a CFError whose code is the status (errSecParam for a ciphertext that is damaged or not for this key). Pass NULL to ignore it.
    @result The plaintext, or NULL on failure: errSecParam for a ciphertext that is damaged or not
        for this key.
*/
CFDataRef _Nullable SecKeyCreateDecryptedData(SecKeyRef key, SecKeyAlgorithm algorithm, CFDataRef ciphertext, CFErrorRef __nullable * __nullable error)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyCopyKeyExchangeResult
    @abstract Agrees on a shared secret between a private key and a peer's public key.
    @param privateKey The private key.
    @param algorithm One of the key exchange algorithms.
    @param publicKey The peer's public key, on the same curve.
    @param parameters For the X9.63 algorithms, kSecKeyKeyExchangeParameterRequestedSize and optionally kSecKeyKeyExchangeParameterSharedInfo.
    @param error On failure, a CFError whose code is the status. Pass NULL to ignore it.
    @result The shared secret, or NULL on failure.
*/
CFDataRef _Nullable SecKeyCopyKeyExchangeResult(SecKeyRef privateKey, SecKeyAlgorithm algorithm, SecKeyRef publicKey, CFDictionaryRef parameters, CFErrorRef __nullable * __nullable error)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyIsAlgorithmSupported
    @abstract Whether a key can perform an operation with an algorithm.
    @param key The key.
    @param operation The operation.
    @param algorithm The algorithm.
    @result Whether the operation would accept the algorithm; never an error.
*/
Boolean SecKeyIsAlgorithmSupported(SecKeyRef key, SecKeyOperationType operation, SecKeyAlgorithm algorithm)
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyGeneratePair
    @abstract Makes a key pair; the earlier form of SecKeyCreateRandomKey.
    @param parameters The parameters SecKeyCreateRandomKey takes.
    @param publicKey Receives the public key; may be NULL.
    @param privateKey Receives the private key; may be NULL.
    @result errSecSuccess, or the code of the CFError SecKeyCreateRandomKey would report.
*/
OSStatus SecKeyGeneratePair(CFDictionaryRef parameters, SecKeyRef * __nullable CF_RETURNS_RETAINED publicKey,
    SecKeyRef * __nullable CF_RETURNS_RETAINED privateKey)
    API_DEPRECATED("Use SecKeyCreateRandomKey", macos(10.7, 12.0), ios(2.0, 15.0));

/*!
    @function SecKeyRawSign
    @abstract Signs a digest with a private key; the earlier form of SecKeyCreateSignature.
    @param key The private key.
    @param padding How the digest is padded (kSecPaddingPKCS1SHA256 and the like).
    @param dataToSign The digest.
    @param dataToSignLen Its length.
    @param sig Receives the signature.
    @param sigLen The capacity of sig; receives the signature's length.
    @result errSecSuccess, or errSecParam.
*/
OSStatus SecKeyRawSign(SecKeyRef key, SecPadding padding, const uint8_t *dataToSign, size_t dataToSignLen,
    uint8_t *sig, size_t *sigLen)
    API_DEPRECATED("Use SecKeyCreateSignature", ios(2.0, 15.0));

/*!
    @function SecKeyRawVerify
    @abstract Checks a signature of a digest with a public key; the earlier form of SecKeyVerifySignature.
    @param key The public key.
    @param padding How the digest was padded.
    @param signedData The digest.
    @param signedDataLen Its length.
    @param sig The signature.
    @param sigLen Its length.
    @result errSecSuccess, or errSSLCrypto for a signature that does not verify.
*/
OSStatus SecKeyRawVerify(SecKeyRef key, SecPadding padding, const uint8_t *signedData, size_t signedDataLen,
    const uint8_t *sig, size_t sigLen)
    API_DEPRECATED("Use SecKeyVerifySignature", ios(2.0, 15.0));

/*!
    @function SecKeyEncrypt
    @abstract Encrypts a block with a public key; the earlier form of SecKeyCreateEncryptedData.
    @param key The public key.
    @param padding kSecPaddingNone, kSecPaddingPKCS1 or kSecPaddingOAEP.
    @param plainText The plaintext.
    @param plainTextLen Its length.
    @param cipherText Receives the ciphertext.
    @param cipherTextLen The capacity of cipherText; receives the ciphertext's length.
    @result errSecSuccess, or errSecParam.
*/
OSStatus SecKeyEncrypt(SecKeyRef key, SecPadding padding, const uint8_t *plainText, size_t plainTextLen,
    uint8_t *cipherText, size_t *cipherTextLen)
    API_DEPRECATED("Use SecKeyCreateEncryptedData", ios(2.0, 15.0));

/*!
    @function SecKeyDecrypt
    @abstract Decrypts a block with a private key; the earlier form of SecKeyCreateDecryptedData.
    @param key The private key.
    @param padding The padding it was encrypted with.
    @param cipherText The ciphertext.
    @param cipherTextLen Its length.
    @param plainText Receives the plaintext.
    @param plainTextLen The capacity of plainText; receives the plaintext's length.
    @result errSecSuccess, or errSecParam.
*/
OSStatus SecKeyDecrypt(SecKeyRef key, SecPadding padding, const uint8_t *cipherText, size_t cipherTextLen,
    uint8_t *plainText, size_t *plainTextLen)
    API_DEPRECATED("Use SecKeyCreateDecryptedData", ios(2.0, 15.0));

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif /* !_KEYCHAINBRIDGE_SECKEY_H_ */

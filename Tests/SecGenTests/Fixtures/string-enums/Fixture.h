/*!
    @header Fixture
    A CF_STRING_ENUM type whose constants Swift imports as static members, grouped into a typed
    enum by the API notes; functions taking it, one of which reports a verdict with a CFErrorRef
    out-parameter and one a verdict alone; a typed out-parameter; and the SecItem functions the
    typed API's support calls. The API notes import three of the functions as members of typed
    references: a method with a reordered, typed argument list, one with a fixed argument, and
    one whose typed out-parameter becomes another reference type.
*/

#include <CoreFoundation/CoreFoundation.h>
#include <Availability.h>
#include <os/availability.h>

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

typedef struct CF_BRIDGED_TYPE(id) __SecKey *SecKeyRef;
typedef struct CF_BRIDGED_TYPE(id) __SecCertificate *SecCertificateRef;
typedef struct CF_BRIDGED_TYPE(id) __SecIdentity *SecIdentityRef;

CF_ENUM(OSStatus)
{
    errSecSuccess = 0, /* It worked. */
    errSecParam = -50, /* A parameter was wrong. */
    errSecItemNotFound = -25300, /* The item is not there. */
};


/*!
    @typedef SecKeyAlgorithm
    @abstract An algorithm's name.
*/
typedef CFStringRef SecKeyAlgorithm CF_STRING_ENUM;

/*!
    @enum Signing Algorithm Constants
    @discussion What signs.
    @constant kSecKeyAlgorithmECDSASignatureMessageX962SHA256 ECDSA of a SHA-256 hash.
    @constant kSecKeyAlgorithmRSASignatureRaw Raw RSA.
*/
extern const SecKeyAlgorithm kSecKeyAlgorithmECDSASignatureMessageX962SHA256
    API_AVAILABLE(macos(10.12), ios(10.0));
extern const SecKeyAlgorithm kSecKeyAlgorithmRSASignatureRaw
    API_AVAILABLE(macos(10.12), ios(10.0));

/*!
    @function SecKeyVerifySignature
    @abstract Checks a signature.
    @param key The public key.
    @param algorithm How it was signed.
    @param signedData What was signed.
    @param signature The signature.
    @param error On failure, why.
    @result Whether it verifies.
*/
Boolean SecKeyVerifySignature(SecKeyRef key, SecKeyAlgorithm algorithm, CFDataRef signedData, CFDataRef signature,
    CFErrorRef __nullable * __nullable error);

/*!
    @function SecIdentityCopyCertificate
    @abstract The certificate of an identity, handed back through a typed out-parameter.
    @param identityRef The identity.
    @param certificateRef Receives the certificate.
    @result errSecSuccess.
*/
OSStatus SecIdentityCopyCertificate(SecIdentityRef identityRef,
    SecCertificateRef * __nonnull CF_RETURNS_RETAINED certificateRef);

/*!
    @enum SecKeyOperationType
    @abstract What a key is asked to do.
    @constant kSecKeyOperationTypeSign Sign.
    @constant kSecKeyOperationTypeVerify Verify.
*/
typedef CF_ENUM(CFIndex, SecKeyOperationType) {
    kSecKeyOperationTypeSign = 0,
    kSecKeyOperationTypeVerify = 1,
};

/*!
    @function SecKeyIsAlgorithmSupported
    @abstract Whether the key can perform the operation with the algorithm.
    @param key The key.
    @param operation The operation.
    @param algorithm The algorithm.
    @result Whether it can.
*/
Boolean SecKeyIsAlgorithmSupported(SecKeyRef key, SecKeyOperationType operation, SecKeyAlgorithm algorithm);

/*!
    @function SecItemCopyMatching
    @abstract Finds items.
    @param query What to find.
    @param result What was found.
    @result errSecSuccess, errSecParam or errSecItemNotFound.
*/
OSStatus SecItemCopyMatching(CFDictionaryRef query, CFTypeRef * __nullable CF_RETURNS_RETAINED result);

/*!
    @function SecItemAdd
    @abstract Adds an item.
    @param attributes What to add.
    @param result What was added.
    @result errSecSuccess or errSecParam.
*/
OSStatus SecItemAdd(CFDictionaryRef attributes, CFTypeRef __nullable * __nullable result);

/*!
    @function SecItemUpdate
    @abstract Changes items.
    @param query What to change.
    @param attributesToUpdate The changes.
    @result errSecSuccess, errSecItemNotFound or errSecParam.
*/
OSStatus SecItemUpdate(CFDictionaryRef query, CFDictionaryRef attributesToUpdate);

/*!
    @function SecItemDelete
    @abstract Deletes items.
    @param query What to delete.
    @result errSecSuccess, errSecParam or errSecItemNotFound.
*/
OSStatus SecItemDelete(CFDictionaryRef query);

/*!
    @function SecItemUpsert
    @abstract Changes the matching items, or adds one.
    @param query What to change, and with the changes what to add.
    @param attributesToUpdate The changes.
    @result errSecSuccess or a failure.
*/
OSStatus SecItemUpsert(CFDictionaryRef query, CFDictionaryRef attributesToUpdate);

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

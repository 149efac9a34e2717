/*!
    @header Fixture
    One function per wrapper rule: a status with no value, a search whose result comes through an
    out-parameter, a nullable result without an error report; byte buffers read with their length,
    written up to a capacity that comes back as the length written, or written to a count given
    first (with an int result that is a status); two objects handed back at once; and a function
    that writes two buffers, which a wrapper cannot return. An object constant sits beside them,
    recognised and left out of the model.
*/

#include <CoreFoundation/CoreFoundation.h>
#include <stdint.h>
#include <sys/types.h>

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

CF_ENUM(OSStatus)
{
    errSecSuccess = 0, /* It worked. */
    errSecParam = -50, /* A parameter was wrong. */
    errSecItemNotFound = -25300, /* The item is not there. */
};

/*!
    @function SecItemCopyMatching
    @abstract Finds items.
    @param query What to find.
    @param result What was found.
    @result errSecSuccess, errSecParam or errSecItemNotFound.
*/
OSStatus SecItemCopyMatching(CFDictionaryRef query, CFTypeRef * __nullable CF_RETURNS_RETAINED result)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecItemDelete
    @abstract Deletes items.
    @param query What to delete.
    @result errSecSuccess, errSecParam or errSecItemNotFound.
*/
OSStatus SecItemDelete(CFDictionaryRef query)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecItemUpsert
    @abstract Changes the matching items, or adds one.
    @param query What to change, and with the changes what to add.
    @param attributesToUpdate The changes.
    @result errSecSuccess or a failure.
*/
OSStatus SecItemUpsert(CFDictionaryRef query, CFDictionaryRef attributesToUpdate)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecCopyErrorMessageString
    @abstract Describes a status.
    @param status The status.
    @param reserved Unused.
    @result A sentence, or NULL.
*/
__nullable
CFStringRef SecCopyErrorMessageString(OSStatus status, void * __nullable reserved)
    __OSX_AVAILABLE_STARTING(__MAC_10_3, __IPHONE_11_3);

/*!
    @function SecItemAdd
    @abstract Adds an item.
    @param attributes What to add.
    @param result What was added.
    @result errSecSuccess or a failure.
*/
OSStatus SecItemAdd(CFDictionaryRef attributes, CFTypeRef __nullable * __nullable result);

/*!
    @function SecItemUpdate
    @abstract Changes items.
    @param query What to change.
    @param attributesToUpdate The changes.
    @result errSecSuccess, errSecItemNotFound or a failure.
*/
OSStatus SecItemUpdate(CFDictionaryRef query, CFDictionaryRef attributesToUpdate);

typedef struct CF_BRIDGED_TYPE(id) __SecKey *SecKeyRef;
typedef const struct __SecRandom * SecRandomRef;

/*!
    @enum SecPadding
    @abstract How a digest is padded.
    @constant kSecPaddingNone No padding.
    @constant kSecPaddingPKCS1 PKCS#1 v1.5.
*/
typedef CF_OPTIONS(uint32_t, SecPadding) {
    kSecPaddingNone = 0,
    kSecPaddingPKCS1 = 1,
};

/*!
    @const kSecRandomDefault
    @abstract The random source; an object, not a dictionary key.
*/
extern const SecRandomRef kSecRandomDefault;

/*!
    @function SecRandomCopyBytes
    @abstract Fills a buffer with random bytes.
    @param rnd The source.
    @param count How many bytes.
    @param bytes The buffer, count bytes long.
    @result errSecSuccess or errSecParam.
*/
int SecRandomCopyBytes(SecRandomRef __nullable rnd, size_t count, void *bytes);

/*!
    @function SecKeyGeneratePair
    @abstract Makes a key pair.
    @param parameters What kind of key.
    @param publicKey Receives the public key.
    @param privateKey Receives the private key.
    @result errSecSuccess or errSecParam.
*/
OSStatus SecKeyGeneratePair(CFDictionaryRef parameters, SecKeyRef * __nullable CF_RETURNS_RETAINED publicKey,
    SecKeyRef * __nullable CF_RETURNS_RETAINED privateKey);

/*!
    @function SecKeyRawSign
    @abstract Signs a digest.
    @param key The private key.
    @param padding The padding.
    @param dataToSign The digest.
    @param dataToSignLen Its length.
    @param sig Receives the signature.
    @param sigLen The capacity of sig; receives the signature's length.
    @result errSecSuccess or errSecParam.
*/
OSStatus SecKeyRawSign(SecKeyRef key, SecPadding padding, const uint8_t *dataToSign, size_t dataToSignLen,
    uint8_t *sig, size_t *sigLen);

/*!
    @function SecKeyRawVerify
    @abstract Checks a signature.
    @param key The public key.
    @param padding The padding.
    @param signedData The digest.
    @param signedDataLen Its length.
    @param sig The signature.
    @param sigLen Its length.
    @result errSecSuccess or errSecParam.
*/
OSStatus SecKeyRawVerify(SecKeyRef key, SecPadding padding, const uint8_t *signedData, size_t signedDataLen,
    const uint8_t *sig, size_t sigLen);

/*!
    @function SecFixtureSplit
    @abstract Splits bytes in two: two buffers written, so no wrapper.
    @param data The bytes.
    @param dataLen Their length.
    @param first Receives the first half.
    @param firstLen Its capacity; receives its length.
    @param second Receives the second half.
    @param secondLen Its capacity; receives its length.
    @result errSecSuccess or errSecParam.
*/
OSStatus SecFixtureSplit(const uint8_t *data, size_t dataLen, uint8_t *first, size_t *firstLen, uint8_t *second,
    size_t *secondLen);

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

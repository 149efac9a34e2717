/*!
    @header Fixture
    Named CF_ENUM and CF_OPTIONS types: option bits (one past the sign bit of a 32-bit int, and
    deprecated names replaced by others), a plain enumeration, and a function that takes the
    options and reports failure through a CFErrorRef out-parameter.
*/

#include <CoreFoundation/CoreFoundation.h>
#include <Availability.h>
#include <os/availability.h>

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

typedef struct CF_BRIDGED_TYPE(id) __SecAccessControl *SecAccessControlRef;

CF_ENUM(OSStatus)
{
    errSecSuccess = 0, /* It worked. */
    errSecParam = -50, /* A parameter was wrong. */
    errSecItemNotFound = -25300, /* The item is not there. */
};

/*!
    @enum SecAccessControlCreateFlags
    @abstract Conditions on an item.
    @constant kSecAccessControlUserPresence Someone is there.
    @constant kSecAccessControlBiometryAny Any finger or face.
    @constant kSecAccessControlTouchIDAny The old name of kSecAccessControlBiometryAny.
    @constant kSecAccessControlApplicationPassword The application adds a password.
*/
typedef CF_OPTIONS(CFOptionFlags, SecAccessControlCreateFlags) {
    kSecAccessControlUserPresence = 1u << 0,
    kSecAccessControlBiometryAny API_AVAILABLE(ios(11.3)) = 1u << 1,
    kSecAccessControlTouchIDAny API_DEPRECATED_WITH_REPLACEMENT("kSecAccessControlBiometryAny", ios(9.0, 11.3)) = 1u << 1,
    kSecAccessControlApplicationPassword = 1u << 31,
};

/*!
    @enum SecFixtureShape
    @abstract A plain enumeration with values counted from zero.
*/
typedef CF_ENUM(CFIndex, SecFixtureShape) {
    kSecFixtureShapeRound, /* Round. */
    kSecFixtureShapeSquare, /* Square. */
};

/*!
    @function SecAccessControlCreateWithFlags
    @abstract Makes an access control object.
    @param allocator Pass NULL.
    @param protection A kSecAttrAccessible value.
    @param flags The conditions.
    @param error On failure, why.
    @result The object, or NULL.
*/
__nullable
SecAccessControlRef SecAccessControlCreateWithFlags(CFAllocatorRef __nullable allocator, CFTypeRef protection,
    SecAccessControlCreateFlags flags, CFErrorRef *error);

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

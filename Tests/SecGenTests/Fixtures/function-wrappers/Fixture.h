/*!
    @header Fixture
    One function per wrapper rule: a status with no value, a search whose result comes through an
    out-parameter, and a nullable result without an error report.
*/

#include <CoreFoundation/CoreFoundation.h>

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

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

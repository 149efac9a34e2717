/*!
    @header Fixture
    Every system and framework header Security's public headers include, each resolved by one of
    secgen's stand-ins, and a function whose queue and block types they declare: it is read, and
    left without a wrapper because those types have no Swift counterpart in Security.
*/

#include <TargetConditionals.h>
#include <Availability.h>
#include <AvailabilityMacros.h>
#include <AvailabilityVersions.h>
#include <os/availability.h>
#include <os/base.h>
#include <sys/cdefs.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <libkern/OSTypes.h>
#include <dispatch/dispatch.h>
#include <CoreFoundation/CoreFoundation.h>
#include <CoreFoundation/CFArray.h>
#include <CoreFoundation/CFData.h>
#include <CoreFoundation/CFDate.h>
#include <CoreFoundation/CFDictionary.h>
#include <CoreFoundation/CFError.h>
#include <CoreFoundation/CFNumber.h>
#include <CoreFoundation/CFSet.h>
#include <CoreFoundation/CFString.h>
#include <CoreFoundation/CFURL.h>
#include <CoreFoundation/CFRunLoop.h>
#include <CoreFoundation/CFAvailability.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN

/*!
    @enum Class Key Constant
    @discussion The key of the class.
    @constant kSecClass A key whose value is the item's class.
*/
extern const CFStringRef kSecClass
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum Class Value Constants
    @discussion The classes.
    @constant kSecClassGenericPassword Generic passwords.
*/
extern const CFStringRef kSecClassGenericPassword;

/*!
    @enum Attribute Key Constants
    @discussion The attributes.

    kSecClassGenericPassword item attributes:
        kSecAttrAccount
        kSecAttrService

    @constant kSecAttrAccount The account, a CFStringRef.
    @constant kSecAttrService The service, a CFStringRef.
*/
extern const CFStringRef kSecAttrAccount;
extern const CFStringRef kSecAttrService;

CF_ENUM(OSStatus)
{
    errSecSuccess = 0, /* It worked. */
    errSecParam = -50, /* A parameter was wrong. */
    errSecDuplicateItem = -25299, /* The item is there already. */
    errSecItemNotFound = -25300, /* The item is not there. */
};

/*!
    @function SecItemAdd
    @abstract Adds an item.
    @param attributes What to add.
    @param result What was added.
    @result errSecSuccess, errSecParam, errSecDuplicateItem or errSecItemNotFound.
*/
OSStatus SecItemAdd(CFDictionaryRef attributes, CFTypeRef __nullable * __nullable result);

/*!
    @function SecItemCopyMatching
    @abstract Finds items.
    @param query What to find.
    @param result What was found.
    @result errSecSuccess, errSecItemNotFound or a failure.
*/
OSStatus SecItemCopyMatching(CFDictionaryRef query, CFTypeRef __nullable * __nullable result);

/*!
    @function SecItemUpdate
    @abstract Changes items.
    @param query What to change.
    @param attributesToUpdate The changes.
    @result errSecSuccess, errSecItemNotFound or a failure.
*/
OSStatus SecItemUpdate(CFDictionaryRef query, CFDictionaryRef attributesToUpdate);

/*!
    @function SecItemDelete
    @abstract Deletes items.
    @param query What to delete.
    @result errSecSuccess, errSecItemNotFound or a failure.
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

/*!
    @typedef SecFixtureCallback
    @abstract What the asynchronous check reports.
*/
typedef void (^SecFixtureCallback)(bool ok, CFErrorRef __nullable error);

/*!
    @function SecFixtureCheckAsync
    @abstract Checks something on a queue.
    @param queue Where the callback runs.
    @param size How many bytes; a size_t, as sys/types.h gives it.
    @param callback What to call.
    @result errSecSuccess or errSecParam.
*/
OSStatus SecFixtureCheckAsync(dispatch_queue_t queue, size_t size, SecFixtureCallback callback);

CF_ASSUME_NONNULL_END

__END_DECLS


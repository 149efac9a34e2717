/*!
    @header FixtureItem
    An item header that includes its base the framework way, with a deprecated attribute and one
    that exists on macOS only.
*/

#ifndef _FIXTURE_ITEM_H_
#define _FIXTURE_ITEM_H_

#include <Security/FixtureBase.h>
#include <CoreFoundation/CFDictionary.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

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
extern const CFStringRef kSecClassGenericPassword
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum Attribute Key Constants
    @discussion The attributes.

    kSecClassGenericPassword item attributes:
        kSecAttrAccount
        kSecAttrService
        kSecAttrComment
        kSecAttrLegacyTag (macOS only)

    @constant kSecAttrAccount The account, a CFStringRef.
    @constant kSecAttrService The service, a CFStringRef.
    @constant kSecAttrComment A comment, a CFStringRef.
    @constant kSecAttrLegacyTag The file keychain's tag, a CFNumberRef.
*/
extern const CFStringRef kSecAttrAccount
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrService
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrComment
    API_DEPRECATED("describe items with kSecAttrService", macos(10.6, 10.9), ios(2.0, 7.0));
extern const CFStringRef kSecAttrLegacyTag
    API_AVAILABLE(macos(10.6)) API_UNAVAILABLE(ios, watchos, tvos);

/*!
    @function SecItemAdd
    @abstract Adds an item.
    @param attributes What to add.
    @param result What was added.
    @result errSecSuccess, errSecParam, errSecDuplicateItem or errSecItemNotFound.
*/
OSStatus SecItemAdd(CFDictionaryRef attributes, CFTypeRef * __nullable CF_RETURNS_RETAINED result)
    API_AVAILABLE(macos(10.6), ios(2.0));

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

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif

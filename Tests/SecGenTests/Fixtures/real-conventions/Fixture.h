/*!
    @header Fixture
    The conventions of published Security headers that a dialect written for secgen never shows:
    trailing punctuation after a @constant name, values listed inline, value groups named in other phrasings or winning
    over a legacy CFNumberRef, types written without Ref, a group opened with a plain comment, a
    value constant declared among the attribute keys, a class described in prose, and a @result
    that names no code.
*/

#include <CoreFoundation/CoreFoundation.h>

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @enum Class Key Constant
    @discussion The key of the class.
    @constant kSecClass A key whose value is the item's class.
*/
extern const CFStringRef kSecClass;

/*!
    @enum Class Value Constants
    @discussion The classes.
    @constant kSecClassInternetPassword Internet passwords.
    @constant kSecClassKey Keys.
    @constant kSecClassIdentity Identities.
*/
extern const CFStringRef kSecClassInternetPassword;
extern const CFStringRef kSecClassKey;
extern const CFStringRef kSecClassIdentity;

/*!
    @enum Attribute Key Constants
    @discussion The attributes.

    kSecClassInternetPassword item attributes:
        kSecAttrAccessible
        kSecAttrServer
        kSecAttrProtocol
        kSecAttrGeneric
        kSecAttrSynchronizable

    kSecClassKey item attributes:
        kSecAttrKeyClass
        kSecAttrApplicationTag

    kSecClassIdentity item attributes:
        Since an identity is a key and a certificate together, this class shares attributes of
        kSecClassKey.

    @constant kSecAttrAccessible When the item can be read: one of kSecAttrAccessibleWhenUnlocked or
        kSecAttrAccessibleAfterFirstUnlock.
    @constant kSecAttrServer. The server's name, a CFString.
    @constant kSecAttrProtocol The protocol, a CFNumberRef (see "kSecAttrProtocol Value Constants".)
    @constant kSecAttrGeneric: User data, a CFData.
    @constant kSecAttrSynchronizable Whether the item syncs, a CFBooleanRef.
    @constant kSecAttrSynchronizableAny Matches items whether they sync or not; use it as a value for
        the kSecAttrSynchronizable key in searches.
    @constant kSecAttrKeyClass The class of a key. See the "kSecAttrKeyClass Value Constants" section.
    @constant kSecAttrApplicationTag A tag, a CFDataRef.
*/
extern const CFStringRef kSecAttrAccessible;
extern const CFStringRef kSecAttrServer;
extern const CFStringRef kSecAttrProtocol;
extern const CFStringRef kSecAttrGeneric;
extern const CFStringRef kSecAttrSynchronizable;
extern const CFStringRef kSecAttrSynchronizableAny;
extern const CFStringRef kSecAttrKeyClass;
extern const CFStringRef kSecAttrApplicationTag;

/*!
    @enum Accessibility Constants
    @discussion Protection classes, in a group of another name: kSecAttrAccessible lists them inline.
    @constant kSecAttrAccessibleWhenUnlocked While the device is unlocked.
    @constant kSecAttrAccessibleAfterFirstUnlock After the first unlock.
*/
extern const CFStringRef kSecAttrAccessibleWhenUnlocked;
extern const CFStringRef kSecAttrAccessibleAfterFirstUnlock;

/*!
    @enum kSecAttrProtocol Value Constants
    @discussion The protocols.
    @constant kSecAttrProtocolFTP.
    @constant kSecAttrProtocolHTTPS.
*/
extern const CFStringRef kSecAttrProtocolFTP;
extern const CFStringRef kSecAttrProtocolHTTPS;

/*
    @enum kSecAttrKeyClass Value Constants
    @discussion The key classes, in a group opened with a plain comment.
    @constant kSecAttrKeyClassPublic A public key.
    @constant kSecAttrKeyClassPrivate A private key.
*/
extern const CFStringRef kSecAttrKeyClassPublic;
extern const CFStringRef kSecAttrKeyClassPrivate;

CF_ENUM(OSStatus)
{
    errSecSuccess = 0, /* It worked. */
    errSecParam = -50, /* A parameter was wrong. */
    errSecItemNotFound = -25300, /* The item is not there. */
};

/*!
    @function SecItemAdd
    @abstract Adds an item.
    @param attributes What to add.
    @param result What was added.
    @result A result code. See "Security Error Codes".
*/
OSStatus SecItemAdd(CFDictionaryRef attributes, CFTypeRef __nullable * __nullable result);

/*!
    @function SecItemCopyMatching
    @abstract Finds items.
    @param query What to find.
    @param result What was found.
    @result A result code. See "Security Error Codes".
*/
OSStatus SecItemCopyMatching(CFDictionaryRef query, CFTypeRef __nullable * __nullable result);

/*!
    @function SecItemUpdate
    @abstract Changes items.
    @param query What to change.
    @param attributesToUpdate The changes.
    @result A result code. See "Security Error Codes".
*/
OSStatus SecItemUpdate(CFDictionaryRef query, CFDictionaryRef attributesToUpdate);

/*!
    @function SecItemDelete
    @abstract Deletes items.
    @param query What to delete.
    @result A result code. See "Security Error Codes".
*/
OSStatus SecItemDelete(CFDictionaryRef query);

/*!
    @function SecItemUpsert
    @abstract Changes the matching items, or adds one.
    @param query What to change, and with the changes what to add.
    @param attributesToUpdate The changes.
    @result A result code. See "Security Error Codes".
*/
OSStatus SecItemUpsert(CFDictionaryRef query, CFDictionaryRef attributesToUpdate);

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

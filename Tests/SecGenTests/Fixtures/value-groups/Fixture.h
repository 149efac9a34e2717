/*!
    @header Fixture
    Value-constant groups become enums; numbers, booleans, dates and read-only attributes get their
    Swift types; an API notes file renames a group and an attribute.
*/

CF_ASSUME_NONNULL_BEGIN

/*!
    @enum Class Value Constants
    @discussion The classes.
    @constant kSecClassInternetPassword Internet passwords.
*/
extern const CFStringRef kSecClassInternetPassword;

/*!
    @enum Attribute Key Constants
    @discussion The attributes.

    kSecClassInternetPassword item attributes:
        kSecAttrServer
        kSecAttrPort
        kSecAttrProtocol
        kSecAttrAccessible (iOS and macOS)
        kSecAttrIsInvisible
        kSecAttrCreationDate

    @constant kSecAttrServer The server, a CFStringRef.
    @constant kSecAttrPort The port, a CFNumberRef.
    @constant kSecAttrProtocol The protocol, one of the values listed in kSecAttrProtocol Value Constants.
    @constant kSecAttrAccessible When the item can be read, one of the values listed in
        kSecAttrAccessible Value Constants.
    @constant kSecAttrIsInvisible Whether the item is hidden, a CFBooleanRef.
    @constant kSecAttrCreationDate (read-only) When the item was added, a CFDateRef.
*/
extern const CFStringRef kSecAttrServer;
extern const CFStringRef kSecAttrPort;
extern const CFStringRef kSecAttrProtocol;
extern const CFStringRef kSecAttrAccessible;
extern const CFStringRef kSecAttrIsInvisible;
extern const CFStringRef kSecAttrCreationDate;

/*!
    @enum kSecAttrProtocol Value Constants
    @discussion The protocols.
    @constant kSecAttrProtocolHTTPS HTTPS.
    @constant kSecAttrProtocolSSH SSH.
*/
extern const CFStringRef kSecAttrProtocolHTTPS;
extern const CFStringRef kSecAttrProtocolSSH;

/*!
    @enum kSecAttrAccessible Value Constants
    @discussion The protection classes.
    @constant kSecAttrAccessibleWhenUnlocked Only while unlocked.
    @constant kSecAttrAccessibleAfterFirstUnlock After the first unlock.
*/
extern const CFStringRef kSecAttrAccessibleWhenUnlocked;
extern const CFStringRef kSecAttrAccessibleAfterFirstUnlock;

CF_ENUM(OSStatus)
{
    errSecSuccess = 0, /* It worked. */
    errSecItemNotFound = -25300, /* The item is not there. */
    errSecInteractionNotAllowed = -25308, /* Locked. */
};

/*!
    @function SecItemCopyMatching
    @abstract Finds items.
    @param query What to find.
    @param result What was found.
    @result errSecSuccess or errSecInteractionNotAllowed.
*/
OSStatus SecItemCopyMatching(CFDictionaryRef query, CFTypeRef __nullable * __nullable result);

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
    @result errSecSuccess or a failure.
*/
OSStatus SecItemUpdate(CFDictionaryRef query, CFDictionaryRef attributesToUpdate);

/*!
    @function SecItemDelete
    @abstract Deletes items.
    @param query What to delete.
    @result errSecSuccess or a failure.
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

CF_ASSUME_NONNULL_END

/*!
    @header Fixture
    Every way the headers say which item classes carry an attribute: the class table, the
    attribute's own entry ("Items of class ... have this attribute", "(see ...)", "Supported only
    for ..."), the discussion of a second attribute group ("... have these attributes"), and the API
    notes' classes. A class named for another reason gives no membership.
*/

CF_ASSUME_NONNULL_BEGIN

/*!
    @enum Class Key Constant
    @discussion The key of the class.
    @constant kSecClass A key whose value is the item's class.
*/
extern const CFStringRef kSecClass;

/*!
    @enum Class Value Constants
    @discussion The classes.
    @constant kSecClassGenericPassword Generic passwords.
    @constant kSecClassKey Keys.
*/
extern const CFStringRef kSecClassGenericPassword;
extern const CFStringRef kSecClassKey;

/*!
    @enum Attribute Key Constants
    @discussion The attributes.

    kSecClassGenericPassword item attributes:
        kSecAttrAccount

    kSecClassKey item attributes:
        kSecAttrApplicationTag

    @constant kSecAttrAccount The account, a CFStringRef.
    @constant kSecAttrApplicationTag The tag, a CFDataRef.
    @constant kSecAttrIsSensitive Whether the key is sensitive, a CFBooleanRef. Items of class kSecClassKey
        have this attribute.
    @constant kSecAttrIsExtractable Whether the key can leave its store, a CFBooleanRef (see kSecClassKey).
    @constant kSecAttrTokenID Where the item lives, a CFStringRef. Supported only for kSecClassKey and
        kSecClassGenericPassword items.
    @constant kSecAttrKeyClass The class of a key, a CFStringRef: the kind of kSecClassKey item it is.
    @constant kSecAttrAlias An alias, a CFDataRef.
*/
extern const CFStringRef kSecAttrAccount;
extern const CFStringRef kSecAttrApplicationTag;
extern const CFStringRef kSecAttrIsSensitive;
extern const CFStringRef kSecAttrIsExtractable;
extern const CFStringRef kSecAttrTokenID;
extern const CFStringRef kSecAttrKeyClass;
extern const CFStringRef kSecAttrAlias;

/*!
    @enum Attribute Key Constants
    @discussion Attributes of every class: items of class kSecClassGenericPassword and kSecClassKey have
    these attributes.
    @constant kSecAttrSyncViewHint The sync view, a CFStringRef.
*/
extern const CFStringRef kSecAttrSyncViewHint;

CF_ENUM(OSStatus)
{
    errSecSuccess = 0, /* It worked. */
    errSecParam = -50, /* A parameter was wrong. */
    errSecItemNotFound = -25300, /* The item is not there. */
    errSecInteractionNotAllowed = -25308, /* Not now. */
};

/*!
    @function SecItemAdd
    @abstract Adds an item.
    @param attributes What to add.
    @param result What was added.
    @result errSecSuccess, errSecParam, errSecInteractionNotAllowed or errSecItemNotFound.
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

CF_ASSUME_NONNULL_END

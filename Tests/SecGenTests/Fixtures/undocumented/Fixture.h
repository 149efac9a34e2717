/*!
    @header Fixture
    What documentation can lack without making the output wrong: an attribute listed by its class
    with no @constant entry (typed by the API notes), another one that nothing types, an enum value
    with no comment, and a status code with no meaning. Each is a warning; the model keeps what the
    declarations say.
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
*/
extern const CFStringRef kSecClassGenericPassword;

/*!
    @enum Attribute Key Constants
    @discussion The attributes.

    kSecClassGenericPassword item attributes:
        kSecAttrAccount
        kSecAttrLabel
        kSecAttrAlias

    @constant kSecAttrAccount The account, a CFStringRef.
*/
extern const CFStringRef kSecAttrAccount;
extern const CFStringRef kSecAttrLabel;
extern const CFStringRef kSecAttrAlias;

/*!
    @enum SecFixturePadding
    @abstract A legacy enumeration whose first value is documented only by its name.
*/
typedef CF_ENUM(uint32_t, SecFixturePadding) {
    kSecFixturePaddingNone = 0,
    kSecFixturePaddingPKCS1 = 1, /* PKCS #1 padding. */
};

CF_ENUM(OSStatus)
{
    errSecSuccess = 0, /* It worked. */
    errSecParam = -50, /* A parameter was wrong. */
    errSecItemNotFound = -25300, /* The item is not there. */
    errSecInteractionNotAllowed = -25308,
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

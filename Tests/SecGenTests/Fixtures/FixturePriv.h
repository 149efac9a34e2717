/*!
    @header FixturePriv
    The runtime's private declarations, as SecItemPriv.h has them: the typed entry points, whose
    wrappers are the package's own.
*/

CF_ASSUME_NONNULL_BEGIN

/*!
    @typedef SecItemEntriesRef
    @abstract A dictionary as a typed caller holds it.
*/
typedef struct CF_BRIDGED_TYPE(id) __SecItemEntries *SecItemEntriesRef;

/*!
    @typedef SecItemFoundValuesRef
    @abstract What a typed search found.
*/
typedef struct CF_BRIDGED_TYPE(id) __SecItemFoundValues *SecItemFoundValuesRef;

/*!
    @function SecItemAddEntries
    @abstract Adds an item.
    @param attributes What to add.
    @result errSecSuccess or a failure.
*/
OSStatus SecItemAddEntries(SecItemEntriesRef attributes);

/*!
    @function SecItemCopyMatchingEntries
    @abstract Finds items.
    @param query What to find.
    @param result What was found.
    @result errSecSuccess, errSecItemNotFound or a failure.
*/
OSStatus SecItemCopyMatchingEntries(SecItemEntriesRef query, SecItemFoundValuesRef __nullable * __nullable CF_RETURNS_RETAINED result);

/*!
    @function SecItemUpdateEntries
    @abstract Changes items.
    @param query What to change.
    @param attributesToUpdate The changes.
    @result errSecSuccess, errSecItemNotFound or a failure.
*/
OSStatus SecItemUpdateEntries(SecItemEntriesRef query, SecItemEntriesRef attributesToUpdate);

/*!
    @function SecItemDeleteEntries
    @abstract Deletes items.
    @param query What to delete.
    @result errSecSuccess, errSecItemNotFound or a failure.
*/
OSStatus SecItemDeleteEntries(SecItemEntriesRef query);

CF_ASSUME_NONNULL_END

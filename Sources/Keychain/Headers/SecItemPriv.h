/*!
    @header SecItemPriv
    Declarations of the keychain item API in the style of Apple's SecItemPriv, written for
    KeychainBridge. secgen reads this file; the Security module implements it.
*/

#ifndef _KEYCHAINBRIDGE_SECITEMPRIV_H_
#define _KEYCHAINBRIDGE_SECITEMPRIV_H_

#include <Security/SecItem.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @enum Class Value Constants
    @discussion The item classes: each names one kind of keychain item.
    @constant kSecClassAppleSharePassword The class of apple share password items.
*/
extern const CFStringRef kSecClassAppleSharePassword
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum Attribute Key Constants
    @discussion Keys for item attributes. The table says which attributes each item class has.

    kSecClassGenericPassword item attributes:
        kSecAttrAlias
        kSecAttrScriptCode
        kSecAttrHasCustomIcon
        kSecAttrTombstone
        kSecAttrMultiUser
        kSecAttrUUID
        kSecAttrSysBound
        kSecAttrSHA1
        kSecAttrPCSPlaintextServiceIdentifier
        kSecAttrPCSPlaintextPublicKey
        kSecAttrPCSPlaintextPublicIdentity
        kSecAttrSharingGroup

    kSecClassInternetPassword item attributes:
        kSecAttrAlias
        kSecAttrScriptCode
        kSecAttrHasCustomIcon
        kSecAttrTombstone
        kSecAttrMultiUser
        kSecAttrUUID
        kSecAttrSysBound
        kSecAttrSHA1
        kSecAttrPCSPlaintextServiceIdentifier
        kSecAttrPCSPlaintextPublicKey
        kSecAttrPCSPlaintextPublicIdentity
        kSecDataInetExtraNotes
        kSecDataInetExtraHistory
        kSecDataInetExtraClientDefined0
        kSecDataInetExtraClientDefined1
        kSecDataInetExtraClientDefined2
        kSecDataInetExtraClientDefined3
        kSecAttrSharingGroup

    kSecClassCertificate item attributes:
        kSecAttrAlias
        kSecAttrTombstone
        kSecAttrMultiUser
        kSecAttrUUID
        kSecAttrSysBound
        kSecAttrSHA1
        kSecAttrPCSPlaintextServiceIdentifier
        kSecAttrPCSPlaintextPublicKey
        kSecAttrPCSPlaintextPublicIdentity
        kSecAttrSharingGroup

    kSecClassKey item attributes:
        kSecAttrAlias
        kSecAttrIsPrivate
        kSecAttrIsModifiable
        kSecAttrKeyCreator
        kSecAttrStartDate
        kSecAttrEndDate
        kSecAttrWasAlwaysSensitive
        kSecAttrWasNeverExtractable
        kSecAttrCanSignRecover
        kSecAttrCanVerifyRecover
        kSecAttrTombstone
        kSecAttrMultiUser
        kSecAttrUUID
        kSecAttrSysBound
        kSecAttrSHA1
        kSecAttrPCSPlaintextServiceIdentifier
        kSecAttrPCSPlaintextPublicKey
        kSecAttrPCSPlaintextPublicIdentity
        kSecAttrSharingGroup

    kSecClassIdentity item attributes:
        kSecAttrAlias
        kSecAttrIsPrivate
        kSecAttrIsModifiable
        kSecAttrKeyCreator
        kSecAttrStartDate
        kSecAttrEndDate
        kSecAttrWasAlwaysSensitive
        kSecAttrWasNeverExtractable
        kSecAttrCanSignRecover
        kSecAttrCanVerifyRecover
        kSecAttrTombstone
        kSecAttrMultiUser
        kSecAttrUUID
        kSecAttrSysBound
        kSecAttrSHA1
        kSecAttrPCSPlaintextServiceIdentifier
        kSecAttrPCSPlaintextPublicKey
        kSecAttrPCSPlaintextPublicIdentity
        kSecAttrSharingGroup

    @constant kSecAttrVolume A key whose value is the item's volume, a value of type CFStringRef.
    @constant kSecAttrAddress A key whose value is the item's address, a value of type CFStringRef.
    @constant kSecAttrAFPServerSignature A key whose value is the item's afp server signature, a value of type CFDataRef.
    @constant kSecAttrAlias A key whose value is the item's alias, a value of type CFStringRef.
    @constant kSecAttrIsPrivate A key whose value says whether the item is private, a value of type CFBooleanRef.
    @constant kSecAttrIsModifiable A key whose value says whether the item is modifiable, a value of type CFBooleanRef.
    @constant kSecAttrKeyCreator A key whose value is the item's key creator, a value of type CFNumberRef.
    @constant kSecAttrStartDate A key whose value is the item's start date, a value of type CFDateRef.
    @constant kSecAttrEndDate A key whose value is the item's end date, a value of type CFDateRef.
    @constant kSecAttrWasAlwaysSensitive A key whose value is the item's was always sensitive, a value of type CFBooleanRef.
    @constant kSecAttrWasNeverExtractable A key whose value is the item's was never extractable, a value of type CFBooleanRef.
    @constant kSecAttrCanSignRecover A key whose value is the item's can sign recover, a value of type CFBooleanRef.
    @constant kSecAttrCanVerifyRecover A key whose value is the item's can verify recover, a value of type CFBooleanRef.
    @constant kSecAttrScriptCode A key whose value is the item's script code, a value of type CFNumberRef.
    @constant kSecAttrHasCustomIcon A key whose value is the item's has custom icon, a value of type CFBooleanRef.
    @constant kSecAttrCRLType A key whose value is the item's crl type, a value of type CFNumberRef.
    @constant kSecAttrCRLEncoding A key whose value is the item's crl encoding, a value of type CFNumberRef.
    @constant kSecAttrTombstone (read-only) A key whose value is the item's tombstone, a value of type CFBooleanRef.
    @constant kSecAttrMultiUser (read-only) A key whose value is the item's multi user, a value of type CFDataRef.
    @constant kSecAttrNoLegacy A key whose value is the item's no legacy, a value of type CFBooleanRef.
    @constant kSecAttrTokenOID A key whose value is the item's token oid, a value of type CFDataRef.
    @constant kSecAttrUUID (read-only) A key whose value is the item's uuid, a value of type CFStringRef.
    @constant kSecAttrSysBound A key whose value is the item's sys bound, a value of type CFNumberRef.
    @constant kSecAttrSHA1 (read-only) A key whose value is the item's sha1, a value of type CFDataRef.
    @constant kSecAttrDeriveSyncIDFromItemAttributes A key whose value is the item's derive sync id from item attributes, a value of type CFBooleanRef.
    @constant kSecAttrPCSPlaintextServiceIdentifier A key whose value is the item's pcs plaintext service identifier, a value of type CFNumberRef.
    @constant kSecAttrPCSPlaintextPublicKey A key whose value is the item's pcs plaintext public key, a value of type CFDataRef.
    @constant kSecAttrPCSPlaintextPublicIdentity A key whose value is the item's pcs plaintext public identity, a value of type CFDataRef.
    @constant kSecDataInetExtraNotes A key whose value is the item's k sec data inet extra notes, a value of type CFDataRef.
    @constant kSecDataInetExtraHistory A key whose value is the item's k sec data inet extra history, a value of type CFDataRef.
    @constant kSecDataInetExtraClientDefined0 A key whose value is the item's k sec data inet extra client defined0, a value of type CFDataRef.
    @constant kSecDataInetExtraClientDefined1 A key whose value is the item's k sec data inet extra client defined1, a value of type CFDataRef.
    @constant kSecDataInetExtraClientDefined2 A key whose value is the item's k sec data inet extra client defined2, a value of type CFDataRef.
    @constant kSecDataInetExtraClientDefined3 A key whose value is the item's k sec data inet extra client defined3, a value of type CFDataRef.
    @constant kSecAttrSecureEnclaveKeyBlob A key whose value is the item's secure enclave key blob, a value of type CFDataRef.
    @constant kSecAttrSharingGroup A key whose value is the item's sharing group, a value of type CFStringRef.
*/
extern const CFStringRef kSecAttrVolume
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAddress
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAFPServerSignature
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAlias
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrIsPrivate
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrIsModifiable
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyCreator
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrStartDate
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrEndDate
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrWasAlwaysSensitive
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrWasNeverExtractable
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCanSignRecover
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCanVerifyRecover
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrScriptCode
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrHasCustomIcon
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCRLType
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCRLEncoding
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrTombstone
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrMultiUser
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrNoLegacy
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrTokenOID
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrUUID
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrSysBound
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrSHA1
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrDeriveSyncIDFromItemAttributes
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPCSPlaintextServiceIdentifier
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPCSPlaintextPublicKey
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPCSPlaintextPublicIdentity
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecDataInetExtraNotes
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecDataInetExtraHistory
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecDataInetExtraClientDefined0
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecDataInetExtraClientDefined1
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecDataInetExtraClientDefined2
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecDataInetExtraClientDefined3
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrSecureEnclaveKeyBlob
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrSharingGroup
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum Other Constants
    @discussion Keys that change how a call runs rather than what it matches.
    @constant kSecUseTombstones A key: use tombstones (see notes).
    @constant kSecUseCredentialReference A key: use credential reference (see notes).
    @constant kSecUseSystemKeychainAlways A key: use system keychain always (see notes).
    @constant kSecUseSystemKeychainAlwaysDarwinOSOnlyUnavailableOnMacOS A key: use system keychain always darwin os only unavailable on mac os (see notes).
    @constant kSecUseSystemKeychain A key: use system keychain (see notes).
    @constant kSecUseSyncBubbleKeychain A key: use sync bubble keychain (see notes).
    @constant kSecUseCallerName A key: use caller name (see notes).
    @constant kSecUseTokenRawItems A key: use token raw items (see notes).
    @constant kSecUseCertificatesWithMatchIssuers A key: use certificates with match issuers (see notes).
    @constant kSecPrivateKeyAttrs A key: private key attrs (see the discussion).
    @constant kSecPublicKeyAttrs A key: public key attrs (see the discussion).
    @constant kSecKeyApplePayEnabled A key: key apple pay enabled (see the discussion).
    @constant kSecKeyOSBound A key: key os bound (see the discussion).
    @constant kSecKeySealedHashesBound A key: key sealed hashes bound (see the discussion).
    @constant kSecPasswordMaxLength A key: password max length (see the discussion).
    @constant kSecPasswordMinLength A key: password min length (see the discussion).
    @constant kSecPasswordAllowedCharacters A key: password allowed characters (see the discussion).
    @constant kSecPasswordRequiredCharacters A key: password required characters (see the discussion).
    @constant kSecSharedPassword A key: shared password (see the discussion).
    @constant kSecSymmetricKeyAttrs A key: symmetric key attrs (see the discussion).
*/
extern const CFStringRef kSecUseTombstones
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseCredentialReference
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseSystemKeychainAlways
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseSystemKeychainAlwaysDarwinOSOnlyUnavailableOnMacOS
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseSystemKeychain
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseSyncBubbleKeychain
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseCallerName
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseTokenRawItems
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseCertificatesWithMatchIssuers
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecPrivateKeyAttrs
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecPublicKeyAttrs
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecKeyApplePayEnabled
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecKeyOSBound
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecKeySealedHashesBound
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecPasswordMaxLength
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecPasswordMinLength
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecPasswordAllowedCharacters
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecPasswordRequiredCharacters
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecSharedPassword
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecSymmetricKeyAttrs
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrAccessible Value Constants
    @discussion The values kSecAttrAccessible accepts.
    @constant kSecAttrAccessibleAlwaysPrivate The always private value of kSecAttrAccessible.
    @constant kSecAttrAccessibleAlwaysThisDeviceOnlyPrivate The always this device only private value of kSecAttrAccessible.
    @constant kSecAttrAccessibleUntilReboot The until reboot value of kSecAttrAccessible.
*/
extern const CFStringRef kSecAttrAccessibleAlwaysPrivate
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccessibleAlwaysThisDeviceOnlyPrivate
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccessibleUntilReboot
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrKeyType Value Constants
    @discussion The values kSecAttrKeyType accepts.
    @constant kSecAttrKeyTypeECSECPrimeRandomPKA The ecsec prime random pka value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeSecureEnclaveAttestation The secure enclave attestation value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeSecureEnclaveAnonymousAttestation The secure enclave anonymous attestation value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeEd25519 The ed25519 value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeX25519 The x25519 value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeEd448 The ed448 value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeX448 The x448 value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeKyber The kyber value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeMLKEM The mlkem value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeMLDSA The mldsa value of kSecAttrKeyType.
*/
extern const CFStringRef kSecAttrKeyTypeECSECPrimeRandomPKA
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeSecureEnclaveAttestation
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeSecureEnclaveAnonymousAttestation
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeEd25519
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeX25519
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeEd448
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeX448
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeKyber
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeMLKEM
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeMLDSA
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrKeySizeInBits Value Constants
    @discussion The values kSecAttrKeySizeInBits accepts.
    @constant kSecAttrKeySizeKyber768 The k sec attr key size kyber768 value of kSecAttrKeySizeInBits.
    @constant kSecAttrKeySizeKyber1024 The k sec attr key size kyber1024 value of kSecAttrKeySizeInBits.
    @constant kSecAttrKeySizeMLKEM768 The k sec attr key size mlkem768 value of kSecAttrKeySizeInBits.
    @constant kSecAttrKeySizeMLKEM1024 The k sec attr key size mlkem1024 value of kSecAttrKeySizeInBits.
    @constant kSecAttrKeySizeMLDSA65 The k sec attr key size mldsa65 value of kSecAttrKeySizeInBits.
    @constant kSecAttrKeySizeMLDSA87 The k sec attr key size mldsa87 value of kSecAttrKeySizeInBits.
*/
extern const CFStringRef kSecAttrKeySizeKyber768
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeySizeKyber1024
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeySizeMLKEM768
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeySizeMLKEM1024
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeySizeMLDSA65
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeySizeMLDSA87
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrTokenID Value Constants
    @discussion The values kSecAttrTokenID accepts.
    @constant kSecAttrTokenIDAppleKeyStore The apple key store value of kSecAttrTokenID.
    @constant kSecAttrTokenIDSecureElement The secure element value of kSecAttrTokenID.
*/
extern const CFStringRef kSecAttrTokenIDAppleKeyStore
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrTokenIDSecureElement
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrAccessGroup Value Constants
    @discussion The values kSecAttrAccessGroup accepts.
    @constant kSOSInternalAccessGroup The k sos internal access group value of kSecAttrAccessGroup.
*/
extern const CFStringRef kSOSInternalAccessGroup
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrSharingGroup Value Constants
    @discussion The values kSecAttrSharingGroup accepts.
    @constant kSecAttrSharingGroupNone The none value of kSecAttrSharingGroup.
*/
extern const CFStringRef kSecAttrSharingGroupNone
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecItemUpsert
    @abstract Changes every keychain item that matches a search query, or adds one when none does, in one transaction.
    @discussion KeychainBridge's own: the typed API's set lowers to it, so that another writer cannot add the item between a failed update and the add. The added item is the query merged with attributesToUpdate.
    @param query A dictionary with the item class and the attributes of the items to change; with attributesToUpdate, the item to add.
    @param attributesToUpdate A dictionary with the new attribute values and, optionally, new data.
    @result A result code: errSecSuccess, errSecUnimplemented, errSecParam, errSecAllocate, errSecIO, errSecWrPerm, errSecNotAvailable, errSecReadOnly, errSecAuthFailed, errSecInvalidKeychain, errSecDuplicateItem, errSecNoSuchAttr, errSecNoSuchClass, errSecInteractionNotAllowed, errSecInternalComponent, errSecDecode, errSecMissingEntitlement.
*/
OSStatus SecItemUpsert(CFDictionaryRef query, CFDictionaryRef attributesToUpdate)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @typedef SecItemEntriesRef
    @abstract A SecItem dictionary as a typed caller holds it: its entries as values of the calling language, and the CFDictionary they stand for, made only when needed (to record the call, or for a path that reads dictionaries).
*/
typedef struct CF_BRIDGED_TYPE(id) __SecItemEntries *SecItemEntriesRef;

/*!
    @typedef SecItemFoundValuesRef
    @abstract What SecItemCopyMatchingEntries found, as values of the calling language in the shape the return type keys ask for: a typed result, so a caller reads it without casting a CFTypeRef.
*/
typedef struct CF_BRIDGED_TYPE(id) __SecItemFoundValues *SecItemFoundValuesRef;

/*!
    @function SecItemAddEntries
    @abstract SecItemAdd for a typed caller: adds one item, with no result.
    @param attributes The item's class, attributes and data, as SecItemAdd reads them.
    @result A result code: errSecSuccess, errSecUnimplemented, errSecParam, errSecAllocate, errSecIO, errSecWrPerm, errSecNotAvailable, errSecReadOnly, errSecAuthFailed, errSecInvalidKeychain, errSecDuplicateItem, errSecItemNotFound, errSecNoSuchAttr, errSecNoSuchClass, errSecInteractionNotAllowed, errSecInternalComponent, errSecDecode, errSecMissingEntitlement.
*/
OSStatus SecItemAddEntries(SecItemEntriesRef attributes)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecItemCopyMatchingEntries
    @abstract SecItemCopyMatching for a typed caller: the found items in the shape the return type keys ask for, as values of the calling language.
    @param query The item class, the attributes to match, the search keys and the return type keys.
    @param result On return, the found items. Pass NULL to test for existence.
    @result A result code: errSecSuccess, errSecUnimplemented, errSecParam, errSecAllocate, errSecIO, errSecWrPerm, errSecNotAvailable, errSecReadOnly, errSecAuthFailed, errSecInvalidKeychain, errSecDuplicateItem, errSecItemNotFound, errSecNoSuchAttr, errSecNoSuchClass, errSecInteractionNotAllowed, errSecInternalComponent, errSecDecode, errSecMissingEntitlement.
*/
OSStatus SecItemCopyMatchingEntries(SecItemEntriesRef query, SecItemFoundValuesRef __nullable * __nullable CF_RETURNS_RETAINED result)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecItemUpdateEntries
    @abstract SecItemUpdate for a typed caller: changes every item that matches a search query.
    @param query The item class and the attributes of the items to change.
    @param attributesToUpdate The new attribute values and, optionally, new data.
    @result A result code: errSecSuccess, errSecUnimplemented, errSecParam, errSecAllocate, errSecIO, errSecWrPerm, errSecNotAvailable, errSecReadOnly, errSecAuthFailed, errSecInvalidKeychain, errSecDuplicateItem, errSecItemNotFound, errSecNoSuchAttr, errSecNoSuchClass, errSecInteractionNotAllowed, errSecInternalComponent, errSecDecode, errSecMissingEntitlement.
*/
OSStatus SecItemUpdateEntries(SecItemEntriesRef query, SecItemEntriesRef attributesToUpdate)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecItemDeleteEntries
    @abstract SecItemDelete for a typed caller: deletes every item that matches a search query.
    @param query The item class and the attributes of the items to delete.
    @result A result code: errSecSuccess, errSecUnimplemented, errSecParam, errSecAllocate, errSecIO, errSecWrPerm, errSecNotAvailable, errSecReadOnly, errSecAuthFailed, errSecInvalidKeychain, errSecDuplicateItem, errSecItemNotFound, errSecNoSuchAttr, errSecNoSuchClass, errSecInteractionNotAllowed, errSecInternalComponent, errSecDecode, errSecMissingEntitlement.
*/
OSStatus SecItemDeleteEntries(SecItemEntriesRef query)
    API_AVAILABLE(macos(10.6), ios(2.0));

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif /* _KEYCHAINBRIDGE_SECITEMPRIV_H_ */

/*!
    @header SecItem
    Declarations of the keychain item API in the style of Apple's SecItem, written for
    KeychainBridge. secgen reads this file; the Security module implements it.
*/

#ifndef _KEYCHAINBRIDGE_SECITEM_H_
#define _KEYCHAINBRIDGE_SECITEM_H_

#include <Security/SecBase.h>
#include <CoreFoundation/CFDictionary.h>
#include <CoreFoundation/CFData.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @enum Class Key Constant
    @discussion The key whose value says which class of item a dictionary describes.
    @constant kSecClass A key whose value is the item's class, one of the values listed in Class Value Constants.
*/
extern const CFStringRef kSecClass
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum Class Value Constants
    @discussion The item classes: each names one kind of keychain item.
    @constant kSecClassGenericPassword The class of generic password items.
    @constant kSecClassInternetPassword The class of internet password items.
    @constant kSecClassCertificate The class of certificate items. Not implemented on Linux yet: every SecItem call with this class answers errSecUnimplemented, so nothing of this class can be stored or found.
    @constant kSecClassKey The class of key items. Not implemented on Linux yet: every SecItem call with this class answers errSecUnimplemented, so nothing of this class can be stored or found.
    @constant kSecClassIdentity The class of identity items. Not implemented on Linux yet: every SecItem call with this class answers errSecUnimplemented, so nothing of this class can be stored or found.
*/
extern const CFStringRef kSecClassGenericPassword
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecClassInternetPassword
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecClassCertificate
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecClassKey
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecClassIdentity
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum Attribute Key Constants
    @discussion Keys for item attributes. The table says which attributes each item class has.

    kSecClassGenericPassword item attributes:
        kSecAttrAccessible
        kSecAttrAccessControl
        kSecAttrAccessGroup
        kSecAttrCreationDate
        kSecAttrModificationDate
        kSecAttrDescription
        kSecAttrComment
        kSecAttrCreator
        kSecAttrType
        kSecAttrLabel
        kSecAttrIsInvisible
        kSecAttrIsNegative
        kSecAttrAccount
        kSecAttrService
        kSecAttrGeneric
        kSecAttrSynchronizable
        kSecAttrPersistantReference
        kSecAttrPersistentReference
        kSecAttrAccess

    kSecClassInternetPassword item attributes:
        kSecAttrAccessible
        kSecAttrAccessControl
        kSecAttrAccessGroup
        kSecAttrCreationDate
        kSecAttrModificationDate
        kSecAttrDescription
        kSecAttrComment
        kSecAttrCreator
        kSecAttrType
        kSecAttrLabel
        kSecAttrIsInvisible
        kSecAttrIsNegative
        kSecAttrAccount
        kSecAttrSecurityDomain
        kSecAttrServer
        kSecAttrProtocol
        kSecAttrAuthenticationType
        kSecAttrPort
        kSecAttrPath
        kSecAttrSynchronizable
        kSecAttrPersistantReference
        kSecAttrPersistentReference
        kSecAttrAccess

    kSecClassCertificate item attributes:
        kSecAttrAccessible
        kSecAttrAccessControl
        kSecAttrAccessGroup
        kSecAttrCreationDate
        kSecAttrModificationDate
        kSecAttrLabel
        kSecAttrSubject
        kSecAttrIssuer
        kSecAttrSerialNumber
        kSecAttrSubjectKeyID
        kSecAttrPublicKeyHash
        kSecAttrCertificateType
        kSecAttrCertificateEncoding
        kSecAttrSynchronizable
        kSecAttrPersistantReference
        kSecAttrPersistentReference

    kSecClassKey item attributes:
        kSecAttrAccessible
        kSecAttrAccessControl
        kSecAttrAccessGroup
        kSecAttrCreationDate
        kSecAttrModificationDate
        kSecAttrCreator
        kSecAttrType
        kSecAttrLabel
        kSecAttrKeyClass
        kSecAttrApplicationLabel
        kSecAttrIsPermanent
        kSecAttrApplicationTag
        kSecAttrKeyType
        kSecAttrKeySizeInBits
        kSecAttrEffectiveKeySize
        kSecAttrCanEncrypt
        kSecAttrCanDecrypt
        kSecAttrCanDerive
        kSecAttrCanSign
        kSecAttrCanVerify
        kSecAttrCanWrap
        kSecAttrCanUnwrap
        kSecAttrSynchronizable
        kSecAttrPersistantReference
        kSecAttrPersistentReference
        kSecAttrAccess
        kSecAttrPRF
        kSecAttrSalt
        kSecAttrRounds

    kSecClassIdentity item attributes:
        kSecAttrAccessible
        kSecAttrAccessControl
        kSecAttrAccessGroup
        kSecAttrCreationDate
        kSecAttrModificationDate
        kSecAttrCreator
        kSecAttrType
        kSecAttrLabel
        kSecAttrSubject
        kSecAttrIssuer
        kSecAttrSerialNumber
        kSecAttrSubjectKeyID
        kSecAttrPublicKeyHash
        kSecAttrCertificateType
        kSecAttrCertificateEncoding
        kSecAttrKeyClass
        kSecAttrApplicationLabel
        kSecAttrIsPermanent
        kSecAttrApplicationTag
        kSecAttrKeyType
        kSecAttrKeySizeInBits
        kSecAttrEffectiveKeySize
        kSecAttrCanEncrypt
        kSecAttrCanDecrypt
        kSecAttrCanDerive
        kSecAttrCanSign
        kSecAttrCanVerify
        kSecAttrCanWrap
        kSecAttrCanUnwrap
        kSecAttrSynchronizable
        kSecAttrPersistantReference
        kSecAttrPersistentReference
        kSecAttrAccess
        kSecAttrPRF
        kSecAttrSalt
        kSecAttrRounds

    @constant kSecAttrAccessible A key whose value is the item's accessible, one of the values listed in kSecAttrAccessible Value Constants.
    @constant kSecAttrAccessControl A key whose value is the item's access control, a value of type SecAccessControlRef.
    @constant kSecAttrAccessGroup A key whose value is the item's access group, a value of type CFStringRef.
    @constant kSecAttrCreationDate (read-only) A key whose value is the item's creation date, a value of type CFDateRef.
    @constant kSecAttrModificationDate (read-only) A key whose value is the item's modification date, a value of type CFDateRef.
    @constant kSecAttrDescription A key whose value is the item's description, a value of type CFStringRef.
    @constant kSecAttrComment A key whose value is the item's comment, a value of type CFStringRef.
    @constant kSecAttrCreator A key whose value is the item's creator, a value of type CFNumberRef.
    @constant kSecAttrType A key whose value is the item's type, a value of type CFNumberRef.
    @constant kSecAttrLabel A key whose value is the item's label, a value of type CFStringRef.
    @constant kSecAttrIsInvisible A key whose value says whether the item is invisible, a value of type CFBooleanRef.
    @constant kSecAttrIsNegative A key whose value says whether the item is negative, a value of type CFBooleanRef.
    @constant kSecAttrAccount A key whose value is the item's account, a value of type CFStringRef.
    @constant kSecAttrService A key whose value is the item's service, a value of type CFStringRef.
    @constant kSecAttrGeneric A key whose value is the item's generic, a value of type CFDataRef.
    @constant kSecAttrSecurityDomain A key whose value is the item's security domain, a value of type CFStringRef.
    @constant kSecAttrServer A key whose value is the item's server, a value of type CFStringRef.
    @constant kSecAttrProtocol A key whose value is the item's protocol, one of the values listed in kSecAttrProtocol Value Constants.
    @constant kSecAttrAuthenticationType A key whose value is the item's authentication type, one of the values listed in kSecAttrAuthenticationType Value Constants.
    @constant kSecAttrPort A key whose value is the item's port, a value of type CFNumberRef.
    @constant kSecAttrPath A key whose value is the item's path, a value of type CFStringRef.
    @constant kSecAttrSubject (read-only) A key whose value is the item's subject, a value of type CFDataRef.
    @constant kSecAttrIssuer (read-only) A key whose value is the item's issuer, a value of type CFDataRef.
    @constant kSecAttrSerialNumber (read-only) A key whose value is the item's serial number, a value of type CFDataRef.
    @constant kSecAttrSubjectKeyID (read-only) A key whose value is the item's subject key id, a value of type CFDataRef.
    @constant kSecAttrPublicKeyHash (read-only) A key whose value is the item's public key hash, a value of type CFDataRef.
    @constant kSecAttrCertificateType (read-only) A key whose value is the item's certificate type, a value of type CFNumberRef.
    @constant kSecAttrCertificateEncoding (read-only) A key whose value is the item's certificate encoding, a value of type CFNumberRef.
    @constant kSecAttrKeyClass (read-only) A key whose value is the item's key class, one of the values listed in kSecAttrKeyClass Value Constants.
    @constant kSecAttrApplicationLabel A key whose value is the item's application label, a value of type CFDataRef.
    @constant kSecAttrIsPermanent A key whose value says whether the item is permanent, a value of type CFBooleanRef.
    @constant kSecAttrApplicationTag A key whose value is the item's application tag, a value of type CFDataRef.
    @constant kSecAttrKeyType A key whose value is the item's key type, one of the values listed in kSecAttrKeyType Value Constants.
    @constant kSecAttrKeySizeInBits A key whose value is the item's key size in bits, a value of type CFNumberRef.
    @constant kSecAttrEffectiveKeySize A key whose value is the item's effective key size, a value of type CFNumberRef.
    @constant kSecAttrIsSensitive A key whose value says whether the item is sensitive, a value of type CFBooleanRef.
        Items of class kSecClassKey and kSecClassIdentity have this attribute.
    @constant kSecAttrIsExtractable A key whose value says whether the item is extractable, a value of type CFBooleanRef
        (see kSecClassKey and kSecClassIdentity).
    @constant kSecAttrCanEncrypt A key whose value is the item's can encrypt, a value of type CFBooleanRef.
    @constant kSecAttrCanDecrypt A key whose value is the item's can decrypt, a value of type CFBooleanRef.
    @constant kSecAttrCanDerive A key whose value is the item's can derive, a value of type CFBooleanRef.
    @constant kSecAttrCanSign A key whose value is the item's can sign, a value of type CFBooleanRef.
    @constant kSecAttrCanVerify A key whose value is the item's can verify, a value of type CFBooleanRef.
    @constant kSecAttrCanWrap A key whose value is the item's can wrap, a value of type CFBooleanRef.
    @constant kSecAttrCanUnwrap A key whose value is the item's can unwrap, a value of type CFBooleanRef.
    @constant kSecAttrTokenID A key whose value is the item's token id, one of the values listed in kSecAttrTokenID Value Constants.
        Supported for kSecClassGenericPassword, kSecClassInternetPassword, kSecClassCertificate, kSecClassKey and
        kSecClassIdentity items.
    @constant kSecAttrSynchronizable A key whose value is the item's synchronizable, a value of type CFBooleanRef.
    @constant kSecAttrPersistantReference (read-only) A key whose value is the item's persistant reference, a value of type CFDataRef.
    @constant kSecAttrPersistentReference (read-only) A key whose value is the item's persistent reference, a value of type CFDataRef.
    @constant kSecAttrAccess A key whose value is the item's access, a value of type SecAccessRef.
    @constant kSecAttrPRF A key whose value is the item's prf, one of the values listed in kSecAttrPRF Value Constants.
    @constant kSecAttrSalt A key whose value is the item's salt, a value of type CFDataRef.
    @constant kSecAttrRounds A key whose value is the item's rounds, a value of type CFNumberRef.
*/
extern const CFStringRef kSecAttrAccessible
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccessControl
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccessGroup
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCreationDate
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrModificationDate
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrDescription
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrComment
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCreator
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrType
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrLabel
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrIsInvisible
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrIsNegative
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccount
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrService
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrGeneric
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrSecurityDomain
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrServer
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocol
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAuthenticationType
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPort
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPath
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrSubject
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrIssuer
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrSerialNumber
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrSubjectKeyID
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPublicKeyHash
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCertificateType
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCertificateEncoding
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyClass
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrApplicationLabel
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrIsPermanent
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrApplicationTag
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyType
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeySizeInBits
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrEffectiveKeySize
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrIsSensitive
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrIsExtractable
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCanEncrypt
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCanDecrypt
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCanDerive
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCanSign
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCanVerify
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCanWrap
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrCanUnwrap
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrTokenID
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrSynchronizable
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPersistantReference
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPersistentReference
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccess
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPRF
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrSalt
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrRounds
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum Attribute Key Constants
    @discussion Attributes every item class has. Items of class kSecClassGenericPassword,
    kSecClassInternetPassword, kSecClassCertificate, kSecClassKey and kSecClassIdentity have these attributes.
    @constant kSecAttrSyncViewHint A key whose value is the item's sync view hint, a value of type CFStringRef.
*/
extern const CFStringRef kSecAttrSyncViewHint
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrAccessGroup Value Constants
    @discussion The values kSecAttrAccessGroup accepts.
    @constant kSecAttrAccessGroupToken The token value of kSecAttrAccessGroup.
*/
extern const CFStringRef kSecAttrAccessGroupToken
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum Search Constants
    @discussion Keys that shape a search: how many results, and extra match conditions.
    @constant kSecMatchPolicy A search key: policy (SecPolicyRef).
    @constant kSecMatchItemList A search key: item list (CFArray of refs/persistent refs (macOS only; iOS: unsupported -> errSecParam)).
    @constant kSecMatchSearchList A search key: search list (CFArray of SecKeychainRef (macOS legacy)).
    @constant kSecMatchIssuers A search key: issuers (CFArray of CFData (X.500 names)).
    @constant kSecMatchEmailAddressIfPresent A search key: email address if present (CFString).
    @constant kSecMatchSubjectContains A search key: subject contains (CFString).
    @constant kSecMatchHostOrSubdomainOfHost A search key: host or subdomain of host (CFString (inet only)).
    @constant kSecMatchCaseInsensitive A search key: case insensitive (CFBoolean).
    @constant kSecMatchTrustedOnly A search key: trusted only (CFBoolean).
    @constant kSecMatchValidOnDate A search key: valid on date (CFDate or kCFNull (=now)).
    @constant kSecMatchLimit A search key: limit (CFNumber or kSecMatchLimitOne/kSecMatchLimitAll).
    @constant kSecMatchSubjectStartsWith A search key: subject starts with (CFString (macOS)).
    @constant kSecMatchSubjectEndsWith A search key: subject ends with (CFString (macOS)).
    @constant kSecMatchSubjectWholeString A search key: subject whole string (CFString (macOS)).
    @constant kSecMatchDiacriticInsensitive A search key: diacritic insensitive (CFBoolean (macOS)).
    @constant kSecMatchWidthInsensitive A search key: width insensitive (CFBoolean (macOS)).
*/
extern const CFStringRef kSecMatchPolicy
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchItemList
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchSearchList
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchIssuers
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchEmailAddressIfPresent
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchSubjectContains
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchHostOrSubdomainOfHost
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchCaseInsensitive
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchTrustedOnly
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchValidOnDate
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchLimit
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchSubjectStartsWith
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchSubjectEndsWith
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchSubjectWholeString
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchDiacriticInsensitive
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchWidthInsensitive
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecMatchLimit Value Constants
    @discussion The values kSecMatchLimit accepts.
    @constant kSecMatchLimitOne The one value of kSecMatchLimit.
    @constant kSecMatchLimitAll The all value of kSecMatchLimit.
*/
extern const CFStringRef kSecMatchLimitOne
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecMatchLimitAll
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum Return Type Key Constants
    @discussion Keys whose CFBooleanRef value asks a call to return a kind of result.
    @constant kSecReturnData A key whose CFBooleanRef value asks for the data of matching items.
    @constant kSecReturnAttributes A key whose CFBooleanRef value asks for the attributes of matching items.
    @constant kSecReturnRef A key whose CFBooleanRef value asks for the ref of matching items.
    @constant kSecReturnPersistentRef A key whose CFBooleanRef value asks for the persistent ref of matching items.
*/
extern const CFStringRef kSecReturnData
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecReturnAttributes
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecReturnRef
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecReturnPersistentRef
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum Value Type Key Constants
    @discussion Keys for an item's value: its secret data, a reference, or a persistent reference.
    @constant kSecValueData A key: value data (CFData).
    @constant kSecValueRef A key: value ref (SecKeyRef|SecCertificateRef|SecIdentityRef (SecKeychainItemRef on macOS)).
    @constant kSecValuePersistentRef A key: value persistent ref (CFData).
*/
extern const CFStringRef kSecValueData
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecValueRef
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecValuePersistentRef
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum Other Constants
    @discussion Keys that change how a call runs rather than what it matches.
    @constant kSecUseItemList A key: use item list (CFArray).
    @constant kSecUseOperationPrompt A key: use operation prompt (CFString).
    @constant kSecUseNoAuthenticationUI A key: use no authentication ui (CFBoolean).
    @constant kSecUseAuthenticationUI A key: use authentication ui (typed constant (authenticationUI)).
    @constant kSecUseDataProtectionKeychain A key: use data protection keychain (CFBoolean).
    @constant kSecUseUserIndependentKeychain A key: use user independent keychain (see notes).
    @constant kSecUseAuthenticationContext A key: use authentication context (LAContext).
    @constant kSecUseKeychain A key: use keychain (SecKeychainRef).
*/
extern const CFStringRef kSecUseItemList
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseOperationPrompt
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseNoAuthenticationUI
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseAuthenticationUI
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseDataProtectionKeychain
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseUserIndependentKeychain
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseAuthenticationContext
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseKeychain
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrAccessible Value Constants
    @discussion The values kSecAttrAccessible accepts.
    @constant kSecAttrAccessibleWhenUnlocked The when unlocked value of kSecAttrAccessible.
    @constant kSecAttrAccessibleAfterFirstUnlock The after first unlock value of kSecAttrAccessible.
    @constant kSecAttrAccessibleAlways The always value of kSecAttrAccessible.
    @constant kSecAttrAccessibleWhenUnlockedThisDeviceOnly The when unlocked this device only value of kSecAttrAccessible.
    @constant kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly The after first unlock this device only value of kSecAttrAccessible.
    @constant kSecAttrAccessibleAlwaysThisDeviceOnly The always this device only value of kSecAttrAccessible.
    @constant kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly The when passcode set this device only value of kSecAttrAccessible.
*/
extern const CFStringRef kSecAttrAccessibleWhenUnlocked
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccessibleAfterFirstUnlock
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccessibleAlways
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccessibleWhenUnlockedThisDeviceOnly
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccessibleAlwaysThisDeviceOnly
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrProtocol Value Constants
    @discussion The values kSecAttrProtocol accepts.
    @constant kSecAttrProtocolFTP The ftp value of kSecAttrProtocol.
    @constant kSecAttrProtocolFTPAccount The ftp account value of kSecAttrProtocol.
    @constant kSecAttrProtocolHTTP The http value of kSecAttrProtocol.
    @constant kSecAttrProtocolIRC The irc value of kSecAttrProtocol.
    @constant kSecAttrProtocolNNTP The nntp value of kSecAttrProtocol.
    @constant kSecAttrProtocolPOP3 The pop3 value of kSecAttrProtocol.
    @constant kSecAttrProtocolSMTP The smtp value of kSecAttrProtocol.
    @constant kSecAttrProtocolSOCKS The socks value of kSecAttrProtocol.
    @constant kSecAttrProtocolIMAP The imap value of kSecAttrProtocol.
    @constant kSecAttrProtocolLDAP The ldap value of kSecAttrProtocol.
    @constant kSecAttrProtocolAppleTalk The apple talk value of kSecAttrProtocol.
    @constant kSecAttrProtocolAFP The afp value of kSecAttrProtocol.
    @constant kSecAttrProtocolTelnet The telnet value of kSecAttrProtocol.
    @constant kSecAttrProtocolSSH The ssh value of kSecAttrProtocol.
    @constant kSecAttrProtocolFTPS The ftps value of kSecAttrProtocol.
    @constant kSecAttrProtocolHTTPS The https value of kSecAttrProtocol.
    @constant kSecAttrProtocolHTTPProxy The http proxy value of kSecAttrProtocol.
    @constant kSecAttrProtocolHTTPSProxy The https proxy value of kSecAttrProtocol.
    @constant kSecAttrProtocolFTPProxy The ftp proxy value of kSecAttrProtocol.
    @constant kSecAttrProtocolSMB The smb value of kSecAttrProtocol.
    @constant kSecAttrProtocolRTSP The rtsp value of kSecAttrProtocol.
    @constant kSecAttrProtocolRTSPProxy The rtsp proxy value of kSecAttrProtocol.
    @constant kSecAttrProtocolDAAP The daap value of kSecAttrProtocol.
    @constant kSecAttrProtocolEPPC The eppc value of kSecAttrProtocol.
    @constant kSecAttrProtocolIPP The ipp value of kSecAttrProtocol.
    @constant kSecAttrProtocolNNTPS The nntps value of kSecAttrProtocol.
    @constant kSecAttrProtocolLDAPS The ldaps value of kSecAttrProtocol.
    @constant kSecAttrProtocolTelnetS The telnet s value of kSecAttrProtocol.
    @constant kSecAttrProtocolIMAPS The imaps value of kSecAttrProtocol.
    @constant kSecAttrProtocolIRCS The ircs value of kSecAttrProtocol.
    @constant kSecAttrProtocolPOP3S The pop3 s value of kSecAttrProtocol.
*/
extern const CFStringRef kSecAttrProtocolFTP
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolFTPAccount
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolHTTP
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolIRC
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolNNTP
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolPOP3
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolSMTP
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolSOCKS
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolIMAP
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolLDAP
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolAppleTalk
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolAFP
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolTelnet
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolSSH
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolFTPS
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolHTTPS
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolHTTPProxy
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolHTTPSProxy
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolFTPProxy
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolSMB
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolRTSP
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolRTSPProxy
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolDAAP
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolEPPC
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolIPP
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolNNTPS
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolLDAPS
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolTelnetS
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolIMAPS
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolIRCS
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrProtocolPOP3S
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrAuthenticationType Value Constants
    @discussion The values kSecAttrAuthenticationType accepts.
    @constant kSecAttrAuthenticationTypeNTLM The ntlm value of kSecAttrAuthenticationType.
    @constant kSecAttrAuthenticationTypeMSN The msn value of kSecAttrAuthenticationType.
    @constant kSecAttrAuthenticationTypeDPA The dpa value of kSecAttrAuthenticationType.
    @constant kSecAttrAuthenticationTypeRPA The rpa value of kSecAttrAuthenticationType.
    @constant kSecAttrAuthenticationTypeHTTPBasic The http basic value of kSecAttrAuthenticationType.
    @constant kSecAttrAuthenticationTypeHTTPDigest The http digest value of kSecAttrAuthenticationType.
    @constant kSecAttrAuthenticationTypeHTMLForm The html form value of kSecAttrAuthenticationType.
    @constant kSecAttrAuthenticationTypeDefault The default value of kSecAttrAuthenticationType.
*/
extern const CFStringRef kSecAttrAuthenticationTypeNTLM
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAuthenticationTypeMSN
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAuthenticationTypeDPA
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAuthenticationTypeRPA
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAuthenticationTypeHTTPBasic
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAuthenticationTypeHTTPDigest
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAuthenticationTypeHTMLForm
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrAuthenticationTypeDefault
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrKeyClass Value Constants
    @discussion The values kSecAttrKeyClass accepts.
    @constant kSecAttrKeyClassPublic The public value of kSecAttrKeyClass.
    @constant kSecAttrKeyClassPrivate The private value of kSecAttrKeyClass.
    @constant kSecAttrKeyClassSymmetric The symmetric value of kSecAttrKeyClass.
*/
extern const CFStringRef kSecAttrKeyClassPublic
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyClassPrivate
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyClassSymmetric
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrKeyType Value Constants
    @discussion The values kSecAttrKeyType accepts.
    @constant kSecAttrKeyTypeRSA The rsa value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeEC The ec value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeECSECPrimeRandom The ecsec prime random value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeDES The des value of kSecAttrKeyType.
    @constant kSecAttrKeyType3DES The 3 des value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeRC2 The rc2 value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeRC4 The rc4 value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeDSA The dsa value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeCAST The cast value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeECDSA The ecdsa value of kSecAttrKeyType.
    @constant kSecAttrKeyTypeAES The aes value of kSecAttrKeyType.
*/
extern const CFStringRef kSecAttrKeyTypeRSA
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeEC
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeECSECPrimeRandom
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeDES
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyType3DES
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeRC2
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeRC4
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeDSA
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeCAST
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeECDSA
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrKeyTypeAES
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrSynchronizable Value Constants
    @discussion The values kSecAttrSynchronizable accepts.
    @constant kSecAttrSynchronizableAny The any value of kSecAttrSynchronizable.
*/
extern const CFStringRef kSecAttrSynchronizableAny
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecUseAuthenticationUI Value Constants
    @discussion The values kSecUseAuthenticationUI accepts.
    @constant kSecUseAuthenticationUIAllow The allow value of kSecUseAuthenticationUI.
    @constant kSecUseAuthenticationUIFail The fail value of kSecUseAuthenticationUI.
    @constant kSecUseAuthenticationUISkip The skip value of kSecUseAuthenticationUI.
*/
extern const CFStringRef kSecUseAuthenticationUIAllow
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseAuthenticationUIFail
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecUseAuthenticationUISkip
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrTokenID Value Constants
    @discussion The values kSecAttrTokenID accepts.
    @constant kSecAttrTokenIDSecureEnclave The secure enclave value of kSecAttrTokenID.
*/
extern const CFStringRef kSecAttrTokenIDSecureEnclave
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @enum kSecAttrPRF Value Constants
    @discussion The values kSecAttrPRF accepts.
    @constant kSecAttrPRFHmacAlgSHA1 The hmac alg sha1 value of kSecAttrPRF.
    @constant kSecAttrPRFHmacAlgSHA224 The hmac alg sha224 value of kSecAttrPRF.
    @constant kSecAttrPRFHmacAlgSHA256 The hmac alg sha256 value of kSecAttrPRF.
    @constant kSecAttrPRFHmacAlgSHA384 The hmac alg sha384 value of kSecAttrPRF.
    @constant kSecAttrPRFHmacAlgSHA512 The hmac alg sha512 value of kSecAttrPRF.
*/
extern const CFStringRef kSecAttrPRFHmacAlgSHA1
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPRFHmacAlgSHA224
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPRFHmacAlgSHA256
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPRFHmacAlgSHA384
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecAttrPRFHmacAlgSHA512
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecItemCopyMatching
    @abstract Returns one or more keychain items that match a search query.
    @param query A dictionary with the item class, the attributes to match, the search keys and the return type keys.
    @param result On return, the found items in the shape the return type keys ask for. Pass NULL to test for existence.
    @result A result code: errSecSuccess, errSecUnimplemented, errSecParam, errSecAllocate, errSecIO, errSecWrPerm, errSecNotAvailable, errSecReadOnly, errSecAuthFailed, errSecInvalidKeychain, errSecDuplicateItem, errSecItemNotFound, errSecNoSuchAttr, errSecNoSuchClass, errSecInteractionNotAllowed, errSecInternalComponent, errSecDecode, errSecMissingEntitlement.
*/
OSStatus SecItemCopyMatching(CFDictionaryRef query, CFTypeRef __nullable * __nullable CF_RETURNS_RETAINED result)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecItemAdd
    @abstract Adds one item to the keychain.
    @param attributes A dictionary with the item class, its attributes, its data, and optional return type keys.
    @param result On return, the added item in the shape the return type keys ask for. Pass NULL when no result is wanted.
    @result A result code: errSecSuccess, errSecUnimplemented, errSecParam, errSecAllocate, errSecIO, errSecWrPerm, errSecNotAvailable, errSecReadOnly, errSecAuthFailed, errSecInvalidKeychain, errSecDuplicateItem, errSecItemNotFound, errSecNoSuchAttr, errSecNoSuchClass, errSecInteractionNotAllowed, errSecInternalComponent, errSecDecode, errSecMissingEntitlement.
*/
OSStatus SecItemAdd(CFDictionaryRef attributes, CFTypeRef __nullable * __nullable CF_RETURNS_RETAINED result)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecItemUpdate
    @abstract Changes every keychain item that matches a search query.
    @param query A dictionary with the item class and the attributes of the items to change.
    @param attributesToUpdate A dictionary with the new attribute values and, optionally, new data.
    @result A result code: errSecSuccess, errSecUnimplemented, errSecParam, errSecAllocate, errSecIO, errSecWrPerm, errSecNotAvailable, errSecReadOnly, errSecAuthFailed, errSecInvalidKeychain, errSecDuplicateItem, errSecItemNotFound, errSecNoSuchAttr, errSecNoSuchClass, errSecInteractionNotAllowed, errSecInternalComponent, errSecDecode, errSecMissingEntitlement.
*/
OSStatus SecItemUpdate(CFDictionaryRef query, CFDictionaryRef attributesToUpdate)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecItemDelete
    @abstract Deletes every keychain item that matches a search query.
    @param query A dictionary with the item class and the attributes of the items to delete.
    @result A result code: errSecSuccess, errSecUnimplemented, errSecParam, errSecAllocate, errSecIO, errSecWrPerm, errSecNotAvailable, errSecReadOnly, errSecAuthFailed, errSecInvalidKeychain, errSecDuplicateItem, errSecItemNotFound, errSecNoSuchAttr, errSecNoSuchClass, errSecInteractionNotAllowed, errSecInternalComponent, errSecDecode, errSecMissingEntitlement.
*/
OSStatus SecItemDelete(CFDictionaryRef query)
    API_AVAILABLE(macos(10.6), ios(2.0));


CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif /* _KEYCHAINBRIDGE_SECITEM_H_ */

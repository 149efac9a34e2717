/*!
    @header SecAccessControl
    Declarations of access control objects in the style of Apple's SecAccessControl, written for
    KeychainBridge: the options that say when an item may be used, and the function that makes an
    access control object from a protection class and those options. secgen reads this file; the
    Security module implements it.
*/

#ifndef _KEYCHAINBRIDGE_SECACCESSCONTROL_H_
#define _KEYCHAINBRIDGE_SECACCESSCONTROL_H_

#include <Security/SecBase.h>
#include <CoreFoundation/CFError.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @enum SecAccessControlCreateFlags
    @abstract The conditions an access control object adds to an item's protection class.
    @discussion The flags combine. On Linux there is no biometry, Secure Enclave or passcode prompt
        to ask, so an item with a constraint keeps its data: searches return its attributes, but
        reading its data or ref answers errSecInteractionNotAllowed.
    @constant kSecAccessControlUserPresence The user proves presence with biometry or the device passcode.
    @constant kSecAccessControlBiometryAny Any biometry the device has enrolled, now or later.
    @constant kSecAccessControlTouchIDAny The earlier name of kSecAccessControlBiometryAny.
    @constant kSecAccessControlBiometryCurrentSet Only the biometry enrolled when the item was added.
    @constant kSecAccessControlTouchIDCurrentSet The earlier name of kSecAccessControlBiometryCurrentSet.
    @constant kSecAccessControlDevicePasscode The device passcode.
    @constant kSecAccessControlWatch The earlier name of kSecAccessControlCompanion.
    @constant kSecAccessControlCompanion A paired companion device nearby.
    @constant kSecAccessControlOr Any one of the other conditions is enough.
    @constant kSecAccessControlAnd Every one of the other conditions is needed.
    @constant kSecAccessControlPrivateKeyUsage A private key may sign or agree on keys with it.
    @constant kSecAccessControlApplicationPassword The application supplies a password as well.
*/
typedef CF_OPTIONS(CFOptionFlags, SecAccessControlCreateFlags) {
    kSecAccessControlUserPresence = 1u << 0,
    kSecAccessControlBiometryAny API_AVAILABLE(macos(10.13.4), ios(11.3)) = 1u << 1,
    kSecAccessControlTouchIDAny API_DEPRECATED_WITH_REPLACEMENT("kSecAccessControlBiometryAny", macos(10.12.1, 10.13.4), ios(9.0, 11.3)) = 1u << 1,
    kSecAccessControlBiometryCurrentSet API_AVAILABLE(macos(10.13.4), ios(11.3)) = 1u << 3,
    kSecAccessControlTouchIDCurrentSet API_DEPRECATED_WITH_REPLACEMENT("kSecAccessControlBiometryCurrentSet", macos(10.12.1, 10.13.4), ios(9.0, 11.3)) = 1u << 3,
    kSecAccessControlDevicePasscode API_AVAILABLE(macos(10.11), ios(9.0)) = 1u << 4,
    kSecAccessControlWatch API_DEPRECATED_WITH_REPLACEMENT("kSecAccessControlCompanion", macos(10.15, 11.0), ios(13.0, 14.0)) = 1u << 5,
    kSecAccessControlCompanion API_AVAILABLE(macos(11.0), ios(14.0)) = 1u << 5,
    kSecAccessControlOr API_AVAILABLE(macos(10.12.1), ios(9.0)) = 1u << 14,
    kSecAccessControlAnd API_AVAILABLE(macos(10.12.1), ios(9.0)) = 1u << 15,
    kSecAccessControlPrivateKeyUsage API_AVAILABLE(macos(10.12.1), ios(9.0)) = 1u << 30,
    kSecAccessControlApplicationPassword API_AVAILABLE(macos(10.12.1), ios(9.0)) = 1u << 31,
} API_AVAILABLE(macos(10.10), ios(8.0));

/*!
    @function SecAccessControlGetTypeID
    @abstract The Core Foundation type identifier of access control objects.
    @result The type identifier.
*/
CFTypeID SecAccessControlGetTypeID(void)
    API_AVAILABLE(macos(10.10), ios(8.0));

/*!
    @function SecAccessControlCreateWithFlags
    @abstract Makes an access control object from a protection class and conditions.
    @param allocator The allocator to use; pass NULL (kCFAllocatorDefault).
    @param protection One of the kSecAttrAccessible values: when the item can be read at all.
    @param flags The conditions added to the protection class.
    @param error On failure, a CFError whose code is the status (errSecParam for a protection
        value that is not one of the kSecAttrAccessible values). Pass NULL to ignore it.
    @result The new access control object, or NULL on failure.
*/
__nullable
SecAccessControlRef SecAccessControlCreateWithFlags(CFAllocatorRef __nullable allocator, CFTypeRef protection,
    SecAccessControlCreateFlags flags, CFErrorRef __nullable * __nullable error)
    API_AVAILABLE(macos(10.10), ios(8.0));

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif /* !_KEYCHAINBRIDGE_SECACCESSCONTROL_H_ */

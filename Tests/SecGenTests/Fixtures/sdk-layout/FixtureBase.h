/*!
    @header FixtureBase
    Written the way an SDK's base header is: framework includes, platform conditionals, C++ guards,
    bridged type declarations, legacy declarations of the macOS file keychain, and availability on
    every declaration. secgen must read it unchanged.
*/

#ifndef _FIXTURE_BASE_H_
#define _FIXTURE_BASE_H_

#include <TargetConditionals.h>
#include <CoreFoundation/CFBase.h>
#include <Availability.h>
#include <os/availability.h>
#include <sys/cdefs.h>

#if TARGET_OS_OSX
#define FIXTURE_OS_OSX 1
#else
#define FIXTURE_OS_OSX 0
#endif

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @typedef SecGadgetRef
    @abstract An opaque object, bridged as SDK headers bridge theirs.
*/
typedef struct CF_BRIDGED_TYPE(id) __SecGadget *SecGadgetRef;

/*!
    @typedef SecLegacyTag
    @abstract A four-character tag of the macOS file keychain.
*/
typedef OSType SecLegacyTag API_UNAVAILABLE(ios, watchos, tvos);

#if FIXTURE_OS_OSX
/*!
    @struct SecLegacyRecord
    @abstract A record that only the macOS branch declares.
*/
struct SecLegacyRecord {
    SecLegacyTag tag;
    UInt32 length;
    void * __nullable data;
};
typedef struct SecLegacyRecord SecLegacyRecord;
#endif

/*!
    @function SecCopyGadgetDescription
    @abstract Describes a gadget.
    @param gadget The gadget.
    @result A description, or NULL.
*/
__nullable
CFStringRef SecCopyGadgetDescription(SecGadgetRef gadget)
    __OSX_AVAILABLE_STARTING(__MAC_10_3, __IPHONE_11_3);

CF_ENUM(OSStatus)
{
    errSecSuccess = 0, /* It worked. */
    errSecParam = -50, /* A parameter was wrong. */
    errSecDuplicateItem = -25299, /* The item is there already. */
    errSecItemNotFound = -25300, /* The item is not there. */
    errSecFileKeychainOnly API_UNAVAILABLE(ios) = -25320, /* Only the macOS file keychain says this. */
    errSecWrongGadget API_DEPRECATED("use errSecParam", macos(10.0, 10.7), ios(2.0, 5.0)) = -25321, /* The gadget was wrong. */
};

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif

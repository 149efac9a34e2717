/*!
    @header FixtureTrust
    What Apple's SecTrust.h and SecPolicy.h do that the other headers do not, written for secgen's
    tests (not a copy of Apple's): availability macros on enumerators, `bool` and `dispatch_queue_t`
    that only CoreFoundation.h brings in, and three slips of their documentation.
*/

#ifndef _FIXTURE_TRUST_H_
#define _FIXTURE_TRUST_H_

#include <CoreFoundation/CoreFoundation.h>
#include <Availability.h>
#include <sys/cdefs.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @enum Status Codes
    @discussion The codes.
    @constant errSecSuccess It worked.
    @constant errSecParam A parameter was wrong.
*/
CF_ENUM(OSStatus)
{
    errSecSuccess = 0,
    errSecParam = -50,
};

typedef struct CF_BRIDGED_TYPE(id) __FixtureTrust *FixtureTrustRef;

/*!
    @typedef FixtureTrustResult
    @constant kFixtureResultInvalid Not evaluated.
    @constant kFixtureResultProceed Trusted.
    @constant kFixtureResultConfirm Ask the user (deprecated).
*/
typedef CF_ENUM(uint32_t, FixtureTrustResult) {
    kFixtureResultInvalid  CF_ENUM_AVAILABLE(10_3, 2_0) = 0,
    kFixtureResultProceed  CF_ENUM_AVAILABLE(10_3, 2_0) = 1,
    kFixtureResultConfirm  CF_ENUM_DEPRECATED(10_3, 10_9, 2_0, 7_0) = 2,
};

/*!
     @enum Fixture Policy Constants
     @discussion The policies; one exists on macOS only.
     @constant kFixturePolicyBasic
     @constant kFixturePolicyChat
*/
extern const CFStringRef kFixturePolicyBasic
    __OSX_AVAILABLE_STARTING(__MAC_10_7, __IPHONE_7_0);
#if TARGET_OS_OSX
extern const CFStringRef kFixturePolicyChat
    __OSX_AVAILABLE_BUT_DEPRECATED(__MAC_10_7, __MAC_10_9, __IPHONE_NA, __IPHONE_NA);
#endif

/*!
    @enum Policy Value Constants
    @discussion Keys of a policy's properties, though no constant is called Policy.
    @constant kFixturePolicyName The name to match, a CFStringRef.
*/
extern const CFStringRef kFixturePolicyName
    __OSX_AVAILABLE_STARTING(__MAC_10_7, __IPHONE_7_0);

/*!
    @function FixtureTrustSetNetworkFetchAllowed
    @abstract Allows or forbids fetching.
    @param trust The trust.
    @param allowFetch Whether fetching is allowed.
    @result A result code: errSecSuccess, or errSecParam.
*/
OSStatus FixtureTrustSetNetworkFetchAllowed(FixtureTrustRef trust, Boolean allowFetch)
    __OSX_AVAILABLE_STARTING(__MAC_10_9, __IPHONE_7_0);

/*!
    @function FixtureTrustEvaluateWithError
    @abstract Evaluates the trust.
    @param trust The trust.
    @param error Why it failed.
    @result Whether it is trusted.
*/
bool FixtureTrustEvaluateWithError(FixtureTrustRef trust, CFErrorRef _Nullable * _Nullable CF_RETURNS_RETAINED error)
    API_AVAILABLE(macos(10.14), ios(12.0));

/*!
    @function FixtureTrustEvaluateAsync
    @abstract Evaluates on a queue.
    @param trust The trust.
    @param queue The queue.
    @result A result code: errSecSuccess, or errSecParam.
*/
OSStatus FixtureTrustEvaluateAsync(FixtureTrustRef trust, dispatch_queue_t __nullable queue)
    API_AVAILABLE(macos(10.7), ios(7.0));

/*!
     @function FixtureTrustTimestamps
     @abstract Attaches timestamps (its @function line names it otherwise, as an SDK's once did).
     @param trust The trust.
     @param timestamps The timestamps.
     @result A result code: errSecSuccess, or errSecParam.
*/
OSStatus FixtureTrustSetTimestamps(FixtureTrustRef trust, CFArrayRef __nullable timestamps)
    API_AVAILABLE(macos(10.14.2), ios(12.1.1));

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif

/*!
    @header SecTrust
    Declarations of certificate trust in the style of Apple's SecTrust: a chain, the policies it is
    evaluated against, the anchors it may end at, and the verdict. Written for KeychainBridge;
    secgen reads this file and the Security module implements it over OpenSSL's path validation
    (the CertificateTrust article). SecTrustEvaluateAsyncWithError is in the Security module but not
    here: its block and dispatch queue have no stand-in among secgen's SDK headers.
*/

#ifndef _KEYCHAINBRIDGE_SECTRUST_H_
#define _KEYCHAINBRIDGE_SECTRUST_H_

#include <Security/SecBase.h>
#include <CoreFoundation/CFArray.h>
#include <CoreFoundation/CFBase.h>
#include <CoreFoundation/CFData.h>
#include <CoreFoundation/CFDate.h>
#include <CoreFoundation/CFDictionary.h>
#include <stdbool.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @enum SecTrustResultType
    @abstract The verdict of an evaluation.
    @constant kSecTrustResultInvalid Not evaluated yet, or the evaluation could not run.
    @constant kSecTrustResultProceed The user chose to trust the chain.
    @constant kSecTrustResultConfirm Ask the user; no longer returned.
    @constant kSecTrustResultDeny The user chose not to trust the chain.
    @constant kSecTrustResultUnspecified The chain is trusted by the system's anchors; the user said nothing.
    @constant kSecTrustResultRecoverableTrustFailure Not trusted, for a reason that may change (a date, a host name).
    @constant kSecTrustResultFatalTrustFailure Not trusted, whatever changes (a broken signature).
    @constant kSecTrustResultOtherError The evaluation failed for a reason other than trust.
*/
typedef CF_ENUM(uint32_t, SecTrustResultType) {
    kSecTrustResultInvalid = 0,
    kSecTrustResultProceed = 1,
    kSecTrustResultConfirm API_DEPRECATED("no longer returned", macos(10.0, 10.9), ios(2.0, 7.0)) = 2,
    kSecTrustResultDeny = 3,
    kSecTrustResultUnspecified = 4,
    kSecTrustResultRecoverableTrustFailure = 5,
    kSecTrustResultFatalTrustFailure = 6,
    kSecTrustResultOtherError = 7,
};

/*!
    @enum Trust Result Constants
    @discussion The keys of the dictionary SecTrustCopyResult returns.
    @constant kSecTrustEvaluationDate When the evaluation ran, a CFDateRef.
    @constant kSecTrustExtendedValidation Whether the leaf is an extended validation certificate, a CFBooleanRef.
    @constant kSecTrustOrganizationName The organization of an extended validation leaf, a CFStringRef.
    @constant kSecTrustResultValue The SecTrustResultType of the evaluation, a CFNumberRef.
    @constant kSecTrustRevocationChecked Whether revocation was checked, a CFBooleanRef.
    @constant kSecTrustRevocationValidUntilDate Until when the revocation answer holds, a CFDateRef.
*/
extern const CFStringRef kSecTrustEvaluationDate
    API_AVAILABLE(macos(10.9), ios(7.0));
extern const CFStringRef kSecTrustExtendedValidation
    API_AVAILABLE(macos(10.9), ios(7.0));
extern const CFStringRef kSecTrustOrganizationName
    API_AVAILABLE(macos(10.9), ios(7.0));
extern const CFStringRef kSecTrustResultValue
    API_AVAILABLE(macos(10.9), ios(7.0));
extern const CFStringRef kSecTrustRevocationChecked
    API_AVAILABLE(macos(10.9), ios(7.0));
extern const CFStringRef kSecTrustRevocationValidUntilDate
    API_AVAILABLE(macos(10.9), ios(7.0));

/*!
    @function SecTrustGetTypeID
    @abstract The Core Foundation type identifier of trusts.
    @result The type identifier.
*/
CFTypeID SecTrustGetTypeID(void)
    API_AVAILABLE(macos(10.3), ios(2.0));

/*!
    @function SecTrustCreateWithCertificates
    @abstract Makes a trust of a chain and the policies to evaluate it against.
    @param certificates The leaf, or an array whose first certificate is the leaf and the rest may help build the chain.
    @param policies A policy or an array of policies; NULL for basic X.509.
    @param trust Receives the trust.
    @result errSecSuccess, or errSecParam for certificates or policies of the wrong type.
*/
OSStatus SecTrustCreateWithCertificates(CFTypeRef certificates, CFTypeRef __nullable policies,
    SecTrustRef * __nonnull CF_RETURNS_RETAINED trust)
    API_AVAILABLE(macos(10.3), ios(2.0));

/*!
    @function SecTrustSetPolicies
    @abstract Replaces the policies of a trust; its verdict is evaluated again.
    @param trust The trust.
    @param policies A policy or an array of policies.
    @result errSecSuccess, or errSecParam.
*/
OSStatus SecTrustSetPolicies(SecTrustRef trust, CFTypeRef policies)
    API_AVAILABLE(macos(10.3), ios(6.0));

/*!
    @function SecTrustSetAnchorCertificates
    @abstract Sets the certificates a chain may end at, instead of the system's anchors.
    @param trust The trust.
    @param anchorCertificates The anchors; NULL for the system's again.
    @result errSecSuccess, or errSecParam.
*/
OSStatus SecTrustSetAnchorCertificates(SecTrustRef trust, CFArrayRef __nullable anchorCertificates)
    API_AVAILABLE(macos(10.3), ios(2.0));

/*!
    @function SecTrustSetAnchorCertificatesOnly
    @abstract Whether only the anchors set by SecTrustSetAnchorCertificates count, or the system's too.
    @param trust The trust.
    @param anchorCertificatesOnly True for those anchors alone.
    @result errSecSuccess, or errSecParam.
*/
OSStatus SecTrustSetAnchorCertificatesOnly(SecTrustRef trust, Boolean anchorCertificatesOnly)
    API_AVAILABLE(macos(10.6), ios(7.0));

/*!
    @function SecTrustSetVerifyDate
    @abstract Evaluates the chain as of a date instead of now.
    @param trust The trust.
    @param verifyDate The date.
    @result errSecSuccess, or errSecParam.
*/
OSStatus SecTrustSetVerifyDate(SecTrustRef trust, CFDateRef verifyDate)
    API_AVAILABLE(macos(10.3), ios(2.0));

/*!
    @function SecTrustEvaluateWithError
    @abstract Evaluates the chain against the trust's policies and anchors.
    @param trust The trust.
    @param error On failure, why the chain is not trusted. Pass NULL to ignore it.
    @result True when the chain is trusted.
*/
bool SecTrustEvaluateWithError(SecTrustRef trust, CFErrorRef _Nullable * _Nullable CF_RETURNS_RETAINED error)
    API_AVAILABLE(macos(10.14), ios(12.0));

/*!
    @function SecTrustGetTrustResult
    @abstract The verdict of the last evaluation.
    @param trust The trust.
    @param result Receives the verdict.
    @result errSecSuccess, or errSecParam.
*/
OSStatus SecTrustGetTrustResult(SecTrustRef trust, SecTrustResultType *result)
    API_AVAILABLE(macos(10.7), ios(7.0));

/*!
    @function SecTrustCopyKey
    @abstract The public key of the leaf, evaluating the trust first if need be.
    @param trust The trust.
    @result The key, or NULL when the leaf's key cannot be read.
*/
__nullable
SecKeyRef SecTrustCopyKey(SecTrustRef trust)
    API_AVAILABLE(macos(11.0), ios(14.0));

/*!
    @function SecTrustGetCertificateCount
    @abstract How many certificates the evaluated chain holds.
    @param trust The trust.
    @result The count; 1 before an evaluation.
*/
CFIndex SecTrustGetCertificateCount(SecTrustRef trust)
    API_AVAILABLE(macos(10.7), ios(2.0));

/*!
    @function SecTrustCopyCertificateChain
    @abstract The evaluated chain, leaf first.
    @param trust The trust.
    @result The certificates, or NULL before an evaluation.
*/
__nullable
CFArrayRef SecTrustCopyCertificateChain(SecTrustRef trust)
    API_AVAILABLE(macos(12.0), ios(15.0));

/*!
    @function SecTrustCopyResult
    @abstract The details of the last evaluation, under the Trust Result Constants.
    @param trust The trust.
    @result A dictionary, or NULL before an evaluation.
*/
__nullable
CFDictionaryRef SecTrustCopyResult(SecTrustRef trust)
    API_AVAILABLE(macos(10.9), ios(7.0));

/*!
    @function SecTrustCopyPolicies
    @abstract The policies a trust is evaluated against.
    @param trust The trust.
    @param policies Receives an array of the policies.
    @result errSecSuccess.
*/
OSStatus SecTrustCopyPolicies(SecTrustRef trust, CFArrayRef * __nonnull CF_RETURNS_RETAINED policies)
    API_AVAILABLE(macos(10.3), ios(7.0));

/*!
    @function SecTrustCopyCustomAnchorCertificates
    @abstract The anchors SecTrustSetAnchorCertificates set.
    @param trust The trust.
    @param anchors Receives the anchors, or NULL when the system's are used.
    @result errSecSuccess.
*/
OSStatus SecTrustCopyCustomAnchorCertificates(SecTrustRef trust,
    CFArrayRef * __nonnull CF_RETURNS_RETAINED anchors)
    API_AVAILABLE(macos(10.5), ios(7.0));

/*!
    @function SecTrustGetVerifyTime
    @abstract The time the chain is evaluated at.
    @param trust The trust.
    @result The time of the last evaluation, else the one set, else now, as seconds since 2001.
*/
CFAbsoluteTime SecTrustGetVerifyTime(SecTrustRef trust)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecTrustSetNetworkFetchAllowed
    @abstract Whether certificates and revocation answers may be fetched; recorded, but nothing is ever fetched here.
    @param trust The trust.
    @param allowFetch Whether fetching is allowed.
    @result errSecSuccess.
*/
OSStatus SecTrustSetNetworkFetchAllowed(SecTrustRef trust, Boolean allowFetch)
    API_AVAILABLE(macos(10.9), ios(7.0));

/*!
    @function SecTrustGetNetworkFetchAllowed
    @abstract What SecTrustSetNetworkFetchAllowed set.
    @param trust The trust.
    @param allowFetch Receives whether fetching is allowed.
    @result errSecSuccess.
*/
OSStatus SecTrustGetNetworkFetchAllowed(SecTrustRef trust, Boolean *allowFetch)
    API_AVAILABLE(macos(10.9), ios(7.0));

/*!
    @function SecTrustEvaluate
    @abstract Evaluates the chain and gives the verdict.
    @param trust The trust.
    @param result Receives the verdict.
    @result errSecSuccess whatever the verdict.
*/
OSStatus SecTrustEvaluate(SecTrustRef trust, SecTrustResultType *result)
    API_DEPRECATED("use SecTrustEvaluateWithError", macos(10.3, 10.15), ios(2.0, 13.0));

/*!
    @function SecTrustCopyPublicKey
    @abstract The public key of the leaf.
    @param trust The trust.
    @result The key, or NULL.
*/
__nullable
SecKeyRef SecTrustCopyPublicKey(SecTrustRef trust)
    API_DEPRECATED_WITH_REPLACEMENT("SecTrustCopyKey", macos(10.7, 11.0), ios(2.0, 14.0));

/*!
    @function SecTrustGetCertificateAtIndex
    @abstract One certificate of the evaluated chain.
    @param trust The trust.
    @param ix The position, 0 for the leaf.
    @result The certificate, or NULL past the chain's end.
*/
__nullable
SecCertificateRef SecTrustGetCertificateAtIndex(SecTrustRef trust, CFIndex ix)
    API_DEPRECATED("use SecTrustCopyCertificateChain", macos(10.7, 12.0), ios(2.0, 15.0));

/*!
    @function SecTrustCopyExceptions
    @abstract The failures of the last evaluation, as data SecTrustSetExceptions accepts for this leaf.
    @param trust The trust.
    @result The data, or NULL when the chain is trusted or a failure is fatal.
*/
__nullable
CFDataRef SecTrustCopyExceptions(SecTrustRef trust)
    API_AVAILABLE(macos(10.9), ios(4.0));

/*!
    @function SecTrustSetExceptions
    @abstract Accepts the failures the data names, for this leaf only.
    @param trust The trust.
    @param exceptions Data from SecTrustCopyExceptions, or NULL to clear them.
    @result True when the data is for this trust's leaf.
*/
bool SecTrustSetExceptions(SecTrustRef trust, CFDataRef __nullable exceptions)
    API_AVAILABLE(macos(10.9), ios(4.0));

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif /* !_KEYCHAINBRIDGE_SECTRUST_H_ */

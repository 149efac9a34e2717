/*!
    @header SecBase
    Declarations of the keychain item API laid out as an SDK's SecBase is (framework includes,
    platform branches, bridged types, the legacy file-keychain declarations of macOS,
    availability), written for KeychainBridge. secgen reads this file as it would read an SDK's;
    the Security module implements it.
*/

#ifndef _KEYCHAINBRIDGE_SECBASE_H_
#define _KEYCHAINBRIDGE_SECBASE_H_

#include <TargetConditionals.h>
#include <CoreFoundation/CFBase.h>
#include <Availability.h>
#include <os/availability.h>
#include <sys/cdefs.h>

/*
    SEC_OS_IPHONE and SEC_OS_OSX say which branch is compiled: the data-protection keychain of
    iOS alone, or macOS, which also declares its legacy file keychain.
*/
#if TARGET_OS_OSX
#define SEC_OS_IPHONE 0
#define SEC_OS_OSX 1
#else
#define SEC_OS_IPHONE 1
#define SEC_OS_OSX 0
#endif

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @typedef SecCertificateRef
    @abstract An X.509 certificate.
*/
typedef struct CF_BRIDGED_TYPE(id) __SecCertificate *SecCertificateRef;

/*!
    @typedef SecIdentityRef
    @abstract A certificate together with the private key that matches it.
*/
typedef struct CF_BRIDGED_TYPE(id) __SecIdentity *SecIdentityRef;

/*!
    @typedef SecKeyRef
    @abstract A cryptographic key.
*/
typedef struct CF_BRIDGED_TYPE(id) __SecKey *SecKeyRef;

/*!
    @typedef SecAccessControlRef
    @abstract When an item may be used: its protection class and further conditions.
*/
typedef struct CF_BRIDGED_TYPE(id) __SecAccessControl *SecAccessControlRef;

#if SEC_OS_OSX
/*!
    @typedef SecKeychainRef
    @abstract A keychain file of macOS's legacy keychain.
*/
typedef struct CF_BRIDGED_TYPE(id) __SecKeychain *SecKeychainRef
    API_AVAILABLE(macos(10.0)) API_UNAVAILABLE(ios, watchos, tvos);

/*!
    @typedef SecAccessRef
    @abstract The access list of an item of macOS's legacy keychain.
*/
typedef struct CF_BRIDGED_TYPE(id) __SecAccess *SecAccessRef
    API_AVAILABLE(macos(10.0)) API_UNAVAILABLE(ios, watchos, tvos);

/*!
    @typedef SecKeychainAttrType
    @abstract The four-character tag of an attribute of the legacy keychain.
*/
typedef OSType SecKeychainAttrType API_UNAVAILABLE(ios, watchos, tvos);

/*!
    @struct SecKeychainAttribute
    @abstract One attribute of an item of the legacy keychain: its tag and its bytes.
*/
struct API_UNAVAILABLE(ios, watchos, tvos) SecKeychainAttribute {
    SecKeychainAttrType tag;
    UInt32 length;
    void * __nullable data;
};
typedef struct SecKeychainAttribute SecKeychainAttribute API_UNAVAILABLE(ios, watchos, tvos);
#endif /* SEC_OS_OSX */

/*!
    @enum Security Error Codes
    @discussion The result codes of the Security functions; the comment after each says what it means.
*/
CF_ENUM(OSStatus)
{
    errSecSuccess = 0, /* operation succeeded */
    errSecUnimplemented = -4, /* requested function/operation is not implemented (also alias errSecUnsupportedOperation/Algorithm, e.g. kSecMatchIssuers/kSecMatchPolicy on a password class) */
    errSecDiskFull = -34, /* storage is full */
    errSecIO = -36, /* reading or writing the keychain's files failed, or the disk is full */
    errSecOpWr = -49, /* file already open for writing */
    errSecParam = -50, /* bad argument: wrong value type, unknown/unsupported key, missing kSecClass, key not allowed for this call, etc. (target of many private aliases) */
    errSecWrPerm = -61, /* write permission error */
    errSecAllocate = -108, /* memory could not be allocated */
    errSecUserCanceled = -128, /* user cancelled an authentication prompt */
    errSecBadReq = -909, /* request invalid for the current state */
    errSecInternalComponent = -2070, /* an internal component failed */
    errSecCoreFoundationUnknown = -4960, /* unknown CoreFoundation error */
    errSecMissingEntitlement = -34018, /* caller lacks the entitlement/access group the operation needs (e.g. explicit kSecAttrAccessGroup not in caller groups, or no access groups at all) */
    errSecRestrictedAPI = -34020, /* caller is restricted from this operation (e.g. App Clip using other access groups or adding synchronizable items) */
    errSecNotAvailable = -25291, /* the keychain is not available */
    errSecReadOnly = -25292, /* the keychain is read-only and cannot be changed */
    errSecAuthFailed = -25293, /* authentication failed (also: adding akpu item while no passcode set) */
    errSecNoSuchKeychain = -25294, /* named keychain not found (macOS legacy) */
    errSecInvalidKeychain = -25295, /* file is not a valid keychain (legacy) */
    errSecDuplicateKeychain = -25296, /* keychain with that name exists (legacy) */
    errSecDuplicateCallback = -25297, /* callback already installed (legacy) */
    errSecInvalidCallback = -25298, /* invalid callback (legacy) */
    errSecDuplicateItem = -25299, /* an item with the same class and primary key already exists */
    errSecItemNotFound = -25300, /* no item matched the query (CopyMatching/Update/Delete) */
    errSecBufferTooSmall = -25301, /* buffer too small */
    errSecDataTooLarge = -25302, /* item data too large/undisplayable */
    errSecNoSuchAttr = -25303, /* the attribute is not valid for this item class (kSecAttrServer on a generic password, say) */
    errSecInvalidItemRef = -25304, /* item reference no longer valid (deleted) */
    errSecInvalidSearchRef = -25305, /* cannot search current keychain */
    errSecNoSuchClass = -25306, /* kSecClass value is not a known item class */
    errSecNoDefaultKeychain = -25307, /* no default keychain (legacy) */
    errSecInteractionNotAllowed = -25308, /* user interaction needed but not allowed, typically item protected by an unavailable class key (device locked) or kSecUseAuthenticationUIFail */
    errSecReadOnlyAttr = -25309, /* attribute cannot be modified */
    errSecWrongSecVersion = -25310, /* keychain made by another OS version */
    errSecKeySizeNotAllowed = -25311, /* key size not allowed */
    errSecNoStorageModule = -25312, /* storage module could not load */
    errSecNoCertificateModule = -25313, /* certificate module could not load */
    errSecNoPolicyModule = -25314, /* policy module could not load */
    errSecInteractionRequired = -25315, /* user interaction required but not allowed */
    errSecDataNotAvailable = -25316, /* item contents cannot be retrieved */
    errSecDataNotModifiable = -25317, /* item contents cannot be modified */
    errSecCreateChainFailed = -25318, /* could not build certificate chain */
    errSecInvalidPrefsDomain = -25319, /* invalid preferences domain */
    errSecInDarkWake = -25320, /* system in dark wake; no UI */
    errSecACLNotSimple = -25240, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecPolicyNotFound = -25241, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecInvalidTrustSetting = -25242, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecNoAccessForItem = -25243, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecInvalidOwnerEdit = -25244, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecTrustNotAvailable = -25245, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecUnsupportedFormat = -25256, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecUnknownFormat = -25257, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecKeyIsSensitive = -25258, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecMultiplePrivKeys = -25259, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecPassphraseRequired = -25260, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecInvalidPasswordRef = -25261, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecInvalidTrustSettings = -25262, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecNoTrustSettings = -25263, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecPkcs12VerifyFailure = -25264, /* trust-settings / import-export error (not produced by SecItem* on the DP keychain) */
    errSecNotSigner = -26267, /* certificate not signed by proposed parent */
    errSecDecode = -26275, /* data could not be decoded (corrupt item blob, bad DER, failed decryption) */
    errSecServiceNotAvailable = -67585, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInsufficientClientID = -67586, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecDeviceReset = -67587, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecDeviceFailed = -67588, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecAppleAddAppACLSubject = -67589, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecApplePublicKeyIncomplete = -67590, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecAppleSignatureMismatch = -67591, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecAppleInvalidKeyStartDate = -67592, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecAppleInvalidKeyEndDate = -67593, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecConversionError = -67594, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecAppleSSLv2Rollback = -67595, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecQuotaExceeded = -67596, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecFileTooBig = -67597, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidDatabaseBlob = -67598, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidKeyBlob = -67599, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecIncompatibleDatabaseBlob = -67600, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecIncompatibleKeyBlob = -67601, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecHostNameMismatch = -67602, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnknownCriticalExtensionFlag = -67603, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecNoBasicConstraints = -67604, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecNoBasicConstraintsCA = -67605, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAuthorityKeyID = -67606, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidSubjectKeyID = -67607, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidKeyUsageForPolicy = -67608, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidExtendedKeyUsage = -67609, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidIDLinkage = -67610, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecPathLengthConstraintExceeded = -67611, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidRoot = -67612, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCRLExpired = -67613, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCRLNotValidYet = -67614, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCRLNotFound = -67615, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCRLServerDown = -67616, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCRLBadURI = -67617, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnknownCertExtension = -67618, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnknownCRLExtension = -67619, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCRLNotTrusted = -67620, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCRLPolicyFailed = -67621, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecIDPFailure = -67622, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecSMIMEEmailAddressesNotFound = -67623, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecSMIMEBadExtendedKeyUsage = -67624, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecSMIMEBadKeyUsage = -67625, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecSMIMEKeyUsageNotCritical = -67626, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecSMIMENoEmailAddress = -67627, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecSMIMESubjAltNameNotCritical = -67628, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecSSLBadExtendedKeyUsage = -67629, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPBadResponse = -67630, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPBadRequest = -67631, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPUnavailable = -67632, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPStatusUnrecognized = -67633, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecEndOfData = -67634, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecIncompleteCertRevocationCheck = -67635, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecNetworkFailure = -67636, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPNotTrustedToAnchor = -67637, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecRecordModified = -67638, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPSignatureError = -67639, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPNoSigner = -67640, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPResponderMalformedReq = -67641, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPResponderInternalError = -67642, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPResponderTryLater = -67643, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPResponderSignatureRequired = -67644, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPResponderUnauthorized = -67645, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOCSPResponseNonceMismatch = -67646, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCodeSigningBadCertChainLength = -67647, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCodeSigningNoBasicConstraints = -67648, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCodeSigningBadPathLengthConstraint = -67649, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCodeSigningNoExtendedKeyUsage = -67650, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCodeSigningDevelopment = -67651, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecResourceSignBadCertChainLength = -67652, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecResourceSignBadExtKeyUsage = -67653, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTrustSettingDeny = -67654, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidSubjectName = -67655, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnknownQualifiedCertStatement = -67656, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMobileMeRequestQueued = -67657, /* MobileMe legacy code (no message string) */
    errSecMobileMeRequestRedirected = -67658, /* MobileMe legacy code (no message string) */
    errSecMobileMeServerError = -67659, /* MobileMe legacy code (no message string) */
    errSecMobileMeServerNotAvailable = -67660, /* MobileMe legacy code (no message string) */
    errSecMobileMeServerAlreadyExists = -67661, /* MobileMe legacy code (no message string) */
    errSecMobileMeServerServiceErr = -67662, /* MobileMe legacy code (no message string) */
    errSecMobileMeRequestAlreadyPending = -67663, /* MobileMe legacy code (no message string) */
    errSecMobileMeNoRequestPending = -67664, /* MobileMe legacy code (no message string) */
    errSecMobileMeCSRVerifyFailure = -67665, /* MobileMe legacy code (no message string) */
    errSecMobileMeFailedConsistencyCheck = -67666, /* MobileMe legacy code (no message string) */
    errSecNotInitialized = -67667, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidHandleUsage = -67668, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecPVCReferentNotFound = -67669, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecFunctionIntegrityFail = -67670, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInternalError = -67671, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMemoryError = -67672, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidData = -67673, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMDSError = -67674, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidPointer = -67675, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecSelfCheckFailed = -67676, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecFunctionFailed = -67677, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecModuleManifestVerifyFailed = -67678, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidGUID = -67679, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidHandle = -67680, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidDBList = -67681, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidPassthroughID = -67682, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidNetworkAddress = -67683, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCRLAlreadySigned = -67684, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidNumberOfFields = -67685, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecVerificationFailure = -67686, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnknownTag = -67687, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidSignature = -67688, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidName = -67689, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidCertificateRef = -67690, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidCertificateGroup = -67691, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTagNotFound = -67692, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidQuery = -67693, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidValue = -67694, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCallbackFailed = -67695, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecACLDeleteFailed = -67696, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecACLReplaceFailed = -67697, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecACLAddFailed = -67698, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecACLChangeFailed = -67699, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAccessCredentials = -67700, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidRecord = -67701, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidACL = -67702, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidSampleValue = -67703, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecIncompatibleVersion = -67704, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecPrivilegeNotGranted = -67705, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidScope = -67706, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecPVCAlreadyConfigured = -67707, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidPVC = -67708, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecEMMLoadFailed = -67709, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecEMMUnloadFailed = -67710, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecAddinLoadFailed = -67711, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidKeyRef = -67712, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidKeyHierarchy = -67713, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecAddinUnloadFailed = -67714, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecLibraryReferenceNotFound = -67715, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAddinFunctionTable = -67716, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidServiceMask = -67717, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecModuleNotLoaded = -67718, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidSubServiceID = -67719, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecAttributeNotInContext = -67720, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecModuleManagerInitializeFailed = -67721, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecModuleManagerNotFound = -67722, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecEventNotificationCallbackNotFound = -67723, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInputLengthError = -67724, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecOutputLengthError = -67725, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecPrivilegeNotSupported = -67726, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecDeviceError = -67727, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecAttachHandleBusy = -67728, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecNotLoggedIn = -67729, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecAlgorithmMismatch = -67730, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecKeyUsageIncorrect = -67731, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecKeyBlobTypeIncorrect = -67732, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecKeyHeaderInconsistent = -67733, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedKeyFormat = -67734, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedKeySize = -67735, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidKeyUsageMask = -67736, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedKeyUsageMask = -67737, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidKeyAttributeMask = -67738, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedKeyAttributeMask = -67739, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidKeyLabel = -67740, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedKeyLabel = -67741, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidKeyFormat = -67742, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedVectorOfBuffers = -67743, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidInputVector = -67744, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidOutputVector = -67745, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidContext = -67746, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAlgorithm = -67747, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeKey = -67748, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeKey = -67749, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeInitVector = -67750, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeInitVector = -67751, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeSalt = -67752, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeSalt = -67753, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributePadding = -67754, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributePadding = -67755, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeRandom = -67756, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeRandom = -67757, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeSeed = -67758, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeSeed = -67759, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributePassphrase = -67760, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributePassphrase = -67761, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeKeyLength = -67762, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeKeyLength = -67763, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeBlockSize = -67764, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeBlockSize = -67765, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeOutputSize = -67766, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeOutputSize = -67767, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeRounds = -67768, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeRounds = -67769, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAlgorithmParms = -67770, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAlgorithmParms = -67771, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeLabel = -67772, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeLabel = -67773, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeKeyType = -67774, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeKeyType = -67775, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeMode = -67776, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeMode = -67777, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeEffectiveBits = -67778, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeEffectiveBits = -67779, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeStartDate = -67780, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeStartDate = -67781, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeEndDate = -67782, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeEndDate = -67783, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeVersion = -67784, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeVersion = -67785, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributePrime = -67786, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributePrime = -67787, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeBase = -67788, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeBase = -67789, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeSubprime = -67790, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeSubprime = -67791, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeIterationCount = -67792, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeIterationCount = -67793, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeDLDBHandle = -67794, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeDLDBHandle = -67795, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeAccessCredentials = -67796, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeAccessCredentials = -67797, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributePublicKeyFormat = -67798, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributePublicKeyFormat = -67799, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributePrivateKeyFormat = -67800, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributePrivateKeyFormat = -67801, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeSymmetricKeyFormat = -67802, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeSymmetricKeyFormat = -67803, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAttributeWrappedKeyFormat = -67804, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingAttributeWrappedKeyFormat = -67805, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecStagedOperationInProgress = -67806, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecStagedOperationNotStarted = -67807, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecVerifyFailed = -67808, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecQuerySizeUnknown = -67809, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecBlockSizeMismatch = -67810, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecPublicKeyInconsistent = -67811, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecDeviceVerifyFailed = -67812, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidLoginName = -67813, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecAlreadyLoggedIn = -67814, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidDigestAlgorithm = -67815, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidCRLGroup = -67816, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCertificateCannotOperate = -67817, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCertificateExpired = -67818, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCertificateNotValidYet = -67819, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCertificateRevoked = -67820, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCertificateSuspended = -67821, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInsufficientCredentials = -67822, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAction = -67823, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAuthority = -67824, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecVerifyActionFailed = -67825, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidCertAuthority = -67826, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidCRLAuthority = -67827, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidCRLEncoding = -67828, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidCRLType = -67829, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidCRL = -67830, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidFormType = -67831, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidID = -67832, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidIdentifier = -67833, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidIndex = -67834, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidPolicyIdentifiers = -67835, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidTimeString = -67836, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidReason = -67837, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidRequestInputs = -67838, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidResponseVector = -67839, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidStopOnPolicy = -67840, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidTuple = -67841, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMultipleValuesUnsupported = -67842, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecNotTrusted = -67843, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecNoDefaultAuthority = -67844, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecRejectedForm = -67845, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecRequestLost = -67846, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecRequestRejected = -67847, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedAddressType = -67848, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedService = -67849, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidTupleGroup = -67850, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidBaseACLs = -67851, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidTupleCredentials = -67852, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidEncoding = -67853, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidValidityPeriod = -67854, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidRequestor = -67855, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecRequestDescriptor = -67856, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidBundleInfo = -67857, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidCRLIndex = -67858, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecNoFieldValues = -67859, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedFieldFormat = -67860, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedIndexInfo = -67861, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedLocality = -67862, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedNumAttributes = -67863, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedNumIndexes = -67864, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedNumRecordTypes = -67865, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecFieldSpecifiedMultiple = -67866, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecIncompatibleFieldFormat = -67867, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidParsingModule = -67868, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecDatabaseLocked = -67869, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecDatastoreIsOpen = -67870, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingValue = -67871, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedQueryLimits = -67872, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedNumSelectionPreds = -67873, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecUnsupportedOperator = -67874, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidDBLocation = -67875, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidAccessRequest = -67876, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidIndexInfo = -67877, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidNewOwner = -67878, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecInvalidModifyMode = -67879, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecMissingRequiredExtension = -67880, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecExtendedKeyUsageNotCritical = -67881, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampMissing = -67882, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampInvalid = -67883, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampNotTrusted = -67884, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampServiceNotAvailable = -67885, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampBadAlg = -67886, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampBadRequest = -67887, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampBadDataFormat = -67888, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampTimeNotAvailable = -67889, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampUnacceptedPolicy = -67890, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampUnacceptedExtension = -67891, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampAddInfoNotAvailable = -67892, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampSystemFailure = -67893, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecSigningTimeMissing = -67894, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampRejection = -67895, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampWaiting = -67896, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampRevocationWarning = -67897, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecTimestampRevocationNotification = -67898, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCertificatePolicyNotAllowed = -67899, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCertificateNameNotAllowed = -67900, /* legacy CSSM-derived error (certificate/crypto/DL module); not produced by SecItem* on the DP keychain */
    errSecCertificateValidityPeriodTooLong = -67901, /* legacy CSSM-derived error */
    errSecCertificateIsCA = -67902, /* legacy CSSM-derived error */
    errSecCertificateDuplicateExtension = -67903, /* legacy CSSM-derived error */
    errSecMissingQualifiedCertStatement = -67904, /* legacy CSSM-derived error */
    errSecItemInvalidKey = -50, /* unknown/unsupported string key in the dictionary (alias of errSecParam) */
    errSecItemInvalidKeyType = -50, /* dictionary key is neither CFString nor CFNumber (alias of errSecParam) */
    errSecItemInvalidValue = -50, /* value has an invalid/unsupported CF type or cannot be converted (alias of errSecParam) */
    errSecItemClassMissing = -50, /* no kSecClass (and no persistent ref) in the dictionary (alias of errSecParam) */
    errSecItemMatchUnsupported = -50, /* kSecMatch* key passed to a call that does not support matching (Update/Delete) (alias of errSecParam) */
    errSecUseItemListUnsupported = -50, /* kSecUseItemList not supported (alias of errSecParam) */
    errSecUseKeychainUnsupported = -50, /* kSecUseKeychain not supported (alias of errSecParam) */
    errSecUseKeychainListUnsupported = -50, /* kSecUseKeychainList not supported (alias of errSecParam) */
    errSecReturnDataUnsupported = -50, /* kSecReturnData not supported here (SecItemUpdate; macOS legacy data+LimitAll) (alias of errSecParam) */
    errSecReturnAttributesUnsupported = -50, /* kSecReturnAttributes not supported here (SecItemUpdate) (alias of errSecParam) */
    errSecReturnRefUnsupported = -50, /* kSecReturnRef not supported here (SecItemUpdate) (alias of errSecParam) */
    errSecReturnPersistentRefUnsupported = -50, /* kSecReturnPersistentRef not supported here (SecItemUpdate) (alias of errSecParam) */
    errSecValueRefUnsupported = -50, /* kSecValueRef not supported here (alias of errSecParam) */
    errSecValuePersistentRefUnsupported = -50, /* kSecValuePersistentRef not supported here (e.g. in SecItemAdd) (alias of errSecParam) */
    errSecReturnMissingPointer = -50, /* a result was requested but no result pointer given (in-process server check; not reachable through the XPC client) (alias of errSecParam) */
    errSecMatchLimitUnsupported = -50, /* kSecMatchLimit not supported (SecItemDelete) (alias of errSecParam) */
    errSecItemIllegalQuery = -50, /* illegal query: too many keys, persistent ref combined with attributes, conflicting access controls (alias of errSecParam) */
    errSecInvalidCertificate = -26275, /* alias of errSecDecode */
    errSecInvalidKey = -26275, /* alias of errSecDecode */
    errSecPolicyDenied = -26270, /* certificate chain not trusted by policy */
    errSecInternal = -26276, /* internal Security framework error (unknown error domains map here) */
    errSecUnsupportedAlgorithm = -4, /* alias of errSecUnimplemented */
    errSecUnsupportedOperation = -4, /* alias of errSecUnimplemented */
    errSecUnsupportedPadding = -50, /* alias of errSecParam */
    errSecWaitForCallback = -34017, /* operation completes asynchronously (not an error) */
    errSecUpgradePending = -34019, /* database needs schema migration but device is locked; retry after unlock */
    errSecAuthNeeded = -25330, /* internal: ACL authentication required (client retries after authenticating; surfaces as auth/interaction errors) */
    errSecErrorStringNotAvailable = -25337, /* error string could not be loaded */
};

/*!
    @function SecCopyErrorMessageString
    @abstract Returns a sentence that describes a result code.
    @param status A result code.
    @param reserved Must be NULL.
    @result The description, or "OSStatus <n>" for an unknown code.
*/
CFStringRef __nullable SecCopyErrorMessageString(OSStatus status, void * __nullable reserved)
    API_AVAILABLE(macos(10.6), ios(2.0));

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif /* _KEYCHAINBRIDGE_SECBASE_H_ */

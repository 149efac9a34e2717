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
    @typedef SecPolicyRef
    @abstract The rules a certificate chain is evaluated against (basic X.509, TLS...).
*/
typedef struct CF_BRIDGED_TYPE(id) __SecPolicy *SecPolicyRef;

/*!
    @typedef SecTrustRef
    @abstract A certificate chain with the policies it is evaluated against, and the verdict.
*/
typedef struct CF_BRIDGED_TYPE(id) __SecTrust *SecTrustRef;

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
    errSecSuccess = 0, /* The operation completed successfully. */
    errSecUnimplemented = -4, /* The requested function or operation is not implemented. */
    errSecDiskFull = -34, /* storage is full */
    errSecIO = -36, /* An input/output error occurred while reading or writing the keychain store. */
    errSecOpWr = -49, /* file already open for writing */
    errSecParam = -50, /* A parameter passed to the function was not valid. */
    errSecWrPerm = -61, /* The keychain store could not be written: permission denied. */
    errSecAllocate = -108, /* Memory could not be allocated for the operation. */
    errSecUserCanceled = -128, /* The user canceled the operation. */
    errSecBadReq = -909, /* request invalid for the current state */
    errSecInternalComponent = -2070, /* An internal component of the keychain failed. */
    errSecCoreFoundationUnknown = -4960, /* unknown CoreFoundation error */
    errSecMissingEntitlement = -34018, /* The caller is not entitled to the requested access group. */
    errSecRestrictedAPI = -34020, /* The caller is not allowed to use this API. */
    errSecNotAvailable = -25291, /* The keychain store is not available. */
    errSecReadOnly = -25292, /* The keychain store is read-only. */
    errSecAuthFailed = -25293, /* Authentication failed: the key or passphrase is wrong. */
    errSecNoSuchKeychain = -25294, /* The keychain store does not exist. */
    errSecInvalidKeychain = -25295, /* The keychain store is not valid. */
    errSecDuplicateKeychain = -25296, /* A keychain store with this name already exists. */
    errSecDuplicateCallback = -25297, /* callback already installed (legacy) */
    errSecInvalidCallback = -25298, /* invalid callback (legacy) */
    errSecDuplicateItem = -25299, /* The item already exists in the keychain. */
    errSecItemNotFound = -25300, /* The item could not be found in the keychain. */
    errSecBufferTooSmall = -25301, /* buffer too small */
    errSecDataTooLarge = -25302, /* item data too large/undisplayable */
    errSecNoSuchAttr = -25303, /* The attribute does not exist for this item class. */
    errSecInvalidItemRef = -25304, /* item reference no longer valid (deleted) */
    errSecInvalidSearchRef = -25305, /* cannot search current keychain */
    errSecNoSuchClass = -25306, /* The item class does not exist. */
    errSecNoDefaultKeychain = -25307, /* No default keychain store is configured. */
    errSecInteractionNotAllowed = -25308, /* The item cannot be used while the keychain is locked. */
    errSecReadOnlyAttr = -25309, /* The attribute cannot be modified. */
    errSecWrongSecVersion = -25310, /* The attribute has the wrong size. */
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
    errSecACLNotSimple = -25240, /* ACL not simple (a trust or import error) */
    errSecPolicyNotFound = -25241, /* policy not found (a trust or import error) */
    errSecInvalidTrustSetting = -25242, /* invalid trust setting (a trust or import error) */
    errSecNoAccessForItem = -25243, /* no access for item (a trust or import error) */
    errSecInvalidOwnerEdit = -25244, /* invalid owner edit (a trust or import error) */
    errSecTrustNotAvailable = -25245, /* trust not available (a trust or import error) */
    errSecUnsupportedFormat = -25256, /* unsupported format (a trust or import error) */
    errSecUnknownFormat = -25257, /* unknown format (a trust or import error) */
    errSecKeyIsSensitive = -25258, /* key is sensitive (a trust or import error) */
    errSecMultiplePrivKeys = -25259, /* multiple priv keys (a trust or import error) */
    errSecPassphraseRequired = -25260, /* passphrase required (a trust or import error) */
    errSecInvalidPasswordRef = -25261, /* invalid password ref (a trust or import error) */
    errSecInvalidTrustSettings = -25262, /* invalid trust settings (a trust or import error) */
    errSecNoTrustSettings = -25263, /* no trust settings (a trust or import error) */
    errSecPkcs12VerifyFailure = -25264, /* pkcs12 verify failure (a trust or import error) */
    errSecNotSigner = -26267, /* certificate not signed by proposed parent */
    errSecDecode = -26275, /* The stored item could not be decoded or failed its integrity check. */
    errSecServiceNotAvailable = -67585, /* service not available (a legacy CSSM error) */
    errSecInsufficientClientID = -67586, /* insufficient client ID (a legacy CSSM error) */
    errSecDeviceReset = -67587, /* device reset (a legacy CSSM error) */
    errSecDeviceFailed = -67588, /* device failed (a legacy CSSM error) */
    errSecAppleAddAppACLSubject = -67589, /* apple add app ACL subject (a legacy CSSM error) */
    errSecApplePublicKeyIncomplete = -67590, /* apple public key incomplete (a legacy CSSM error) */
    errSecAppleSignatureMismatch = -67591, /* apple signature mismatch (a legacy CSSM error) */
    errSecAppleInvalidKeyStartDate = -67592, /* apple invalid key start date (a legacy CSSM error) */
    errSecAppleInvalidKeyEndDate = -67593, /* apple invalid key end date (a legacy CSSM error) */
    errSecConversionError = -67594, /* conversion error (a legacy CSSM error) */
    errSecAppleSSLv2Rollback = -67595, /* apple SS lv2 rollback (a legacy CSSM error) */
    errSecQuotaExceeded = -67596, /* quota exceeded (a legacy CSSM error) */
    errSecFileTooBig = -67597, /* file too big (a legacy CSSM error) */
    errSecInvalidDatabaseBlob = -67598, /* invalid database blob (a legacy CSSM error) */
    errSecInvalidKeyBlob = -67599, /* invalid key blob (a legacy CSSM error) */
    errSecIncompatibleDatabaseBlob = -67600, /* incompatible database blob (a legacy CSSM error) */
    errSecIncompatibleKeyBlob = -67601, /* incompatible key blob (a legacy CSSM error) */
    errSecHostNameMismatch = -67602, /* host name mismatch (a legacy CSSM error) */
    errSecUnknownCriticalExtensionFlag = -67603, /* unknown critical extension flag (a legacy CSSM error) */
    errSecNoBasicConstraints = -67604, /* no basic constraints (a legacy CSSM error) */
    errSecNoBasicConstraintsCA = -67605, /* no basic constraints CA (a legacy CSSM error) */
    errSecInvalidAuthorityKeyID = -67606, /* invalid authority key ID (a legacy CSSM error) */
    errSecInvalidSubjectKeyID = -67607, /* invalid subject key ID (a legacy CSSM error) */
    errSecInvalidKeyUsageForPolicy = -67608, /* invalid key usage for policy (a legacy CSSM error) */
    errSecInvalidExtendedKeyUsage = -67609, /* invalid extended key usage (a legacy CSSM error) */
    errSecInvalidIDLinkage = -67610, /* invalid ID linkage (a legacy CSSM error) */
    errSecPathLengthConstraintExceeded = -67611, /* path length constraint exceeded (a legacy CSSM error) */
    errSecInvalidRoot = -67612, /* invalid root (a legacy CSSM error) */
    errSecCRLExpired = -67613, /* CRL expired (a legacy CSSM error) */
    errSecCRLNotValidYet = -67614, /* CRL not valid yet (a legacy CSSM error) */
    errSecCRLNotFound = -67615, /* CRL not found (a legacy CSSM error) */
    errSecCRLServerDown = -67616, /* CRL server down (a legacy CSSM error) */
    errSecCRLBadURI = -67617, /* CRL bad URI (a legacy CSSM error) */
    errSecUnknownCertExtension = -67618, /* unknown cert extension (a legacy CSSM error) */
    errSecUnknownCRLExtension = -67619, /* unknown CRL extension (a legacy CSSM error) */
    errSecCRLNotTrusted = -67620, /* CRL not trusted (a legacy CSSM error) */
    errSecCRLPolicyFailed = -67621, /* CRL policy failed (a legacy CSSM error) */
    errSecIDPFailure = -67622, /* IDP failure (a legacy CSSM error) */
    errSecSMIMEEmailAddressesNotFound = -67623, /* SMIME email addresses not found (a legacy CSSM error) */
    errSecSMIMEBadExtendedKeyUsage = -67624, /* SMIME bad extended key usage (a legacy CSSM error) */
    errSecSMIMEBadKeyUsage = -67625, /* SMIME bad key usage (a legacy CSSM error) */
    errSecSMIMEKeyUsageNotCritical = -67626, /* SMIME key usage not critical (a legacy CSSM error) */
    errSecSMIMENoEmailAddress = -67627, /* SMIME no email address (a legacy CSSM error) */
    errSecSMIMESubjAltNameNotCritical = -67628, /* SMIME subj alt name not critical (a legacy CSSM error) */
    errSecSSLBadExtendedKeyUsage = -67629, /* SSL bad extended key usage (a legacy CSSM error) */
    errSecOCSPBadResponse = -67630, /* OCSP bad response (a legacy CSSM error) */
    errSecOCSPBadRequest = -67631, /* OCSP bad request (a legacy CSSM error) */
    errSecOCSPUnavailable = -67632, /* OCSP unavailable (a legacy CSSM error) */
    errSecOCSPStatusUnrecognized = -67633, /* OCSP status unrecognized (a legacy CSSM error) */
    errSecEndOfData = -67634, /* end of data (a legacy CSSM error) */
    errSecIncompleteCertRevocationCheck = -67635, /* incomplete cert revocation check (a legacy CSSM error) */
    errSecNetworkFailure = -67636, /* network failure (a legacy CSSM error) */
    errSecOCSPNotTrustedToAnchor = -67637, /* OCSP not trusted to anchor (a legacy CSSM error) */
    errSecRecordModified = -67638, /* record modified (a legacy CSSM error) */
    errSecOCSPSignatureError = -67639, /* OCSP signature error (a legacy CSSM error) */
    errSecOCSPNoSigner = -67640, /* OCSP no signer (a legacy CSSM error) */
    errSecOCSPResponderMalformedReq = -67641, /* OCSP responder malformed req (a legacy CSSM error) */
    errSecOCSPResponderInternalError = -67642, /* OCSP responder internal error (a legacy CSSM error) */
    errSecOCSPResponderTryLater = -67643, /* OCSP responder try later (a legacy CSSM error) */
    errSecOCSPResponderSignatureRequired = -67644, /* OCSP responder signature required (a legacy CSSM error) */
    errSecOCSPResponderUnauthorized = -67645, /* OCSP responder unauthorized (a legacy CSSM error) */
    errSecOCSPResponseNonceMismatch = -67646, /* OCSP response nonce mismatch (a legacy CSSM error) */
    errSecCodeSigningBadCertChainLength = -67647, /* code signing bad cert chain length (a legacy CSSM error) */
    errSecCodeSigningNoBasicConstraints = -67648, /* code signing no basic constraints (a legacy CSSM error) */
    errSecCodeSigningBadPathLengthConstraint = -67649, /* code signing bad path length constraint (a legacy CSSM error) */
    errSecCodeSigningNoExtendedKeyUsage = -67650, /* code signing no extended key usage (a legacy CSSM error) */
    errSecCodeSigningDevelopment = -67651, /* code signing development (a legacy CSSM error) */
    errSecResourceSignBadCertChainLength = -67652, /* resource sign bad cert chain length (a legacy CSSM error) */
    errSecResourceSignBadExtKeyUsage = -67653, /* resource sign bad ext key usage (a legacy CSSM error) */
    errSecTrustSettingDeny = -67654, /* trust setting deny (a legacy CSSM error) */
    errSecInvalidSubjectName = -67655, /* invalid subject name (a legacy CSSM error) */
    errSecUnknownQualifiedCertStatement = -67656, /* unknown qualified cert statement (a legacy CSSM error) */
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
    errSecNotInitialized = -67667, /* not initialized (a legacy CSSM error) */
    errSecInvalidHandleUsage = -67668, /* invalid handle usage (a legacy CSSM error) */
    errSecPVCReferentNotFound = -67669, /* PVC referent not found (a legacy CSSM error) */
    errSecFunctionIntegrityFail = -67670, /* function integrity fail (a legacy CSSM error) */
    errSecInternalError = -67671, /* internal error (a legacy CSSM error) */
    errSecMemoryError = -67672, /* memory error (a legacy CSSM error) */
    errSecInvalidData = -67673, /* invalid data (a legacy CSSM error) */
    errSecMDSError = -67674, /* MDS error (a legacy CSSM error) */
    errSecInvalidPointer = -67675, /* invalid pointer (a legacy CSSM error) */
    errSecSelfCheckFailed = -67676, /* self check failed (a legacy CSSM error) */
    errSecFunctionFailed = -67677, /* function failed (a legacy CSSM error) */
    errSecModuleManifestVerifyFailed = -67678, /* module manifest verify failed (a legacy CSSM error) */
    errSecInvalidGUID = -67679, /* invalid GUID (a legacy CSSM error) */
    errSecInvalidHandle = -67680, /* invalid handle (a legacy CSSM error) */
    errSecInvalidDBList = -67681, /* invalid DB list (a legacy CSSM error) */
    errSecInvalidPassthroughID = -67682, /* invalid passthrough ID (a legacy CSSM error) */
    errSecInvalidNetworkAddress = -67683, /* invalid network address (a legacy CSSM error) */
    errSecCRLAlreadySigned = -67684, /* CRL already signed (a legacy CSSM error) */
    errSecInvalidNumberOfFields = -67685, /* invalid number of fields (a legacy CSSM error) */
    errSecVerificationFailure = -67686, /* verification failure (a legacy CSSM error) */
    errSecUnknownTag = -67687, /* unknown tag (a legacy CSSM error) */
    errSecInvalidSignature = -67688, /* invalid signature (a legacy CSSM error) */
    errSecInvalidName = -67689, /* invalid name (a legacy CSSM error) */
    errSecInvalidCertificateRef = -67690, /* invalid certificate ref (a legacy CSSM error) */
    errSecInvalidCertificateGroup = -67691, /* invalid certificate group (a legacy CSSM error) */
    errSecTagNotFound = -67692, /* tag not found (a legacy CSSM error) */
    errSecInvalidQuery = -67693, /* invalid query (a legacy CSSM error) */
    errSecInvalidValue = -67694, /* invalid value (a legacy CSSM error) */
    errSecCallbackFailed = -67695, /* callback failed (a legacy CSSM error) */
    errSecACLDeleteFailed = -67696, /* ACL delete failed (a legacy CSSM error) */
    errSecACLReplaceFailed = -67697, /* ACL replace failed (a legacy CSSM error) */
    errSecACLAddFailed = -67698, /* ACL add failed (a legacy CSSM error) */
    errSecACLChangeFailed = -67699, /* ACL change failed (a legacy CSSM error) */
    errSecInvalidAccessCredentials = -67700, /* invalid access credentials (a legacy CSSM error) */
    errSecInvalidRecord = -67701, /* invalid record (a legacy CSSM error) */
    errSecInvalidACL = -67702, /* invalid ACL (a legacy CSSM error) */
    errSecInvalidSampleValue = -67703, /* invalid sample value (a legacy CSSM error) */
    errSecIncompatibleVersion = -67704, /* incompatible version (a legacy CSSM error) */
    errSecPrivilegeNotGranted = -67705, /* privilege not granted (a legacy CSSM error) */
    errSecInvalidScope = -67706, /* invalid scope (a legacy CSSM error) */
    errSecPVCAlreadyConfigured = -67707, /* PVC already configured (a legacy CSSM error) */
    errSecInvalidPVC = -67708, /* invalid PVC (a legacy CSSM error) */
    errSecEMMLoadFailed = -67709, /* EMM load failed (a legacy CSSM error) */
    errSecEMMUnloadFailed = -67710, /* EMM unload failed (a legacy CSSM error) */
    errSecAddinLoadFailed = -67711, /* addin load failed (a legacy CSSM error) */
    errSecInvalidKeyRef = -67712, /* invalid key ref (a legacy CSSM error) */
    errSecInvalidKeyHierarchy = -67713, /* invalid key hierarchy (a legacy CSSM error) */
    errSecAddinUnloadFailed = -67714, /* addin unload failed (a legacy CSSM error) */
    errSecLibraryReferenceNotFound = -67715, /* library reference not found (a legacy CSSM error) */
    errSecInvalidAddinFunctionTable = -67716, /* invalid addin function table (a legacy CSSM error) */
    errSecInvalidServiceMask = -67717, /* invalid service mask (a legacy CSSM error) */
    errSecModuleNotLoaded = -67718, /* module not loaded (a legacy CSSM error) */
    errSecInvalidSubServiceID = -67719, /* invalid sub service ID (a legacy CSSM error) */
    errSecAttributeNotInContext = -67720, /* attribute not in context (a legacy CSSM error) */
    errSecModuleManagerInitializeFailed = -67721, /* module manager initialize failed (a legacy CSSM error) */
    errSecModuleManagerNotFound = -67722, /* module manager not found (a legacy CSSM error) */
    errSecEventNotificationCallbackNotFound = -67723, /* event notification callback not found (a legacy CSSM error) */
    errSecInputLengthError = -67724, /* input length error (a legacy CSSM error) */
    errSecOutputLengthError = -67725, /* output length error (a legacy CSSM error) */
    errSecPrivilegeNotSupported = -67726, /* privilege not supported (a legacy CSSM error) */
    errSecDeviceError = -67727, /* device error (a legacy CSSM error) */
    errSecAttachHandleBusy = -67728, /* attach handle busy (a legacy CSSM error) */
    errSecNotLoggedIn = -67729, /* not logged in (a legacy CSSM error) */
    errSecAlgorithmMismatch = -67730, /* algorithm mismatch (a legacy CSSM error) */
    errSecKeyUsageIncorrect = -67731, /* key usage incorrect (a legacy CSSM error) */
    errSecKeyBlobTypeIncorrect = -67732, /* key blob type incorrect (a legacy CSSM error) */
    errSecKeyHeaderInconsistent = -67733, /* key header inconsistent (a legacy CSSM error) */
    errSecUnsupportedKeyFormat = -67734, /* unsupported key format (a legacy CSSM error) */
    errSecUnsupportedKeySize = -67735, /* unsupported key size (a legacy CSSM error) */
    errSecInvalidKeyUsageMask = -67736, /* invalid key usage mask (a legacy CSSM error) */
    errSecUnsupportedKeyUsageMask = -67737, /* unsupported key usage mask (a legacy CSSM error) */
    errSecInvalidKeyAttributeMask = -67738, /* invalid key attribute mask (a legacy CSSM error) */
    errSecUnsupportedKeyAttributeMask = -67739, /* unsupported key attribute mask (a legacy CSSM error) */
    errSecInvalidKeyLabel = -67740, /* invalid key label (a legacy CSSM error) */
    errSecUnsupportedKeyLabel = -67741, /* unsupported key label (a legacy CSSM error) */
    errSecInvalidKeyFormat = -67742, /* invalid key format (a legacy CSSM error) */
    errSecUnsupportedVectorOfBuffers = -67743, /* unsupported vector of buffers (a legacy CSSM error) */
    errSecInvalidInputVector = -67744, /* invalid input vector (a legacy CSSM error) */
    errSecInvalidOutputVector = -67745, /* invalid output vector (a legacy CSSM error) */
    errSecInvalidContext = -67746, /* invalid context (a legacy CSSM error) */
    errSecInvalidAlgorithm = -67747, /* invalid algorithm (a legacy CSSM error) */
    errSecInvalidAttributeKey = -67748, /* invalid attribute key (a legacy CSSM error) */
    errSecMissingAttributeKey = -67749, /* missing attribute key (a legacy CSSM error) */
    errSecInvalidAttributeInitVector = -67750, /* invalid attribute init vector (a legacy CSSM error) */
    errSecMissingAttributeInitVector = -67751, /* missing attribute init vector (a legacy CSSM error) */
    errSecInvalidAttributeSalt = -67752, /* invalid attribute salt (a legacy CSSM error) */
    errSecMissingAttributeSalt = -67753, /* missing attribute salt (a legacy CSSM error) */
    errSecInvalidAttributePadding = -67754, /* invalid attribute padding (a legacy CSSM error) */
    errSecMissingAttributePadding = -67755, /* missing attribute padding (a legacy CSSM error) */
    errSecInvalidAttributeRandom = -67756, /* invalid attribute random (a legacy CSSM error) */
    errSecMissingAttributeRandom = -67757, /* missing attribute random (a legacy CSSM error) */
    errSecInvalidAttributeSeed = -67758, /* invalid attribute seed (a legacy CSSM error) */
    errSecMissingAttributeSeed = -67759, /* missing attribute seed (a legacy CSSM error) */
    errSecInvalidAttributePassphrase = -67760, /* invalid attribute passphrase (a legacy CSSM error) */
    errSecMissingAttributePassphrase = -67761, /* missing attribute passphrase (a legacy CSSM error) */
    errSecInvalidAttributeKeyLength = -67762, /* invalid attribute key length (a legacy CSSM error) */
    errSecMissingAttributeKeyLength = -67763, /* missing attribute key length (a legacy CSSM error) */
    errSecInvalidAttributeBlockSize = -67764, /* invalid attribute block size (a legacy CSSM error) */
    errSecMissingAttributeBlockSize = -67765, /* missing attribute block size (a legacy CSSM error) */
    errSecInvalidAttributeOutputSize = -67766, /* invalid attribute output size (a legacy CSSM error) */
    errSecMissingAttributeOutputSize = -67767, /* missing attribute output size (a legacy CSSM error) */
    errSecInvalidAttributeRounds = -67768, /* invalid attribute rounds (a legacy CSSM error) */
    errSecMissingAttributeRounds = -67769, /* missing attribute rounds (a legacy CSSM error) */
    errSecInvalidAlgorithmParms = -67770, /* invalid algorithm parms (a legacy CSSM error) */
    errSecMissingAlgorithmParms = -67771, /* missing algorithm parms (a legacy CSSM error) */
    errSecInvalidAttributeLabel = -67772, /* invalid attribute label (a legacy CSSM error) */
    errSecMissingAttributeLabel = -67773, /* missing attribute label (a legacy CSSM error) */
    errSecInvalidAttributeKeyType = -67774, /* invalid attribute key type (a legacy CSSM error) */
    errSecMissingAttributeKeyType = -67775, /* missing attribute key type (a legacy CSSM error) */
    errSecInvalidAttributeMode = -67776, /* invalid attribute mode (a legacy CSSM error) */
    errSecMissingAttributeMode = -67777, /* missing attribute mode (a legacy CSSM error) */
    errSecInvalidAttributeEffectiveBits = -67778, /* invalid attribute effective bits (a legacy CSSM error) */
    errSecMissingAttributeEffectiveBits = -67779, /* missing attribute effective bits (a legacy CSSM error) */
    errSecInvalidAttributeStartDate = -67780, /* invalid attribute start date (a legacy CSSM error) */
    errSecMissingAttributeStartDate = -67781, /* missing attribute start date (a legacy CSSM error) */
    errSecInvalidAttributeEndDate = -67782, /* invalid attribute end date (a legacy CSSM error) */
    errSecMissingAttributeEndDate = -67783, /* missing attribute end date (a legacy CSSM error) */
    errSecInvalidAttributeVersion = -67784, /* invalid attribute version (a legacy CSSM error) */
    errSecMissingAttributeVersion = -67785, /* missing attribute version (a legacy CSSM error) */
    errSecInvalidAttributePrime = -67786, /* invalid attribute prime (a legacy CSSM error) */
    errSecMissingAttributePrime = -67787, /* missing attribute prime (a legacy CSSM error) */
    errSecInvalidAttributeBase = -67788, /* invalid attribute base (a legacy CSSM error) */
    errSecMissingAttributeBase = -67789, /* missing attribute base (a legacy CSSM error) */
    errSecInvalidAttributeSubprime = -67790, /* invalid attribute subprime (a legacy CSSM error) */
    errSecMissingAttributeSubprime = -67791, /* missing attribute subprime (a legacy CSSM error) */
    errSecInvalidAttributeIterationCount = -67792, /* invalid attribute iteration count (a legacy CSSM error) */
    errSecMissingAttributeIterationCount = -67793, /* missing attribute iteration count (a legacy CSSM error) */
    errSecInvalidAttributeDLDBHandle = -67794, /* invalid attribute DLDB handle (a legacy CSSM error) */
    errSecMissingAttributeDLDBHandle = -67795, /* missing attribute DLDB handle (a legacy CSSM error) */
    errSecInvalidAttributeAccessCredentials = -67796, /* invalid attribute access credentials (a legacy CSSM error) */
    errSecMissingAttributeAccessCredentials = -67797, /* missing attribute access credentials (a legacy CSSM error) */
    errSecInvalidAttributePublicKeyFormat = -67798, /* invalid attribute public key format (a legacy CSSM error) */
    errSecMissingAttributePublicKeyFormat = -67799, /* missing attribute public key format (a legacy CSSM error) */
    errSecInvalidAttributePrivateKeyFormat = -67800, /* invalid attribute private key format (a legacy CSSM error) */
    errSecMissingAttributePrivateKeyFormat = -67801, /* missing attribute private key format (a legacy CSSM error) */
    errSecInvalidAttributeSymmetricKeyFormat = -67802, /* invalid attribute symmetric key format (a legacy CSSM error) */
    errSecMissingAttributeSymmetricKeyFormat = -67803, /* missing attribute symmetric key format (a legacy CSSM error) */
    errSecInvalidAttributeWrappedKeyFormat = -67804, /* invalid attribute wrapped key format (a legacy CSSM error) */
    errSecMissingAttributeWrappedKeyFormat = -67805, /* missing attribute wrapped key format (a legacy CSSM error) */
    errSecStagedOperationInProgress = -67806, /* staged operation in progress (a legacy CSSM error) */
    errSecStagedOperationNotStarted = -67807, /* staged operation not started (a legacy CSSM error) */
    errSecVerifyFailed = -67808, /* verify failed (a legacy CSSM error) */
    errSecQuerySizeUnknown = -67809, /* query size unknown (a legacy CSSM error) */
    errSecBlockSizeMismatch = -67810, /* block size mismatch (a legacy CSSM error) */
    errSecPublicKeyInconsistent = -67811, /* public key inconsistent (a legacy CSSM error) */
    errSecDeviceVerifyFailed = -67812, /* device verify failed (a legacy CSSM error) */
    errSecInvalidLoginName = -67813, /* invalid login name (a legacy CSSM error) */
    errSecAlreadyLoggedIn = -67814, /* already logged in (a legacy CSSM error) */
    errSecInvalidDigestAlgorithm = -67815, /* invalid digest algorithm (a legacy CSSM error) */
    errSecInvalidCRLGroup = -67816, /* invalid CRL group (a legacy CSSM error) */
    errSecCertificateCannotOperate = -67817, /* certificate cannot operate (a legacy CSSM error) */
    errSecCertificateExpired = -67818, /* certificate expired (a legacy CSSM error) */
    errSecCertificateNotValidYet = -67819, /* certificate not valid yet (a legacy CSSM error) */
    errSecCertificateRevoked = -67820, /* certificate revoked (a legacy CSSM error) */
    errSecCertificateSuspended = -67821, /* certificate suspended (a legacy CSSM error) */
    errSecInsufficientCredentials = -67822, /* insufficient credentials (a legacy CSSM error) */
    errSecInvalidAction = -67823, /* invalid action (a legacy CSSM error) */
    errSecInvalidAuthority = -67824, /* invalid authority (a legacy CSSM error) */
    errSecVerifyActionFailed = -67825, /* verify action failed (a legacy CSSM error) */
    errSecInvalidCertAuthority = -67826, /* invalid cert authority (a legacy CSSM error) */
    errSecInvalidCRLAuthority = -67827, /* invalid CRL authority (a legacy CSSM error) */
    errSecInvalidCRLEncoding = -67828, /* invalid CRL encoding (a legacy CSSM error) */
    errSecInvalidCRLType = -67829, /* invalid CRL type (a legacy CSSM error) */
    errSecInvalidCRL = -67830, /* invalid CRL (a legacy CSSM error) */
    errSecInvalidFormType = -67831, /* invalid form type (a legacy CSSM error) */
    errSecInvalidID = -67832, /* invalid ID (a legacy CSSM error) */
    errSecInvalidIdentifier = -67833, /* invalid identifier (a legacy CSSM error) */
    errSecInvalidIndex = -67834, /* invalid index (a legacy CSSM error) */
    errSecInvalidPolicyIdentifiers = -67835, /* invalid policy identifiers (a legacy CSSM error) */
    errSecInvalidTimeString = -67836, /* invalid time string (a legacy CSSM error) */
    errSecInvalidReason = -67837, /* invalid reason (a legacy CSSM error) */
    errSecInvalidRequestInputs = -67838, /* invalid request inputs (a legacy CSSM error) */
    errSecInvalidResponseVector = -67839, /* invalid response vector (a legacy CSSM error) */
    errSecInvalidStopOnPolicy = -67840, /* invalid stop on policy (a legacy CSSM error) */
    errSecInvalidTuple = -67841, /* invalid tuple (a legacy CSSM error) */
    errSecMultipleValuesUnsupported = -67842, /* multiple values unsupported (a legacy CSSM error) */
    errSecNotTrusted = -67843, /* not trusted (a legacy CSSM error) */
    errSecNoDefaultAuthority = -67844, /* no default authority (a legacy CSSM error) */
    errSecRejectedForm = -67845, /* rejected form (a legacy CSSM error) */
    errSecRequestLost = -67846, /* request lost (a legacy CSSM error) */
    errSecRequestRejected = -67847, /* request rejected (a legacy CSSM error) */
    errSecUnsupportedAddressType = -67848, /* unsupported address type (a legacy CSSM error) */
    errSecUnsupportedService = -67849, /* unsupported service (a legacy CSSM error) */
    errSecInvalidTupleGroup = -67850, /* invalid tuple group (a legacy CSSM error) */
    errSecInvalidBaseACLs = -67851, /* invalid base AC ls (a legacy CSSM error) */
    errSecInvalidTupleCredentials = -67852, /* invalid tuple credentials (a legacy CSSM error) */
    errSecInvalidEncoding = -67853, /* invalid encoding (a legacy CSSM error) */
    errSecInvalidValidityPeriod = -67854, /* invalid validity period (a legacy CSSM error) */
    errSecInvalidRequestor = -67855, /* invalid requestor (a legacy CSSM error) */
    errSecRequestDescriptor = -67856, /* request descriptor (a legacy CSSM error) */
    errSecInvalidBundleInfo = -67857, /* invalid bundle info (a legacy CSSM error) */
    errSecInvalidCRLIndex = -67858, /* invalid CRL index (a legacy CSSM error) */
    errSecNoFieldValues = -67859, /* no field values (a legacy CSSM error) */
    errSecUnsupportedFieldFormat = -67860, /* unsupported field format (a legacy CSSM error) */
    errSecUnsupportedIndexInfo = -67861, /* unsupported index info (a legacy CSSM error) */
    errSecUnsupportedLocality = -67862, /* unsupported locality (a legacy CSSM error) */
    errSecUnsupportedNumAttributes = -67863, /* unsupported num attributes (a legacy CSSM error) */
    errSecUnsupportedNumIndexes = -67864, /* unsupported num indexes (a legacy CSSM error) */
    errSecUnsupportedNumRecordTypes = -67865, /* unsupported num record types (a legacy CSSM error) */
    errSecFieldSpecifiedMultiple = -67866, /* field specified multiple (a legacy CSSM error) */
    errSecIncompatibleFieldFormat = -67867, /* incompatible field format (a legacy CSSM error) */
    errSecInvalidParsingModule = -67868, /* invalid parsing module (a legacy CSSM error) */
    errSecDatabaseLocked = -67869, /* database locked (a legacy CSSM error) */
    errSecDatastoreIsOpen = -67870, /* datastore is open (a legacy CSSM error) */
    errSecMissingValue = -67871, /* missing value (a legacy CSSM error) */
    errSecUnsupportedQueryLimits = -67872, /* unsupported query limits (a legacy CSSM error) */
    errSecUnsupportedNumSelectionPreds = -67873, /* unsupported num selection preds (a legacy CSSM error) */
    errSecUnsupportedOperator = -67874, /* unsupported operator (a legacy CSSM error) */
    errSecInvalidDBLocation = -67875, /* invalid DB location (a legacy CSSM error) */
    errSecInvalidAccessRequest = -67876, /* invalid access request (a legacy CSSM error) */
    errSecInvalidIndexInfo = -67877, /* invalid index info (a legacy CSSM error) */
    errSecInvalidNewOwner = -67878, /* invalid new owner (a legacy CSSM error) */
    errSecInvalidModifyMode = -67879, /* invalid modify mode (a legacy CSSM error) */
    errSecMissingRequiredExtension = -67880, /* missing required extension (a legacy CSSM error) */
    errSecExtendedKeyUsageNotCritical = -67881, /* extended key usage not critical (a legacy CSSM error) */
    errSecTimestampMissing = -67882, /* timestamp missing (a legacy CSSM error) */
    errSecTimestampInvalid = -67883, /* timestamp invalid (a legacy CSSM error) */
    errSecTimestampNotTrusted = -67884, /* timestamp not trusted (a legacy CSSM error) */
    errSecTimestampServiceNotAvailable = -67885, /* timestamp service not available (a legacy CSSM error) */
    errSecTimestampBadAlg = -67886, /* timestamp bad alg (a legacy CSSM error) */
    errSecTimestampBadRequest = -67887, /* timestamp bad request (a legacy CSSM error) */
    errSecTimestampBadDataFormat = -67888, /* timestamp bad data format (a legacy CSSM error) */
    errSecTimestampTimeNotAvailable = -67889, /* timestamp time not available (a legacy CSSM error) */
    errSecTimestampUnacceptedPolicy = -67890, /* timestamp unaccepted policy (a legacy CSSM error) */
    errSecTimestampUnacceptedExtension = -67891, /* timestamp unaccepted extension (a legacy CSSM error) */
    errSecTimestampAddInfoNotAvailable = -67892, /* timestamp add info not available (a legacy CSSM error) */
    errSecTimestampSystemFailure = -67893, /* timestamp system failure (a legacy CSSM error) */
    errSecSigningTimeMissing = -67894, /* signing time missing (a legacy CSSM error) */
    errSecTimestampRejection = -67895, /* timestamp rejection (a legacy CSSM error) */
    errSecTimestampWaiting = -67896, /* timestamp waiting (a legacy CSSM error) */
    errSecTimestampRevocationWarning = -67897, /* timestamp revocation warning (a legacy CSSM error) */
    errSecTimestampRevocationNotification = -67898, /* timestamp revocation notification (a legacy CSSM error) */
    errSecCertificatePolicyNotAllowed = -67899, /* certificate policy not allowed (a legacy CSSM error) */
    errSecCertificateNameNotAllowed = -67900, /* certificate name not allowed (a legacy CSSM error) */
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
    errSecAuthNeeded = -25330, /* internal: an access control list needs authentication first */
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

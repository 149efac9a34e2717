/*
    The Security runtime's definitions of what its headers declare, in the manner of the
    implementation files behind an SDK's headers: the value of every constant, how the store keeps
    each attribute, each class's primary key and the protection classes. Written for
    KeychainBridge.

    secgen reads this file with the headers (`make runtime-sources`) and renders from them the
    Security module's constants, status codes and schema table. They are committed, so that
    Security builds without libclang, and a test fails when they are stale.

    The SEC_ macros are secgen's: its stand-in headers define each as a declaration that carries
    its arguments.
*/

#include <Security/SecBase.h>
#include <Security/SecItem.h>
#include <Security/SecItemPriv.h>
#include <Security/SecAccessControl.h>
#include <Security/SecKey.h>
#include <Security/SecCertificate.h>
#include <Security/SecIdentity.h>
#include <Security/SecImportExport.h>
#include <Security/SecPolicy.h>
#include <Security/SecRandom.h>
#include <Security/SecTrust.h>

/*
    Constant values: the strings the constants stand for in dictionaries, grouped as the
    specification groups them.
*/


/* class */
SEC_CONST_DECL(kSecClass, "class");

/* class value */
SEC_CONST_DECL(kSecClassGenericPassword, "genp");
SEC_CONST_DECL(kSecClassInternetPassword, "inet");
SEC_CONST_DECL(kSecClassAppleSharePassword, "apls");
SEC_CONST_DECL(kSecClassCertificate, "cert");
SEC_CONST_DECL(kSecClassKey, "keys");
SEC_CONST_DECL(kSecClassIdentity, "idnt");

/* attr */
SEC_CONST_DECL(kSecAttrAccessible, "pdmn");
SEC_CONST_DECL(kSecAttrAccessControl, "accc");
SEC_CONST_DECL(kSecAttrAccessGroup, "agrp");
SEC_CONST_DECL(kSecAttrCreationDate, "cdat");
SEC_CONST_DECL(kSecAttrModificationDate, "mdat");
SEC_CONST_DECL(kSecAttrDescription, "desc");
SEC_CONST_DECL(kSecAttrComment, "icmt");
SEC_CONST_DECL(kSecAttrCreator, "crtr");
SEC_CONST_DECL(kSecAttrType, "type");
SEC_CONST_DECL(kSecAttrLabel, "labl");
SEC_CONST_DECL(kSecAttrIsInvisible, "invi");
SEC_CONST_DECL(kSecAttrIsNegative, "nega");
SEC_CONST_DECL(kSecAttrAccount, "acct");
SEC_CONST_DECL(kSecAttrService, "svce");
SEC_CONST_DECL(kSecAttrGeneric, "gena");
SEC_CONST_DECL(kSecAttrSecurityDomain, "sdmn");
SEC_CONST_DECL(kSecAttrServer, "srvr");
SEC_CONST_DECL(kSecAttrProtocol, "ptcl");
SEC_CONST_DECL(kSecAttrAuthenticationType, "atyp");
SEC_CONST_DECL(kSecAttrPort, "port");
SEC_CONST_DECL(kSecAttrPath, "path");
SEC_CONST_DECL(kSecAttrVolume, "volm");
SEC_CONST_DECL(kSecAttrAddress, "addr");
SEC_CONST_DECL(kSecAttrAFPServerSignature, "afps");
SEC_CONST_DECL(kSecAttrAlias, "alis");
SEC_CONST_DECL(kSecAttrSubject, "subj");
SEC_CONST_DECL(kSecAttrIssuer, "issr");
SEC_CONST_DECL(kSecAttrSerialNumber, "slnr");
SEC_CONST_DECL(kSecAttrSubjectKeyID, "skid");
SEC_CONST_DECL(kSecAttrPublicKeyHash, "pkhh");
SEC_CONST_DECL(kSecAttrCertificateType, "ctyp");
SEC_CONST_DECL(kSecAttrCertificateEncoding, "cenc");
SEC_CONST_DECL(kSecAttrKeyClass, "kcls");
SEC_CONST_DECL(kSecAttrApplicationLabel, "klbl");
SEC_CONST_DECL(kSecAttrIsPermanent, "perm");
SEC_CONST_DECL(kSecAttrIsPrivate, "priv");
SEC_CONST_DECL(kSecAttrIsModifiable, "modi");
SEC_CONST_DECL(kSecAttrApplicationTag, "atag");
SEC_CONST_DECL(kSecAttrKeyCreator, "crtr");
SEC_CONST_DECL(kSecAttrKeyType, "type");
SEC_CONST_DECL(kSecAttrKeySizeInBits, "bsiz");
SEC_CONST_DECL(kSecAttrEffectiveKeySize, "esiz");
SEC_CONST_DECL(kSecAttrStartDate, "sdat");
SEC_CONST_DECL(kSecAttrEndDate, "edat");
SEC_CONST_DECL(kSecAttrIsSensitive, "sens");
SEC_CONST_DECL(kSecAttrWasAlwaysSensitive, "asen");
SEC_CONST_DECL(kSecAttrIsExtractable, "extr");
SEC_CONST_DECL(kSecAttrWasNeverExtractable, "next");
SEC_CONST_DECL(kSecAttrCanEncrypt, "encr");
SEC_CONST_DECL(kSecAttrCanDecrypt, "decr");
SEC_CONST_DECL(kSecAttrCanDerive, "drve");
SEC_CONST_DECL(kSecAttrCanSign, "sign");
SEC_CONST_DECL(kSecAttrCanVerify, "vrfy");
SEC_CONST_DECL(kSecAttrCanSignRecover, "snrc");
SEC_CONST_DECL(kSecAttrCanVerifyRecover, "vyrc");
SEC_CONST_DECL(kSecAttrCanWrap, "wrap");
SEC_CONST_DECL(kSecAttrCanUnwrap, "unwp");
SEC_CONST_DECL(kSecAttrSyncViewHint, "vwht");
SEC_CONST_DECL(kSecAttrTokenID, "tkid");
SEC_CONST_DECL(kSecAttrScriptCode, "scrp");
SEC_CONST_DECL(kSecAttrHasCustomIcon, "cusi");
SEC_CONST_DECL(kSecAttrCRLType, "crlt");
SEC_CONST_DECL(kSecAttrCRLEncoding, "crle");
SEC_CONST_DECL(kSecAttrSynchronizable, "sync");
SEC_CONST_DECL(kSecAttrTombstone, "tomb");
SEC_CONST_DECL(kSecAttrMultiUser, "musr");
SEC_CONST_DECL(kSecAttrNoLegacy, "nleg");
SEC_CONST_DECL(kSecAttrTokenOID, "toid");
SEC_CONST_DECL(kSecAttrUUID, "UUID");
SEC_CONST_DECL(kSecAttrPersistantReference, "persistref");
SEC_CONST_DECL(kSecAttrPersistentReference, "persistref");
SEC_CONST_DECL(kSecAttrSysBound, "sysb");
SEC_CONST_DECL(kSecAttrSHA1, "sha1");
SEC_CONST_DECL(kSecAttrDeriveSyncIDFromItemAttributes, "dspk");
SEC_CONST_DECL(kSecAttrPCSPlaintextServiceIdentifier, "pcss");
SEC_CONST_DECL(kSecAttrPCSPlaintextPublicKey, "pcsk");
SEC_CONST_DECL(kSecAttrPCSPlaintextPublicIdentity, "pcsi");
SEC_CONST_DECL(kSecDataInetExtraNotes, "binn");
SEC_CONST_DECL(kSecDataInetExtraHistory, "bini");
SEC_CONST_DECL(kSecDataInetExtraClientDefined0, "bin0");
SEC_CONST_DECL(kSecDataInetExtraClientDefined1, "bin1");
SEC_CONST_DECL(kSecDataInetExtraClientDefined2, "bin2");
SEC_CONST_DECL(kSecDataInetExtraClientDefined3, "bin3");

/* value: accessGroup */
SEC_CONST_DECL(kSecAttrAccessGroupToken, "com.apple.token");

/* match */
SEC_CONST_DECL(kSecMatchPolicy, "m_Policy");
SEC_CONST_DECL(kSecMatchItemList, "m_ItemList");
SEC_CONST_DECL(kSecMatchSearchList, "m_SearchList");
SEC_CONST_DECL(kSecMatchIssuers, "m_Issuers");
SEC_CONST_DECL(kSecMatchEmailAddressIfPresent, "m_EmailAddressIfPresent");
SEC_CONST_DECL(kSecMatchSubjectContains, "m_SubjectContains");
SEC_CONST_DECL(kSecMatchHostOrSubdomainOfHost, "m_HostOrSubdomainOfHost");
SEC_CONST_DECL(kSecMatchCaseInsensitive, "m_CaseInsensitive");
SEC_CONST_DECL(kSecMatchTrustedOnly, "m_TrustedOnly");
SEC_CONST_DECL(kSecMatchValidOnDate, "m_ValidOnDate");
SEC_CONST_DECL(kSecMatchLimit, "m_Limit");

/* value: matchLimit */
SEC_CONST_DECL(kSecMatchLimitOne, "m_LimitOne");
SEC_CONST_DECL(kSecMatchLimitAll, "m_LimitAll");

/* return */
SEC_CONST_DECL(kSecReturnData, "r_Data");
SEC_CONST_DECL(kSecReturnAttributes, "r_Attributes");
SEC_CONST_DECL(kSecReturnRef, "r_Ref");
SEC_CONST_DECL(kSecReturnPersistentRef, "r_PersistentRef");

/* value */
SEC_CONST_DECL(kSecValueData, "v_Data");
SEC_CONST_DECL(kSecValueRef, "v_Ref");
SEC_CONST_DECL(kSecValuePersistentRef, "v_PersistentRef");

/* use */
SEC_CONST_DECL(kSecUseItemList, "u_ItemList");
SEC_CONST_DECL(kSecUseTombstones, "u_Tomb");
SEC_CONST_DECL(kSecUseCredentialReference, "u_CredRef");
SEC_CONST_DECL(kSecUseOperationPrompt, "u_OpPrompt");
SEC_CONST_DECL(kSecUseNoAuthenticationUI, "u_NoAuthUI");
SEC_CONST_DECL(kSecUseAuthenticationUI, "u_AuthUI");
SEC_CONST_DECL(kSecUseSystemKeychainAlways, "u_SystemKeychainAlways");
SEC_CONST_DECL(kSecUseSystemKeychainAlwaysDarwinOSOnlyUnavailableOnMacOS, "u_SystemKeychainAlways");
SEC_CONST_DECL(kSecUseSystemKeychain, "u_SystemKeychain");
SEC_CONST_DECL(kSecUseSyncBubbleKeychain, "u_SyncBubbleKeychain");
SEC_CONST_DECL(kSecUseCallerName, "u_CallerName");
SEC_CONST_DECL(kSecUseTokenRawItems, "u_TokenRawItems");
SEC_CONST_DECL(kSecUseCertificatesWithMatchIssuers, "u_CertWithIssuers");
SEC_CONST_DECL(kSecUseDataProtectionKeychain, "nleg");
SEC_CONST_DECL(kSecUseUserIndependentKeychain, "u_UserIndependentKeychain");

/* value: accessible */
SEC_CONST_DECL(kSecAttrAccessibleWhenUnlocked, "ak");
SEC_CONST_DECL(kSecAttrAccessibleAfterFirstUnlock, "ck");
SEC_CONST_DECL(kSecAttrAccessibleAlways, "dk");
SEC_CONST_DECL(kSecAttrAccessibleWhenUnlockedThisDeviceOnly, "aku");
SEC_CONST_DECL(kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, "cku");
SEC_CONST_DECL(kSecAttrAccessibleAlwaysThisDeviceOnly, "dku");
SEC_CONST_DECL(kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, "akpu");
SEC_CONST_DECL(kSecAttrAccessibleAlwaysPrivate, "dk");
SEC_CONST_DECL(kSecAttrAccessibleAlwaysThisDeviceOnlyPrivate, "dku");
SEC_CONST_DECL(kSecAttrAccessibleUntilReboot, "f");

/* value: protocol */
SEC_CONST_DECL(kSecAttrProtocolFTP, "ftp ");
SEC_CONST_DECL(kSecAttrProtocolFTPAccount, "ftpa");
SEC_CONST_DECL(kSecAttrProtocolHTTP, "http");
SEC_CONST_DECL(kSecAttrProtocolIRC, "irc ");
SEC_CONST_DECL(kSecAttrProtocolNNTP, "nntp");
SEC_CONST_DECL(kSecAttrProtocolPOP3, "pop3");
SEC_CONST_DECL(kSecAttrProtocolSMTP, "smtp");
SEC_CONST_DECL(kSecAttrProtocolSOCKS, "sox ");
SEC_CONST_DECL(kSecAttrProtocolIMAP, "imap");
SEC_CONST_DECL(kSecAttrProtocolLDAP, "ldap");
SEC_CONST_DECL(kSecAttrProtocolAppleTalk, "atlk");
SEC_CONST_DECL(kSecAttrProtocolAFP, "afp ");
SEC_CONST_DECL(kSecAttrProtocolTelnet, "teln");
SEC_CONST_DECL(kSecAttrProtocolSSH, "ssh ");
SEC_CONST_DECL(kSecAttrProtocolFTPS, "ftps");
SEC_CONST_DECL(kSecAttrProtocolHTTPS, "htps");
SEC_CONST_DECL(kSecAttrProtocolHTTPProxy, "htpx");
SEC_CONST_DECL(kSecAttrProtocolHTTPSProxy, "htsx");
SEC_CONST_DECL(kSecAttrProtocolFTPProxy, "ftpx");
SEC_CONST_DECL(kSecAttrProtocolSMB, "smb ");
SEC_CONST_DECL(kSecAttrProtocolRTSP, "rtsp");
SEC_CONST_DECL(kSecAttrProtocolRTSPProxy, "rtsx");
SEC_CONST_DECL(kSecAttrProtocolDAAP, "daap");
SEC_CONST_DECL(kSecAttrProtocolEPPC, "eppc");
SEC_CONST_DECL(kSecAttrProtocolIPP, "ipp ");
SEC_CONST_DECL(kSecAttrProtocolNNTPS, "ntps");
SEC_CONST_DECL(kSecAttrProtocolLDAPS, "ldps");
SEC_CONST_DECL(kSecAttrProtocolTelnetS, "tels");
SEC_CONST_DECL(kSecAttrProtocolIMAPS, "imps");
SEC_CONST_DECL(kSecAttrProtocolIRCS, "ircs");
SEC_CONST_DECL(kSecAttrProtocolPOP3S, "pops");

/* value: authType */
SEC_CONST_DECL(kSecAttrAuthenticationTypeNTLM, "ntlm");
SEC_CONST_DECL(kSecAttrAuthenticationTypeMSN, "msna");
SEC_CONST_DECL(kSecAttrAuthenticationTypeDPA, "dpaa");
SEC_CONST_DECL(kSecAttrAuthenticationTypeRPA, "rpaa");
SEC_CONST_DECL(kSecAttrAuthenticationTypeHTTPBasic, "http");
SEC_CONST_DECL(kSecAttrAuthenticationTypeHTTPDigest, "httd");
SEC_CONST_DECL(kSecAttrAuthenticationTypeHTMLForm, "form");
SEC_CONST_DECL(kSecAttrAuthenticationTypeDefault, "dflt");

/* value: keyClass */
SEC_CONST_DECL(kSecAttrKeyClassPublic, "0");
SEC_CONST_DECL(kSecAttrKeyClassPrivate, "1");
SEC_CONST_DECL(kSecAttrKeyClassSymmetric, "2");

/* value: keyType */
SEC_CONST_DECL(kSecAttrKeyTypeRSA, "42");
SEC_CONST_DECL(kSecAttrKeyTypeEC, "73");
SEC_CONST_DECL(kSecAttrKeyTypeECSECPrimeRandom, "73");
SEC_CONST_DECL(kSecAttrKeyTypeECSECPrimeRandomPKA, "2147483678");
SEC_CONST_DECL(kSecAttrKeyTypeSecureEnclaveAttestation, "2147483679");
SEC_CONST_DECL(kSecAttrKeyTypeSecureEnclaveAnonymousAttestation, "2147483680");
SEC_CONST_DECL(kSecAttrKeyTypeEd25519, "105");
SEC_CONST_DECL(kSecAttrKeyTypeX25519, "106");
SEC_CONST_DECL(kSecAttrKeyTypeEd448, "107");
SEC_CONST_DECL(kSecAttrKeyTypeX448, "108");
SEC_CONST_DECL(kSecAttrKeyTypeKyber, "109");
SEC_CONST_DECL(kSecAttrKeyTypeMLKEM, "110");
SEC_CONST_DECL(kSecAttrKeyTypeMLDSA, "111");

/* value: keySize */
SEC_CONST_DECL(kSecAttrKeySizeKyber768, "768");
SEC_CONST_DECL(kSecAttrKeySizeKyber1024, "1024");
SEC_CONST_DECL(kSecAttrKeySizeMLKEM768, "768");
SEC_CONST_DECL(kSecAttrKeySizeMLKEM1024, "1024");
SEC_CONST_DECL(kSecAttrKeySizeMLDSA65, "65");
SEC_CONST_DECL(kSecAttrKeySizeMLDSA87, "87");

/* value: synchronizable */
SEC_CONST_DECL(kSecAttrSynchronizableAny, "syna");

/* other */
SEC_CONST_DECL(kSecPrivateKeyAttrs, "private");
SEC_CONST_DECL(kSecPublicKeyAttrs, "public");
SEC_CONST_DECL(kSecKeyApplePayEnabled, "applepay");
SEC_CONST_DECL(kSecKeyOSBound, "osbound");
SEC_CONST_DECL(kSecKeySealedHashesBound, "sealedhashesbound");

/* attr */
SEC_CONST_DECL(kSecAttrSecureEnclaveKeyBlob, "toid");

/* other */
SEC_CONST_DECL(kSecPasswordMaxLength, "PasswordMaxLength");
SEC_CONST_DECL(kSecPasswordMinLength, "PasswordMaxLength");
SEC_CONST_DECL(kSecPasswordAllowedCharacters, "PasswordAllowedCharacters");
SEC_CONST_DECL(kSecPasswordRequiredCharacters, "PasswordRequiredCharacters");
SEC_CONST_DECL(kSecSharedPassword, "spwd");

/* value: authenticationUI */
SEC_CONST_DECL(kSecUseAuthenticationUIAllow, "u_AuthUIA");
SEC_CONST_DECL(kSecUseAuthenticationUIFail, "u_AuthUIF");
SEC_CONST_DECL(kSecUseAuthenticationUISkip, "u_AuthUIS");

/* use */
SEC_CONST_DECL(kSecUseAuthenticationContext, "u_AuthCtx");

/* value: tokenID */
SEC_CONST_DECL(kSecAttrTokenIDSecureEnclave, "com.apple.setoken");
SEC_CONST_DECL(kSecAttrTokenIDAppleKeyStore, "com.apple.setoken:aks");
SEC_CONST_DECL(kSecAttrTokenIDSecureElement, "com.apple.secelemtoken");

/* value: accessGroup */
SEC_CONST_DECL(kSOSInternalAccessGroup, "com.apple.security.sos");

/* attr */
SEC_CONST_DECL(kSecAttrSharingGroup, "ggrp");

/* value: sharingGroup */
SEC_CONST_DECL(kSecAttrSharingGroupNone, "");

/* attr */
SEC_CONST_DECL(kSecAttrAccess, "acls");
SEC_CONST_DECL(kSecAttrPRF, "prf");
SEC_CONST_DECL(kSecAttrSalt, "salt");
SEC_CONST_DECL(kSecAttrRounds, "rounds");

/* match */
SEC_CONST_DECL(kSecMatchSubjectStartsWith, "m_SubjectStartsWith");
SEC_CONST_DECL(kSecMatchSubjectEndsWith, "m_SubjectEndsWith");
SEC_CONST_DECL(kSecMatchSubjectWholeString, "m_SubjectWholeString");
SEC_CONST_DECL(kSecMatchDiacriticInsensitive, "m_DiacriticInsensitive");
SEC_CONST_DECL(kSecMatchWidthInsensitive, "m_WidthInsensitive");

/* use */
SEC_CONST_DECL(kSecUseKeychain, "u_Keychain");

/* value: keyType */
SEC_CONST_DECL(kSecAttrKeyTypeDES, "14");
SEC_CONST_DECL(kSecAttrKeyType3DES, "17");
SEC_CONST_DECL(kSecAttrKeyTypeRC2, "23");
SEC_CONST_DECL(kSecAttrKeyTypeRC4, "25");
SEC_CONST_DECL(kSecAttrKeyTypeDSA, "43");
SEC_CONST_DECL(kSecAttrKeyTypeCAST, "56");
SEC_CONST_DECL(kSecAttrKeyTypeECDSA, "73");
SEC_CONST_DECL(kSecAttrKeyTypeAES, "2147483649");

/* value: prf */
SEC_CONST_DECL(kSecAttrPRFHmacAlgSHA1, "hsha1");
SEC_CONST_DECL(kSecAttrPRFHmacAlgSHA224, "hsha224");
SEC_CONST_DECL(kSecAttrPRFHmacAlgSHA256, "hsha256");
SEC_CONST_DECL(kSecAttrPRFHmacAlgSHA384, "hsha384");
SEC_CONST_DECL(kSecAttrPRFHmacAlgSHA512, "hsha512");

/* other */
SEC_CONST_DECL(kSecSymmetricKeyAttrs, "symmetric");

/* key algorithm (SecKey.h) */
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureRaw, "algid:sign:RSA:raw");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw, "algid:sign:RSA:digest-PKCS1v15");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1, "algid:sign:RSA:digest-PKCS1v15:SHA1");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224, "algid:sign:RSA:digest-PKCS1v15:SHA224");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256, "algid:sign:RSA:digest-PKCS1v15:SHA256");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384, "algid:sign:RSA:digest-PKCS1v15:SHA384");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512, "algid:sign:RSA:digest-PKCS1v15:SHA512");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureDigestPSSSHA1, "algid:sign:RSA:digest-PSS:SHA1:SHA1:20");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureDigestPSSSHA224, "algid:sign:RSA:digest-PSS:SHA224:SHA224:24");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureDigestPSSSHA256, "algid:sign:RSA:digest-PSS:SHA256:SHA256:32");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureDigestPSSSHA384, "algid:sign:RSA:digest-PSS:SHA384:SHA384:48");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureDigestPSSSHA512, "algid:sign:RSA:digest-PSS:SHA512:SHA512:64");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1, "algid:sign:RSA:message-PKCS1v15:SHA1");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224, "algid:sign:RSA:message-PKCS1v15:SHA224");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256, "algid:sign:RSA:message-PKCS1v15:SHA256");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384, "algid:sign:RSA:message-PKCS1v15:SHA384");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512, "algid:sign:RSA:message-PKCS1v15:SHA512");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureMessagePSSSHA1, "algid:sign:RSA:message-PSS:SHA1:SHA1:20");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureMessagePSSSHA224, "algid:sign:RSA:message-PSS:SHA224:SHA224:24");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureMessagePSSSHA256, "algid:sign:RSA:message-PSS:SHA256:SHA256:32");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureMessagePSSSHA384, "algid:sign:RSA:message-PSS:SHA384:SHA384:48");
SEC_CONST_DECL(kSecKeyAlgorithmRSASignatureMessagePSSSHA512, "algid:sign:RSA:message-PSS:SHA512:SHA512:64");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureRFC4754, "algid:sign:ECDSA:RFC4754");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestRFC4754, "algid:sign:ECDSA:digest-RFC4754");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA1, "algid:sign:ECDSA:digest-RFC4754:SHA1");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA224, "algid:sign:ECDSA:digest-RFC4754:SHA224");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA256, "algid:sign:ECDSA:digest-RFC4754:SHA256");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA384, "algid:sign:ECDSA:digest-RFC4754:SHA384");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA512, "algid:sign:ECDSA:digest-RFC4754:SHA512");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA1, "algid:sign:ECDSA:message-RFC4754:SHA1");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA224, "algid:sign:ECDSA:message-RFC4754:SHA224");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA256, "algid:sign:ECDSA:message-RFC4754:SHA256");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA384, "algid:sign:ECDSA:message-RFC4754:SHA384");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA512, "algid:sign:ECDSA:message-RFC4754:SHA512");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestX962, "algid:sign:ECDSA:digest-X962");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestX962SHA1, "algid:sign:ECDSA:digest-X962:SHA1");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestX962SHA224, "algid:sign:ECDSA:digest-X962:SHA224");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestX962SHA256, "algid:sign:ECDSA:digest-X962:SHA256");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestX962SHA384, "algid:sign:ECDSA:digest-X962:SHA384");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureDigestX962SHA512, "algid:sign:ECDSA:digest-X962:SHA512");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureMessageX962SHA1, "algid:sign:ECDSA:message-X962:SHA1");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureMessageX962SHA224, "algid:sign:ECDSA:message-X962:SHA224");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureMessageX962SHA256, "algid:sign:ECDSA:message-X962:SHA256");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureMessageX962SHA384, "algid:sign:ECDSA:message-X962:SHA384");
SEC_CONST_DECL(kSecKeyAlgorithmECDSASignatureMessageX962SHA512, "algid:sign:ECDSA:message-X962:SHA512");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionRaw, "algid:encrypt:RSA:raw");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionPKCS1, "algid:encrypt:RSA:PKCS1");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionOAEPSHA1, "algid:encrypt:RSA:OAEP:SHA1");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionOAEPSHA224, "algid:encrypt:RSA:OAEP:SHA224");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionOAEPSHA256, "algid:encrypt:RSA:OAEP:SHA256");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionOAEPSHA384, "algid:encrypt:RSA:OAEP:SHA384");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionOAEPSHA512, "algid:encrypt:RSA:OAEP:SHA512");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM, "algid:encrypt:RSA:OAEP:SHA1:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionOAEPSHA224AESGCM, "algid:encrypt:RSA:OAEP:SHA224:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM, "algid:encrypt:RSA:OAEP:SHA256:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM, "algid:encrypt:RSA:OAEP:SHA384:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM, "algid:encrypt:RSA:OAEP:SHA512:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV");
SEC_CONST_DECL(kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeStandard, "algid:keyexchange:ECDH");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1, "algid:keyexchange:ECDH:KDFX963:SHA1");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224, "algid:keyexchange:ECDH:KDFX963:SHA224");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256, "algid:keyexchange:ECDH:KDFX963:SHA256");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384, "algid:keyexchange:ECDH:KDFX963:SHA384");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512, "algid:keyexchange:ECDH:KDFX963:SHA512");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeCofactor, "algid:keyexchange:ECDHC");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1, "algid:keyexchange:ECDHC:KDFX963:SHA1");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224, "algid:keyexchange:ECDHC:KDFX963:SHA224");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256, "algid:keyexchange:ECDHC:KDFX963:SHA256");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384, "algid:keyexchange:ECDHC:KDFX963:SHA384");
SEC_CONST_DECL(kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512, "algid:keyexchange:ECDHC:KDFX963:SHA512");

/* PKCS#12 import (SecImportExport.h) */
SEC_CONST_DECL(kSecImportExportPassphrase, "passphrase");
SEC_CONST_DECL(kSecImportExportKeychain, "keychain");
SEC_CONST_DECL(kSecImportExportAccess, "access");
SEC_CONST_DECL(kSecImportToMemoryOnly, "memory");
SEC_CONST_DECL(kSecImportItemLabel, "label");
SEC_CONST_DECL(kSecImportItemKeyID, "keyid");
SEC_CONST_DECL(kSecImportItemTrust, "trust");
SEC_CONST_DECL(kSecImportItemCertChain, "chain");
SEC_CONST_DECL(kSecImportItemIdentity, "identity");

/* certificate trust (SecPolicy.h, SecTrust.h): Apple's values */
SEC_CONST_DECL(kSecPolicyAppleX509Basic, "1.2.840.113635.100.1.2");
SEC_CONST_DECL(kSecPolicyAppleSSL, "1.2.840.113635.100.1.3");
SEC_CONST_DECL(kSecPolicyAppleRevocation, "1.2.840.113635.100.1.21");
SEC_CONST_DECL(kSecPolicyOid, "SecPolicyOid");
SEC_CONST_DECL(kSecPolicyName, "SecPolicyName");
SEC_CONST_DECL(kSecPolicyClient, "SecPolicyClient");
SEC_CONST_DECL(kSecPolicyRevocationFlags, "SecPolicyRevocationFlags");
SEC_CONST_DECL(kSecTrustEvaluationDate, "TrustEvaluationDate");
SEC_CONST_DECL(kSecTrustExtendedValidation, "TrustExtendedValidation");
SEC_CONST_DECL(kSecTrustOrganizationName, "Organization");
SEC_CONST_DECL(kSecTrustResultValue, "TrustResultValue");
SEC_CONST_DECL(kSecTrustRevocationChecked, "TrustRevocationChecked");
SEC_CONST_DECL(kSecTrustRevocationValidUntilDate, "TrustExpirationDate");

/* key exchange parameter (SecKey.h) */
SEC_CONST_DECL(kSecKeyKeyExchangeParameterRequestedSize, "requestedSize");
SEC_CONST_DECL(kSecKeyKeyExchangeParameterSharedInfo, "sharedInfo");

/*
    How the store keeps each attribute (rule 1.1): its kind, and who sets it (rule 2.2).

    Kinds: blob keeps the caller's type and compares bytes (rule 9.4); data and string convert to
    Data and to String; number takes numbers, booleans and numeric strings (rule 9.5);
    synchronizable takes a boolean, a number or a string; date takes dates only; accessibility
    takes one of the kSecAttrAccessible values; accessControl takes a SecAccessControl, which is
    kept apart from the other attributes.

    Owners: caller; storeDates (ignored on add, errSecParam in an update: decision 7); system (set
    by the store, ignored from callers); unsupported (a macOS legacy name: errSecParam).

    Every attribute of a class table is listed, here or as SEC_ATTR_NOT_STORED: the persistent
    reference (and its misspelt alias) is an item's identity, returned through kSecValuePersistentRef,
    not an attribute.
*/

SEC_ATTR(kSecAttrAccessible, accessibility, caller);
SEC_ATTR(kSecAttrAccessControl, accessControl, caller);
SEC_ATTR(kSecAttrAccessGroup, string, caller);
SEC_ATTR(kSecAttrCreationDate, date, storeDates);
SEC_ATTR(kSecAttrModificationDate, date, storeDates);
SEC_ATTR(kSecAttrDescription, blob, caller);
SEC_ATTR(kSecAttrComment, blob, caller);
SEC_ATTR(kSecAttrCreator, number, caller);
SEC_ATTR(kSecAttrType, number, caller);
SEC_ATTR(kSecAttrLabel, blob, caller);
SEC_ATTR(kSecAttrIsInvisible, number, caller);
SEC_ATTR(kSecAttrIsNegative, number, caller);
SEC_ATTR(kSecAttrAccount, blob, caller);
SEC_ATTR(kSecAttrAlias, blob, caller);
SEC_ATTR(kSecAttrSyncViewHint, string, caller);
SEC_ATTR(kSecAttrTokenID, string, caller);
SEC_ATTR(kSecAttrScriptCode, number, caller);
SEC_ATTR(kSecAttrHasCustomIcon, number, caller);
SEC_ATTR(kSecAttrSynchronizable, synchronizable, caller);
SEC_ATTR(kSecAttrTombstone, number, system);
SEC_ATTR(kSecAttrMultiUser, data, system);
SEC_ATTR(kSecAttrUUID, string, system);
SEC_ATTR(kSecAttrSysBound, number, caller);
SEC_ATTR(kSecAttrSHA1, data, system);
SEC_ATTR(kSecAttrPCSPlaintextServiceIdentifier, number, caller);
SEC_ATTR(kSecAttrPCSPlaintextPublicKey, data, caller);
SEC_ATTR(kSecAttrPCSPlaintextPublicIdentity, data, caller);
SEC_ATTR(kSecAttrSharingGroup, string, caller);
SEC_ATTR(kSecAttrAccess, blob, unsupported);
SEC_ATTR(kSecAttrService, blob, caller);
SEC_ATTR(kSecAttrGeneric, blob, caller);
SEC_ATTR(kSecAttrSecurityDomain, blob, caller);
SEC_ATTR(kSecAttrServer, blob, caller);
SEC_ATTR(kSecAttrProtocol, number, caller);
SEC_ATTR(kSecAttrAuthenticationType, blob, caller);
SEC_ATTR(kSecAttrPort, number, caller);
SEC_ATTR(kSecAttrPath, blob, caller);
SEC_ATTR(kSecDataInetExtraNotes, blob, caller);
SEC_ATTR(kSecDataInetExtraHistory, blob, caller);
SEC_ATTR(kSecDataInetExtraClientDefined0, blob, caller);
SEC_ATTR(kSecDataInetExtraClientDefined1, blob, caller);
SEC_ATTR(kSecDataInetExtraClientDefined2, blob, caller);
SEC_ATTR(kSecDataInetExtraClientDefined3, blob, caller);
SEC_ATTR(kSecAttrKeyClass, number, caller);
SEC_ATTR(kSecAttrApplicationLabel, data, caller);
SEC_ATTR(kSecAttrApplicationTag, blob, caller);
SEC_ATTR(kSecAttrKeyType, number, caller);
SEC_ATTR(kSecAttrKeyCreator, number, caller);
SEC_ATTR(kSecAttrKeySizeInBits, number, caller);
SEC_ATTR(kSecAttrEffectiveKeySize, number, caller);
SEC_ATTR(kSecAttrStartDate, date, caller);
SEC_ATTR(kSecAttrEndDate, date, caller);
SEC_ATTR(kSecAttrIsPermanent, number, caller);
SEC_ATTR(kSecAttrIsPrivate, number, caller);
SEC_ATTR(kSecAttrIsModifiable, number, caller);
SEC_ATTR(kSecAttrIsSensitive, number, caller);
SEC_ATTR(kSecAttrWasAlwaysSensitive, number, caller);
SEC_ATTR(kSecAttrIsExtractable, number, caller);
SEC_ATTR(kSecAttrWasNeverExtractable, number, caller);
SEC_ATTR(kSecAttrCanEncrypt, number, caller);
SEC_ATTR(kSecAttrCanDecrypt, number, caller);
SEC_ATTR(kSecAttrCanDerive, number, caller);
SEC_ATTR(kSecAttrCanSign, number, caller);
SEC_ATTR(kSecAttrCanVerify, number, caller);
SEC_ATTR(kSecAttrCanSignRecover, number, caller);
SEC_ATTR(kSecAttrCanVerifyRecover, number, caller);
SEC_ATTR(kSecAttrCanWrap, number, caller);
SEC_ATTR(kSecAttrCanUnwrap, number, caller);
SEC_ATTR(kSecAttrCertificateType, number, caller);
SEC_ATTR(kSecAttrCertificateEncoding, number, caller);
SEC_ATTR(kSecAttrSubject, data, caller);
SEC_ATTR(kSecAttrIssuer, data, caller);
SEC_ATTR(kSecAttrSerialNumber, data, caller);
SEC_ATTR(kSecAttrSubjectKeyID, data, caller);
SEC_ATTR(kSecAttrPublicKeyHash, data, caller);
SEC_ATTR(kSecAttrPRF, blob, unsupported);
SEC_ATTR(kSecAttrSalt, blob, unsupported);
SEC_ATTR(kSecAttrRounds, number, unsupported);
SEC_ATTR_NOT_STORED(kSecAttrPersistentReference);
SEC_ATTR_NOT_STORED(kSecAttrPersistantReference);

/*
    Primary keys (rule 2.1), in order, with the value an add gives a key the caller leaves out
    (SEC_NO_DEFAULT: none, the key stays absent). Besides these, the access group and the
    synchronizable flag are part of every class's key. A class with a primary key is one the
    store keeps; the others answer errSecUnimplemented.
*/

SEC_PRIMARY_KEY(kSecClassGenericPassword, kSecAttrAccount, "");
SEC_PRIMARY_KEY(kSecClassGenericPassword, kSecAttrService, "");
SEC_PRIMARY_KEY(kSecClassGenericPassword, kSecAttrSyncViewHint, SEC_NO_DEFAULT);
SEC_PRIMARY_KEY(kSecClassGenericPassword, kSecAttrTokenID, SEC_NO_DEFAULT);
SEC_PRIMARY_KEY(kSecClassGenericPassword, kSecAttrSharingGroup, SEC_NO_DEFAULT);

SEC_PRIMARY_KEY(kSecClassInternetPassword, kSecAttrAccount, "");
SEC_PRIMARY_KEY(kSecClassInternetPassword, kSecAttrSecurityDomain, "");
SEC_PRIMARY_KEY(kSecClassInternetPassword, kSecAttrServer, "");
SEC_PRIMARY_KEY(kSecClassInternetPassword, kSecAttrProtocol, 0);
SEC_PRIMARY_KEY(kSecClassInternetPassword, kSecAttrAuthenticationType, "");
SEC_PRIMARY_KEY(kSecClassInternetPassword, kSecAttrPort, 0);
SEC_PRIMARY_KEY(kSecClassInternetPassword, kSecAttrPath, "");
SEC_PRIMARY_KEY(kSecClassInternetPassword, kSecAttrSyncViewHint, SEC_NO_DEFAULT);
SEC_PRIMARY_KEY(kSecClassInternetPassword, kSecAttrTokenID, SEC_NO_DEFAULT);
SEC_PRIMARY_KEY(kSecClassInternetPassword, kSecAttrSharingGroup, SEC_NO_DEFAULT);

/* Certificates (keys rule 7.16): type, issuer and serial number. */
SEC_PRIMARY_KEY(kSecClassCertificate, kSecAttrCertificateType, 0);
SEC_PRIMARY_KEY(kSecClassCertificate, kSecAttrIssuer, "");
SEC_PRIMARY_KEY(kSecClassCertificate, kSecAttrSerialNumber, "");
SEC_PRIMARY_KEY(kSecClassCertificate, kSecAttrSyncViewHint, SEC_NO_DEFAULT);
SEC_PRIMARY_KEY(kSecClassCertificate, kSecAttrTokenID, SEC_NO_DEFAULT);
SEC_PRIMARY_KEY(kSecClassCertificate, kSecAttrSharingGroup, SEC_NO_DEFAULT);

/* Keys (keys rule 6.2): the usage flags, label and protection are not part of it. */
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrKeyClass, 0);
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrApplicationLabel, "");
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrApplicationTag, "");
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrKeyCreator, 0);
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrKeyType, 0);
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrKeySizeInBits, 0);
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrEffectiveKeySize, 0);
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrStartDate, SEC_NO_DEFAULT);
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrEndDate, SEC_NO_DEFAULT);
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrSyncViewHint, SEC_NO_DEFAULT);
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrTokenID, SEC_NO_DEFAULT);
SEC_PRIMARY_KEY(kSecClassKey, kSecAttrSharingGroup, SEC_NO_DEFAULT);

/*
    Protection classes (rule 12): when the data of items with each kSecAttrAccessible value can be
    read or written. The first is the protection of a new item that names none (rule 2.2).
*/

SEC_PROTECTION(kSecAttrAccessibleWhenUnlocked, whenUnlocked);
SEC_PROTECTION(kSecAttrAccessibleAfterFirstUnlock, afterFirstUnlock);
SEC_PROTECTION(kSecAttrAccessibleAlways, always);
SEC_PROTECTION(kSecAttrAccessibleWhenUnlockedThisDeviceOnly, whenUnlocked);
SEC_PROTECTION(kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, afterFirstUnlock);
SEC_PROTECTION(kSecAttrAccessibleAlwaysThisDeviceOnly, always);
SEC_PROTECTION(kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, whenPasscodeSet);

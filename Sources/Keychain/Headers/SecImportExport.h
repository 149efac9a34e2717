/*!
    @header SecImportExport
    Declarations of PKCS#12 import in the style of Apple's SecImportExport: the options and result
    keys of SecPKCS12Import. Written for KeychainBridge; secgen reads this file and the Security
    module implements it over OpenSSL 3.
*/

#ifndef _KEYCHAINBRIDGE_SECIMPORTEXPORT_H_
#define _KEYCHAINBRIDGE_SECIMPORTEXPORT_H_

#include <Security/SecBase.h>
#include <CoreFoundation/CFArray.h>
#include <CoreFoundation/CFData.h>
#include <CoreFoundation/CFDictionary.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @enum Import Option Constants
    @discussion The keys of SecPKCS12Import's options dictionary.
    @constant kSecImportExportPassphrase The file's passphrase, a value of type CFStringRef; none means the empty passphrase.
    @constant kSecImportExportKeychain A macOS file keychain to import into; ignored here.
    @constant kSecImportExportAccess A macOS access object for the imported items; ignored here.
    @constant kSecImportToMemoryOnly Whether macOS keeps the import in memory, a value of type CFBooleanRef; imports stay in memory here unless kSecUseDataProtectionKeychain is true.
*/
extern const CFStringRef kSecImportExportPassphrase
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecImportExportKeychain
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecImportExportAccess
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecImportToMemoryOnly
    API_AVAILABLE(macos(15.0), ios(18.0));

/*!
    @enum Import Item Constants
    @discussion The keys of each dictionary of SecPKCS12Import's result.
    @constant kSecImportItemLabel The friendly name of the file's key, a value of type CFStringRef.
    @constant kSecImportItemKeyID The local key ID of the file's key, a value of type CFDataRef.
    @constant kSecImportItemTrust The trust of the identity's certificate; not returned here, for want of SecTrust.
    @constant kSecImportItemCertChain The identity's certificate then the file's other certificates, a value of type CFArrayRef.
    @constant kSecImportItemIdentity The identity: the certificate and its private key.
*/
extern const CFStringRef kSecImportItemLabel
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecImportItemKeyID
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecImportItemTrust
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecImportItemCertChain
    API_AVAILABLE(macos(10.6), ios(2.0));
extern const CFStringRef kSecImportItemIdentity
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecPKCS12Import
    @abstract Reads the identities of a PKCS#12 file.
    @param pkcs12_data The file's bytes.
    @param options kSecImportExportPassphrase, and kSecUseDataProtectionKeychain to add the identities and their certificates to the keychain.
    @param items Receives an array with a dictionary per identity.
    @result errSecSuccess, errSecAuthFailed for a wrong passphrase, or errSecDecode for a file that is not PKCS#12 or whose key does not match its certificate.
*/
OSStatus SecPKCS12Import(CFDataRef pkcs12_data, CFDictionaryRef options,
    CFArrayRef * __nonnull CF_RETURNS_RETAINED items)
    API_AVAILABLE(macos(10.6), ios(2.0));

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif /* !_KEYCHAINBRIDGE_SECIMPORTEXPORT_H_ */

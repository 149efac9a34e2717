/*!
    @header SecIdentity
    Declarations of identities in the style of Apple's SecIdentity: a certificate together with the
    private key that matches it. Written for KeychainBridge; secgen reads this file and the Security
    module implements it.
*/

#ifndef _KEYCHAINBRIDGE_SECIDENTITY_H_
#define _KEYCHAINBRIDGE_SECIDENTITY_H_

#include <Security/SecBase.h>
#include <CoreFoundation/CFBase.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @function SecIdentityGetTypeID
    @abstract The Core Foundation type identifier of identities.
    @result The type identifier.
*/
CFTypeID SecIdentityGetTypeID(void)
    API_AVAILABLE(macos(10.3), ios(2.0));

/*!
    @function SecIdentityCreate
    @abstract Makes an identity from a certificate and the private key of its public key.
    @param allocator The allocator to use; pass NULL (kCFAllocatorDefault).
    @param certificate The certificate.
    @param privateKey The private key whose public key is the certificate's.
    @result The identity, or NULL when the key does not match the certificate.
*/
__nullable
SecIdentityRef SecIdentityCreate(CFAllocatorRef __nullable allocator, SecCertificateRef certificate,
    SecKeyRef privateKey)
    API_AVAILABLE(macos(10.12), ios(11.2));

/*!
    @function SecIdentityCopyCertificate
    @abstract The certificate of an identity.
    @param identityRef The identity.
    @param certificateRef Receives the certificate.
    @result errSecSuccess.
*/
OSStatus SecIdentityCopyCertificate(SecIdentityRef identityRef,
    SecCertificateRef * __nonnull CF_RETURNS_RETAINED certificateRef)
    API_AVAILABLE(macos(10.3), ios(2.0));

/*!
    @function SecIdentityCopyPrivateKey
    @abstract The private key of an identity.
    @param identityRef The identity.
    @param privateKeyRef Receives the private key.
    @result errSecSuccess.
*/
OSStatus SecIdentityCopyPrivateKey(SecIdentityRef identityRef,
    SecKeyRef * __nonnull CF_RETURNS_RETAINED privateKeyRef)
    API_AVAILABLE(macos(10.3), ios(2.0));

#if SEC_OS_OSX
/*!
    @function SecIdentityCreateWithCertificate
    @abstract Finds the private key of a certificate's public key in the keychain and makes the identity.
    @param keychainOrArray The macOS file keychains to search; NULL for the keychain (the only value here).
    @param certificateRef The certificate.
    @param identityRef Receives the identity.
    @result errSecSuccess, errSecItemNotFound when no key matches, or errSecParam for keychains given.
*/
OSStatus SecIdentityCreateWithCertificate(CFTypeRef __nullable keychainOrArray, SecCertificateRef certificateRef,
    SecIdentityRef * __nonnull CF_RETURNS_RETAINED identityRef)
    API_AVAILABLE(macos(10.5)) API_UNAVAILABLE(ios, watchos, tvos);
#endif /* SEC_OS_OSX */

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif /* !_KEYCHAINBRIDGE_SECIDENTITY_H_ */

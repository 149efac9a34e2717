/*!
    @header SecCertificate
    Declarations of X.509 certificates in the style of Apple's SecCertificate: made from DER, and
    read for their subject, email addresses, serial number, key and validity. Written for
    KeychainBridge; secgen reads this file and the Security module implements it.
*/

#ifndef _KEYCHAINBRIDGE_SECCERTIFICATE_H_
#define _KEYCHAINBRIDGE_SECCERTIFICATE_H_

#include <Security/SecBase.h>
#include <CoreFoundation/CFArray.h>
#include <CoreFoundation/CFData.h>
#include <CoreFoundation/CFDate.h>
#include <CoreFoundation/CFError.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @function SecCertificateGetTypeID
    @abstract The Core Foundation type identifier of certificates.
    @result The type identifier.
*/
CFTypeID SecCertificateGetTypeID(void)
    API_AVAILABLE(macos(10.3), ios(2.0));

/*!
    @function SecCertificateCreateWithData
    @abstract Makes a certificate from its DER bytes.
    @param allocator The allocator to use; pass NULL (kCFAllocatorDefault).
    @param data One DER-encoded X.509 certificate; bytes after it are dropped.
    @result The certificate, or NULL for PEM, junk or a certificate that does not parse.
*/
__nullable
SecCertificateRef SecCertificateCreateWithData(CFAllocatorRef __nullable allocator, CFDataRef data)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecCertificateCopyData
    @abstract The certificate's DER bytes.
    @param certificate The certificate.
    @result The DER bytes.
*/
CFDataRef SecCertificateCopyData(SecCertificateRef certificate)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecCertificateCopySubjectSummary
    @abstract A human-readable summary of the certificate's subject.
    @param certificate The certificate.
    @result Its common names, else an email address or DNS name, else its organizational units or organizations; NULL when the subject cannot be read.
*/
__nullable
CFStringRef SecCertificateCopySubjectSummary(SecCertificateRef certificate)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecCertificateCopyCommonName
    @abstract The last common name of the certificate's subject.
    @param certificate The certificate.
    @param commonName Receives the common name.
    @result errSecSuccess, or errSecInternal when the subject has no common name.
*/
OSStatus SecCertificateCopyCommonName(SecCertificateRef certificate,
    CFStringRef * __nonnull CF_RETURNS_RETAINED commonName)
    API_AVAILABLE(macos(10.5), ios(10.3));

/*!
    @function SecCertificateCopyEmailAddresses
    @abstract The certificate's email addresses: the subjectAltName ones, then the subject's.
    @param certificate The certificate.
    @param emailAddresses Receives the addresses, an empty array when there are none.
    @result errSecSuccess.
*/
OSStatus SecCertificateCopyEmailAddresses(SecCertificateRef certificate,
    CFArrayRef * __nonnull CF_RETURNS_RETAINED emailAddresses)
    API_AVAILABLE(macos(10.5), ios(10.3));

/*!
    @function SecCertificateCopyKey
    @abstract The certificate's public key.
    @param certificate The certificate.
    @result The key, or NULL for a key that is neither RSA nor EC on a NIST curve.
*/
__nullable
SecKeyRef SecCertificateCopyKey(SecCertificateRef certificate)
    API_AVAILABLE(macos(10.14), ios(12.0));

/*!
    @function SecCertificateCopySerialNumberData
    @abstract The content octets of the certificate's serial number, a leading zero byte kept.
    @param certificate The certificate.
    @param error On failure, a CFError whose code is the status. Pass NULL to ignore it.
    @result The serial number's bytes, or NULL on failure.
*/
__nullable
CFDataRef SecCertificateCopySerialNumberData(SecCertificateRef certificate, CFErrorRef __nullable * __nullable error)
    API_AVAILABLE(macos(10.13), ios(11.0));

/*!
    @function SecCertificateCopyNotValidBeforeDate
    @abstract When the certificate's validity begins.
    @param certificate The certificate.
    @result The date, or NULL when it cannot be read.
*/
__nullable
CFDateRef SecCertificateCopyNotValidBeforeDate(SecCertificateRef certificate)
    API_AVAILABLE(macos(15.0), ios(18.0));

/*!
    @function SecCertificateCopyNotValidAfterDate
    @abstract When the certificate's validity ends.
    @param certificate The certificate.
    @result The date, or NULL when it cannot be read.
*/
__nullable
CFDateRef SecCertificateCopyNotValidAfterDate(SecCertificateRef certificate)
    API_AVAILABLE(macos(15.0), ios(18.0));

/*!
    @function SecCertificateCopyNormalizedIssuerSequence
    @abstract The certificate's issuer name, normalized as the keychain compares names (kSecAttrIssuer).
    @param certificate The certificate.
    @result The DER of the normalized name, or NULL when it cannot be read.
*/
__nullable
CFDataRef SecCertificateCopyNormalizedIssuerSequence(SecCertificateRef certificate)
    API_AVAILABLE(macos(10.12.4), ios(10.3));

/*!
    @function SecCertificateCopyNormalizedSubjectSequence
    @abstract The certificate's subject name, normalized as the keychain compares names (kSecAttrSubject).
    @param certificate The certificate.
    @result The DER of the normalized name, or NULL when it cannot be read.
*/
__nullable
CFDataRef SecCertificateCopyNormalizedSubjectSequence(SecCertificateRef certificate)
    API_AVAILABLE(macos(10.12.4), ios(10.3));

/*!
    @function SecCertificateCopyPublicKey
    @abstract The certificate's public key (iOS's older name of SecCertificateCopyKey).
    @param certificate The certificate.
    @result The key, or NULL when its type is not RSA or elliptic-curve.
*/
__nullable
SecKeyRef SecCertificateCopyPublicKey(SecCertificateRef certificate)
    API_DEPRECATED_WITH_REPLACEMENT("SecCertificateCopyKey", ios(10.3, 12.0)) API_UNAVAILABLE(macos);

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif /* !_KEYCHAINBRIDGE_SECCERTIFICATE_H_ */

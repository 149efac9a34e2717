/*!
    @header SecPolicy
    Declarations of trust policies in the style of Apple's SecPolicy: which rules a certificate
    chain is evaluated against. Written for KeychainBridge; secgen reads this file. The Security
    module does not implement certificate trust yet, so the API notes keep these declarations out
    of Swift (Availability: nonswift, "not implemented by the runtime"), as ClangImporter would.
*/

#ifndef _KEYCHAINBRIDGE_SECPOLICY_H_
#define _KEYCHAINBRIDGE_SECPOLICY_H_

#include <Security/SecBase.h>
#include <CoreFoundation/CFBase.h>
#include <CoreFoundation/CFDictionary.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN
CF_IMPLICIT_BRIDGING_ENABLED

/*!
    @enum Policy Identifier Constants
    @discussion The identifiers of the policies, the values of kSecPolicyOid.
    @constant kSecPolicyAppleX509Basic Basic X.509: the chain is well formed, in date and anchored.
    @constant kSecPolicyAppleSSL TLS: basic X.509, and the leaf names the server (or client) and allows its use.
    @constant kSecPolicyAppleSMIME S/MIME: basic X.509, and the leaf allows mail protection for its address.
    @constant kSecPolicyAppleCodeSigning Code signing: basic X.509, and the leaf allows code signing.
    @constant kSecPolicyAppleRevocation Revocation: the chain's certificates are checked against OCSP or CRLs.
*/
extern const CFStringRef kSecPolicyAppleX509Basic
    API_AVAILABLE(macos(10.7), ios(2.0));
extern const CFStringRef kSecPolicyAppleSSL
    API_AVAILABLE(macos(10.7), ios(2.0));
extern const CFStringRef kSecPolicyAppleSMIME
    API_AVAILABLE(macos(10.7), ios(2.0));
extern const CFStringRef kSecPolicyAppleCodeSigning
    API_AVAILABLE(macos(10.7), ios(7.0));
extern const CFStringRef kSecPolicyAppleRevocation
    API_AVAILABLE(macos(10.9), ios(7.0));

/*!
    @enum Policy Property Constants
    @discussion The keys of a policy's properties (SecPolicyCopyProperties, SecPolicyCreateWithProperties).
    @constant kSecPolicyOid The policy's identifier, one of the Policy Identifier Constants.
    @constant kSecPolicyName The name the leaf must carry: a host name for TLS, an address for S/MIME.
    @constant kSecPolicyClient Whether the leaf is a client's rather than a server's, a CFBooleanRef.
    @constant kSecPolicyRevocationFlags The revocation checks to make, a CFNumberRef of the flags below.
*/
extern const CFStringRef kSecPolicyOid
    API_AVAILABLE(macos(10.7), ios(7.0));
extern const CFStringRef kSecPolicyName
    API_AVAILABLE(macos(10.7), ios(7.0));
extern const CFStringRef kSecPolicyClient
    API_AVAILABLE(macos(10.7), ios(7.0));
extern const CFStringRef kSecPolicyRevocationFlags
    API_AVAILABLE(macos(10.9), ios(7.0));

/*!
    @enum Revocation Policy Constants
    @discussion The flags of SecPolicyCreateRevocation: which checks, and what happens when a
        responder cannot be reached.
    @constant kSecRevocationOCSPMethod Ask an OCSP responder.
    @constant kSecRevocationCRLMethod Read the certificate revocation lists.
    @constant kSecRevocationPreferCRL With both methods, try CRLs first.
    @constant kSecRevocationRequirePositiveResponse Fail unless a check answers that the certificate is good.
    @constant kSecRevocationNetworkAccessDisabled Use only what is cached; make no network request.
    @constant kSecRevocationUseAnyAvailableMethod OCSP or CRLs, whichever answers.
*/
CF_ENUM(CFOptionFlags) {
    kSecRevocationOCSPMethod = (1 << 0),
    kSecRevocationCRLMethod = (1 << 1),
    kSecRevocationPreferCRL = (1 << 2),
    kSecRevocationRequirePositiveResponse = (1 << 3),
    kSecRevocationNetworkAccessDisabled = (1 << 4),
    kSecRevocationUseAnyAvailableMethod = (kSecRevocationOCSPMethod | kSecRevocationCRLMethod),
};

/*!
    @function SecPolicyGetTypeID
    @abstract The Core Foundation type identifier of policies.
    @result The type identifier.
*/
CFTypeID SecPolicyGetTypeID(void)
    API_AVAILABLE(macos(10.3), ios(2.0));

/*!
    @function SecPolicyCopyProperties
    @abstract The properties of a policy, under the Policy Property Constants.
    @param policyRef The policy.
    @result A dictionary, or NULL.
*/
__nullable
CFDictionaryRef SecPolicyCopyProperties(SecPolicyRef policyRef)
    API_AVAILABLE(macos(10.7), ios(7.0));

/*!
    @function SecPolicyCreateBasicX509
    @abstract Makes the basic X.509 policy.
    @result The policy.
*/
SecPolicyRef SecPolicyCreateBasicX509(void)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecPolicyCreateSSL
    @abstract Makes a TLS policy.
    @param server True to evaluate a server's chain, false for a client's.
    @param hostname The name the server's leaf must carry; NULL to check none.
    @result The policy.
*/
SecPolicyRef SecPolicyCreateSSL(Boolean server, CFStringRef __nullable hostname)
    API_AVAILABLE(macos(10.6), ios(2.0));

/*!
    @function SecPolicyCreateRevocation
    @abstract Makes a revocation policy.
    @param revocationFlags The Revocation Policy Constants to apply.
    @result The policy, or NULL for flags that contradict each other.
*/
__nullable
SecPolicyRef SecPolicyCreateRevocation(CFOptionFlags revocationFlags)
    API_AVAILABLE(macos(10.9), ios(7.0));

/*!
    @function SecPolicyCreateWithProperties
    @abstract Makes a policy from its identifier and properties.
    @param policyIdentifier One of the Policy Identifier Constants.
    @param properties The policy's properties, under the Policy Property Constants; may be NULL.
    @result The policy, or NULL for an unknown identifier.
*/
__nullable
SecPolicyRef SecPolicyCreateWithProperties(CFTypeRef policyIdentifier, CFDictionaryRef __nullable properties)
    API_AVAILABLE(macos(10.9), ios(7.0));

CF_IMPLICIT_BRIDGING_DISABLED
CF_ASSUME_NONNULL_END

__END_DECLS

#endif /* !_KEYCHAINBRIDGE_SECPOLICY_H_ */

/*!
    @header SecRandom
    Declarations of the keychain's random source in the style of Apple's SecRandom: bytes for keys,
    nonces and salts from the system's cryptographically secure generator. Written for
    KeychainBridge; secgen reads this file and the Security module implements it over the kernel's
    CSPRNG (getrandom(2)).
*/

#ifndef _KEYCHAINBRIDGE_SECRANDOM_H_
#define _KEYCHAINBRIDGE_SECRANDOM_H_

#include <Security/SecBase.h>
#include <stdint.h>
#include <sys/types.h>

__BEGIN_DECLS

CF_ASSUME_NONNULL_BEGIN

/*!
    @typedef SecRandomRef
    @abstract A random source. There is one, named by kSecRandomDefault.
*/
typedef const struct __SecRandom * SecRandomRef;

/*!
    @const kSecRandomDefault
    @abstract The default random source: the system's cryptographically secure generator. It is
        NULL, so NULL names it too.
*/
extern const SecRandomRef kSecRandomDefault
    API_AVAILABLE(macos(10.7), ios(2.0));

/*!
    @function SecRandomCopyBytes
    @abstract Fills a buffer with cryptographically secure random bytes.
    @param rnd The random source: kSecRandomDefault (NULL).
    @param count How many bytes to write.
    @param bytes The buffer to fill: at least count bytes.
    @result errSecSuccess, or errSecParam for a count the source cannot give at once.
*/
int SecRandomCopyBytes(SecRandomRef __nullable rnd, size_t count, void *bytes)
    __attribute__ ((warn_unused_result))
    API_AVAILABLE(macos(10.7), ios(2.0));

CF_ASSUME_NONNULL_END

__END_DECLS

#endif /* !_KEYCHAINBRIDGE_SECRANDOM_H_ */

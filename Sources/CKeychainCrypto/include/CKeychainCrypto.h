#ifndef CKEYCHAINCRYPTO_H
#define CKEYCHAINCRYPTO_H

#include <stddef.h>

#include "PKCS12Iterations.h"

/*
    HMAC-SHA-256 under a key prepared once, with no allocation per code. OpenSSL 3's EVP_MAC
    duplicates a prepared context for every code (about ten heap allocations and their frees in
    3.0, a third of the store's query planning), while HMAC's definition needs only the two SHA-256
    states after the key's inner and outer pads, copied per code. Those states are kept in OpenSSL's
    secure heap and their working copies wiped; the hashing is OpenSSL's own SHA-256.
*/

/// A prepared HMAC-SHA-256 key: the SHA-256 states after the key's inner and outer pads (key
/// equivalent, so in the secure heap).
typedef struct keychain_hmac_sha256_key keychain_hmac_sha256_key;

/// Prepares `key` (`length` bytes; a key longer than SHA-256's block is hashed first, as HMAC
/// defines). Returns NULL when memory runs out.
keychain_hmac_sha256_key *keychain_hmac_sha256_prepare(const unsigned char *key, size_t length);

/// Wipes and frees a prepared key. NULL is ignored.
void keychain_hmac_sha256_free(keychain_hmac_sha256_key *key);

/// Writes the 32-byte HMAC-SHA-256 of `message` (`length` bytes; NULL when there are none) to
/// `out`. Returns 1, or 0 when OpenSSL's SHA-256 fails.
int keychain_hmac_sha256(
    const keychain_hmac_sha256_key *key, const unsigned char *message, size_t length, unsigned char *out);

#endif

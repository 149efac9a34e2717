// The parts of libcrypto the store uses: AES-256-GCM, HMAC-SHA-256, scrypt, the CSPRNG, X.509
// parsing and the error queue.
#ifndef KEYCHAIN_BRIDGE_COPENSSL_SHIM_H
#define KEYCHAIN_BRIDGE_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/err.h>
#endif

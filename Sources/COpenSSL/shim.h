// The parts of libcrypto the store and the key engine use: AES-GCM, HMAC-SHA-256, scrypt, the
// CSPRNG, X.509 parsing, RSA and EC keys through EVP_PKEY, the X9.63 KDF, the error queue, and
// big numbers with AES-CBC for the Secret Service's Diffie-Hellman sessions.
#ifndef KEYCHAIN_BRIDGE_COPENSSL_SHIM_H
#define KEYCHAIN_BRIDGE_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/kdf.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/bn.h>
#endif

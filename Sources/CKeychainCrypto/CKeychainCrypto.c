// SHA256_Init and its siblings are deprecated in OpenSSL 3 in favour of EVP, whose contexts are
// heap objects; they remain supported, and they are what lets a prepared HMAC state be copied.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "CKeychainCrypto.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <string.h>

struct keychain_hmac_sha256_key {
  SHA256_CTX inner;
  SHA256_CTX outer;
};

keychain_hmac_sha256_key *keychain_hmac_sha256_prepare(const unsigned char *key, size_t length) {
  keychain_hmac_sha256_key *prepared = OPENSSL_secure_zalloc(sizeof(*prepared));
  if (prepared == NULL) return NULL;
  unsigned char block[SHA256_CBLOCK] = {0};
  int ok = 1;
  if (length > SHA256_CBLOCK) {
    ok = SHA256(key, length, block) != NULL;
  } else if (length > 0) {
    memcpy(block, key, length);
  }
  for (size_t i = 0; i < SHA256_CBLOCK; i++) block[i] ^= 0x36;
  ok = ok && SHA256_Init(&prepared->inner) && SHA256_Update(&prepared->inner, block, sizeof(block));
  for (size_t i = 0; i < SHA256_CBLOCK; i++) block[i] ^= 0x36 ^ 0x5c;
  ok = ok && SHA256_Init(&prepared->outer) && SHA256_Update(&prepared->outer, block, sizeof(block));
  OPENSSL_cleanse(block, sizeof(block));
  if (!ok) {
    keychain_hmac_sha256_free(prepared);
    return NULL;
  }
  return prepared;
}

void keychain_hmac_sha256_free(keychain_hmac_sha256_key *key) {
  if (key != NULL) OPENSSL_secure_clear_free(key, sizeof(*key));
}

int keychain_hmac_sha256(
    const keychain_hmac_sha256_key *key, const unsigned char *message, size_t length, unsigned char *out) {
  SHA256_CTX context = key->inner;
  unsigned char inner[SHA256_DIGEST_LENGTH];
  int ok = (length == 0 || SHA256_Update(&context, message, length)) && SHA256_Final(inner, &context);
  if (ok) context = key->outer;
  ok = ok && SHA256_Update(&context, inner, sizeof(inner)) && SHA256_Final(out, &context);
  OPENSSL_cleanse(&context, sizeof(context));
  OPENSSL_cleanse(inner, sizeof(inner));
  return ok;
}

/*
    The C entry points through which the Security module reaches the code that needs C libraries
    (SQLite, OpenSSL): one job each. The Security module imports no C module, so that any target
    may import it (swift-certificates does, under #if canImport(Security), without declaring the
    dependency); it calls these functions by symbol instead. KeychainStoreSQLite defines them; the
    weak definitions in KeychainBridgeSeam.c answer "not linked" when it is absent.
*/
#ifndef KEYCHAIN_BRIDGE_SEAM_H
#define KEYCHAIN_BRIDGE_SEAM_H

#include <stddef.h>
#include <stdint.h>

/*
    Opens, creating it if needed, the keychain store in the directory at `directory` (a
    NUL-terminated path), protected by the `passphraseLength` bytes at `passphrase` (UTF-8, which
    may hold NUL bytes) when `passphrase` is not NULL. On success, returns the
    store object retained once (the caller releases it) and leaves `status` and `message` alone. On
    failure, returns NULL, sets `status` to an errSec code and `message` to a sentence allocated
    with malloc (the caller frees it), which names files but never holds a secret.
*/
typedef void *_Nullable (*KeychainBridgeOpenStoreFunction)(
    const char *_Nonnull directory, const uint8_t *_Nullable passphrase, size_t passphraseLength,
    int32_t *_Nonnull status, char *_Nullable *_Nonnull message);

void *_Nullable KeychainBridge_openStore(
    const char *_Nonnull directory, const uint8_t *_Nullable passphrase, size_t passphraseLength,
    int32_t *_Nonnull status, char *_Nullable *_Nonnull message);

/*
    Whether the `count` bytes at `bytes` are exactly one DER-encoded X.509 certificate: 1 when they
    are, 0 when they are not, -1 when no certificate parser is linked.
*/
typedef int32_t (*KeychainBridgeCheckCertificateFunction)(const uint8_t *_Nullable bytes, size_t count);

int32_t KeychainBridge_checkCertificate(const uint8_t *_Nullable bytes, size_t count);

/*
    The key engine SecKey performs its primitives with (OpenSSL 3), retained once (the caller
    releases it), or NULL when none is linked.
*/
typedef void *_Nullable (*KeychainBridgeKeyEngineFunction)(void);

void *_Nullable KeychainBridge_keyEngine(void);

/*
    Seals the `plaintextLength` bytes at `plaintext` (a keychain backup) under a key derived from the
    `passphraseLength` bytes at `passphrase` with scrypt, into a self-describing file: the magic
    "KBBK", a format byte, scrypt's log2(N), r and p, a 16-byte salt, then the AES-256-GCM nonce,
    ciphertext and tag (everything before the nonce is authenticated too). On success, returns 0
    (errSecSuccess) and sets `sealed` to bytes allocated with malloc (the caller frees them) and
    `sealedLength` to their count. On failure, returns an errSec code and sets `message` to a
    sentence allocated with malloc, which never holds a secret.
*/
typedef int32_t (*KeychainBridgeSealBackupFunction)(
    const uint8_t *_Nullable plaintext, size_t plaintextLength, const uint8_t *_Nullable passphrase,
    size_t passphraseLength, uint8_t *_Nullable *_Nonnull sealed, size_t *_Nonnull sealedLength,
    char *_Nullable *_Nonnull message);

int32_t KeychainBridge_sealBackup(
    const uint8_t *_Nullable plaintext, size_t plaintextLength, const uint8_t *_Nullable passphrase,
    size_t passphraseLength, uint8_t *_Nullable *_Nonnull sealed, size_t *_Nonnull sealedLength,
    char *_Nullable *_Nonnull message);

/*
    Opens what KeychainBridge_sealBackup wrote, with the same passphrase. Returns 0 and the
    plaintext (malloc'd, the caller frees it) on success; errSecDecode for bytes that are not such a
    file or are cut short, errSecAuthFailed when the passphrase is wrong or the file was altered
    (authenticated encryption cannot tell the two apart), with a sentence in `message`.
*/
typedef int32_t (*KeychainBridgeOpenBackupFunction)(
    const uint8_t *_Nullable sealed, size_t sealedLength, const uint8_t *_Nullable passphrase,
    size_t passphraseLength, uint8_t *_Nullable *_Nonnull plaintext, size_t *_Nonnull plaintextLength,
    char *_Nullable *_Nonnull message);

int32_t KeychainBridge_openBackup(
    const uint8_t *_Nullable sealed, size_t sealedLength, const uint8_t *_Nullable passphrase,
    size_t passphraseLength, uint8_t *_Nullable *_Nonnull plaintext, size_t *_Nonnull plaintextLength,
    char *_Nullable *_Nonnull message);

#endif

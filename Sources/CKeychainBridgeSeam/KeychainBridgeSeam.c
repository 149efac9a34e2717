#include "KeychainBridgeSeam.h"

#include <stdlib.h>
#include <string.h>

/*
    Used only when KeychainStoreSQLite is not linked (a target that depends on the Security module
    alone): the linker prefers the store's strong definitions. Then the first SecItem call fails
    with a status and a sentence that says what to add, instead of the link failing.
*/

static const int32_t errSecNotAvailable = -25291;

static char *notLinkedMessage(void) {
    return strdup(
        "No keychain store is linked into this program: depend on the Security product of "
        "KeychainBridge, which brings the SQLite store, not on the Security target alone.");
}

__attribute__((weak)) void *KeychainBridge_openStore(
    const char *directory, const uint8_t *passphrase, size_t passphraseLength, int32_t *status, char **message) {
    (void)directory;
    (void)passphrase;
    (void)passphraseLength;
    *status = errSecNotAvailable;
    *message = notLinkedMessage();
    return NULL;
}

__attribute__((weak)) int32_t KeychainBridge_checkCertificate(const uint8_t *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return -1;
}

__attribute__((weak)) int32_t KeychainBridge_sealBackup(
    const uint8_t *plaintext, size_t plaintextLength, const uint8_t *passphrase, size_t passphraseLength,
    uint8_t **sealed, size_t *sealedLength, char **message) {
    (void)plaintext;
    (void)plaintextLength;
    (void)passphrase;
    (void)passphraseLength;
    *sealed = NULL;
    *sealedLength = 0;
    *message = notLinkedMessage();
    return errSecNotAvailable;
}

__attribute__((weak)) int32_t KeychainBridge_openBackup(
    const uint8_t *sealed, size_t sealedLength, const uint8_t *passphrase, size_t passphraseLength,
    uint8_t **plaintext, size_t *plaintextLength, char **message) {
    (void)sealed;
    (void)sealedLength;
    (void)passphrase;
    (void)passphraseLength;
    *plaintext = NULL;
    *plaintextLength = 0;
    *message = notLinkedMessage();
    return errSecNotAvailable;
}

__attribute__((weak)) void *KeychainBridge_keyEngine(void) { return NULL; }

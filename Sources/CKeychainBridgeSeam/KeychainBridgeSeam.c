#include "KeychainBridgeSeam.h"

#include <stdlib.h>
#include <string.h>

/*
    Used only when KeychainStoreSQLite is not linked (a target that depends on the Security module
    alone): the linker prefers the store's strong definitions. Then the first SecItem call fails
    with a status and a sentence that says what to add, instead of the link failing.
*/

static const int32_t errSecNotAvailable = -25291;

__attribute__((weak)) void *KeychainBridge_openStore(
    const char *directory, const uint8_t *passphrase, size_t passphraseLength, int32_t *status, char **message) {
    (void)directory;
    (void)passphrase;
    (void)passphraseLength;
    *status = errSecNotAvailable;
    *message = strdup(
        "No keychain store is linked into this program: depend on the Security product of "
        "KeychainBridge, which brings the SQLite store, not on the Security target alone.");
    return NULL;
}

__attribute__((weak)) int32_t KeychainBridge_checkCertificate(const uint8_t *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return -1;
}

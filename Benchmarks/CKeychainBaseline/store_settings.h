// What both C baselines share with the Swift store: its storage settings, its checkpoint policy
// and a cipher fetched once, so that the baselines differ from the store only in what they measure.
#ifndef KEYCHAIN_BRIDGE_BASELINE_STORE_SETTINGS_H
#define KEYCHAIN_BRIDGE_BASELINE_STORE_SETTINGS_H

#include <openssl/evp.h>
#include <sqlite3.h>

/// Opens (creating) the database at `path` with the Swift store's pragmas (WAL, synchronous=NORMAL,
/// secure_delete, a 64 MiB journal size limit, no automatic checkpoint). 0, or -1 with *db closed.
int kb_open_with_store_settings(const char *path, sqlite3 **db);

/// The Swift store's checkpoint policy (WALCheckpointer.swift) on `db`: a WAL hook starts a
/// PASSIVE checkpoint on a thread and connection of its own every 500 pages, which runs again
/// while it leaves more than 64 pages behind; at 16384 pages the writer itself copies what is left.
typedef struct kb_checkpointer kb_checkpointer;
/// Starts it; NULL (and no hook) when no thread could be started.
kb_checkpointer *kb_checkpointer_start(sqlite3 *db, const char *path);
/// Removes the hook and stops the thread; NULL is allowed.
void kb_checkpointer_stop(kb_checkpointer *checkpointer, sqlite3 *db);

/// AES-256-GCM fetched from the default provider once per process, as the Swift store does
/// (EVP_aes_256_gcm() would fetch it again on every initialisation).
const EVP_CIPHER *kb_aes_256_gcm(void);

#endif

// The C baseline of the benchmark: a generic-password table done directly with sqlite3 and
// OpenSSL, to measure how close the Swift store comes to what SQLite plus AES-GCM can do.
#ifndef KEYCHAIN_BRIDGE_BASELINE_H
#define KEYCHAIN_BRIDGE_BASELINE_H

#include <stddef.h>

typedef struct kb_baseline kb_baseline;

/// Opens (creating) the database at `path` with the Swift store's storage settings (WAL,
/// synchronous=NORMAL, secure_delete, background PASSIVE checkpoints every 500 WAL pages) and
/// UNIQUE(account, service).
kb_baseline *kb_baseline_open(const char *path);
void kb_baseline_close(kb_baseline *store);

/// Adds one item in its own transaction; the secret is sealed with AES-256-GCM, a random nonce and
/// account and service as associated data. Returns 0, or -1 (a duplicate or another failure).
int kb_baseline_add(kb_baseline *store, const char *account, const char *service, const unsigned char *secret, size_t length);
/// Adds `count` items named prefix-<i> in one transaction (filling a store before measuring).
int kb_baseline_fill(kb_baseline *store, const char *prefix, const char *service, int count);
/// Reads and opens the secret of one item into `out`; returns its length, or -1.
int kb_baseline_lookup(kb_baseline *store, const char *account, const char *service, unsigned char *out, size_t capacity);
/// Reads the attributes (account, service, label) of one item; returns 0 or -1.
int kb_baseline_attributes(kb_baseline *store, const char *account, const char *service);
/// Replaces the secret of one item (sealed again); returns 0 or -1.
int kb_baseline_update(kb_baseline *store, const char *account, const char *service, const unsigned char *secret, size_t length);
/// Deletes one item; returns 0 or -1.
int kb_baseline_delete(kb_baseline *store, const char *account, const char *service);
/// Reads and opens the secrets of the first `limit` items of a service; returns how many.
int kb_baseline_list(kb_baseline *store, const char *service, int limit);

/// `total` lookups of the items `kb_baseline_fill` made (1,000 of them), shared by `threads` threads
/// (at most 16), each with a read-only connection of its own to `path`, the database `store` uses.
/// Returns how many failed, or -1 when a thread or connection could not be made.
int kb_baseline_lookups_on_threads(kb_baseline *store, const char *path, const char *service, int threads, int total);

/// The same-work baseline (same_work.c): the Swift store's own work for a generic password done in
/// C: its schema and indexes, its five keyed digests and two AES-256-GCM seals per row, the same
/// associated data, statements, transactions and checkpoint policy, and a separate read-only
/// connection for searches. The ratio of Swift to it is the cost of Swift; the ratio of it to the
/// minimal baseline above is the cost of the schema and the sealing. Functions as above.
typedef struct kb_same_work kb_same_work;
kb_same_work *kb_same_work_open(const char *path);
void kb_same_work_close(kb_same_work *store);
int kb_same_work_add(kb_same_work *store, const char *account, const char *service, const unsigned char *secret, size_t length);
int kb_same_work_fill(kb_same_work *store, const char *prefix, const char *service, int count);
int kb_same_work_lookup(kb_same_work *store, const char *account, const char *service, unsigned char *out, size_t capacity);
/// Reads and opens one item's metadata (its attributes); returns 0 or -1.
int kb_same_work_attributes(kb_same_work *store, const char *account, const char *service);
int kb_same_work_update(kb_same_work *store, const char *account, const char *service, const unsigned char *secret, size_t length);
int kb_same_work_delete(kb_same_work *store, const char *account, const char *service);
int kb_same_work_list(kb_same_work *store, const char *service, int limit);

/// The key rows' baseline: OpenSSL's EVP interface used directly. A new P-256 key (EVP_PKEY *),
/// or NULL.
void *kb_baseline_ec_generate(void);
void kb_baseline_key_free(void *key);
/// An ECDSA signature (DER) of SHA-256(message) into `signature` (at least 72 bytes); returns its
/// length, or -1.
int kb_baseline_ec_sign(void *key, const unsigned char *message, size_t length, unsigned char *signature);
/// 1 when `signature` verifies, 0 otherwise.
int kb_baseline_ec_verify(void *key, const unsigned char *message, size_t length, const unsigned char *signature, size_t signature_length);

#endif

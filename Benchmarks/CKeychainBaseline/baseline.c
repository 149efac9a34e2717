#include "baseline.h"
#include "store_settings.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kb_baseline {
    sqlite3 *db;
    sqlite3_stmt *insert, *select_secret, *select_attributes, *update, *delete, *list;
    unsigned char key[32];
    kb_checkpointer *checkpointer;
};

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **statement) {
    return sqlite3_prepare_v2(db, sql, -1, statement, NULL) == SQLITE_OK ? 0 : -1;
}

kb_baseline *kb_baseline_open(const char *path) {
    kb_baseline *store = calloc(1, sizeof *store);
    if (!store) return NULL;
    const char *schema =
        "CREATE TABLE IF NOT EXISTS genp (id INTEGER PRIMARY KEY, account TEXT NOT NULL, service TEXT NOT NULL,"
        " label TEXT, secret BLOB NOT NULL, UNIQUE(account, service));";
    if (kb_open_with_store_settings(path, &store->db) || sqlite3_exec(store->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
        kb_baseline_close(store);
        return NULL;
    }
    store->checkpointer = kb_checkpointer_start(store->db, path);
    RAND_bytes(store->key, sizeof store->key);
    if (prepare(store->db, "INSERT INTO genp (account, service, label, secret) VALUES (?, ?, ?, ?)", &store->insert)
        || prepare(store->db, "SELECT secret FROM genp WHERE account = ? AND service = ?", &store->select_secret)
        || prepare(store->db, "SELECT account, service, label FROM genp WHERE account = ? AND service = ?", &store->select_attributes)
        || prepare(store->db, "UPDATE genp SET secret = ? WHERE account = ? AND service = ?", &store->update)
        || prepare(store->db, "DELETE FROM genp WHERE account = ? AND service = ?", &store->delete)
        || prepare(store->db, "SELECT account, service, secret FROM genp WHERE service = ? ORDER BY id LIMIT ?", &store->list)) {
        kb_baseline_close(store);
        return NULL;
    }
    return store;
}

void kb_baseline_close(kb_baseline *store) {
    if (!store) return;
    kb_checkpointer_stop(store->checkpointer, store->db);
    sqlite3_stmt *statements[] = {store->insert, store->select_secret, store->select_attributes, store->update, store->delete, store->list};
    for (size_t i = 0; i < sizeof statements / sizeof *statements; i++) sqlite3_finalize(statements[i]);
    sqlite3_close(store->db);
    free(store);
}

/* The associated data of an item, account \0 service; returns its length, or 0 if it does not fit. */
static size_t associated_data(const char *account, const char *service, unsigned char aad[512]) {
    size_t account_length = strlen(account), service_length = strlen(service);
    if (account_length + service_length + 1 > 512) return 0;
    memcpy(aad, account, account_length);
    aad[account_length] = 0;
    memcpy(aad + account_length + 1, service, service_length);
    return account_length + service_length + 1;
}

/* nonce(12) | ciphertext | tag(16); associated data = account \0 service */
static int seal(const kb_baseline *store, const char *account, const char *service, const unsigned char *secret,
                size_t length, unsigned char *out) {
    unsigned char aad[512];
    size_t aad_length = associated_data(account, service, aad);
    if (!aad_length) return -1;
    RAND_bytes(out, 12);
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int written = 0, ok = EVP_EncryptInit_ex(context, kb_aes_256_gcm(), NULL, store->key, out)
        && EVP_EncryptUpdate(context, NULL, &written, aad, (int)aad_length)
        && EVP_EncryptUpdate(context, out + 12, &written, secret, (int)length)
        && EVP_EncryptFinal_ex(context, out + 12 + length, &written)
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, out + 12 + length);
    EVP_CIPHER_CTX_free(context);
    return ok ? 0 : -1;
}

static int open_sealed(const kb_baseline *store, const char *account, const char *service, const unsigned char *sealed,
                       size_t sealed_length, unsigned char *out) {
    if (sealed_length < 28) return -1;
    unsigned char aad[512];
    size_t aad_length = associated_data(account, service, aad);
    if (!aad_length) return -1;
    size_t length = sealed_length - 28;
    unsigned char tag[16];
    memcpy(tag, sealed + 12 + length, 16);
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int written = 0, ok = EVP_DecryptInit_ex(context, kb_aes_256_gcm(), NULL, store->key, sealed)
        && EVP_DecryptUpdate(context, NULL, &written, aad, (int)aad_length)
        && EVP_DecryptUpdate(context, out, &written, sealed + 12, (int)length)
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, tag)
        && EVP_DecryptFinal_ex(context, out + length, &written);
    EVP_CIPHER_CTX_free(context);
    return ok ? (int)length : -1;
}

static int insert(kb_baseline *store, const char *account, const char *service, const unsigned char *secret, size_t length) {
    unsigned char sealed[4096];
    if (length + 28 > sizeof sealed || seal(store, account, service, secret, length, sealed)) return -1;
    sqlite3_stmt *s = store->insert;
    sqlite3_bind_text(s, 1, account, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, service, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, service, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, 4, sealed, (int)(length + 28), SQLITE_STATIC);
    int result = sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(s);
    return result;
}

int kb_baseline_add(kb_baseline *store, const char *account, const char *service, const unsigned char *secret, size_t length) {
    return insert(store, account, service, secret, length);
}

int kb_baseline_fill(kb_baseline *store, const char *prefix, const char *service, int count) {
    char account[256];
    const unsigned char secret[] = "baseline-secret-0123456789";
    sqlite3_exec(store->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    for (int i = 0; i < count; i++) {
        snprintf(account, sizeof account, "%s-%d", prefix, i);
        if (insert(store, account, service, secret, sizeof secret - 1)) { sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL); return -1; }
    }
    return sqlite3_exec(store->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* One lookup with `s`, a prepared "SELECT secret ... WHERE account = ? AND service = ?" of any
   connection to the store's database. */
static int lookup_with(const kb_baseline *store, sqlite3_stmt *s, const char *account, const char *service,
                       unsigned char *out, size_t capacity) {
    sqlite3_bind_text(s, 1, account, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, service, -1, SQLITE_STATIC);
    int length = -1;
    if (sqlite3_step(s) == SQLITE_ROW) {
        int sealed_length = sqlite3_column_bytes(s, 0);
        if ((size_t)sealed_length <= capacity + 28)
            length = open_sealed(store, account, service, sqlite3_column_blob(s, 0), (size_t)sealed_length, out);
    }
    sqlite3_reset(s);
    return length;
}

int kb_baseline_lookup(kb_baseline *store, const char *account, const char *service, unsigned char *out, size_t capacity) {
    return lookup_with(store, store->select_secret, account, service, out, capacity);
}

int kb_baseline_attributes(kb_baseline *store, const char *account, const char *service) {
    sqlite3_stmt *s = store->select_attributes;
    sqlite3_bind_text(s, 1, account, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, service, -1, SQLITE_STATIC);
    int result = -1;
    if (sqlite3_step(s) == SQLITE_ROW) {
        volatile const unsigned char *values[3] = {sqlite3_column_text(s, 0), sqlite3_column_text(s, 1), sqlite3_column_text(s, 2)};
        result = values[0] && values[1] ? 0 : -1;
    }
    sqlite3_reset(s);
    return result;
}

int kb_baseline_update(kb_baseline *store, const char *account, const char *service, const unsigned char *secret, size_t length) {
    unsigned char sealed[4096];
    if (length + 28 > sizeof sealed || seal(store, account, service, secret, length, sealed)) return -1;
    sqlite3_stmt *s = store->update;
    sqlite3_bind_blob(s, 1, sealed, (int)(length + 28), SQLITE_STATIC);
    sqlite3_bind_text(s, 2, account, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 3, service, -1, SQLITE_STATIC);
    int result = sqlite3_step(s) == SQLITE_DONE && sqlite3_changes(store->db) == 1 ? 0 : -1;
    sqlite3_reset(s);
    return result;
}

int kb_baseline_delete(kb_baseline *store, const char *account, const char *service) {
    sqlite3_stmt *s = store->delete;
    sqlite3_bind_text(s, 1, account, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, service, -1, SQLITE_STATIC);
    int result = sqlite3_step(s) == SQLITE_DONE && sqlite3_changes(store->db) == 1 ? 0 : -1;
    sqlite3_reset(s);
    return result;
}

int kb_baseline_list(kb_baseline *store, const char *service, int limit) {
    sqlite3_stmt *s = store->list;
    sqlite3_bind_text(s, 1, service, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 2, limit);
    int count = 0;
    unsigned char out[4096];
    while (sqlite3_step(s) == SQLITE_ROW) {
        int sealed_length = sqlite3_column_bytes(s, 2);
        if (sealed_length <= (int)sizeof out
            && open_sealed(store, (const char *)sqlite3_column_text(s, 0), (const char *)sqlite3_column_text(s, 1),
                           sqlite3_column_blob(s, 2), (size_t)sealed_length, out) >= 0)
            count++;
    }
    sqlite3_reset(s);
    return count;
}

void *kb_baseline_ec_generate(void) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_PKEY *key = NULL;
    if (context == NULL) return NULL;
    if (EVP_PKEY_keygen_init(context) != 1 || EVP_PKEY_CTX_set_group_name(context, "prime256v1") != 1
        || EVP_PKEY_generate(context, &key) != 1) {
        key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    return key;
}

void kb_baseline_key_free(void *key) { EVP_PKEY_free(key); }

int kb_baseline_ec_sign(void *key, const unsigned char *message, size_t length, unsigned char *signature) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    size_t written = 72;
    int result = -1;
    if (context == NULL) return -1;
    if (EVP_DigestSignInit_ex(context, NULL, "SHA256", NULL, NULL, key, NULL) == 1
        && EVP_DigestSign(context, signature, &written, message, length) == 1) {
        result = (int)written;
    }
    EVP_MD_CTX_free(context);
    return result;
}

int kb_baseline_ec_verify(void *key, const unsigned char *message, size_t length, const unsigned char *signature, size_t signature_length) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    int result = 0;
    if (context == NULL) return 0;
    if (EVP_DigestVerifyInit_ex(context, NULL, "SHA256", NULL, NULL, key, NULL) == 1) {
        result = EVP_DigestVerify(context, signature, signature_length, message, length) == 1;
    }
    EVP_MD_CTX_free(context);
    return result;
}

/* Each thread's lookups on a read-only connection of its own, as the Swift store's readers run. */
struct lookup_thread {
    const kb_baseline *store;
    const char *path, *service;
    int first, count, failures;
};

static void *lookup_loop(void *context) {
    struct lookup_thread *work = context;
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    work->failures = work->count;
    if (sqlite3_open_v2(work->path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK
        || prepare(db, "SELECT secret FROM genp WHERE account = ? AND service = ?", &s)) {
        sqlite3_close(db);
        return NULL;
    }
    work->failures = 0;
    char account[64];
    unsigned char out[4096];
    for (int i = 0; i < work->count; i++) {
        snprintf(account, sizeof account, "acct-%d", (i * 7 + work->first) % 1000);
        if (lookup_with(work->store, s, account, work->service, out, sizeof out) < 0) work->failures++;
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    return NULL;
}

int kb_baseline_lookups_on_threads(kb_baseline *store, const char *path, const char *service, int threads, int total) {
    enum { MAX_THREADS = 16 };
    if (threads < 1 || threads > MAX_THREADS) return -1;
    struct lookup_thread work[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int started = 0, failures = 0;
    for (int t = 0; t < threads; t++) {
        work[t] = (struct lookup_thread){store, path, service, t * 500, total / threads, 0};
        if (pthread_create(&ids[t], NULL, lookup_loop, &work[t]) != 0) break;
        started++;
    }
    for (int t = 0; t < started; t++) {
        pthread_join(ids[t], NULL);
        failures += work[t].failures;
    }
    return started == threads ? failures : -1;
}

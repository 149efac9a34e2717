/* The same-work C baseline: the Swift store's own work for a generic password, written in C.
   Same schema and indexes (ItemTable.swift), the same digests (SearchDigests.swift: HMAC-SHA-256
   under an index key, cut to 16 bytes, from the prepared SHA-256 states KeychainCrypto keeps,
   through the same C function), the same two
   AES-256-GCM seals bound to the same associated data (RowIdentity.swift), the same statements and
   transactions per operation (SQLiteItemStorage.swift), and the same checkpoint policy. What it
   leaves out is everything above the store: parsing a query, the rules, building results. */
#include "baseline.h"
#include "store_settings.h"

#include <CKeychainCrypto.h>

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { DIGEST = 16, NONCE = 12, TAG = 16, FIELDS_MAX = 512, META_MAX = 1024 };

static const char GROUP[] = "bench", PROTECTION[] = "ak", CLASS[] = "genp";
static const char META_LABEL[] = "keychain-bridge/meta/v3", SECRET_LABEL[] = "keychain-bridge/secret/v3";

struct kb_same_work {
    sqlite3 *reader, *writer;
    sqlite3_stmt *insert, *select_by_key_reader, *select_by_key_writer, *update, *delete, *list;
    unsigned char metadata_key[32], class_key[32];
    keychain_hmac_sha256_key *index_mac;
    unsigned char group_digest[DIGEST];
    kb_checkpointer *checkpointer;
};

/* A growing byte string on the stack. */
typedef struct { unsigned char bytes[FIELDS_MAX]; size_t length; int overflow; } buffer;

static void put(buffer *b, const void *bytes, size_t length) {
    if (b->length + length > sizeof b->bytes) { b->overflow = 1; return; }
    memcpy(b->bytes + b->length, bytes, length);
    b->length += length;
}
static void put_u32(buffer *b, uint32_t value) {
    unsigned char le[4] = {value & 0xFF, (value >> 8) & 0xFF, (value >> 16) & 0xFF, value >> 24};
    put(b, le, 4);
}
static void put_field(buffer *b, const void *bytes, size_t length) { put_u32(b, (uint32_t)length); put(b, bytes, length); }

static int digest(kb_same_work *store, const buffer *parts, unsigned char out[DIGEST]) {
    if (parts->overflow) return -1;
    unsigned char full[32];
    if (!keychain_hmac_sha256(store->index_mac, parts->bytes, parts->length, full)) return -1;
    memcpy(out, full, DIGEST);
    return 0;
}

/* "attr\0<key>\0" + 's' + the text (ComparableValue.encoded of a string). */
static int attribute_digest(kb_same_work *store, const char *key, const char *value, unsigned char out[DIGEST]) {
    buffer parts = {.length = 0};
    put(&parts, "attr", 5);
    put(&parts, key, strlen(key) + 1);
    put(&parts, "s", 1);
    put(&parts, value, strlen(value));
    return digest(store, &parts, out);
}

/* ItemIdentity.primaryKeyBytes for a generic password: account and service. */
static int primary_key_digest(kb_same_work *store, const char *account, const char *service, int sync, unsigned char out[DIGEST]) {
    buffer parts = {.length = 0};
    put(&parts, "pk", 3);
    put(&parts, CLASS, 4);
    put(&parts, "acct", 4);
    put_u32(&parts, (uint32_t)strlen(account) + 1);
    put(&parts, "s", 1);
    put(&parts, account, strlen(account));
    put(&parts, "svce", 4);
    put_u32(&parts, (uint32_t)strlen(service) + 1);
    put(&parts, "s", 1);
    put(&parts, service, strlen(service));
    put(&parts, "\0agrp", 6);
    put(&parts, GROUP, strlen(GROUP));
    unsigned char tail[2] = {0, (unsigned char)sync};
    put(&parts, tail, 2);
    return digest(store, &parts, out);
}

/* A row's plain columns: what SQLite stores in the clear and both ciphertexts are bound to. */
typedef struct {
    unsigned char persistref[16], pk[DIGEST], spi[DIGEST], account[DIGEST], service[DIGEST], label[DIGEST];
} row_identity;

static int identity_of(kb_same_work *store, const char *account, const char *service, row_identity *row) {
    buffer spi = {.length = 0};
    put(&spi, "spi", 4);
    return RAND_bytes(row->persistref, sizeof row->persistref) != 1 || primary_key_digest(store, account, service, 0, row->pk)
        || digest(store, &spi, row->spi) || attribute_digest(store, "acct", account, row->account)
        || attribute_digest(store, "svce", service, row->service) || attribute_digest(store, "labl", service, row->label)
        ? -1 : 0;
}

/* RowIdentity.associatedFields: label, then each field length-prefixed (class, persistent reference,
   group digest, primary key, spi, protection), the sync byte, the search digests with the absent
   server digest as FF FF FF FF, and for the metadata the has-a-secret flag. */
static void associated_data(const kb_same_work *store, const char *label, const row_identity *row, int with_flag, buffer *out) {
    out->length = 0;
    out->overflow = 0;
    put(out, label, strlen(label));
    put_field(out, CLASS, 4);
    put_field(out, row->persistref, 16);
    put_field(out, store->group_digest, DIGEST);
    put_field(out, row->pk, DIGEST);
    put_field(out, row->spi, DIGEST);
    put_field(out, PROTECTION, 2);
    put(out, "\0", 1);
    put_field(out, row->account, DIGEST);
    put_field(out, row->service, DIGEST);
    put_u32(out, 0xFFFFFFFFu);
    put_field(out, row->label, DIGEST);
    put_u32(out, 0xFFFFFFFFu); /* no access control (row format 3) */
    if (with_flag) put(out, "\1", 1);
}

static int seal(const unsigned char key[32], const buffer *aad, const unsigned char *plain, size_t length, unsigned char *out) {
    if (aad->overflow || RAND_bytes(out, NONCE) != 1) return -1;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int written = 0, ok = context && EVP_EncryptInit_ex(context, kb_aes_256_gcm(), NULL, key, out)
        && EVP_EncryptUpdate(context, NULL, &written, aad->bytes, (int)aad->length)
        && EVP_EncryptUpdate(context, out + NONCE, &written, plain, (int)length)
        && EVP_EncryptFinal_ex(context, out + NONCE + length, &written)
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, TAG, out + NONCE + length);
    EVP_CIPHER_CTX_free(context);
    return ok ? 0 : -1;
}

static int open_box(const unsigned char key[32], const buffer *aad, const unsigned char *box, size_t box_length, unsigned char *out) {
    if (aad->overflow || box_length < NONCE + TAG) return -1;
    size_t length = box_length - NONCE - TAG;
    unsigned char tag[TAG];
    memcpy(tag, box + NONCE + length, TAG);
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int written = 0, ok = context && EVP_DecryptInit_ex(context, kb_aes_256_gcm(), NULL, key, box)
        && EVP_DecryptUpdate(context, NULL, &written, aad->bytes, (int)aad->length)
        && EVP_DecryptUpdate(context, out, &written, box + NONCE, (int)length)
        && EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, TAG, tag)
        && EVP_DecryptFinal_ex(context, out + length, &written);
    EVP_CIPHER_CTX_free(context);
    return ok ? (int)length : -1;
}

/* The metadata record: the item's attributes in a tagged form of the Swift store's size for this
   item (223 bytes: account, service, label, group, protection, class, sync, tomb, two dates). */
static size_t metadata(const char *account, const char *service, unsigned char out[META_MAX]) {
    buffer b = {.length = 0};
    const char *names[] = {"acct", "svce", "labl", "agrp", "pdmn", "class"};
    const char *values[] = {account, service, service, GROUP, PROTECTION, CLASS};
    put(&b, "\1", 1);
    for (int i = 0; i < 6; i++) { put_field(&b, names[i], strlen(names[i])); put(&b, "s", 1); put_field(&b, values[i], strlen(values[i])); }
    double now = (double)time(NULL);
    const char *dates[] = {"cdat", "mdat"};
    for (int i = 0; i < 2; i++) { put_field(&b, dates[i], 4); put(&b, "t", 1); put(&b, &now, 8); }
    int64_t zero = 0;
    put_field(&b, "sync", 4); put(&b, "n", 1); put(&b, &zero, 8);
    put_field(&b, "tomb", 4); put(&b, "n", 1); put(&b, &zero, 8);
    while (b.length < 223 && !b.overflow) put(&b, "\0", 1);
    if (b.overflow || b.length > META_MAX) return 0;
    memcpy(out, b.bytes, b.length);
    return b.length;
}

/* Seals a row's metadata and secret into the two boxes; returns the metadata box's length, or -1. */
static int seal_row(kb_same_work *store, const row_identity *row, const char *account, const char *service,
                    const unsigned char *secret, size_t length, unsigned char *meta_box, unsigned char *secret_box) {
    unsigned char plain[META_MAX];
    size_t meta_length = metadata(account, service, plain);
    buffer aad;
    if (!meta_length) return -1;
    associated_data(store, META_LABEL, row, 1, &aad);
    if (seal(store->metadata_key, &aad, plain, meta_length, meta_box)) return -1;
    associated_data(store, SECRET_LABEL, row, 0, &aad);
    if (seal(store->class_key, &aad, secret, length, secret_box)) return -1;
    return (int)(meta_length + NONCE + TAG);
}

/* Seals a row and binds the written columns from the agrp column on (the order of
   ItemTable.writtenColumns), starting at parameter `first`. */
static int bind_written_columns(kb_same_work *store, sqlite3_stmt *s, int first, const row_identity *row, const char *account,
                                const char *service, const unsigned char *secret, size_t length, unsigned char *meta_box,
                                unsigned char *secret_box) {
    int meta_length = seal_row(store, row, account, service, secret, length, meta_box, secret_box);
    if (meta_length < 0) return -1;
    sqlite3_bind_blob(s, first, store->group_digest, DIGEST, SQLITE_STATIC);
    sqlite3_bind_int(s, first + 1, 0);
    sqlite3_bind_text(s, first + 2, PROTECTION, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, first + 3, row->pk, DIGEST, SQLITE_STATIC);
    sqlite3_bind_blob(s, first + 4, row->spi, DIGEST, SQLITE_STATIC);
    sqlite3_bind_blob(s, first + 5, row->account, DIGEST, SQLITE_STATIC);
    sqlite3_bind_blob(s, first + 6, row->service, DIGEST, SQLITE_STATIC);
    sqlite3_bind_null(s, first + 7);
    sqlite3_bind_blob(s, first + 8, row->label, DIGEST, SQLITE_STATIC);
    sqlite3_bind_blob(s, first + 9, meta_box, meta_length, SQLITE_STATIC);
    sqlite3_bind_blob(s, first + 10, secret_box, (int)(length + NONCE + TAG), SQLITE_STATIC);
    return 0;
}

/* Columns of the select list (ItemTable.selectList order). */
enum { C_ID, C_CLASS, C_PERSISTREF, C_AGRP, C_SYNC, C_PDMN, C_PK, C_SPI, C_META, C_SECRET, C_ACCT, C_SVCE, C_SRVR, C_LABL, C_ACL };
#define SELECT_LIST "SELECT id, class, persistref, agrp, sync, pdmn, pk, spi, meta, secret, acct, svce, srvr, labl, acl FROM item"

/* A selected row's identity from its plain columns, checked against what the search compared. */
static int read_identity(sqlite3_stmt *s, row_identity *row) {
    struct { int column; unsigned char *into; int length; } blobs[] = {
        {C_PERSISTREF, row->persistref, 16}, {C_PK, row->pk, DIGEST}, {C_SPI, row->spi, DIGEST},
        {C_ACCT, row->account, DIGEST}, {C_SVCE, row->service, DIGEST}, {C_LABL, row->label, DIGEST}};
    for (size_t i = 0; i < sizeof blobs / sizeof *blobs; i++) {
        if (sqlite3_column_bytes(s, blobs[i].column) != blobs[i].length) return -1;
        memcpy(blobs[i].into, sqlite3_column_blob(s, blobs[i].column), (size_t)blobs[i].length);
    }
    /* The benchmark's items have no access control, which the associated data binds as absent. */
    return sqlite3_column_type(s, C_ACL) == SQLITE_NULL ? 0 : -1;
}

/* Authenticates a selected row by opening the parts asked for: the secret (which proves every
   plain column) or the metadata. Returns the secret's length, 0 without it, or -1. */
static int open_row(kb_same_work *store, sqlite3_stmt *s, int open_meta, int open_secret, unsigned char *out) {
    row_identity row;
    buffer aad;
    unsigned char plain[META_MAX];
    if (read_identity(s, &row)) return -1;
    int length = 0;
    if (open_meta) {
        int box = sqlite3_column_bytes(s, C_META);
        associated_data(store, META_LABEL, &row, 1, &aad);
        if (box > META_MAX + NONCE + TAG || open_box(store->metadata_key, &aad, sqlite3_column_blob(s, C_META), (size_t)box, plain) < 0)
            return -1;
    }
    if (open_secret) {
        int box = sqlite3_column_bytes(s, C_SECRET);
        associated_data(store, SECRET_LABEL, &row, 0, &aad);
        if (box > 4096 + NONCE + TAG) return -1;
        length = open_box(store->class_key, &aad, sqlite3_column_blob(s, C_SECRET), (size_t)box, out);
    }
    return length;
}

/* Binds a search by primary key (the DSL's account + service): class, the group, sync 0 (a query
   without kSecAttrSynchronizable finds only items that do not sync) and that key's digest. */
static int bind_key_search(kb_same_work *store, sqlite3_stmt *s, const char *account, const char *service) {
    unsigned char pk[DIGEST];
    if (primary_key_digest(store, account, service, 0, pk)) return -1;
    sqlite3_bind_text(s, 1, CLASS, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, 2, store->group_digest, DIGEST, SQLITE_STATIC);
    sqlite3_bind_int(s, 3, 0);
    sqlite3_bind_blob(s, 4, pk, DIGEST, SQLITE_TRANSIENT);
    return 0;
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **statement) {
    return sqlite3_prepare_v2(db, sql, -1, statement, NULL) == SQLITE_OK ? 0 : -1;
}

kb_same_work *kb_same_work_open(const char *path) {
    kb_same_work *store = calloc(1, sizeof *store);
    if (!store) return NULL;
    const char *schema =
        "CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY AUTOINCREMENT, class TEXT NOT NULL,"
        " persistref BLOB NOT NULL UNIQUE, agrp BLOB NOT NULL, sync INTEGER NOT NULL, pdmn TEXT NOT NULL,"
        " pk BLOB NOT NULL, spi BLOB NOT NULL, acct BLOB, svce BLOB, srvr BLOB, labl BLOB, meta BLOB NOT NULL,"
        " secret BLOB, acl BLOB, UNIQUE (class, pk, spi));"
        "CREATE INDEX IF NOT EXISTS item_acct ON item (class, acct) WHERE acct IS NOT NULL;"
        "CREATE INDEX IF NOT EXISTS item_svce ON item (class, svce) WHERE svce IS NOT NULL;"
        "CREATE INDEX IF NOT EXISTS item_srvr ON item (class, srvr) WHERE srvr IS NOT NULL;"
        "CREATE INDEX IF NOT EXISTS item_labl ON item (class, labl) WHERE labl IS NOT NULL;";
    if (kb_open_with_store_settings(path, &store->writer) || sqlite3_exec(store->writer, schema, NULL, NULL, NULL) != SQLITE_OK
        || sqlite3_open_v2(path, &store->reader, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        kb_same_work_close(store);
        return NULL;
    }
    store->checkpointer = kb_checkpointer_start(store->writer, path);
    unsigned char index_key[32];
    buffer group = {.length = 0};
    put(&group, "agrp", 5);
    put(&group, GROUP, strlen(GROUP));
    if (RAND_bytes(index_key, 32) != 1 || RAND_bytes(store->metadata_key, 32) != 1
        || RAND_bytes(store->class_key, 32) != 1
        || !(store->index_mac = keychain_hmac_sha256_prepare(index_key, 32))
        || digest(store, &group, store->group_digest)
        || prepare(store->writer,
                   "INSERT INTO item (class, persistref, agrp, sync, pdmn, pk, spi, acct, svce, srvr, labl, meta, secret)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", &store->insert)
        || prepare(store->reader, SELECT_LIST " WHERE class = ? AND agrp IN (?) AND sync = ? AND pk IN (?)", &store->select_by_key_reader)
        || prepare(store->writer, SELECT_LIST " WHERE class = ? AND agrp IN (?) AND sync = ? AND pk IN (?)", &store->select_by_key_writer)
        || prepare(store->writer, "UPDATE item SET meta = ?, secret = ? WHERE id = ?", &store->update)
        || prepare(store->writer, "DELETE FROM item WHERE id = ?", &store->delete)
        || prepare(store->reader, SELECT_LIST " WHERE class = ? AND agrp IN (?) AND sync = ? AND svce = ? ORDER BY id", &store->list)) {
        kb_same_work_close(store);
        return NULL;
    }
    return store;
}

void kb_same_work_close(kb_same_work *store) {
    if (!store) return;
    kb_checkpointer_stop(store->checkpointer, store->writer);
    sqlite3_stmt *statements[] = {store->insert, store->select_by_key_reader, store->select_by_key_writer, store->update, store->delete, store->list};
    for (size_t i = 0; i < sizeof statements / sizeof *statements; i++) sqlite3_finalize(statements[i]);
    keychain_hmac_sha256_free(store->index_mac);
    sqlite3_close(store->reader);
    sqlite3_close(store->writer);
    free(store);
}

static int begin(kb_same_work *store) { return sqlite3_exec(store->writer, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1; }
static int end(kb_same_work *store, int result) {
    if (result == 0 && sqlite3_exec(store->writer, "COMMIT", NULL, NULL, NULL) == SQLITE_OK) return 0;
    sqlite3_exec(store->writer, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static int insert_row(kb_same_work *store, const char *account, const char *service, const unsigned char *secret, size_t length) {
    row_identity row;
    unsigned char meta_box[META_MAX + NONCE + TAG], secret_box[4096 + NONCE + TAG];
    if (length > 4096 || identity_of(store, account, service, &row)) return -1;
    sqlite3_stmt *s = store->insert;
    sqlite3_bind_text(s, 1, CLASS, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, 2, row.persistref, 16, SQLITE_STATIC);
    int result = bind_written_columns(store, s, 3, &row, account, service, secret, length, meta_box, secret_box) == 0
        && sqlite3_step(s) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(s);
    return result;
}

int kb_same_work_add(kb_same_work *store, const char *account, const char *service, const unsigned char *secret, size_t length) {
    if (begin(store)) return -1;
    return end(store, insert_row(store, account, service, secret, length));
}

int kb_same_work_fill(kb_same_work *store, const char *prefix, const char *service, int count) {
    char account[256];
    const unsigned char secret[] = "baseline-secret-0123456789";
    if (begin(store)) return -1;
    int result = 0;
    for (int i = 0; i < count && result == 0; i++) {
        snprintf(account, sizeof account, "%s-%d", prefix, i);
        result = insert_row(store, account, service, secret, sizeof secret - 1);
    }
    return end(store, result);
}

int kb_same_work_lookup(kb_same_work *store, const char *account, const char *service, unsigned char *out, size_t capacity) {
    sqlite3_stmt *s = store->select_by_key_reader;
    int length = -1;
    if (bind_key_search(store, s, account, service) == 0 && sqlite3_step(s) == SQLITE_ROW
        && (size_t)sqlite3_column_bytes(s, C_SECRET) <= capacity + NONCE + TAG)
        length = open_row(store, s, 0, 1, out);
    sqlite3_reset(s);
    return length;
}

int kb_same_work_attributes(kb_same_work *store, const char *account, const char *service) {
    sqlite3_stmt *s = store->select_by_key_reader;
    int result = bind_key_search(store, s, account, service) == 0 && sqlite3_step(s) == SQLITE_ROW
        && open_row(store, s, 1, 0, NULL) == 0 ? 0 : -1;
    sqlite3_reset(s);
    return result;
}

/* The Swift store's update of a secret: the row read with its version on the writer's connection,
   then one transaction that seals both parts again and rewrites only the two ciphertexts. */
int kb_same_work_update(kb_same_work *store, const char *account, const char *service, const unsigned char *secret, size_t length) {
    sqlite3_stmt *s = store->select_by_key_writer;
    row_identity row;
    int64_t id = -1;
    if (bind_key_search(store, s, account, service) == 0 && sqlite3_step(s) == SQLITE_ROW && open_row(store, s, 1, 0, NULL) == 0
        && read_identity(s, &row) == 0)
        id = sqlite3_column_int64(s, C_ID);
    sqlite3_reset(s);
    if (id < 0 || length > 4096 || begin(store)) return -1;
    unsigned char meta_box[META_MAX + NONCE + TAG], secret_box[4096 + NONCE + TAG];
    sqlite3_stmt *u = store->update;
    int result = seal_row(store, &row, account, service, secret, length, meta_box, secret_box);
    result = result >= 0 && sqlite3_bind_blob(u, 1, meta_box, result, SQLITE_STATIC) == SQLITE_OK
        && sqlite3_bind_blob(u, 2, secret_box, (int)(length + NONCE + TAG), SQLITE_STATIC) == SQLITE_OK
        && sqlite3_bind_int64(u, 3, id) == SQLITE_OK && sqlite3_step(u) == SQLITE_DONE && sqlite3_changes(store->writer) == 1 ? 0 : -1;
    sqlite3_reset(u);
    return end(store, result);
}

/* The Swift store's delete: in one transaction, the matching rows read and authenticated, then
   deleted by id. */
int kb_same_work_delete(kb_same_work *store, const char *account, const char *service) {
    if (begin(store)) return -1;
    sqlite3_stmt *s = store->select_by_key_writer;
    int64_t id = -1;
    if (bind_key_search(store, s, account, service) == 0 && sqlite3_step(s) == SQLITE_ROW && open_row(store, s, 1, 0, NULL) == 0)
        id = sqlite3_column_int64(s, C_ID);
    sqlite3_reset(s);
    sqlite3_stmt *d = store->delete;
    int result = id >= 0 && sqlite3_bind_int64(d, 1, id) == SQLITE_OK && sqlite3_step(d) == SQLITE_DONE
        && sqlite3_changes(store->writer) == 1 ? 0 : -1;
    sqlite3_reset(d);
    return end(store, result);
}

int kb_same_work_list(kb_same_work *store, const char *service, int limit) {
    unsigned char service_digest[DIGEST], out[4096];
    if (attribute_digest(store, "svce", service, service_digest)) return -1;
    sqlite3_stmt *s = store->list;
    sqlite3_bind_text(s, 1, CLASS, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, 2, store->group_digest, DIGEST, SQLITE_STATIC);
    sqlite3_bind_int(s, 3, 0);
    sqlite3_bind_blob(s, 4, service_digest, DIGEST, SQLITE_STATIC);
    int count = 0;
    while (count < limit && sqlite3_step(s) == SQLITE_ROW)
        if (open_row(store, s, 1, 1, out) >= 0) count++;
    sqlite3_reset(s);
    return count;
}

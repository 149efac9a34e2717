#include "store_settings.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int kb_open_with_store_settings(const char *path, sqlite3 **db) {
    if (sqlite3_open(path, db) != SQLITE_OK) {
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    sqlite3_busy_timeout(*db, 10000);
    const char *pragmas =
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA secure_delete=ON;"
        " PRAGMA journal_size_limit=67108864; PRAGMA wal_autocheckpoint=0;";
    if (sqlite3_exec(*db, pragmas, NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}

struct kb_checkpointer {
    char *path;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int checkpointed_at, pending, stopping;
};

enum { PAGES_PER_CHECKPOINT = 500, PAGES_LEFT_BEHIND = 64, WAL_PAGE_LIMIT = 16384 };

static int wal_hook(void *context, sqlite3 *db, const char *name, int pages) {
    (void)name;
    kb_checkpointer *store = context;
    int catch_up = 0;
    pthread_mutex_lock(&store->lock);
    if (pages < store->checkpointed_at) store->checkpointed_at = 0; /* a restarted WAL */
    if (!store->pending && pages >= WAL_PAGE_LIMIT) {
        catch_up = 1;
    } else if (!store->pending && pages - store->checkpointed_at >= PAGES_PER_CHECKPOINT) {
        store->checkpointed_at = pages;
        store->pending = 1;
        pthread_cond_signal(&store->wake);
    }
    pthread_mutex_unlock(&store->lock);
    if (catch_up) sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    return SQLITE_OK;
}

static void *checkpoint_loop(void *context) {
    kb_checkpointer *store = context;
    sqlite3 *db = NULL;
    if (sqlite3_open(store->path, &db) == SQLITE_OK) sqlite3_busy_timeout(db, 1000);
    pthread_mutex_lock(&store->lock);
    for (;;) {
        while (!store->pending && !store->stopping) pthread_cond_wait(&store->wake, &store->lock);
        if (store->stopping) break;
        pthread_mutex_unlock(&store->lock);
        /* The pragma, not sqlite3_wal_checkpoint_v2: a connection that has not read the database
           has no WAL open, and the C call then checkpoints nothing. Its row: blocked, log, copied. */
        sqlite3_stmt *checkpoint = NULL;
        if (db && sqlite3_prepare_v2(db, "PRAGMA wal_checkpoint(PASSIVE)", -1, &checkpoint, NULL) == SQLITE_OK) {
            for (int run = 0; run < 8; run++) {
                int left_behind = 0;
                if (sqlite3_step(checkpoint) == SQLITE_ROW)
                    left_behind = sqlite3_column_int(checkpoint, 1) - sqlite3_column_int(checkpoint, 2);
                sqlite3_reset(checkpoint);
                if (left_behind <= PAGES_LEFT_BEHIND) break;
            }
        }
        sqlite3_finalize(checkpoint);
        /* As WALCheckpointer does: a PASSIVE checkpoint that leaves frames behind syncs only the WAL,
           so the database file is synced here rather than all at once in the writer's catch-up. */
        sqlite3_file *file = NULL;
        if (db && sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK && file
            && file->pMethods && file->pMethods->xSync)
            file->pMethods->xSync(file, SQLITE_SYNC_NORMAL | SQLITE_SYNC_DATAONLY);
        pthread_mutex_lock(&store->lock);
        store->pending = 0;
    }
    pthread_mutex_unlock(&store->lock);
    sqlite3_close(db);
    return NULL;
}

kb_checkpointer *kb_checkpointer_start(sqlite3 *db, const char *path) {
    kb_checkpointer *checkpointer = calloc(1, sizeof *checkpointer);
    if (!checkpointer) return NULL;
    checkpointer->path = strdup(path);
    pthread_mutex_init(&checkpointer->lock, NULL);
    pthread_cond_init(&checkpointer->wake, NULL);
    if (!checkpointer->path || pthread_create(&checkpointer->thread, NULL, checkpoint_loop, checkpointer) != 0) {
        pthread_cond_destroy(&checkpointer->wake);
        pthread_mutex_destroy(&checkpointer->lock);
        free(checkpointer->path);
        free(checkpointer);
        return NULL;
    }
    sqlite3_wal_hook(db, wal_hook, checkpointer);
    return checkpointer;
}

void kb_checkpointer_stop(kb_checkpointer *checkpointer, sqlite3 *db) {
    if (!checkpointer) return;
    sqlite3_wal_hook(db, NULL, NULL);
    pthread_mutex_lock(&checkpointer->lock);
    checkpointer->stopping = 1;
    pthread_cond_signal(&checkpointer->wake);
    pthread_mutex_unlock(&checkpointer->lock);
    pthread_join(checkpointer->thread, NULL);
    pthread_cond_destroy(&checkpointer->wake);
    pthread_mutex_destroy(&checkpointer->lock);
    free(checkpointer->path);
    free(checkpointer);
}

static EVP_CIPHER *aes_256_gcm;
static pthread_once_t aes_256_gcm_once = PTHREAD_ONCE_INIT;
static void fetch_aes_256_gcm(void) { aes_256_gcm = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL); }

const EVP_CIPHER *kb_aes_256_gcm(void) {
    pthread_once(&aes_256_gcm_once, fetch_aes_256_gcm);
    return aes_256_gcm;
}

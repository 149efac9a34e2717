// SQLite's C API, through Debian's libsqlite3-dev: the store's only database layer.
#ifndef KEYCHAIN_BRIDGE_CSQLITE_SHIM_H
#define KEYCHAIN_BRIDGE_CSQLITE_SHIM_H
#include <sqlite3.h>

/// Turns off SQLite's memory statistics for this process, before SQLite is first used.
///
/// With them on (the default), every allocation SQLite makes takes one process-wide mutex to
/// count it, so two threads reading two connections at once queue on it. The store never reads
/// the statistics. `sqlite3_config` is variadic, which Swift cannot call; hence this function.
/// Returns SQLITE_MISUSE, and changes nothing, when SQLite was already initialized in this process
/// (a host that uses SQLite itself before opening a store): the counting then stays, as it was.
static inline int kb_sqlite_stop_counting_memory(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
#endif

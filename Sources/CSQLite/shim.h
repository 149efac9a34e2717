// SQLite's C API, through Debian's libsqlite3-dev: the store's only database layer.
#ifndef KEYCHAIN_BRIDGE_CSQLITE_SHIM_H
#define KEYCHAIN_BRIDGE_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif

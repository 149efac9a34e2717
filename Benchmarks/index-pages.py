#!/usr/bin/env python3
"""Each index's share of the pages a write commits, on the item table of a real store, and what
it buys: the time of a search by account, service or label alone without it.

Usage: python3 Benchmarks/index-pages.py .build/release/security [ROWS]

The `security` tool makes a store with one generic password; its schema and that row's column
sizes are then taken from the store itself (so this script holds no copy of the schema), and the
same table is filled with 1,000 rows of random digests of those sizes, under the store's WAL and
synchronous settings. Each variant drops one index (or AUTOINCREMENT, or uses the unique key as a
WITHOUT ROWID primary key); for each, 500 adds and then 500 deletes by key run one transaction
each, and the WAL frames (pages) they commit are counted. Python's sqlite3 module drives SQLite
here: the figures are SQLite's page counts, not the store's speed.

Then, in each variant filled with ROWS rows (default 1,000; the issue's second size is 100,000),
200 searches each by account alone, service alone and label alone (a value some row has, the
store's SQL for such a search) are timed: SQLite's time to find the row, without the store's
decryption of it.
"""

import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile

FILL, WRITES = 1000, 500


def store_schema(security_tool):
    """The item table's SQL, its indexes' SQL and one row's column sizes, from a fresh store."""
    with tempfile.TemporaryDirectory() as home:
        os.chmod(home, 0o700)
        environment = dict(os.environ, KEYCHAIN_BRIDGE_HOME=home)
        subprocess.run(
            [security_tool, "add-generic-password", "-a", "alice", "-s", "mail", "-w", "secret"],
            env=environment, check=True)
        db = sqlite3.connect(os.path.join(home, "keychain.db"))
        table = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'item'").fetchone()[0]
        indexes = dict(db.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'item' AND sql IS NOT NULL"))
        columns = [row[1] for row in db.execute("PRAGMA table_info(item)")]
        sample = db.execute("SELECT * FROM item").fetchone()
        db.close()
    return table, indexes, columns, sample


def variants(table, indexes):
    """(name, table SQL, index SQL list) for the store's schema and each change to it."""
    yield "store schema", table, list(indexes.values())
    yield "no AUTOINCREMENT", table.replace(" AUTOINCREMENT", ""), list(indexes.values())
    yield "no UNIQUE persistref", table.replace("NOT NULL UNIQUE", "NOT NULL"), list(indexes.values())
    unique = re.search(r",\s*UNIQUE \(class, pk, spi\)", table)
    if unique:
        yield "no UNIQUE (class, pk, spi)", table.replace(unique.group(0), ""), list(indexes.values())
        without_rowid = (
            table.replace("INTEGER PRIMARY KEY AUTOINCREMENT", "INTEGER NOT NULL")
            .replace(unique.group(0), ", PRIMARY KEY (class, pk, spi)") + " WITHOUT ROWID")
        yield "WITHOUT ROWID, key (class, pk, spi)", without_rowid, list(indexes.values())
    for name in indexes:
        yield f"no {name}", table, [sql for other, sql in indexes.items() if other != name]
    if "item_acct" in indexes and "item_svce" in indexes:
        merged = [sql for other, sql in indexes.items() if other not in ("item_acct", "item_svce")]
        merged.append("CREATE INDEX item_svce_acct ON item (class, svce, acct) WHERE svce IS NOT NULL")
        yield "item_acct + item_svce as (svce, acct)", table, merged


def random_like(value):
    """A value of the sample's type and size: digests and ciphertexts look random."""
    if isinstance(value, bytes):
        return random.randbytes(len(value))
    return value


def wal_frames(path):
    wal = path + "-wal"
    return (os.path.getsize(wal) - 32) // (4096 + 24) if os.path.exists(wal) else 0


SEARCHES = 200


def timed_searches(db, column, values):
    """Mean µs of the store's search by one digest column alone (class, group and sync compared too)."""
    import time
    sql = f"SELECT id FROM item WHERE class = ? AND agrp IN (?) AND sync = ? AND {column} = ? ORDER BY id"
    start = time.perf_counter()
    for klass, group, sync, value in values:
        db.execute(sql, (klass, group, sync, value)).fetchall()
    return (time.perf_counter() - start) / len(values) * 1e6


def measure(directory, table, index_sql, columns, sample, fill):
    path = os.path.join(directory, "variant.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute(table)
    for sql in index_sql:
        db.execute(sql)
    named = [column for column in columns if column != "id" or "WITHOUT ROWID" in table]
    insert = f"INSERT INTO item ({', '.join(named)}) VALUES ({', '.join('?' * len(named))})"
    positions = [columns.index(column) for column in named]

    def row(number):
        return [number if columns[i] == "id" else random_like(sample[i]) for i in positions]

    db.execute("BEGIN")
    for number in range(1, FILL + 1):
        db.execute(insert, row(number))
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    added = []
    for number in range(FILL + 1, FILL + WRITES + 1):
        values = row(number)
        db.execute("BEGIN")
        db.execute(insert, values)
        db.execute("COMMIT")
        added.append(dict(zip(named, values)))
    per_add = wal_frames(path) / WRITES
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for values in added:
        db.execute("BEGIN")
        db.execute("DELETE FROM item WHERE class = ? AND pk = ? AND spi = ?", (values["class"], values["pk"], values["spi"]))
        db.execute("COMMIT")
    per_delete = wal_frames(path) / WRITES
    # The search figures on a table of `fill` rows: the measured one topped up.
    db.execute("BEGIN")
    for number in range(FILL + WRITES + 1, fill + WRITES + 1):
        db.execute(insert, row(number))
    db.execute("COMMIT")
    db.execute("ANALYZE")
    searched = {}
    for column in ("acct", "svce", "labl"):
        values = db.execute(
            f"SELECT class, agrp, sync, {column} FROM item ORDER BY random() LIMIT {SEARCHES}").fetchall()
        searched[column] = timed_searches(db, column, values)
    db.close()
    return per_add, per_delete, searched


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    fill = int(sys.argv[2]) if len(sys.argv) == 3 else FILL
    table, indexes, columns, sample = store_schema(sys.argv[1])
    print(f"{'item table':38} {'pages/add':>9} {'pages/delete':>12}   search µs at {fill} rows by: acct   svce   labl")
    with tempfile.TemporaryDirectory() as directory:
        for name, variant_table, index_sql in variants(table, indexes):
            per_add, per_delete, searched = measure(directory, variant_table, index_sql, columns, sample, fill)
            times = "  ".join(f"{searched[column]:6.1f}" for column in ("acct", "svce", "labl"))
            print(f"{name:38} {per_add:9.2f} {per_delete:12.2f}   {'':>26}{times}")


if __name__ == "__main__":
    main()

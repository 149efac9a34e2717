import Foundation
import GRDB

/// Changes a store's database behind the runtime's back, as an attacker with file access would.
enum StoreTampering {
  private static func open(_ directory: URL) throws -> DatabaseQueue {
    try DatabaseQueue(path: directory.appendingPathComponent("keychain.db").path)
  }

  /// The ids of the item rows, in insertion order.
  static func rowIDs(_ directory: URL) throws -> [Int64] {
    try open(directory).read { db in try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id") }
  }

  /// Flips one bit of `column` (meta, secret, persistref...) in the `account`-th row (by insertion).
  static func flipByte(in column: String, account index: Int, at offset: Int? = nil, directory: URL) throws {
    let queue = try open(directory)
    try queue.write { db in
      let id = try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")[index]
      guard let value = try Data.fetchOne(db, sql: "SELECT \(column) FROM item WHERE id = ?", arguments: [id]),
        !value.isEmpty
      else { return }
      var bytes = [UInt8](value)
      let position = offset ?? bytes.count / 2
      bytes[position] ^= 0x01
      try db.execute(sql: "UPDATE item SET \(column) = ? WHERE id = ?", arguments: [Data(bytes), id])
    }
  }

  /// Sets `column` of the `index`-th row (by insertion) to `value` (NULL for nil).
  static func setColumn(_ column: String, row index: Int, to value: Data?, directory: URL) throws {
    try open(directory).write { db in
      let id = try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")[index]
      try db.execute(sql: "UPDATE item SET \(column) = ? WHERE id = ?", arguments: [value, id])
    }
  }

  /// The value of `column` in the `index`-th row (by insertion).
  static func column(_ column: String, row index: Int, directory: URL) throws -> Data? {
    try open(directory).read { db in
      let id = try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")[index]
      return try Data.fetchOne(db, sql: "SELECT \(column) FROM item WHERE id = ?", arguments: [id])
    }
  }

  /// Deletes a row of `store_info` (the key check, the recorded protection...).
  static func deleteStoreInfo(_ name: String, directory: URL) throws {
    try open(directory).write { db in try db.execute(sql: "DELETE FROM store_info WHERE name = ?", arguments: [name]) }
  }

  /// Swaps the sealed columns of two rows.
  static func swapSealedColumns(_ first: Int, _ second: Int, directory: URL) throws {
    let queue = try open(directory)
    try queue.write { db in
      let ids = try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")
      let rows = try [ids[first], ids[second]].map { id in
        try Row.fetchOne(db, sql: "SELECT meta, secret FROM item WHERE id = ?", arguments: [id])!
      }
      try db.execute(
        sql: "UPDATE item SET meta = ?, secret = ? WHERE id = ?",
        arguments: [rows[1]["meta"] as Data?, rows[1]["secret"] as Data?, ids[first]])
      try db.execute(
        sql: "UPDATE item SET meta = ?, secret = ? WHERE id = ?",
        arguments: [rows[0]["meta"] as Data?, rows[0]["secret"] as Data?, ids[second]])
    }
  }

  /// Exchanges the values of `column` between the `first`-th and `second`-th rows (by insertion).
  static func swapColumn(_ column: String, _ first: Int, _ second: Int, directory: URL) throws {
    try open(directory).write { db in
      let ids = try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")
      let values = try [ids[first], ids[second]].map { id in
        try Row.fetchOne(db, sql: "SELECT \(column) AS value FROM item WHERE id = ?", arguments: [id])!["value"]
          as DatabaseValue
      }
      // Through a free value first, so that UNIQUE columns can be exchanged.
      try db.execute(sql: "UPDATE item SET \(column) = randomblob(16) WHERE id = ?", arguments: [ids[first]])
      try db.execute(sql: "UPDATE item SET \(column) = ? WHERE id = ?", arguments: [values[0], ids[second]])
      try db.execute(sql: "UPDATE item SET \(column) = ? WHERE id = ?", arguments: [values[1], ids[first]])
    }
  }

  /// Copies the value of `column` from the `source`-th row onto the `target`-th row.
  static func copyColumn(_ column: String, from source: Int, to target: Int, directory: URL) throws {
    try open(directory).write { db in
      let ids = try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")
      try db.execute(
        sql: "UPDATE item SET \(column) = (SELECT \(column) FROM item WHERE id = ?) WHERE id = ?",
        arguments: [ids[source], ids[target]])
    }
  }

  /// Sets `column` of the `index`-th row to NULL.
  static func setNull(_ column: String, row index: Int, directory: URL) throws {
    try open(directory).write { db in
      let id = try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")[index]
      try db.execute(sql: "UPDATE item SET \(column) = NULL WHERE id = ?", arguments: [id])
    }
  }

  /// The value of a blob column of the `index`-th row.
  static func sealedColumn(_ column: String, row index: Int, directory: URL) throws -> Data {
    try open(directory).read { db in
      let id = try Int64.fetchAll(db, sql: "SELECT id FROM item ORDER BY id")[index]
      return try Data.fetchOne(db, sql: "SELECT \(column) FROM item WHERE id = ?", arguments: [id])!
    }
  }

  /// Moves everything in the WAL into the database file and empties the WAL.
  static func checkpoint(_ directory: URL) throws {
    try open(directory).writeWithoutTransaction { db in
      _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
    }
  }

  /// Every byte of the database and its WAL, for searching for plaintext.
  static func databaseBytes(_ directory: URL) throws -> Data {
    var bytes = Data()
    for name in ["keychain.db", "keychain.db-wal"] {
      if let contents = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) {
        bytes.append(contents)
      }
    }
    return bytes
  }
}

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
      var bytes = [UInt8](try Data.fetchOne(db, sql: "SELECT \(column) FROM item WHERE id = ?", arguments: [id])!)
      let position = offset ?? bytes.count / 2
      bytes[position] ^= 0x01
      try db.execute(sql: "UPDATE item SET \(column) = ? WHERE id = ?", arguments: [Data(bytes), id])
    }
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

import CSQLite
import Foundation
import Security

// Reading rows: a search plan run over the rows, each authenticated, with the API's verdict on
// what the indexes did not decide, and secrets opened only for the rows in the answer.
extension SQLiteItemStorage {
  /// Runs a search plan inside a write transaction.
  func select(_ db: SQLiteConnection, _ filter: ItemFilter, limit: Int?, fetch: ItemFetch, _ ring: KeyRing)
    throws(SecStatus) -> [RowRecord]
  {
    let plan = try planner(ring).plan(filter)
    let statement = try SQLiteErrors.database { try db.statement(plan.sql) }
    return try select(statement, plan, filter, limit: limit, fetch: fetch, ring)
  }

  /// Runs a search plan over the rows, authenticating each and decrypting what `fetch` and the
  /// API's verdict need.
  ///
  /// A row that fails authentication is skipped and reported, as Apple skips corrupt rows (rule
  /// 3.8), so one damaged row does not deny access to every other item. When the search found only
  /// damaged rows it answers errSecDecode: the item it targets exists but cannot be trusted.
  func select(
    _ statement: OpaquePointer, _ plan: SearchPlan, _ filter: ItemFilter, limit: Int?, fetch: ItemFetch,
    _ ring: KeyRing
  ) throws(SecStatus) -> [RowRecord] {
    var rowFetch = fetch
    rowFetch.attributes = fetch.attributes || plan.needsPostFilter
    // A secret is opened only for a row that is part of the answer: one the API's verdict drops, or
    // one past the limit once the rows are in insertion order, must neither cost a decryption nor,
    // while locked, turn the answer into errSecInteractionNotAllowed. `decode` leaves it sealed,
    // and opening it later authenticates the row (a row without attributes to read opens nothing
    // else: one ciphertext per data lookup). Where neither can happen, `decode` opens it at once.
    let opensSecretsLater = fetch.data && (plan.needsPostFilter || plan.sortsInMemory)
    var records: [RowRecord] = []
    var damaged = 0
    /// Opens a later-opened row's secret; false when it fails authentication (counted).
    func openSecret(_ record: inout RowRecord) throws(SecStatus) -> Bool {
      do throws(SecStatus) {
        try record.openSecret(ring)
        return true
      } catch .decode {
        damaged += 1
        return false
      }
    }
    try forEachRow(of: statement, arguments: plan.arguments) { row throws(SecStatus) in
      var record: RowRecord
      do throws(SecStatus) {
        record = try RowCodec.decode(row, fetch: rowFetch, ring, secretLater: opensSecretsLater)
      } catch .decode {
        damaged += 1
        return true
      }
      // An authentic row that does not carry the values SQLite selected it by was reached through a
      // damaged index entry.
      guard plan.expected.admit(record.identity) else {
        damaged += 1
        return true
      }
      if plan.needsPostFilter && !filter.matches(record.item) { return true }
      if opensSecretsLater && !plan.sortsInMemory {
        guard try openSecret(&record) else { return true }
      }
      records.append(record)
      if let limit, !plan.sortsInMemory { return records.count < limit }
      return true
    }
    if plan.sortsInMemory {
      records.sort { $0.id < $1.id }
      if opensSecretsLater {
        // In place: the rows whose secret opens move to the front, in order (the slots between
        // `kept` and `index` hold only rows that failed), and the rest is cut off.
        var kept = 0
        for index in records.indices {
          if let limit, kept >= limit { break }
          if try openSecret(&records[index]) {
            records.swapAt(kept, index)
            kept += 1
          }
        }
        records.removeSubrange(kept...)
      } else if let limit, records.count > limit {
        records.removeSubrange(limit...)
      }
    }
    if damaged > 0 {
      integrity.report(damagedRows: damaged, itemClass: filter.itemClass)
      if records.isEmpty { throw .decode }
    }
    return records
  }

  /// SQLite's query plan for a search, for tests that prove the indexes are used.
  func queryPlan(for filter: ItemFilter) throws(SecStatus) -> [String] {
    let ring = try keyRing()
    let plan = try planner(ring).plan(filter)
    var details: [String] = []
    try readers.withStatement("EXPLAIN QUERY PLAN " + plan.sql) { statement throws(SecStatus) in
      try forEachRow(of: statement, arguments: plan.arguments) { row throws(SecStatus) in
        details.append(try row.text(3))
        return true
      }
    }
    return details
  }
}

import Foundation
import Security

/// A search as SQL: what the database compares, and what is left to check on decrypted metadata.
struct SearchPlan {
  var sql: String
  var arguments: [SQLArgument]
  /// The column values SQLite compared, checked again on every authenticated row.
  var expected: ExpectedColumns
  /// Whether some constraint of the filter is decided by the API's `matches` on the attributes.
  var needsPostFilter: Bool
  /// The SQL leaves the order to the caller, which sorts by id itself.
  var sortsInMemory: Bool
}

/// The column values a search selected rows by. SQLite answers from its indexes, which are not
/// authenticated (a flipped bit in an index entry can point at another row), so each row is
/// checked against these once its own columns are proven authentic.
struct ExpectedColumns {
  var itemClass: ItemClass
  var persistentID: Data?
  // Arrays, not sets: a search names a few groups and keys, and hashing them cost more than
  // comparing them (the planner runs on every call).
  var accessGroups: [RowDigest]?
  var synchronizable: Int64?
  var primaryKeys: [RowDigest]?
  /// Per search column, the digest compared, or nil when the column was not compared; empty when
  /// the search compares none of them (a search by primary key), which is the common case.
  var searchDigests = SearchDigestColumns()

  func admit(_ identity: RowIdentity) -> Bool {
    guard identity.itemClass == itemClass else { return false }
    if let persistentID, identity.persistentID != persistentID { return false }
    if let accessGroups, !accessGroups.contains(identity.accessGroup) { return false }
    if let synchronizable, identity.synchronizable != synchronizable { return false }
    if let primaryKeys, !primaryKeys.contains(identity.primaryKey) { return false }
    if !searchDigests.isEmpty {
      for index in 0..<SearchDigestColumns.count {
        if let wanted = searchDigests[index], identity.searchDigests[index] != wanted { return false }
      }
    }
    return true
  }
}

/// What a search's SQL depends on. Searches of one shape share one SQL text, built once and
/// prepared once per connection; only the bound values differ.
struct PlanShape: Hashable {
  enum Reference: Hashable { case none, uuid, rowID }
  var reference: Reference = .none
  /// nil when every group is searched.
  var groupCount: Int?
  var comparesSynchronizable = false
  /// How many primary-key digests the search compares (0: it does not use the primary key).
  var primaryKeyCount = 0
  /// Which of `ItemTable.digestColumns` the search compares: bit n for column n (a bit set, so the
  /// shape hashes without an array).
  var searchColumns: UInt8 = 0

  var sql: String {
    var sql = "SELECT \(ItemTable.selectList) FROM item WHERE class = ?"
    switch reference {
    case .none: break
    case .uuid: sql += " AND persistref = ?"
    case .rowID: sql += " AND id = ?"
    }
    if let groupCount { sql += " AND agrp IN (\(Self.marks(groupCount)))" }
    if comparesSynchronizable { sql += " AND sync = ?" }
    if primaryKeyCount > 0 { sql += " AND pk IN (\(Self.marks(primaryKeyCount)))" }
    for (index, digest) in ItemTable.digestColumns.enumerated() where searchColumns & (1 << index) != 0 {
      sql += " AND \(digest.column.name) = ?"
    }
    // The primary-key index orders its few matches by spi, so ORDER BY id would cost SQLite a
    // temporary B-tree per search; the caller sorts them instead. The other indexes end in the
    // rowid, so SQLite returns their rows in id order without sorting. There is no LIMIT: the
    // caller stops stepping once it has enough rows that passed authentication.
    return primaryKeyCount > 0 ? sql : sql + " ORDER BY id"
  }

  private static func marks(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ",")
  }
}

/// Plans searches: the primary-key index when the filter names the whole key, else the digest
/// columns it names; constraints no column covers are left to the API's `matches`.
struct QueryPlanner {
  let digests: SearchDigests

  func plan(_ filter: ItemFilter) throws(SecStatus) -> SearchPlan {
    var shape = PlanShape()
    var arguments: [SQLArgument] = [.text(filter.itemClass.rawValue)]
    var expected = ExpectedColumns(itemClass: filter.itemClass)
    var covered: [String] = []
    switch filter.reference {
    case .uuid(_, let uuid)?:
      shape.reference = .uuid
      arguments.append(.blob(uuid))
      expected.persistentID = uuid
    case .rowID(_, let rowID)?:
      shape.reference = .rowID
      arguments.append(.integer(rowID))
    case nil:
      break
    }
    if let groups = filter.accessGroups {
      shape.groupCount = groups.count
      var groupDigests: [RowDigest] = []
      for group in groups { groupDigests.append(try digests.group(group)) }
      for digest in groupDigests { arguments.append(.digest(digest)) }
      expected.accessGroups = groupDigests
    }
    if let sync = filter.synchronizable {
      shape.comparesSynchronizable = true
      arguments.append(.integer(sync))
      expected.synchronizable = sync
    }
    if let groups = filter.accessGroups, filter.reference == nil, let primaryKey = filter.primaryKey {
      let syncValues: [Int64] = filter.synchronizable.map { [$0] } ?? [0, 1]
      var keyDigests: [RowDigest] = []
      for group in groups {
        for sync in syncValues {
          let digest = try digests.primaryKey(filter.itemClass, primaryKey, group: group, synchronizable: sync)
          arguments.append(.digest(digest))
          keyDigests.append(digest)
        }
      }
      expected.primaryKeys = keyDigests
      shape.primaryKeyCount = groups.count * syncValues.count
      for field in primaryKey { covered.append(field.key) }
    } else {
      for (index, digestColumn) in ItemTable.digestColumns.enumerated() {
        let key = digestColumn.attribute
        guard let value = filter.attributes[key] else { continue }
        let digest = try digests.attribute(key, value)
        arguments.append(.digest(digest))
        expected.searchDigests[index] = digest
        covered.append(key)
        shape.searchColumns |= 1 << index
      }
    }
    let needsPostFilter = filter.hasOtherConstraints || filter.attributes.keys.contains { !covered.contains($0) }
    return SearchPlan(
      sql: PlanCache.sql(for: shape), arguments: arguments, expected: expected, needsPostFilter: needsPostFilter,
      sortsInMemory: shape.primaryKeyCount > 0)
  }
}

/// The SQL text of each plan shape this thread has used. The text depends on the shape alone, so
/// every store shares it; per thread because every search reads it (see `ThreadLocalValue`).
enum PlanCache {
  /// Shapes differ by counts of groups and keys, so a program could make many: past this many a
  /// thread starts again.
  static let capacity = 64
  private static let texts = ThreadLocalValue<[PlanShape: String]> { [:] }

  static func sql(for shape: PlanShape) -> String {
    texts.withValue { texts in
      if let cached = texts[shape] { return cached }
      let sql = shape.sql
      if texts.count >= Self.capacity { texts.removeAll(keepingCapacity: true) }
      texts[shape] = sql
      return sql
    }
  }
}

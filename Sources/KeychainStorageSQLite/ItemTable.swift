import Security

/// The `item` table's columns: the one list its schema, every row read and both row writes are
/// built from, so that a column added, removed or moved is changed in one place.
///
/// A read selects every column in case order, so a case's raw value is its position in the row
/// (`StatementRow` reads by position, which is what SQLite's C API offers and what is fast).
enum ItemColumn: Int32, CaseIterable {
  case id = 0
  case itemClass
  case persistentReference
  case accessGroup
  case synchronizable
  case protection
  case primaryKey
  case spiKey
  case metadata
  case secret
  case account
  case service
  case server
  case label
  case accessControl

  /// The column's name in SQL.
  var name: String {
    switch self {
    case .id: "id"
    case .itemClass: "class"
    case .persistentReference: "persistref"
    case .accessGroup: "agrp"
    case .synchronizable: "sync"
    case .protection: "pdmn"
    case .primaryKey: "pk"
    case .spiKey: "spi"
    case .metadata: "meta"
    case .secret: "secret"
    case .account: "acct"
    case .service: "svce"
    case .server: "srvr"
    case .label: "labl"
    case .accessControl: "acl"
    }
  }

  /// The column's declaration in `CREATE TABLE`.
  var declaration: String {
    switch self {
    case .id: "id INTEGER PRIMARY KEY AUTOINCREMENT"
    case .itemClass, .protection: "\(name) TEXT NOT NULL"
    case .persistentReference: "\(name) BLOB NOT NULL UNIQUE"
    case .synchronizable: "\(name) INTEGER NOT NULL"
    case .accessGroup, .primaryKey, .spiKey, .metadata: "\(name) BLOB NOT NULL"
    case .secret, .account, .service, .server, .label, .accessControl: "\(name) BLOB"
    }
  }
}

/// The `item` table's SQL, built from `ItemColumn`.
enum ItemTable {
  /// The columns holding a keyed digest of one searchable attribute, and the attribute each holds,
  /// in the order of `RowIdentity.searchDigests`.
  static let digestColumns: [(column: ItemColumn, attribute: String)] = [
    (.account, SecConstantValue.attrAccount), (.service, SecConstantValue.attrService),
    (.server, SecConstantValue.attrServer), (.label, SecConstantValue.attrLabel),
  ]

  /// What every row read selects, in `ItemColumn` order.
  static let selectList = ItemColumn.allCases.map(\.name).joined(separator: ", ")

  /// The columns a write sets after the class and the persistent reference, in the order of
  /// `SQLiteItemStorage.rowColumns`.
  static let writtenColumns: [ItemColumn] =
    [.accessGroup, .synchronizable, .protection, .primaryKey, .spiKey] + digestColumns.map(\.column)
    + [.accessControl, .metadata, .secret]

  /// Adds a row: its class, its persistent reference, then `writtenColumns`.
  static let insertSQL: String = {
    let columns = [ItemColumn.itemClass, .persistentReference] + writtenColumns
    let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
    return "INSERT INTO item (\(columns.map(\.name).joined(separator: ", "))) VALUES (\(marks))"
  }()

  /// Replaces a row's `writtenColumns`; the last argument is its id.
  static let updateSQL =
    "UPDATE item SET \(writtenColumns.map { "\($0.name) = ?" }.joined(separator: ", ")) WHERE id = ?"

  /// Replaces only a row's access control and two ciphertexts (a new secret, the attributes kept),
  /// none of them indexed; the last argument is its id.
  static let updateSealedSQL =
    "UPDATE item SET \(ItemColumn.accessControl.name) = ?, \(ItemColumn.metadata.name) = ?, \(ItemColumn.secret.name) = ? WHERE id = ?"

  /// The table, its uniqueness rule (rule 2.1, by digests) and one index per digest column. The
  /// columns are declared in the order stores have always had (the id, then what an insert sets),
  /// with `acl` last, where upgraded stores have it.
  static let createSQL: String = {
    let declared =
      [ItemColumn.id, .itemClass, .persistentReference] + writtenColumns.filter { $0 != .accessControl }
      + [.accessControl]
    let columns = declared.map { "  \($0.declaration)," }.joined(separator: "\n")
    return "CREATE TABLE item (\n\(columns)\n  UNIQUE (class, pk, spi)\n);\n" + digestIndexesSQL
  }()

  /// One index per digest column, holding only the rows that have the attribute.
  ///
  /// Partial: a search compares a digest for equality, which a NULL never satisfies, so the rows
  /// without the attribute (every generic password's server, most items' label) need no entry,
  /// and adding or deleting such a row writes no page of that index.
  static let digestIndexesSQL: String = digestColumns.map { digest in
    let name = digest.column.name
    return "CREATE INDEX IF NOT EXISTS item_\(name) ON item (class, \(name)) WHERE \(name) IS NOT NULL;"
  }.joined(separator: "\n")

  /// Adds the `acl` column (row format 3) to a store made before it; does nothing when it is there.
  /// SQLite adds a nullable column without rewriting a row.
  static func addAccessControlColumn(_ connection: SQLiteConnection) throws {
    let columns = try connection.strings("SELECT name FROM pragma_table_info('item')")
    guard !columns.contains(ItemColumn.accessControl.name) else { return }
    try connection.execute("ALTER TABLE item ADD COLUMN \(ItemColumn.accessControl.declaration)")
  }

  /// Rebuilds as partial the digest indexes of a store made before they were (once, in the
  /// caller's transaction); does nothing when they already are.
  static func makeDigestIndexesPartial(_ connection: SQLiteConnection) throws {
    let names = digestColumns.map { "'item_\($0.column.name)'" }.joined(separator: ", ")
    let full = try connection.strings(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND name IN (\(names)) AND sql NOT LIKE '%WHERE%'")
    guard !full.isEmpty else { return }
    for name in full { try connection.execute("DROP INDEX \(name)") }
    try connection.execute(digestIndexesSQL)
  }
}

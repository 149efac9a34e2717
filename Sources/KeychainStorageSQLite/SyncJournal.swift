import Foundation
import KeychainCrypto
import Security

/// The primary key of a synchronizable item in a form that travels: what a tombstone carries, and
/// what the item's record identifier is computed over (the bytes its local `pk` and `spi` digests
/// are computed over, keyed by the group instead of the store).
struct SyncIdentity: Equatable {
  enum Value: Equatable {
    case bytes([UInt8])
    case integer(Int64)
    case double(Double)
    case text(String)
    case date(Double)

    init(_ value: ComparableValue) {
      switch value {
      case .bytes(let bytes): self = .bytes(bytes)
      case .integer(let value): self = .integer(value)
      case .double(let value): self = .double(value)
      case .text(let value): self = .text(value)
      case .date(let value): self = .date(value)
      }
    }

    var comparable: ComparableValue {
      switch self {
      case .bytes(let bytes): .bytes(bytes)
      case .integer(let value): .integer(value)
      case .double(let value): .double(value)
      case .text(let value): .text(value)
      case .date(let value): .date(value)
      }
    }
  }

  struct Field: Equatable {
    var key: String
    var value: Value
  }

  var itemClass: String
  var accessGroup: String
  var synchronizable: Int64
  var primaryKey: [Field]
  var spiKey: [Value?]

  /// The class, checked against the implemented ones (the bytes came from another store).
  func resolvedClass() throws(SecStatus) -> ItemClass {
    guard let resolved = ItemClass(rawValue: itemClass), resolved.isImplemented else {
      throw SecStatus(errSecDecode, detail: "the record names an item class this store does not keep")
    }
    return resolved
  }

  var indexedPrimaryKey: [IndexedAttribute] {
    primaryKey.map { IndexedAttribute(key: $0.key, value: $0.value.comparable) }
  }
  var spiValues: [ComparableValue?] { spiKey.map { $0?.comparable } }

  /// The bytes the record identifier is a keyed digest of.
  func canonicalBytes() throws(SecStatus) -> [UInt8] {
    SearchDigests.primaryKeyBytes(
      try resolvedClass(), indexedPrimaryKey, group: accessGroup, synchronizable: synchronizable)
      + SearchDigests.spiKeyBytes(spiValues)
  }

  /// The row's local key: its class and the `pk` and `spi` digests under this store's index key.
  func localKey(_ digests: SearchDigests) throws(SecStatus) -> LocalItemKey {
    let itemClass = try resolvedClass()
    return LocalItemKey(
      itemClass: itemClass,
      primaryKey: try digests.primaryKey(
        itemClass, indexedPrimaryKey, group: accessGroup, synchronizable: synchronizable),
      spiKey: try digests.spiKey(spiValues))
  }

  // A small tagged binary form, like the row metadata's: it is written with every change of a
  // synchronizable item, where a property list encoder cost as much as the rest of the write.
  private static let formatVersion: UInt8 = 1

  func encoded() throws(SecStatus) -> [UInt8] {
    var out: [UInt8] = [Self.formatVersion]
    out.reserveCapacity(160)
    TaggedBinaryForm.appendBytes(Array(itemClass.utf8), to: &out)
    TaggedBinaryForm.appendBytes(Array(accessGroup.utf8), to: &out)
    withUnsafeBytes(of: synchronizable.littleEndian) { out.append(contentsOf: $0) }
    TaggedBinaryForm.appendLength(primaryKey.count, to: &out)
    for field in primaryKey {
      TaggedBinaryForm.appendBytes(Array(field.key.utf8), to: &out)
      TaggedBinaryForm.appendBytes(field.value.comparable.encoded, to: &out)
    }
    TaggedBinaryForm.appendLength(spiKey.count, to: &out)
    for value in spiKey {
      if let value {
        out.append(1)
        TaggedBinaryForm.appendBytes(value.comparable.encoded, to: &out)
      } else {
        out.append(0)
      }
    }
    return out
  }

  static func decoded(_ bytes: [UInt8]) throws(SecStatus) -> SyncIdentity {
    do throws(SecStatus) {
      var reader = TaggedBinaryForm.Reader(bytes)
      guard try reader.byte() == formatVersion else { throw .decode }
      let itemClass = try reader.string()
      let accessGroup = try reader.string()
      let synchronizable = Int64(bitPattern: try reader.uint64())
      var primaryKey: [Field] = []
      for _ in 0..<min(try reader.length(), 64) {
        let key = try reader.string()
        primaryKey.append(Field(key: key, value: try value(Array(try reader.block()))))
      }
      var spiKey: [Value?] = []
      for _ in 0..<min(try reader.length(), 64) {
        spiKey.append(try reader.byte() == 1 ? try value(Array(try reader.block())) : nil)
      }
      guard reader.isAtEnd else { throw .decode }
      return SyncIdentity(
        itemClass: itemClass, accessGroup: accessGroup, synchronizable: synchronizable, primaryKey: primaryKey,
        spiKey: spiKey)
    } catch {
      throw SecStatus(errSecDecode, detail: "the record's key is not in a format this version can read")
    }
  }

  /// A value from its `ComparableValue.encoded` bytes: a tag, then the bytes or eight bytes.
  private static func value(_ bytes: [UInt8]) throws(SecStatus) -> Value {
    guard let tag = bytes.first else { throw .decode }
    let body = Array(bytes.dropFirst())
    func number() throws(SecStatus) -> UInt64 {
      guard body.count == 8 else { throw .decode }
      return body.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
    switch tag {
    case 0x62: return .bytes(body)
    case 0x6E: return .integer(Int64(bitPattern: try number()))
    case 0x66: return .double(Double(bitPattern: try number()))
    case 0x73:
      guard let text = String(validating: body, as: UTF8.self) else { throw .decode }
      return .text(text)
    case 0x74: return .date(Double(bitPattern: try number()))
    default: throw .decode
    }
  }
}

// In extensions, so that both types keep their memberwise initializers.
extension SyncIdentity {
  init(_ itemClass: ItemClass, _ index: ItemIndex) {
    self.init(
      itemClass: itemClass.rawValue, accessGroup: index.accessGroup, synchronizable: index.synchronizable,
      primaryKey: index.primaryKey.map { Field(key: $0.key, value: Value($0.value)) },
      spiKey: index.spiKey.map { $0.map(Value.init) })
  }
}

extension LocalItemKey {
  init(_ identity: RowIdentity) {
    self.init(itemClass: identity.itemClass, primaryKey: identity.primaryKey, spiKey: identity.spiKey)
  }
}

/// What makes an item row unique in the store (the item table's UNIQUE constraint).
struct LocalItemKey: Hashable {
  var itemClass: ItemClass
  var primaryKey: Data
  var spiKey: Data

  var arguments: [SQLArgument] { [.text(itemClass.rawValue), .blob(primaryKey), .blob(spiKey)] }

  /// The associated data of the sealed identity kept in its journal entry (journal format 2): the
  /// entry's key and every column a sync acts on (its version, origin and deletion flag), so that
  /// a version, origin or deletion changed on disk makes the entry fail to open.
  func associatedData(version: Int64, origin: Data, deleted: Bool) -> [UInt8] {
    var bytes = Array("keychain-bridge/sync-state/v2".utf8)
    for field in [Array(itemClass.rawValue.utf8), Array(primaryKey), Array(spiKey), Array(origin)] {
      withUnsafeBytes(of: UInt32(truncatingIfNeeded: field.count).littleEndian) { bytes += $0 }
      bytes += field
    }
    withUnsafeBytes(of: version.littleEndian) { bytes += $0 }
    bytes.append(deleted ? 1 : 0)
    return bytes
  }

  /// The associated data of journal format 1 (the key only), read only to upgrade old stores.
  var formatOneAssociatedData: [UInt8] {
    Array("keychain-bridge/sync-state/v1".utf8) + Array(itemClass.rawValue.utf8) + [0] + Array(primaryKey)
      + Array(spiKey)
  }
}

/// One journal entry as read from disk and authenticated.
struct JournalEntry {
  var version: Int64
  var origin: Data
  var deleted: Bool
  var identity: SyncIdentity
}

/// The journal of synchronizable items: for each, the version the store holds, which store made
/// it, whether it is a tombstone, and whether the server still has to receive it. It is written in
/// the same transaction as the item it describes, by every process that writes the store, whether
/// or not the store is in a group yet; so no change is missed, and a join pushes everything.
///
/// A tombstone is a journal entry only: the item row is gone, so no query can see it (rules 3.3 and
/// 8.8), and adding the item again simply makes a newer live version (rule 5.3).
enum SyncJournal {
  static let schema = """
    CREATE TABLE IF NOT EXISTS sync_state (
      class TEXT NOT NULL,
      pk BLOB NOT NULL,
      spi BLOB NOT NULL,
      version INTEGER NOT NULL,
      origin BLOB NOT NULL,
      deleted INTEGER NOT NULL,
      pending INTEGER NOT NULL,
      identity BLOB NOT NULL,
      changed INTEGER NOT NULL,
      PRIMARY KEY (class, pk, spi)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS sync_state_pending ON sync_state (pending) WHERE pending = 1;
    """

  /// The journal format this version writes (`store_info.journal_format`): 2 binds each entry's
  /// version, origin and deletion flag into its sealing.
  static let currentFormat = Data([2])

  /// How long a tombstone is kept when no sync engine sets another age.
  static let defaultTombstoneAge: TimeInterval = 30 * 24 * 3600

  /// Whether a row with this identity takes part in sync: synchronizable, and not ThisDeviceOnly
  /// (decision 4: such an item is kept, and never leaves the store).
  static func isSyncable(_ identity: RowIdentity) -> Bool {
    identity.synchronizable == 1 && SyncPayload.mayLeaveDevice(protection: identity.protection)
  }

  static func microseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
  }

  /// The latest version a journal accepts, in microseconds: the first of January 9999. Records
  /// beyond it are refused, so that no version read from disk or the network can make `+ 1` trap.
  static let maximumVersion: Int64 = 253_370_764_800_000_000

  /// Whether `version` is one a store could have made: after 1970 and before `maximumVersion`.
  static func isPlausible(version: Int64) -> Bool { version > 0 && version <= maximumVersion }

  /// The item's journal entry, authenticated; nil when it has none, or when its entry fails
  /// authentication (it is then replaced by the next write, as if it were not there).
  static func entry(_ db: SQLiteConnection, _ key: LocalItemKey, _ ring: KeyRing) throws(SecStatus) -> JournalEntry? {
    let statement = try SQLiteErrors.database {
      try db.statement(
        "SELECT version, origin, deleted, identity FROM sync_state WHERE class = ? AND pk = ? AND spi = ?")
    }
    var found: (version: Int64, origin: Data, deleted: Int64, sealed: [UInt8])?
    try forEachRow(of: statement, arguments: key.arguments) { row throws(SecStatus) in
      found = (try row.integer(0), try row.blob(1), try row.integer(2), try row.bytes(3))
      return false
    }
    guard let found else { return nil }
    do {
      return try authenticated(
        key, version: found.version, origin: found.origin, deleted: found.deleted, sealed: found.sealed, ring)
    } catch .decode {
      return nil
    }
  }

  /// The entry with these columns, once its sealed identity opens with them as associated data:
  /// errSecDecode (with the reason) when any of them was changed, or the version is implausible.
  static func authenticated(
    _ key: LocalItemKey, version: Int64, origin: Data, deleted: Int64, sealed: [UInt8], _ ring: KeyRing
  ) throws(SecStatus) -> JournalEntry {
    guard deleted == 0 || deleted == 1 else {
      throw SecStatus(errSecDecode, detail: "a sync journal entry failed authentication")
    }
    let identity = try openIdentity(sealed, key, version: version, origin: origin, deleted: deleted == 1, ring)
    guard isPlausible(version: version) else {
      throw SecStatus(errSecDecode, detail: "a sync journal entry holds an impossible version")
    }
    return JournalEntry(version: version, origin: origin, deleted: deleted == 1, identity: identity)
  }

  /// The version a change made now gets: now, or one past the last version the store knew of the
  /// item when that is later (another store's clock may run ahead). `last` is authenticated and
  /// plausible, so the sum cannot overflow; the bound keeps it so even if that ever changes.
  private static func nextVersion(after last: Int64?) -> Int64 {
    let now = microseconds(Date())
    guard let last else { return now }
    return max(now, min(last, maximumVersion) + 1)
  }

  private static let upsertSQL = """
    INSERT INTO sync_state (class, pk, spi, version, origin, deleted, pending, identity, changed)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (class, pk, spi) DO UPDATE SET version = excluded.version, origin = excluded.origin,
      deleted = excluded.deleted, pending = excluded.pending, identity = excluded.identity,
      changed = excluded.changed
    """

  /// Writes a journal entry with its identity sealed under the metadata key.
  static func write(
    _ db: SQLiteConnection, _ key: LocalItemKey, identity: SyncIdentity, version: Int64, origin: Data,
    deleted: Bool, pending: Bool, _ ring: KeyRing
  ) throws(SecStatus) {
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    let plaintext = try identity.encoded()
    let sealedIdentity: [UInt8]
    do {
      sealedIdentity = try AES.GCM.seal(
        plaintext, using: metadataKey,
        authenticating: key.associatedData(version: version, origin: origin, deleted: deleted))
    } catch {
      throw error.status
    }
    try SQLiteErrors.database {
      try db.run(
        upsertSQL,
        key.arguments + [
          .integer(version), .blob(origin), .integer(deleted ? 1 : 0), .integer(pending ? 1 : 0),
          .blob(Data(sealedIdentity)), .integer(microseconds(Date())),
        ])
    }
  }

  /// Records a new live version of an item this store wrote.
  static func noteLive(
    _ db: SQLiteConnection, _ identity: RowIdentity, _ index: ItemIndex, origin: Data, _ ring: KeyRing
  ) throws(SecStatus) {
    guard isSyncable(identity) else { return }
    let key = LocalItemKey(identity)
    try write(
      db, key, identity: SyncIdentity(identity.itemClass, index),
      version: nextVersion(after: try entry(db, key, ring)?.version), origin: origin, deleted: false, pending: true,
      ring)
  }

  /// Records the deletion of an item this store removed: a tombstone, to be pushed. `index` gives
  /// the item's key when the journal has no entry for it yet (an item older than the journal).
  static func noteDeleted(
    _ db: SQLiteConnection, _ identity: RowIdentity, origin: Data, _ ring: KeyRing,
    index: () throws(SecStatus) -> ItemIndex
  ) throws(SecStatus) {
    guard isSyncable(identity) else { return }
    let key = LocalItemKey(identity)
    let current = try entry(db, key, ring)
    let syncIdentity: SyncIdentity
    if let current {
      syncIdentity = current.identity
    } else {
      syncIdentity = SyncIdentity(identity.itemClass, try index())
    }
    try write(
      db, key, identity: syncIdentity, version: nextVersion(after: current?.version), origin: origin, deleted: true,
      pending: true, ring)
  }

  static func openIdentity(
    _ sealed: [UInt8], _ key: LocalItemKey, version: Int64, origin: Data, deleted: Bool, _ ring: KeyRing
  ) throws(SecStatus) -> SyncIdentity {
    try openIdentity(
      sealed, associatedData: key.associatedData(version: version, origin: origin, deleted: deleted), ring)
  }

  static func openIdentity(_ sealed: [UInt8], associatedData: [UInt8], _ ring: KeyRing) throws(SecStatus)
    -> SyncIdentity
  {
    guard let metadataKey = ring.metadataKey else { throw .interactionNotAllowed }
    let plaintext: [UInt8]
    do {
      plaintext = try AES.GCM.open(combined: sealed, using: metadataKey, authenticating: associatedData)
    } catch {
      throw SecStatus(errSecDecode, detail: "a sync journal entry failed authentication")
    }
    return try SyncIdentity.decoded(plaintext)
  }
}

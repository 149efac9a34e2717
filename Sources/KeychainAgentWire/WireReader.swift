import Foundation
import Security

/// Reads what `WireWriter` wrote, from bytes a peer sent: every length and count is checked against
/// what is left (TaggedBinaryForm's reader), every tag against its values, and anything else is
/// errSecDecode, never a trap.
package struct WireReader {
  private var reader: TaggedBinaryForm.Reader
  private let total: Int
  private var consumed = 0

  package init(_ bytes: [UInt8]) {
    reader = TaggedBinaryForm.Reader(bytes)
    total = bytes.count
  }

  package var isAtEnd: Bool { reader.isAtEnd }

  // MARK: Scalars

  package mutating func byte() throws(SecStatus) -> UInt8 { try reader.byte() }

  package mutating func flag() throws(SecStatus) -> Bool { try reader.flag() }

  /// A count of elements that follow, each at least one byte long: never more than the bytes left,
  /// so a forged count cannot make the reader reserve or loop beyond the frame.
  package mutating func count() throws(SecStatus) -> Int {
    let count = try reader.length()
    guard count <= total else { throw SecStatus(errSecDecode, detail: "a count runs past the end of the frame") }
    return count
  }

  package mutating func int64() throws(SecStatus) -> Int64 { Int64(bitPattern: try reader.uint64()) }

  /// A limit or count the peer gives: a 64-bit number that must fit and must not be negative.
  package mutating func nonNegativeInt() throws(SecStatus) -> Int {
    let value = try int64()
    guard value >= 0, let int = Int(exactly: value) else { throw .decode }
    return int
  }

  package mutating func string() throws(SecStatus) -> String { try reader.string() }

  package mutating func data() throws(SecStatus) -> Data { Data(try reader.block()) }

  /// A block of bytes that holds a secret (a passphrase): an array the reader of it wipes, never a
  /// String, which could not be.
  package mutating func secretBytes() throws(SecStatus) -> [UInt8] { Array(try reader.block()) }

  package mutating func optional<Value>(_ read: (inout WireReader) throws(SecStatus) -> Value) throws(SecStatus)
    -> Value?
  {
    try flag() ? try read(&self) : nil
  }

  package mutating func list<Element>(_ read: (inout WireReader) throws(SecStatus) -> Element) throws(SecStatus)
    -> [Element]
  {
    let count = try count()
    var values: [Element] = []
    values.reserveCapacity(min(count, 1024))
    for _ in 0..<count { values.append(try read(&self)) }
    return values
  }

  // MARK: The contract's values

  package mutating func status() throws(SecStatus) -> SecStatus {
    let code = try int64()
    guard let status = OSStatus(exactly: code) else { throw .decode }
    return SecStatus(status, detail: try optional { reader throws(SecStatus) in try reader.string() })
  }

  package mutating func itemClass() throws(SecStatus) -> ItemClass {
    guard let value = ItemClass(rawValue: try string()) else { throw .decode }
    return value
  }

  package mutating func attributes() throws(SecStatus) -> [String: AttributeValue] {
    let count = try count()
    var values: [String: AttributeValue] = [:]
    values.reserveCapacity(min(count, 256))
    for _ in 0..<count {
      let key = try string()
      guard let tag = TaggedBinaryForm.Tag(rawValue: try byte()), tag != .accessControl else { throw .decode }
      values[key] = try reader.value(after: tag)
    }
    return values
  }

  /// Attributes as a stored item holds them: the writer sent them in key order, so each is
  /// appended without a search (an entry out of order still lands in its place).
  package mutating func sortedAttributes() throws(SecStatus) -> SortedAttributes {
    let count = try count()
    var values = SortedAttributes()
    values.reserveCapacity(min(count, 256))
    for _ in 0..<count {
      let key = try string()
      guard let tag = TaggedBinaryForm.Tag(rawValue: try byte()), tag != .accessControl else { throw .decode }
      values.appendDecoded(key, try reader.value(after: tag))
    }
    return values
  }

  package mutating func accessControl() throws(SecStatus) -> SecAccessControl? {
    try optional { reader throws(SecStatus) in
      let protection = try reader.string()
      let flags = SecAccessControlCreateFlags(rawValue: CFOptionFlags(UInt64(bitPattern: try reader.int64())))
      return SecAccessControl(protection: protection, flags: flags)
    }
  }

  package mutating func comparable() throws(SecStatus) -> ComparableValue {
    try ComparableValue(encoded: Array(try reader.block()))
  }

  package mutating func comparables() throws(SecStatus) -> [String: ComparableValue] {
    let count = try count()
    var values: [String: ComparableValue] = [:]
    values.reserveCapacity(min(count, 256))
    for _ in 0..<count {
      let key = try string()
      values[key] = try comparable()
    }
    return values
  }

  package mutating func indexed() throws(SecStatus) -> [IndexedAttribute] {
    try list { reader throws(SecStatus) in IndexedAttribute(key: try reader.string(), value: try reader.comparable()) }
  }

  package mutating func storedItem() throws(SecStatus) -> StoredItem {
    StoredItem(
      itemClass: try itemClass(), persistentID: try data(), attributes: try sortedAttributes(),
      accessControl: try accessControl(), data: try optional { reader throws(SecStatus) in try reader.data() },
      version: try optional { reader throws(SecStatus) in ItemVersion(try reader.data()) })
  }

  package mutating func reference() throws(SecStatus) -> ItemReference {
    switch try byte() {
    case 0: return .uuid(try itemClass(), try data())
    case 1: return .rowID(try itemClass(), try int64())
    default: throw .decode
    }
  }

  package mutating func filter() throws(SecStatus) -> ItemFilter {
    var filter = ItemFilter(itemClass: try itemClass())
    filter.reference = try optional { reader throws(SecStatus) in try reader.reference() }
    filter.accessGroups = try optional { reader throws(SecStatus) in
      try reader.list { reader throws(SecStatus) in try reader.string() }
    }
    filter.synchronizable = try optional { reader throws(SecStatus) in try reader.int64() }
    filter.attributes = try comparables()
    filter.primaryKey = try optional { reader throws(SecStatus) in try reader.indexed() }
    filter.hostOrSubdomain = try optional { reader throws(SecStatus) in try reader.string() }
    filter.issuers = try optional { reader throws(SecStatus) in
      Set(try reader.list { reader throws(SecStatus) in try reader.data() })
    }
    return filter
  }

  package mutating func fetch() throws(SecStatus) -> ItemFetch {
    ItemFetch(attributes: try flag(), data: try flag(), accessControl: try flag(), version: try flag())
  }

  package mutating func identity() throws(SecStatus) -> ItemIdentity {
    try ItemIdentity.decoded(Array(try reader.block()))
  }

  package mutating func mark() throws(SecStatus) -> ReplicaMark {
    ReplicaMark(
      version: try int64(), origin: try data(), deleted: try flag(),
      versionedSequence: try optional { reader throws(SecStatus) in try reader.int64() }, settled: try flag())
  }

  package mutating func feedEntry() throws(SecStatus) -> ChangeFeedEntry {
    switch try byte() {
    case 0:
      let sequence = try int64()
      let identity = try identity()
      let persistentID = try optional { reader throws(SecStatus) in try reader.data() }
      let protection = try optional { reader throws(SecStatus) in try reader.string() }
      let changedAt = try int64()
      guard let source = ChangeSource(rawValue: try byte()) else { throw .decode }
      let mark = try optional { reader throws(SecStatus) in try reader.mark() }
      return .change(
        FeedChange(
          sequence: sequence, identity: identity, persistentID: persistentID, protection: protection,
          changedAt: changedAt, source: source, mark: mark))
    case 1: return .damaged(sequence: try int64())
    default: throw .decode
    }
  }

  /// A replicator's batch, each received item's row made by `row` from what the sync group holds
  /// (class, attributes, access control, data): the wire carries no index or fingerprint.
  package mutating func batch(
    row: (ItemClass, [String: AttributeValue], SecAccessControl?, Data?) throws(SecStatus) -> NewItem
  ) throws(SecStatus) -> ReplicationBatch {
    var batch = ReplicationBatch()
    batch.steps = try list { reader throws(SecStatus) in
      let step: ReplicationStep
      switch try reader.byte() {
      case 0:
        let item = try row(
          try reader.itemClass(), try reader.attributes(), try reader.accessControl(),
          try reader.optional { reader throws(SecStatus) in try reader.data() })
        step = .store(item, mark: try reader.mark())
      case 1: step = .remove(try reader.identity(), mark: try reader.mark())
      case 2: step = .mark(try reader.identity(), try reader.optional { reader throws(SecStatus) in try reader.mark() })
      case 3: step = .refeed(try reader.identity())
      default: throw .decode
      }
      let expecting: ChangeExpectation
      switch try reader.byte() {
      case 0: expecting = .absent
      case 1: expecting = .sequence(try reader.int64())
      default: throw .decode
      }
      return (step, expecting)
    }
    let count = try count()
    for _ in 0..<count {
      let name = try string()
      batch.values[name] = .some(try optional { reader throws(SecStatus) in try reader.data() })
    }
    batch.discarding = try list { reader throws(SecStatus) in try reader.int64() }
    return batch
  }
}

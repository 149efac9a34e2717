import Foundation
import Security

/// Builds the payload of a frame: the storage contract's values in the agent's binary form.
///
/// The form is `TaggedBinaryForm`'s (little-endian 32-bit lengths before strings and bytes, eight
/// bytes for numbers, a tag before each attribute value), the one the store's row metadata and the
/// sync records already use and `WireReader` reads back with bounds checks; optional values carry a
/// presence byte, lists and maps a count. Maps are written in key order, so equal values give equal
/// bytes.
package struct WireWriter {
  package private(set) var bytes: [UInt8] = []

  package init(reserving capacity: Int = 256) { bytes.reserveCapacity(capacity) }

  // MARK: Scalars

  package mutating func byte(_ value: UInt8) { bytes.append(value) }

  package mutating func flag(_ value: Bool) { bytes.append(value ? 1 : 0) }

  package mutating func count(_ value: Int) { TaggedBinaryForm.appendLength(value, to: &bytes) }

  package mutating func int64(_ value: Int64) { TaggedBinaryForm.appendUInt64(UInt64(bitPattern: value), to: &bytes) }

  package mutating func int(_ value: Int) { int64(Int64(value)) }

  package mutating func string(_ value: String) { TaggedBinaryForm.appendBytes(Array(value.utf8), to: &bytes) }

  package mutating func data(_ value: Data) { TaggedBinaryForm.appendBytes(Array(value), to: &bytes) }

  /// A presence byte, then the value when there is one.
  package mutating func optional<Value>(_ value: Value?, _ write: (inout WireWriter, Value) -> Void) {
    flag(value != nil)
    if let value { write(&self, value) }
  }

  package mutating func list<Element>(_ values: [Element], _ write: (inout WireWriter, Element) -> Void) {
    count(values.count)
    for value in values { write(&self, value) }
  }

  // MARK: The contract's values

  package mutating func status(_ status: SecStatus) {
    int64(Int64(status.code))
    optional(status.detail) { $0.string($1) }
  }

  package mutating func itemClass(_ value: ItemClass) { string(value.rawValue) }

  package mutating func attributes(_ values: [String: AttributeValue]) {
    count(values.count)
    for key in values.keys.sorted() {
      string(key)
      // Present: the key comes from the dictionary's own keys.
      if let value = values[key] { TaggedBinaryForm.append(value, to: &bytes) }
    }
  }

  /// The same form as a dictionary's, its entries already in key order.
  package mutating func attributes(_ values: SortedAttributes) {
    count(values.count)
    for (key, value) in values {
      string(key)
      TaggedBinaryForm.append(value, to: &bytes)
    }
  }

  package mutating func accessControl(_ value: SecAccessControl?) {
    optional(value) { writer, control in
      writer.string(control.protection)
      writer.int64(Int64(bitPattern: UInt64(control.flags.rawValue)))
    }
  }

  package mutating func comparable(_ value: ComparableValue) { TaggedBinaryForm.appendBytes(value.encoded, to: &bytes) }

  package mutating func comparables(_ values: [String: ComparableValue]) {
    count(values.count)
    for key in values.keys.sorted() {
      string(key)
      if let value = values[key] { comparable(value) }
    }
  }

  package mutating func indexed(_ values: [IndexedAttribute]) {
    list(values) { writer, attribute in
      writer.string(attribute.key)
      writer.comparable(attribute.value)
    }
  }

  package mutating func storedItem(_ value: StoredItem) {
    itemClass(value.itemClass)
    data(value.persistentID)
    attributes(value.attributes)
    accessControl(value.accessControl)
    optional(value.data) { $0.data($1) }
    optional(value.version) { $0.data($1.bytes) }
  }

  package mutating func reference(_ value: ItemReference) {
    switch value {
    case .uuid(let itemClass, let uuid):
      byte(0)
      self.itemClass(itemClass)
      data(uuid)
    case .rowID(let itemClass, let rowID):
      byte(1)
      self.itemClass(itemClass)
      int64(rowID)
    }
  }

  package mutating func filter(_ value: ItemFilter) {
    itemClass(value.itemClass)
    optional(value.reference) { $0.reference($1) }
    optional(value.accessGroups) { writer, groups in writer.list(groups) { $0.string($1) } }
    optional(value.synchronizable) { $0.int64($1) }
    comparables(value.attributes)
    optional(value.primaryKey) { $0.indexed($1) }
    optional(value.hostOrSubdomain) { $0.string($1) }
    optional(value.issuers) { writer, issuers in
      writer.list(issuers.sorted { $0.lexicographicallyPrecedes($1) }) { $0.data($1) }
    }
  }

  package mutating func fetch(_ value: ItemFetch) {
    flag(value.attributes)
    flag(value.data)
    flag(value.accessControl)
    flag(value.version)
  }

  package mutating func identity(_ value: ItemIdentity) { TaggedBinaryForm.appendBytes(value.encoded(), to: &bytes) }

  package mutating func mark(_ value: ReplicaMark) {
    int64(value.version)
    data(value.origin)
    flag(value.deleted)
    optional(value.versionedSequence) { $0.int64($1) }
    flag(value.settled)
  }

  package mutating func feedEntry(_ value: ChangeFeedEntry) {
    switch value {
    case .change(let change):
      byte(0)
      int64(change.sequence)
      identity(change.identity)
      optional(change.persistentID) { $0.data($1) }
      optional(change.protection) { $0.string($1) }
      int64(change.changedAt)
      byte(change.source.rawValue)
      optional(change.mark) { $0.mark($1) }
    case .damaged(let sequence):
      byte(1)
      int64(sequence)
    }
  }

  package mutating func batch(_ value: ReplicationBatch) {
    list(value.steps) { writer, entry in
      switch entry.step {
      case .store(let item, let mark):
        // The item as its sync group holds it; the agent computes its fingerprint and index.
        writer.byte(0)
        writer.itemClass(item.itemClass)
        writer.attributes(item.attributes)
        writer.accessControl(item.accessControl)
        writer.optional(item.data) { $0.data($1) }
        writer.mark(mark)
      case .remove(let identity, let mark):
        writer.byte(1)
        writer.identity(identity)
        writer.mark(mark)
      case .mark(let identity, let mark):
        writer.byte(2)
        writer.identity(identity)
        writer.optional(mark) { $0.mark($1) }
      case .refeed(let identity):
        writer.byte(3)
        writer.identity(identity)
      }
      switch entry.expecting {
      case .absent: writer.byte(0)
      case .sequence(let sequence):
        writer.byte(1)
        writer.int64(sequence)
      }
    }
    list(value.values.keys.sorted()) { writer, name in
      writer.string(name)
      writer.optional(value.values[name] ?? nil) { $0.data($1) }
    }
    list(value.discarding) { $0.int64($1) }
  }
}

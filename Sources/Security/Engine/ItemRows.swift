import Foundation

/// The rows the API hands a store: complete items, their index values, the revisions an update
/// makes, and the matching a store's indexes cannot decide. Every Apple rule about a row is here,
/// so that no store re-implements one.
package enum ItemRows {
  /// The index values of an item whose attributes are complete (agrp, sync and pdmn set).
  package static func index(_ itemClass: ItemClass, _ attributes: some AttributeLookup) throws(SecStatus)
    -> ItemIndex
  {
    guard case .string(let group)? = attributes[SecConstantValue.attrAccessGroup],
      case .integer(let synchronizable)? = attributes[SecConstantValue.attrSynchronizable],
      case .string(let protection)? = attributes[SecConstantValue.attrAccessible]
    else {
      throw SecStatus(
        errSecInternalComponent, detail: "an item reached the store without its group, sync or protection")
    }
    let schema = KeySchema.of(itemClass)
    return ItemIndex(
      accessGroup: group, synchronizable: synchronizable, protection: protection,
      primaryKey: schema.documented.map { field in
        IndexedAttribute(key: field.key, value: (attributes[field.key] ?? field.fallback).comparable(as: field.kind))
      },
      spiKey: schema.spi.map { field in attributes[field.key]?.comparable(as: field.kind) },
      attributes: searchable(itemClass, attributes))
  }

  /// The row of an item a replicator received from its sync group (its attributes as the group
  /// holds them, dates included), built here rather than taken: the fingerprint and the index are
  /// computed from the attributes, after checking that every attribute is one of its class's, the
  /// protection is a known class and the access control's own, and the synchronizable flag is 0 or
  /// 1. The agent builds every replicated row so, so a client has no index or fingerprint to send
  /// (a row found under one group or key whose sealed attributes named another).
  package static func replicated(
    _ itemClass: ItemClass, attributes given: [String: AttributeValue], accessControl: SecAccessControl?, data: Data?,
    backend: any SecurityBackend
  ) throws(SecStatus) -> NewItem {
    var attributes = SortedAttributes(given)
    for (key, _) in attributes where ItemSchema.attribute(key, of: itemClass) == nil {
      throw SecStatus(errSecNoSuchAttr, detail: "the item has an attribute its class does not have (\(key))")
    }
    guard case .string(let protection)? = attributes[SecConstantValue.attrAccessible],
      ItemIndex.protectionClasses[protection] != nil
    else { throw SecStatus(errSecParam, detail: "the item's protection class is not one the keychain knows") }
    if let accessControl, accessControl.protection != protection {
      throw SecStatus(errSecParam, detail: "the item's access control names another protection class than the item")
    }
    guard case .integer(let synchronizable)? = attributes[SecConstantValue.attrSynchronizable],
      synchronizable == 0 || synchronizable == 1
    else { throw SecStatus(errSecParam, detail: "the item's synchronizable flag is neither 0 nor 1") }
    try SecItemCall.validate(attributes, accessControl)
    attributes[SecConstantValue.attrSHA1] = .data(try Self.fingerprint(attributes, backend: backend))
    var complete = given
    complete[SecConstantValue.attrSHA1] = attributes[SecConstantValue.attrSHA1]
    return NewItem(
      itemClass: itemClass, attributes: complete, accessControl: accessControl, data: data,
      index: try Self.index(itemClass, attributes))
  }

  /// The attributes of `ItemIndex.searchableAttributes` the item has, as they compare.
  static func searchable(_ itemClass: ItemClass, _ attributes: some AttributeLookup) -> [String: ComparableValue] {
    var values = [String: ComparableValue](minimumCapacity: ItemIndex.searchableAttributes.count)
    for key in ItemIndex.searchableAttributes {
      guard let value = attributes[key], let definition = ItemSchema.attribute(key, of: itemClass) else { continue }
      values[key] = value.comparable(as: definition.kind)
    }
    return values
  }

  /// Every attribute as it compares, by its kind in the class's schema.
  static func comparable(_ itemClass: ItemClass, _ attributes: some AttributeLookup) -> [String: ComparableValue] {
    // init(minimumCapacity:) is specialized; reserveCapacity is an unspecialized call here that
    // looks up the dictionary's generic metadata each time.
    var values = [String: ComparableValue](minimumCapacity: attributes.underestimatedCount)
    for (key, value) in attributes {
      guard let definition = ItemSchema.attribute(key, of: itemClass) else { continue }
      values[key] = value.comparable(as: definition.kind)
    }
    return values
  }

  /// The documented primary key a query names in full (its constraints already reduced to
  /// comparable values), or nil when it leaves part of it out.
  static func primaryKey(_ itemClass: ItemClass, naming constraints: [String: ComparableValue]) -> [IndexedAttribute]? {
    let fields = KeySchema.of(itemClass).documented
    guard !fields.isEmpty else { return nil }
    var key: [IndexedAttribute] = []
    key.reserveCapacity(fields.count)
    for field in fields {
      guard let value = constraints[field.key] else { return nil }
      key.append(IndexedAttribute(key: field.key, value: value))
    }
    return key
  }

  /// Apple's `sha1`: a fingerprint of the item's attributes other than the dates (the access
  /// control and the data are not part of it).
  static func fingerprint(_ attributes: SortedAttributes, backend: any SecurityBackend) throws(SecStatus) -> Data {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(256)
    for (key, value) in attributes
    where key != SecConstantValue.attrCreationDate && key != SecConstantValue.attrModificationDate
      && key != SecConstantValue.attrSHA1
    {
      bytes += key.utf8
      bytes.append(0)
      let (tag, payload): (UInt8, [UInt8])
      switch value {
      case .string(let value): (tag, payload) = (0x73, Array(value.utf8))
      case .data(let value): (tag, payload) = (0x64, Array(value))
      case .integer(let value): (tag, payload) = (0x69, withUnsafeBytes(of: value.littleEndian, Array.init))
      case .double(let value): (tag, payload) = (0x66, withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init))
      case .date(let value):
        (tag, payload) = (
          0x74, withUnsafeBytes(of: value.timeIntervalSinceReferenceDate.bitPattern.littleEndian, Array.init)
        )
      }
      bytes.append(tag)
      withUnsafeBytes(of: UInt32(payload.count).littleEndian) { bytes += $0 }
      bytes += payload
    }
    return try backend.sha1(bytes)
  }

  /// Completes a new item's attributes with what the store would own on Apple (rule 2.2): the
  /// dates, the tombstone flag, the multi-user id and the fingerprint.
  static func completed(_ attributes: [String: AttributeValue], at now: Date, backend: any SecurityBackend)
    throws(SecStatus) -> [String: AttributeValue]
  {
    var attributes = attributes
    attributes[SecConstantValue.attrCreationDate] = .date(now)
    attributes[SecConstantValue.attrModificationDate] = .date(now)
    attributes[SecConstantValue.attrTombstone] = .integer(0)
    attributes[SecConstantValue.attrMultiUser] = .data(Data())
    attributes[SecConstantValue.attrSHA1] = .data(try fingerprint(SortedAttributes(attributes), backend: backend))
    return attributes
  }

  /// What SecItemUpdate makes of `item` (rules 7.6 to 7.10 and 12): the changed attributes, a new
  /// protection carried into the access control (and the reverse), the whole item checked again,
  /// a modification date later than the last, and a new fingerprint.
  static func revision(of item: StoredItem, _ change: ItemChange, at now: Date, backend: any SecurityBackend)
    throws(SecStatus) -> ItemRevision
  {
    var attributes = item.attributes
    for (key, value) in change.attributes { attributes[key] = value }
    var accessControl = item.accessControl
    if let newAccessControl = change.accessControl {
      accessControl = newAccessControl
      attributes[SecConstantValue.attrAccessible] = .string(newAccessControl.protection)
    } else if case .string(let protection)? = change.attributes[SecConstantValue.attrAccessible],
      let current = accessControl
    {
      // A new protection replaces the protection inside the access control too (rule 12).
      accessControl = SecAccessControl(protection: protection, flags: current.flags)
    }
    try SecItemCall.validate(attributes, accessControl)
    var modified = now
    if case .date(let previous)? = item.attributes[SecConstantValue.attrModificationDate], modified <= previous {
      modified = previous.addingTimeInterval(0.001)
    }
    attributes[SecConstantValue.attrModificationDate] = .date(modified)
    let keepsAttributes = change.attributes.isEmpty && change.accessControl == nil
    // The fingerprint covers every attribute but the dates and itself, so a change of the data
    // alone leaves it as it was: it is not computed again (a twentieth of such an update).
    if keepsAttributes, case .data? = item.attributes[SecConstantValue.attrSHA1] {
      attributes[SecConstantValue.attrSHA1] = item.attributes[SecConstantValue.attrSHA1]
    } else {
      attributes[SecConstantValue.attrSHA1] = .data(try fingerprint(attributes, backend: backend))
    }
    return ItemRevision(
      attributes: attributes, accessControl: accessControl, data: change.data,
      index: try index(item.itemClass, attributes), keepsAttributes: keepsAttributes)
  }

  /// The verdict on a candidate item: every equality constraint (already reduced to comparable
  /// values) by Apple's matching rules (rules 9.1 to 9.6), and the server being the host or one
  /// of its subdomains (rule 6.5).
  static func matches(
    _ item: StoredItem, itemClass: ItemClass, constraints: [String: ComparableValue], hostOrSubdomain: String?
  ) -> Bool {
    for (key, wanted) in constraints {
      guard let stored = item.attributes[key], let definition = ItemSchema.attribute(key, of: itemClass),
        stored.comparable(as: definition.kind) == wanted
      else { return false }
    }
    guard let host = hostOrSubdomain else { return true }
    let server: String
    switch item.attributes[SecConstantValue.attrServer] {
    case .string(let value)?: server = value
    case .data(let value)?: server = String(decoding: value, as: UTF8.self)
    default: return false
    }
    return server == host || server.hasSuffix("." + host)
  }
}

/// A class's primary key as the schema defines it: the documented attributes, with the values an
/// add gives them, and Apple's SPI attributes (those the definitions give no default).
struct KeySchema: Sendable {
  /// A documented primary-key attribute and the value an add gives it.
  struct Field: Sendable {
    var key: String
    var kind: AttributeKind
    var fallback: AttributeValue
  }

  /// An SPI primary-key attribute, which has no default: absent stays absent.
  struct SPIField: Sendable {
    var key: String
    var kind: AttributeKind
  }

  var documented: [Field]
  var spi: [SPIField]

  private static let schemas: [ItemClass: KeySchema] = Dictionary(
    uniqueKeysWithValues: ItemClass.allCases.map { itemClass in
      let defaults = ItemSchema.primaryKeyDefaults(of: itemClass)
      var schema = KeySchema(documented: [], spi: [])
      for key in ItemSchema.primaryKey(of: itemClass) {
        guard let definition = ItemSchema.attribute(key, of: itemClass) else { continue }
        if let fallback = defaults[key] {
          schema.documented.append(Field(key: key, kind: definition.kind, fallback: fallback))
        } else {
          schema.spi.append(SPIField(key: key, kind: definition.kind))
        }
      }
      return (itemClass, schema)
    })

  static func of(_ itemClass: ItemClass) -> KeySchema { schemas[itemClass] ?? KeySchema(documented: [], spi: []) }
}

/// What SecItemUpdate's attributesToUpdate asks for, parsed (rules 7.6 to 7.8).
struct ItemChange: Sendable {
  var attributes: [String: AttributeValue] = [:]
  /// Replaces the access control when set (its protection also replaces pdmn).
  var accessControl: SecAccessControl?
  var data: Data?
}

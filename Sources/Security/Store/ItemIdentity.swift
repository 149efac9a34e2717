import Foundation

/// What names one item in every store: its class and the values of its primary key (rule 2.1),
/// with the access group, the synchronizable flag and Apple's SPI key, as `ItemIndex` holds them.
///
/// A storage keeps it with each change of its change feed, so that a deletion still says which
/// item it removed; a sync group computes its record identifiers over `canonicalBytes` and carries
/// `encoded()` in its tombstones. Both forms are stored and sent: changing them orphans every
/// digest, journal entry and record already made.
package struct ItemIdentity: Sendable, Hashable {
  package var itemClass: ItemClass
  package var accessGroup: String
  package var synchronizable: Int64
  package var primaryKey: [IndexedAttribute]
  package var spiKey: [ComparableValue?]

  package init(
    itemClass: ItemClass, accessGroup: String, synchronizable: Int64, primaryKey: [IndexedAttribute],
    spiKey: [ComparableValue?]
  ) {
    self.itemClass = itemClass
    self.accessGroup = accessGroup
    self.synchronizable = synchronizable
    self.primaryKey = primaryKey
    self.spiKey = spiKey
  }

  /// The identity of the item with these index values.
  package init(_ itemClass: ItemClass, _ index: ItemIndex) {
    self.init(
      itemClass: itemClass, accessGroup: index.accessGroup, synchronizable: index.synchronizable,
      primaryKey: index.primaryKey, spiKey: index.spiKey)
  }

  /// The bytes a keyed digest of the identity is computed over: a storage's primary-key and SPI
  /// digests under its index key, a sync record's identifier under its group's key.
  package var canonicalBytes: [UInt8] {
    Self.primaryKeyBytes(itemClass, primaryKey, group: accessGroup, synchronizable: synchronizable)
      + Self.spiKeyBytes(spiKey)
  }

  /// The labelled, length-prefixed encoding of a primary key (row format 2's `pk` digest input).
  package static func primaryKeyBytes(
    _ itemClass: ItemClass, _ key: [IndexedAttribute], group: String, synchronizable: Int64
  ) -> [UInt8] {
    var parts: [UInt8] = []
    parts.reserveCapacity(128)
    parts += "pk\u{0}".utf8
    parts += itemClass.rawValue.utf8
    for field in key {
      parts += field.key.utf8
      withUnsafeBytes(of: UInt32(truncatingIfNeeded: field.value.encodedCount).littleEndian) { parts += $0 }
      field.value.encode(into: &parts)
    }
    parts += "\u{0}agrp\u{0}".utf8
    parts += group.utf8
    parts += [0, UInt8(truncatingIfNeeded: synchronizable)]
    return parts
  }

  /// The encoding of the SPI primary-key attributes (row format 2's `spi` digest input).
  package static func spiKeyBytes(_ values: [ComparableValue?]) -> [UInt8] {
    var parts = Array("spi\u{0}".utf8)
    for value in values {
      if let bytes = value?.encoded {
        parts += [1] + withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count).littleEndian, Array.init) + bytes
      } else {
        parts += [0]
      }
    }
    return parts
  }

  // A small tagged binary form (the row metadata's): it is written with every change of a
  // synchronizable item, where a property list encoder cost as much as the rest of the write.
  private static let formatVersion: UInt8 = 1
  /// No class's primary key has more fields than this; a larger count is damage.
  private static let maximumFields = 64

  /// The identity in its stored and sent form.
  package func encoded() -> [UInt8] {
    var out: [UInt8] = [Self.formatVersion]
    out.reserveCapacity(160)
    TaggedBinaryForm.appendBytes(Array(itemClass.rawValue.utf8), to: &out)
    TaggedBinaryForm.appendBytes(Array(accessGroup.utf8), to: &out)
    withUnsafeBytes(of: synchronizable.littleEndian) { out.append(contentsOf: $0) }
    TaggedBinaryForm.appendLength(primaryKey.count, to: &out)
    for field in primaryKey {
      TaggedBinaryForm.appendBytes(Array(field.key.utf8), to: &out)
      TaggedBinaryForm.appendBytes(field.value.encoded, to: &out)
    }
    TaggedBinaryForm.appendLength(spiKey.count, to: &out)
    for value in spiKey {
      if let value {
        out.append(1)
        TaggedBinaryForm.appendBytes(value.encoded, to: &out)
      } else {
        out.append(0)
      }
    }
    return out
  }

  /// The identity `encoded()` wrote: errSecDecode for anything else, or for a class this version
  /// does not keep (the bytes may come from another store).
  package static func decoded(_ bytes: [UInt8]) throws(SecStatus) -> ItemIdentity {
    var reader = TaggedBinaryForm.Reader(bytes)
    return try decoded(from: &reader, wholeInput: true)
  }

  /// Reads an identity from `reader`; with `wholeInput`, nothing may follow it.
  package static func decoded(from reader: inout TaggedBinaryForm.Reader, wholeInput: Bool) throws(SecStatus)
    -> ItemIdentity
  {
    do throws(SecStatus) {
      guard try reader.byte() == formatVersion else { throw .decode }
      guard let itemClass = ItemClass(rawValue: try reader.string()), itemClass.isImplemented else {
        throw SecStatus(errSecDecode, detail: "the identity names an item class this store does not keep")
      }
      let accessGroup = try reader.string()
      let synchronizable = Int64(bitPattern: try reader.uint64())
      let fieldCount = try reader.length()
      guard fieldCount <= maximumFields else { throw .decode }
      var primaryKey: [IndexedAttribute] = []
      for _ in 0..<fieldCount {
        let key = try reader.string()
        primaryKey.append(IndexedAttribute(key: key, value: try ComparableValue(encoded: Array(try reader.block()))))
      }
      let spiCount = try reader.length()
      guard spiCount <= maximumFields else { throw .decode }
      var spiKey: [ComparableValue?] = []
      for _ in 0..<spiCount {
        spiKey.append(try reader.flag() ? try ComparableValue(encoded: Array(try reader.block())) : nil)
      }
      guard !wholeInput || reader.isAtEnd else { throw .decode }
      return ItemIdentity(
        itemClass: itemClass, accessGroup: accessGroup, synchronizable: synchronizable, primaryKey: primaryKey,
        spiKey: spiKey)
    } catch  where error.detail != nil {
      throw error
    } catch {
      throw SecStatus(errSecDecode, detail: "an item identity is not in a format this version can read")
    }
  }
}

extension ComparableValue {
  /// The bytes a digest is computed over: a tag, then the bytes or eight little-endian bytes. Part
  /// of row format 2: changing them would orphan every stored digest.
  package var encoded: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(encodedCount)
    encode(into: &bytes)
    return bytes
  }

  /// How many bytes `encoded` has.
  package var encodedCount: Int {
    switch self {
    case .bytes(let bytes): 1 + bytes.count
    case .text(let value): 1 + value.utf8.count
    case .integer, .double, .date: 9
    }
  }

  /// Appends `encoded` to `bytes` without making it first (digests are computed on every search
  /// and add, and the intermediate arrays were most of their cost besides the HMAC).
  package func encode(into bytes: inout [UInt8]) {
    func append(_ tag: UInt8, _ word: UInt64) {
      bytes.append(tag)
      withUnsafeBytes(of: word.littleEndian) { bytes += $0 }
    }
    switch self {
    case .bytes(let value):
      bytes.append(0x62)
      bytes += value
    case .integer(let value): append(0x6E, UInt64(bitPattern: value))
    case .double(let value): append(0x66, value.bitPattern)
    case .text(let value):
      bytes.append(0x73)
      bytes += value.utf8
    case .date(let value): append(0x74, value.bitPattern)
    }
  }

  /// The value `encoded` wrote; errSecDecode for anything else.
  package init(encoded bytes: [UInt8]) throws(SecStatus) {
    guard let tag = bytes.first else { throw .decode }
    let body = Array(bytes.dropFirst())
    func number() throws(SecStatus) -> UInt64 {
      guard body.count == 8 else { throw .decode }
      return body.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
    switch tag {
    case 0x62: self = .bytes(body)
    case 0x6E: self = .integer(Int64(bitPattern: try number()))
    case 0x66: self = .double(Double(bitPattern: try number()))
    case 0x73:
      guard let text = String(validating: body, as: UTF8.self) else { throw .decode }
      self = .text(text)
    case 0x74: self = .date(Double(bitPattern: try number()))
    default: throw .decode
    }
  }
}

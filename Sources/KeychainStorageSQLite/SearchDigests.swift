import Foundation
import KeychainCrypto
import Security
import Synchronization

extension ComparableValue {
  /// The bytes a digest is computed over. Part of row format 2: changing them would orphan every
  /// stored digest.
  var encoded: [UInt8] {
    switch self {
    case .bytes(let bytes): [0x62] + bytes
    case .integer(let value): [0x6E] + withUnsafeBytes(of: value.littleEndian, Array.init)
    case .double(let value): [0x66] + withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init)
    case .text(let value): [0x73] + Array(value.utf8)
    case .date(let value): [0x74] + withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init)
    }
  }
}

/// The keyed digests the plain columns hold instead of searchable values: HMAC-SHA-256 under the
/// store's index key, cut to 16 bytes, each over a labelled, length-prefixed encoding.
struct SearchDigests {
  static let length = 16

  let ring: KeyRing
  let groups: GroupDigestCache

  func digest(_ parts: [UInt8]) throws(SecStatus) -> Data {
    guard let key = ring.indexKey else { throw .interactionNotAllowed }
    do throws(CryptoError) {
      let full: [UInt8]
      if let mac = ring.indexMAC {
        full = try mac.authenticationCode(for: parts)
      } else {
        full = try HMAC.sha256(parts, key: key)
      }
      return Data(full.prefix(Self.length))
    } catch {
      throw error.status
    }
  }

  /// An access group's digest. Groups are few and searched on every call, so digests are kept
  /// (the index key of a store never changes).
  func group(_ group: String) throws(SecStatus) -> Data {
    if let cached = groups.digests.withLock({ $0[group] }) { return cached }
    let computed = try digest(Array("agrp\u{0}".utf8) + Array(group.utf8))
    groups.digests.withLock { $0[group] = computed }
    return computed
  }

  func attribute(_ key: String, _ value: ComparableValue) throws(SecStatus) -> Data {
    try digest(Array("attr\u{0}\(key)\u{0}".utf8) + value.encoded)
  }

  func primaryKey(
    _ itemClass: ItemClass, _ key: [IndexedAttribute], group: String, synchronizable: Int64
  ) throws(SecStatus) -> Data {
    try digest(Self.primaryKeyBytes(itemClass, key, group: group, synchronizable: synchronizable))
  }

  func spiKey(_ values: [ComparableValue?]) throws(SecStatus) -> Data {
    try digest(Self.spiKeyBytes(values))
  }

  /// The labelled, length-prefixed encoding of a primary key that its digest is computed over. A
  /// sync record's identifier is computed over the same bytes under the group's key instead.
  static func primaryKeyBytes(
    _ itemClass: ItemClass, _ key: [IndexedAttribute], group: String, synchronizable: Int64
  ) -> [UInt8] {
    var parts: [UInt8] = []
    parts.reserveCapacity(128)
    parts += "pk\u{0}".utf8
    parts += itemClass.rawValue.utf8
    for field in key {
      let bytes = field.value.encoded
      parts += field.key.utf8
      withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { parts += $0 }
      parts += bytes
    }
    parts += "\u{0}agrp\u{0}".utf8
    parts += group.utf8
    parts += [0, UInt8(truncatingIfNeeded: synchronizable)]
    return parts
  }

  /// The encoding of the SPI primary-key attributes that their digest is computed over.
  static func spiKeyBytes(_ values: [ComparableValue?]) -> [UInt8] {
    var parts = Array("spi\u{0}".utf8)
    for value in values {
      if let bytes = value?.encoded {
        parts += [1] + withUnsafeBytes(of: UInt32(bytes.count).littleEndian, Array.init) + bytes
      } else {
        parts += [0]
      }
    }
    return parts
  }

  /// The digest of each of `ItemTable.digestColumns` (nil where the item has no such attribute).
  func search(_ attributes: [String: ComparableValue]) throws(SecStatus) -> [Data?] {
    var digests: [Data?] = []
    digests.reserveCapacity(ItemTable.digestColumns.count)
    for (_, key) in ItemTable.digestColumns {
      digests.append(try attributes[key].map { value throws(SecStatus) in try attribute(key, value) })
    }
    return digests
  }

  /// The plain columns of an item with these index values.
  func identity(_ itemClass: ItemClass, _ index: ItemIndex, persistentID: Data, hasSecret: Bool)
    throws(SecStatus) -> RowIdentity
  {
    RowIdentity(
      itemClass: itemClass, persistentID: persistentID, accessGroup: try group(index.accessGroup),
      synchronizable: index.synchronizable, protection: index.protection,
      primaryKey: try primaryKey(
        itemClass, index.primaryKey, group: index.accessGroup, synchronizable: index.synchronizable),
      spiKey: try spiKey(index.spiKey), searchDigests: try search(index.attributes), hasSecret: hasSecret)
  }
}

/// The access-group digests a store computed, kept for its lifetime.
final class GroupDigestCache: Sendable {
  let digests = Mutex<[String: Data]>([:])
}

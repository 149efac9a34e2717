import Foundation
import KeychainCrypto
import Security
import Synchronization

/// The keyed digests the plain columns hold instead of searchable values: HMAC-SHA-256 under the
/// store's index key, cut to 16 bytes, each over a labelled, length-prefixed encoding.
struct SearchDigests {
  static let length = 16

  let ring: KeyRing
  let groups: GroupDigestCache

  func digest(_ parts: [UInt8]) throws(SecStatus) -> RowDigest {
    guard let key = ring.indexKey else { throw .interactionNotAllowed }
    do throws(CryptoError) {
      let full: [UInt8]
      if let mac = ring.indexMAC {
        full = try mac.authenticationCode(for: parts)
      } else {
        full = try HMAC.sha256(parts, key: key)
      }
      return RowDigest(prefixOf: full)
    } catch {
      throw error.status
    }
  }

  /// An access group's digest. Groups are few and searched on every call, so digests are kept
  /// (the index key of a store never changes).
  func group(_ group: String) throws(SecStatus) -> RowDigest {
    if let cached = groups.digest(of: group) { return cached }
    let computed = try digest(Array("agrp\u{0}".utf8) + Array(group.utf8))
    groups.keep(computed, of: group)
    return computed
  }

  func attribute(_ key: String, _ value: ComparableValue) throws(SecStatus) -> RowDigest {
    var parts: [UInt8] = []
    parts.reserveCapacity(6 + key.utf8.count + value.encodedCount)
    parts += "attr\u{0}".utf8
    parts += key.utf8
    parts.append(0)
    value.encode(into: &parts)
    return try digest(parts)
  }

  func primaryKey(
    _ itemClass: ItemClass, _ key: [IndexedAttribute], group: String, synchronizable: Int64
  ) throws(SecStatus) -> RowDigest {
    try digest(ItemIdentity.primaryKeyBytes(itemClass, key, group: group, synchronizable: synchronizable))
  }

  func spiKey(_ values: [ComparableValue?]) throws(SecStatus) -> RowDigest {
    try digest(ItemIdentity.spiKeyBytes(values))
  }

  /// The digest of each of `ItemTable.digestColumns` (nil where the item has no such attribute).
  func search(_ attributes: [String: ComparableValue]) throws(SecStatus) -> SearchDigestColumns {
    var digests = SearchDigestColumns()
    for (index, (_, key)) in ItemTable.digestColumns.enumerated() {
      digests[index] = try attributes[key].map { value throws(SecStatus) in try attribute(key, value) }
    }
    return digests
  }

  /// The plain columns of an item with these index values.
  func identity(
    _ itemClass: ItemClass, _ index: ItemIndex, persistentID: Data, hasSecret: Bool, accessControl: SecAccessControl?
  ) throws(SecStatus) -> RowIdentity {
    RowIdentity(
      itemClass: itemClass, persistentID: persistentID, accessGroup: try group(index.accessGroup),
      synchronizable: index.synchronizable, protection: index.protection,
      primaryKey: try primaryKey(
        itemClass, index.primaryKey, group: index.accessGroup, synchronizable: index.synchronizable),
      spiKey: try spiKey(index.spiKey), searchDigests: try search(index.attributes), hasSecret: hasSecret,
      accessControl: accessControl)
  }
}

/// The access-group digests a store computed, kept for its lifetime.
///
/// Every search reads them, so each thread keeps its own copies (see `ThreadLocalValue`), under
/// a number no other store of the process has: an object's address could be reused by a later
/// store with another index key.
final class GroupDigestCache: Sendable {
  private static let nextStore = Atomic<UInt64>(0)
  /// Per thread: the digests of each store by group. Threads that serve many stores start again
  /// past `storeCapacity` of them.
  private static let digestsByStore = ThreadLocalValue<[UInt64: [String: RowDigest]]> { [:] }
  private static let storeCapacity = 16

  private let store = GroupDigestCache.nextStore.add(1, ordering: .relaxed).newValue

  func digest(of group: String) -> RowDigest? {
    Self.digestsByStore.withValue { $0[store]?[group] }
  }

  func keep(_ digest: RowDigest, of group: String) {
    Self.digestsByStore.withValue { stores in
      if stores[store] == nil && stores.count >= Self.storeCapacity { stores.removeAll(keepingCapacity: true) }
      stores[store, default: [:]][group] = digest
    }
  }
}

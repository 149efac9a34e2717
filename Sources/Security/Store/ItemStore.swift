import Foundation

/// Which items a search, update or delete addresses. Every field narrows the search.
package struct ItemFilter: Sendable {
  package var itemClass: ItemClass
  /// One exact item (rule 6.8).
  package var reference: ItemReference?
  /// The access groups to search; nil means every group (the caller holds "*").
  package var accessGroups: [String]?
  /// 0 or 1; nil means both (kSecAttrSynchronizableAny, or a persistent-ref query; rule 3.2).
  package var synchronizable: Int64?
  /// Equality constraints on attributes (rule 3.6), by 4-character key.
  package var attributes: [String: AttributeValue] = [:]
  /// kSecMatchHostOrSubdomainOfHost (rule 6.5): the server equals it or ends in "." + it.
  package var hostOrSubdomain: String?
}

/// A new item, as the API layer prepared it: class, every attribute with its defaults, and data.
package struct NewItem: Sendable {
  package var itemClass: ItemClass
  package var attributes: [String: AttributeValue]
  package var accessControl: SecAccessControl?
  package var data: Data?
}

/// What SecItemUpdate changes on every matching item.
package struct ItemChange: Sendable {
  package var attributes: [String: AttributeValue] = [:]
  /// Replaces the access control when set (its protection also replaces pdmn).
  package var accessControl: SecAccessControl?
  package var data: Data?
  /// Checks the changed item as a whole (rule 1.13), before anything is written.
  package var validate:
    @Sendable (_ attributes: [String: AttributeValue], _ accessControl: SecAccessControl?) throws(SecStatus) -> Void = {
      _, _ in
    }
}

/// What a search reads of each item.
package struct ItemFetch: Sendable, Equatable {
  package var attributes: Bool
  package var data: Bool

  package init(attributes: Bool, data: Bool) {
    self.attributes = attributes
    self.data = data
  }
}

/// An item as a store hands it back.
package struct StoredItem: Sendable {
  package var itemClass: ItemClass
  /// The 16-byte UUID behind the persistent reference; stable across updates (rule 13).
  package var persistentID: Data
  /// Every attribute, when the fetch asked for them (empty otherwise).
  package var attributes: [String: AttributeValue]
  package var accessControl: SecAccessControl?
  /// The secret, when the fetch asked for data and the item has some.
  package var data: Data?

  package init(
    itemClass: ItemClass, persistentID: Data, attributes: [String: AttributeValue], accessControl: SecAccessControl?,
    data: Data?
  ) {
    self.itemClass = itemClass
    self.persistentID = persistentID
    self.attributes = attributes
    self.accessControl = accessControl
    self.data = data
  }

  package var persistentReference: Data { ItemReference.bytes(of: itemClass, uuid: persistentID) }
}

/// The storage layer under the SecItem API: it stores, finds, changes and removes items, and keeps
/// them encrypted. The API layer decides Apple's semantics (which dictionary means what); a store
/// decides how items are kept. A second store (a server database, say) implements this protocol.
package protocol ItemStore: AnyObject, Sendable {
  /// Whether the store is protected by a passphrase (a "passcode is set", rule 5.13).
  var hasPassphrase: Bool { get }

  /// Adds one item; errSecDuplicateItem when its primary key is taken (rule 5.2).
  func insert(_ item: NewItem) throws(SecStatus) -> StoredItem

  /// Adds many items in one transaction (an import): all of them, or none when one fails.
  func insertBatch(_ items: [NewItem]) throws(SecStatus)

  /// The matching items in insertion order (decision 9), at most `limit` of them.
  func find(_ filter: ItemFilter, limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [StoredItem]

  /// Applies `change` to every match in one transaction (rules 7.1, 7.9); returns how many changed.
  func update(_ filter: ItemFilter, with change: ItemChange) throws(SecStatus) -> Int

  /// Updates the matches of `filter`, or adds `item` when there are none, in one transaction.
  func upsert(_ filter: ItemFilter, change: ItemChange, orInsert item: NewItem) throws(SecStatus) -> Int

  /// Removes every match (rule 8.1); returns how many were removed.
  func delete(_ filter: ItemFilter) throws(SecStatus) -> Int

  /// Drops the key material of WhenUnlocked items from memory.
  func lock()

  /// Restores the key material: from the key file, or from the passphrase of a passphrase store.
  func unlock(passphrase: String?) throws(SecStatus)

  /// Whether the store is locked.
  var isLocked: Bool { get }

  /// Whether the store was opened read-only (its files cannot be written by this process).
  var isReadOnly: Bool { get }

  /// Authenticates every item the store holds and counts those that fail.
  func checkIntegrity() throws(SecStatus) -> KeychainIntegrityReport
}

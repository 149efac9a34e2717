import Foundation

// The contract between the SecItem API and a store. The API applies every Apple rule: it turns a
// caller's dictionary into complete rows (defaults, dates, tomb, musr, sha1), reduces values to
// what they compare by, decides which items match beyond what an index can, and computes each
// update's result. A store keeps rows: it seals them, indexes them, finds them, and enforces the
// uniqueness of the primary key it is given. It needs no schema, so a second store (a server
// database) implements this protocol without re-implementing a rule. The contract is split by
// capability (StorageCapabilities.swift); StoreContractTests is the suite every store must pass.

/// An attribute the store indexes an item by: its key and the value it compares by.
package struct IndexedAttribute: Sendable, Hashable {
  package var key: String
  package var value: ComparableValue

  package init(key: String, value: ComparableValue) {
    self.key = key
    self.value = value
  }
}

/// What identifies and finds an item, reduced by the API from its attributes.
package struct ItemIndex: Sendable, Equatable {
  /// The access group (`agrp`).
  package var accessGroup: String
  /// The synchronizable flag (`sync`), 0 or 1.
  package var synchronizable: Int64
  /// The protection class (`pdmn`), which decides the key its data is sealed with.
  package var protection: String
  /// The class's documented primary key (rule 2.1) in the schema's order, defaults applied; with
  /// the access group, the synchronizable flag and `spiKey`, no two items of a class share it.
  package var primaryKey: [IndexedAttribute]
  /// Apple's SPI primary-key attributes, in the schema's order, nil where the item has none.
  package var spiKey: [ComparableValue?]
  /// The attributes of `searchableAttributes` the item has, as they compare: what a store indexes
  /// so that a search by one of them alone reads only its matches. A store that needs another
  /// attribute's comparable value derives it from the item's attributes.
  package var attributes: [String: ComparableValue]

  /// An index from its parts: a storage that reads one back, or a test. The API derives its own
  /// (`ItemRows.index`).
  package init(
    accessGroup: String, synchronizable: Int64, protection: String, primaryKey: [IndexedAttribute],
    spiKey: [ComparableValue?], attributes: [String: ComparableValue]
  ) {
    self.accessGroup = accessGroup
    self.synchronizable = synchronizable
    self.protection = protection
    self.primaryKey = primaryKey
    self.spiKey = spiKey
    self.attributes = attributes
  }
}

extension ItemIndex {
  /// The attributes an index carries (`attributes`): account, service, server and label, the ones
  /// Apple code searches by alone (a store keeps a digest column of each). Every attribute made a
  /// new item hold each one twice (as a value and as it compares) and cost an allocation per text
  /// attribute for indexes no store has: keychain-bench's 5,000-item imports peaked 3 MB higher.
  package static let searchableAttributes = [
    SecConstantValue.attrAccount, SecConstantValue.attrService, SecConstantValue.attrServer,
    SecConstantValue.attrLabel,
  ]

  /// The protection classes (`pdmn`, rule 12) and when each makes data available. A storage keeps
  /// one key per class, and drops those of the classes a lock makes unavailable.
  package static let protectionClasses: [String: Accessibility] = ItemSchemaDefinitions.protections

  /// The API's index of an item whose attributes are complete (agrp, sync and pdmn set). A storage
  /// needs it only when it derives an index again from a row it holds (a row format upgrade); the
  /// API hands it one with every new item and revision.
  package init(of itemClass: ItemClass, attributes: some AttributeLookup) throws(SecStatus) {
    self = try ItemRows.index(itemClass, attributes)
  }
}

/// What an item's protection class means for the lock state (SpecificationDecisions).
package enum Accessibility: Sendable {
  case whenUnlocked, afterFirstUnlock, always, whenPasscodeSet

  /// Whether data of this class can be read or written in the given lock state.
  package func isAvailable(locked: Bool, everUnlocked: Bool) -> Bool {
    switch self {
    case .whenUnlocked, .whenPasscodeSet: !locked
    case .afterFirstUnlock: everUnlocked
    case .always: true
    }
  }
}

/// Which items a search, update or delete addresses. Every field narrows the search.
package struct ItemFilter: Sendable {
  package var itemClass: ItemClass
  /// One exact item (rule 6.8).
  package var reference: ItemReference?
  /// The access groups to search; nil means every group (the caller holds "*").
  package var accessGroups: [String]?
  /// 0 or 1; nil means both (kSecAttrSynchronizableAny, or a persistent-ref query; rule 3.2).
  package var synchronizable: Int64?
  /// Equality constraints (rule 3.6), by attribute key, as the values compare.
  package var attributes: [String: ComparableValue] = [:]
  /// The whole documented primary key, when the query names all of it: a store may look the
  /// items up by it (with each searched access group and synchronizable value).
  package var primaryKey: [IndexedAttribute]?
  /// kSecMatchHostOrSubdomainOfHost (rule 6.5): the server must be this host or a subdomain of it.
  package var hostOrSubdomain: String?
  /// kSecMatchIssuers (keys rule 7.18): the issuer must be one of these normalized names.
  package var issuers: Set<Data>?

  /// Whether `matches` checks more than `attributes`, so a store must always ask it.
  package var hasOtherConstraints: Bool { hostOrSubdomain != nil || issuers != nil }

  package init(itemClass: ItemClass) { self.itemClass = itemClass }

  /// The API's verdict on a candidate whose attributes the store has read: every constraint of the
  /// query, by Apple's matching rules (ItemRows.matches). A store asks it for the constraints its
  /// indexes did not decide, and always when `hasOtherConstraints` is set.
  package func matches(_ item: StoredItem) -> Bool {
    guard ItemRows.matches(item, itemClass: itemClass, constraints: attributes, hostOrSubdomain: hostOrSubdomain) else {
      return false
    }
    guard let issuers else { return true }
    guard case .data(let issuer)? = item.attributes[SecConstantValue.attrIssuer] else { return false }
    return issuers.contains(issuer)
  }
}

/// A new item: the complete row the API built, as the store must keep it.
package struct NewItem: Sendable {
  package var itemClass: ItemClass
  /// Every attribute, defaults, dates and the store-owned values (tomb, musr, sha1) included.
  package var attributes: [String: AttributeValue]
  package var accessControl: SecAccessControl?
  package var data: Data?
  package var index: ItemIndex

  package init(
    itemClass: ItemClass, attributes: [String: AttributeValue], accessControl: SecAccessControl?, data: Data?,
    index: ItemIndex
  ) {
    self.itemClass = itemClass
    self.attributes = attributes
    self.accessControl = accessControl
    self.data = data
    self.index = index
  }
}

/// What an update makes of one matching item: its complete new row.
package struct ItemRevision: Sendable {
  /// Every attribute of the changed item, sorted by key.
  package var attributes: SortedAttributes
  package var accessControl: SecAccessControl?
  /// The new secret; nil keeps the item's own.
  package var data: Data?
  package var index: ItemIndex
  /// Whether every attribute but the modification date and the fingerprint (`mdat`, `sha1`), and
  /// the access control, are as the item had them: a new secret only. A storage whose identity and
  /// search columns cover neither of those two may keep the row's as they are, rather than derive
  /// them again from `index`.
  package var keepsAttributes: Bool = false

  package init(
    attributes: SortedAttributes, accessControl: SecAccessControl?, data: Data?, index: ItemIndex,
    keepsAttributes: Bool = false
  ) {
    self.attributes = attributes
    self.accessControl = accessControl
    self.data = data
    self.index = index
    self.keepsAttributes = keepsAttributes
  }
}

/// What a search reads of each item.
package struct ItemFetch: Sendable, Equatable {
  package var attributes: Bool
  package var data: Bool
  /// Whether each item's access control is read even when its attributes are not: the API must see
  /// it before it hands out a secret (keys rule 10.4). Reading attributes reads it too.
  package var accessControl: Bool
  /// Whether each item's version is read, for a `replace` of what was read. Such a read comes just
  /// before that write, so a storage may serve it where its writes run.
  package var version: Bool

  package init(attributes: Bool, data: Bool, accessControl: Bool = false, version: Bool = false) {
    self.attributes = attributes
    self.data = data
    self.accessControl = accessControl
    self.version = version
  }
}

/// A row's version: opaque bytes that change with every write of the row, so that a change can be
/// made conditional on the row being as it was read (optimistic concurrency, with no lock or
/// transaction held between the read and the write, which a storage in another process needs).
package struct ItemVersion: Sendable, Hashable {
  package var bytes: Data

  package init(_ bytes: Data) { self.bytes = bytes }
}

/// One row to replace by its revision, if it is still at the version it was read at.
package struct ItemReplacement: Sendable {
  package var itemClass: ItemClass
  /// The row's persistent identifier (`StoredItem.persistentID`).
  package var persistentID: Data
  /// The version the revision was computed from.
  package var expected: ItemVersion
  package var revision: ItemRevision

  package init(itemClass: ItemClass, persistentID: Data, expected: ItemVersion, revision: ItemRevision) {
    self.itemClass = itemClass
    self.persistentID = persistentID
    self.expected = expected
    self.revision = revision
  }
}

/// What `replace` did.
package enum ReplacementOutcome: Sendable, Equatable {
  /// Every row was at its expected version and is replaced; the count excludes rows left as they
  /// were because their secret failed authentication.
  case replaced(Int)
  /// A row was gone or at another version: nothing was written, and the caller reads again.
  case changedSinceRead
}

/// An item as a store hands it back.
package struct StoredItem: Sendable {
  package var itemClass: ItemClass
  /// The 16-byte UUID behind the persistent reference; stable across updates (rule 13).
  package var persistentID: Data
  /// Every attribute, when the fetch asked for them (empty otherwise), sorted by key.
  package var attributes: SortedAttributes
  /// The access control, when the fetch asked for attributes or for it.
  package var accessControl: SecAccessControl?
  /// The secret, when the fetch asked for data and the item has some.
  package var data: Data?
  /// The row's version, when the fetch asked for it.
  package var version: ItemVersion?

  package init(
    itemClass: ItemClass, persistentID: Data, attributes: SortedAttributes, accessControl: SecAccessControl?,
    data: Data?, version: ItemVersion? = nil
  ) {
    self.itemClass = itemClass
    self.persistentID = persistentID
    self.attributes = attributes
    self.accessControl = accessControl
    self.data = data
    self.version = version
  }

  package var persistentReference: Data { ItemReference.bytes(of: itemClass, uuid: persistentID) }
}

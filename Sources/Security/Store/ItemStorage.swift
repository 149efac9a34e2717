import Foundation

// The contract between the SecItem API and a store. The API applies every Apple rule: it turns a
// caller's dictionary into complete rows (defaults, dates, tomb, musr, sha1), reduces values to
// what they compare by, decides which items match beyond what an index can, and computes each
// update's result. A store keeps rows: it seals them, indexes them, finds them, and enforces the
// uniqueness of the primary key it is given. It needs no schema, so a second store (a server
// database) implements this protocol without re-implementing a rule. StoreContractTests is the
// suite every store must pass.

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
  /// Every attribute as it compares, for the store's search indexes.
  package var attributes: [String: ComparableValue]

  /// An index as a storage in another process receives it (the agent's wire); the API derives
  /// its own with `init(of:attributes:)`.
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

/// The storage layer under the SecItem API: it keeps, finds, changes and removes rows, and keeps
/// them encrypted. See the comment at the top of this file for where its job ends.
package protocol ItemStorage: AnyObject, Sendable {
  /// Whether the store is protected by a passphrase (a "passcode is set", rule 5.13).
  var hasPassphrase: Bool { get }

  /// Adds one item; errSecDuplicateItem when its primary key is taken (rule 5.2).
  func insert(_ item: NewItem) throws(SecStatus) -> StoredItem

  /// Adds many items in one transaction (an import or a restore): all of them, or none when one
  /// fails. With `skippingDuplicates`, an item whose primary key is taken is left out instead of
  /// failing the batch (a restore into a store that already holds it). Returns how many were added.
  @discardableResult
  func insertBatch(_ items: [NewItem], skippingDuplicates: Bool) throws(SecStatus) -> Int

  /// The matching items in insertion order (decision 9), at most `limit` of them. A storage that
  /// enforces its users' proofs (the agent of a passphrase store) leaves out the secret (`data`
  /// nil) of an item whose access control asks for the user until the user proved their presence
  /// to it (issue 32).
  func find(_ filter: ItemFilter, limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [StoredItem]

  /// Several searches as of one moment, each answered as `find` answers it: the matches of each
  /// filter, at most `limit` each (a replicator reads a page of changed items this way, in one
  /// read instead of one per item). A search that fails fails them all.
  func find(each filters: [ItemFilter], limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [[StoredItem]]

  /// Replaces each row by its revision in one transaction, if every row is still at the version
  /// it was read at (else `.changedSinceRead`, and nothing is written). A revision whose primary
  /// key another row holds is errSecDuplicateItem, and nothing is written. The API computes the
  /// revisions from a `find` with versions (rules 7.1, 7.9): no code of the API runs inside the
  /// storage, so a storage in another process can keep this contract.
  func replace(_ replacements: [ItemReplacement]) throws(SecStatus) -> ReplacementOutcome

  /// Removes every match (rule 8.1); errSecItemNotFound when nothing matches. Returns how many.
  func delete(_ filter: ItemFilter) throws(SecStatus) -> Int

  /// Drops the key material of WhenUnlocked items from memory.
  func lock()

  /// Restores the key material: from the key file, or from the passphrase of a passphrase store.
  func unlock(passphrase: String?) throws(SecStatus)

  /// `unlock(passphrase:)` with the passphrase as UTF-8 bytes, which the caller wipes: a storage
  /// that derives keys from it reads them without making a String (whose storage cannot be
  /// wiped). The default makes one and calls `unlock(passphrase:)`.
  func unlock(passphraseBytes: [UInt8]?) throws(SecStatus)

  /// Whether the store is locked.
  var isLocked: Bool { get }

  /// Whether the store was opened read-only (its files cannot be written by this process).
  var isReadOnly: Bool { get }

  /// Authenticates every item the store holds and counts those that fail.
  func checkIntegrity() throws(SecStatus) -> KeychainIntegrityReport

  // MARK: The change feed (ChangeFeed.swift)

  /// The feed's entries with a sequence above `sequence`, in sequence order, at most `limit`.
  func changes(after sequence: Int64, limit: Int) throws(SecStatus) -> [ChangeFeedEntry]

  /// The entry of each item, or nil where it has none, in the order asked and as of one moment
  /// (a replicator judges a whole page of records by them).
  func changes(of identities: [ItemIdentity]) throws(SecStatus) -> [ChangeFeedEntry?]

  /// Whether the feed has an entry above `sequence` (one indexed lookup: a replicator asks often).
  func hasChanges(after sequence: Int64) throws(SecStatus) -> Bool

  /// Applies the batch in one transaction if every step's expectation holds
  /// (else `.changedSinceRead`, and nothing is written).
  func applyReplication(_ batch: ReplicationBatch) throws(SecStatus) -> ReplicationOutcome

  /// Removes the deletion entries changed before `changedBefore` (microseconds since 1970) whose
  /// sequence is at most `sequence`; returns how many.
  @discardableResult
  func purgeDeletions(changedBefore: Int64, through sequence: Int64) throws(SecStatus) -> Int

  /// A value of the replicator's namespace, or nil when it has none.
  func replicationValue(_ name: String) throws(SecStatus) -> Data?

  /// A number that grows with every committed write of this process to the storage, so a
  /// replicator notices local changes without a query.
  var writeGeneration: UInt64 { get }

  /// The access groups this storage grants the calling program, when the storage decides them
  /// (the agent, from which executable is calling; "*" for every group), or nil when the caller's
  /// own groups stand (a store this process opened).
  var grantedAccessGroups: [String]? { get }

  /// The seconds after which the store locks itself when unused (an agent's idle timeout), or nil
  /// when it never does.
  var idleLockTimeout: Int? { get }

  /// Drops every key this storage holds in this process's memory, for a process about to exit
  /// (keychaind on SIGTERM): after it, every call that needs a key answers
  /// errSecInteractionNotAllowed until `unlock`. A storage whose keys are another process's (the
  /// agent's client) drops nothing.
  func dropKeys()
}

extension ItemStorage {
  /// The default: a String made of the bytes (a storage that derives no key from it).
  package func unlock(passphraseBytes: [UInt8]?) throws(SecStatus) {
    try unlock(passphrase: passphraseBytes.map { String(decoding: $0, as: UTF8.self) })
  }

  /// A store this process opened grants what the caller's groups say.
  package var grantedAccessGroups: [String]? { nil }

  /// A store this process opened locks only when asked.
  package var idleLockTimeout: Int? { nil }

  /// A storage without keys of its own to wipe (the in-memory one) drops what locking drops.
  package func dropKeys() { lock() }

  /// The entry of one item, or nil when it has none.
  package func change(of identity: ItemIdentity) throws(SecStatus) -> ChangeFeedEntry? {
    try changes(of: [identity])[0]
  }
}

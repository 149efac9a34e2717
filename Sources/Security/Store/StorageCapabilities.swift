import Foundation

// The storage contract, split by what each user needs (issue 50): the SecItem engine needs rows;
// the lock and the passphrase belong to whoever holds the keys; a replicator needs rows and the
// change feed; maintenance (integrity, read-only state) is for tools. Each capability is a protocol
// of its own, so a change to one touches only its implementations, and a component says in its
// type what it uses. `ItemStorage` is all four, what a store (SQLite, in memory, the agent's
// client) implements. What concerns a caller rather than a store (the groups an agent grants, its
// idle timeout, who proves the user) is a `StorageSession`, which opening a store returns beside it.

/// Items as rows: keeps, finds, changes and removes them, and keeps them encrypted. See the
/// comment at the top of ItemStorage.swift for where its job ends.
package protocol ItemRowStorage: AnyObject, Sendable {
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
}

/// The keys and the lock state: whoever holds the keys implements it.
package protocol KeyLockStorage: AnyObject, Sendable {
  /// Whether the store is protected by a passphrase (a "passcode is set", rule 5.13).
  var hasPassphrase: Bool { get }

  /// Whether the store is locked.
  var isLocked: Bool { get }

  /// Drops the key material of WhenUnlocked items from memory.
  func lock()

  /// Restores the key material: from the key file, or from the passphrase of a passphrase store.
  func unlock(passphrase: String?) throws(SecStatus)

  /// `unlock(passphrase:)` with the passphrase as UTF-8 bytes, which the caller wipes: a storage
  /// that derives keys from it reads them without making a String (whose storage cannot be
  /// wiped). The default makes one and calls `unlock(passphrase:)`.
  func unlock(passphraseBytes: [UInt8]?) throws(SecStatus)

  /// Drops every key this storage holds in this process's memory, for a process about to exit
  /// (keychaind on SIGTERM): after it, every call that needs a key answers
  /// errSecInteractionNotAllowed until `unlock`. A storage whose keys are another process's (the
  /// agent's client) drops nothing.
  func dropKeys()
}

extension KeyLockStorage {
  /// The default: a String made of the bytes (a storage that derives no key from it).
  package func unlock(passphraseBytes: [UInt8]?) throws(SecStatus) {
    try unlock(passphrase: passphraseBytes.map { String(decoding: $0, as: UTF8.self) })
  }

  /// A storage without keys of its own to wipe (the in-memory one) drops what locking drops.
  package func dropKeys() { lock() }
}

/// The change feed a replicator reads and the replicated writes it applies (ChangeFeed.swift).
package protocol ChangeFeedStorage: AnyObject, Sendable {
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
}

extension ChangeFeedStorage {
  /// The entry of one item, or nil when it has none.
  package func change(of identity: ItemIdentity) throws(SecStatus) -> ChangeFeedEntry? {
    try changes(of: [identity])[0]
  }
}

/// What tools ask of a store as a whole.
package protocol StorageMaintenance: AnyObject, Sendable {
  /// Whether the store was opened read-only (its files cannot be written by this process).
  var isReadOnly: Bool { get }

  /// Authenticates every item the store holds and counts those that fail.
  func checkIntegrity() throws(SecStatus) -> KeychainIntegrityReport
}

/// A whole store: rows, keys and lock, the change feed and maintenance.
package typealias ItemStorage = ItemRowStorage & KeyLockStorage & ChangeFeedStorage & StorageMaintenance

/// What a storage's server says about the caller that opened it: nothing, for a store this process
/// opened; for the agent's, what its policy decided about this program.
package struct StorageSession: Sendable {
  /// The access groups the server grants the calling program ("*" for every group), or nil when the
  /// caller's own groups stand (a store this process opened).
  package var grantedAccessGroups: [String]?
  /// The seconds after which the server locks the store when unused, or nil when it never does.
  package var idleLockTimeout: Int?
  /// Who proves the user's presence for this caller (the agent asks, so the answer never passes
  /// through this process), or nil when this process asks through its own prompt.
  package var authenticator: (any UserAuthenticating)?

  /// A session with what the server said.
  package init(
    grantedAccessGroups: [String]? = nil, idleLockTimeout: Int? = nil, authenticator: (any UserAuthenticating)? = nil
  ) {
    self.grantedAccessGroups = grantedAccessGroups
    self.idleLockTimeout = idleLockTimeout
    self.authenticator = authenticator
  }

  /// A store this process opened: its caller's groups stand, it locks only when asked, and this
  /// process asks the user.
  package static let local = StorageSession()
}

import Foundation

// The storage contract, split by what each user needs (issue 50): the SecItem engine needs rows
// and the lock state; the lock and the passphrase belong to whoever holds the keys; a replicator
// reads rows and the change feed; maintenance (integrity, read-only state) is for tools. Each
// capability is a protocol of its own, so a change to one touches only its implementations, and a
// component says in its type what it uses. `ItemStorage` is all four, what a store (SQLite, in
// memory) implements. The agent's client is no storage: it hands whole SecItem calls to the agent
// (`KeychainAgentLink`), and offers rows only to a replicator the agent grants every group.

/// Items as rows, read: what a replicator or a read-only storage (a token, a copy of another
/// keychain) offers, with none of the writes, the lock or the feed.
package protocol ItemRowReader: AnyObject, Sendable {
  /// The matching items in insertion order (decision 9), at most `limit` of them. A storage that
  /// enforces its users' proofs (the agent of a passphrase store) leaves out the secret (`data`
  /// nil) of an item whose access control asks for the user until the user proved their presence
  /// to it (issue 32).
  func find(_ filter: ItemFilter, limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [StoredItem]

  /// Several searches as of one moment, each answered as `find` answers it: the matches of each
  /// filter, at most `limit` each (a replicator reads a page of changed items this way, in one
  /// read instead of one per item). A search that fails fails them all.
  func find(each filters: [ItemFilter], limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [[StoredItem]]
}

/// Items as rows: keeps, finds, changes and removes them, and keeps them encrypted. See the
/// comment at the top of ItemStorage.swift for where its job ends.
package protocol ItemRowStorage: ItemRowReader {
  /// Adds one item; errSecDuplicateItem when its primary key is taken (rule 5.2).
  func insert(_ item: NewItem) throws(SecStatus) -> StoredItem

  /// Adds many items in one transaction (an import or a restore): all of them, or none when one
  /// fails. With `skippingDuplicates`, an item whose primary key is taken is left out instead of
  /// failing the batch (a restore into a store that already holds it). Returns how many were added.
  @discardableResult
  func insertBatch(_ items: [NewItem], skippingDuplicates: Bool) throws(SecStatus) -> Int

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

/// Who holds a `KeychainStore`.
package enum KeychainStoreHolder: Sendable {
  /// A store this process opened: its storage, every capability of it.
  case process(any ItemStorage)
  /// A store `keychaind` holds: its client, through which every call is a request the agent runs.
  case agent(any KeychainAgentLink)
}

/// A connection to the agent that holds a store, as the Security module sees it: the SecItem
/// calls handed over whole (`service`), the lock and the integrity check, the user's proof
/// (LAContext asks the agent), and, for a program the agent grants every group, the rows and
/// feed a replicator reads. KeychainStorageAgent implements it; no row passes from it to the
/// agent.
package protocol KeychainAgentLink: KeyLockStorage, StorageMaintenance, UserAuthenticating {
  /// The access groups the agent's policy grants this program (["*"] for every group).
  var grantedAccessGroups: [String]? { get }

  /// The seconds after which the agent locks the store when no request comes, or nil.
  var idleLockTimeout: Int? { get }

  /// The SecItem calls of a caller with `accessGroups` (already within what is granted), run by the
  /// agent's engine.
  func service(accessGroups: [String]) -> any SecItemService

  /// The rows and the change feed for a replicator: errSecMissingEntitlement from the agent unless
  /// its policy grants this program every group.
  var replica: any ItemRowReader & ChangeFeedStorage { get }

  /// Has the agent import the GNOME Keyring file `contents` (opened with `password` unless GNOME
  /// kept it as text) for a caller with `accessGroups`: the agent reads the file and dates the
  /// items as it says. Returns the keyring's name and how many items were added and skipped.
  func importGnomeKeyring(_ contents: [UInt8], password: [UInt8]?, accessGroups: [String]) throws(SecStatus)
    -> (label: String, added: Int, duplicates: Int)
}

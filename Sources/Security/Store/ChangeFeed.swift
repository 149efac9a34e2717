import Foundation

// The storage's change feed: what any replication (KeychainSync today) builds on, with no rule of
// its own. A storage records, in the same transaction as the change, the latest change of every
// row whose synchronizable flag is 1: which item (its identity), whether it is gone, when, a
// sequence number the storage assigns from one counter that only grows, and whether the write came
// from the API (a local change) or from a replication batch. A replicator keeps its own per-item
// bookkeeping there too (a `ReplicaMark`), and its other state in a small namespace of values; a
// sealing storage seals both. Versions, what may leave the device, tombstones as a group knows
// them, record sealing and conflicts are the replicator's, above this contract.
//
// One rule keeps a store that never replicates from keeping deletions for ever: removing a row
// whose entry carries no mark removes the entry too. A replicator that learns an item went beyond
// the storage after its unmarked entry went (KeychainSync, acknowledging a push) marks it anyway:
// marking an item with no entry records a local deletion carrying the mark.

/// Who made a change the feed records.
package enum ChangeSource: UInt8, Sendable {
  /// A write through the API (insert, replace, delete), or a replicator's `refeed`.
  case local = 0
  /// A row written or removed by a replication batch.
  case replica = 1
}

/// What a replicator last recorded of one item: the version it holds, as the group orders them.
package struct ReplicaMark: Sendable, Hashable {
  /// The version, in the replicator's order (KeychainSync: microseconds, see `SyncVersion`).
  package var version: Int64
  /// The store that made the version.
  package var origin: Data
  /// Whether that version is a deletion.
  package var deleted: Bool
  /// The feed sequence of the change this store gave `version` to; nil for a version learned
  /// from the group. While it is the entry's sequence, the change keeps that version.
  package var versionedSequence: Int64?
  /// Whether the group has `version` (pushed and acknowledged, or received).
  package var settled: Bool

  package init(version: Int64, origin: Data, deleted: Bool, versionedSequence: Int64?, settled: Bool) {
    self.version = version
    self.origin = origin
    self.deleted = deleted
    self.versionedSequence = versionedSequence
    self.settled = settled
  }
}

/// The latest change of one synchronizable row.
package struct FeedChange: Sendable, Equatable {
  /// Assigned by the storage at the change, above every sequence it assigned before.
  package var sequence: Int64
  package var identity: ItemIdentity
  /// The row's persistent identifier (`StoredItem.persistentID`); nil for a deletion.
  package var persistentID: Data?
  /// The row's protection class (`pdmn`); nil for a deletion.
  package var protection: String?
  /// When the change was made, in microseconds since 1970 (the storage's clock).
  package var changedAt: Int64
  package var source: ChangeSource
  /// The replicator's record of the item, kept across later changes of the row.
  package var mark: ReplicaMark?

  package var deleted: Bool { protection == nil }

  package init(
    sequence: Int64, identity: ItemIdentity, persistentID: Data?, protection: String?, changedAt: Int64,
    source: ChangeSource, mark: ReplicaMark?
  ) {
    self.sequence = sequence
    self.identity = identity
    self.persistentID = persistentID
    self.protection = protection
    self.changedAt = changedAt
    self.source = source
    self.mark = mark
  }
}

/// One entry of the feed as read: the change, or the sequence of an entry that failed
/// authentication (changed on disk). A damaged entry is replaced by the row's next change.
package enum ChangeFeedEntry: Sendable, Equatable {
  case change(FeedChange)
  case damaged(sequence: Int64)

  package var sequence: Int64 {
    switch self {
    case .change(let change): change.sequence
    case .damaged(let sequence): sequence
    }
  }
}

/// What an entry must be for a replication step to apply: the step's view of the item is the
/// feed's, or nothing is written (optimistic concurrency, as `ItemReplacement` for rows).
package enum ChangeExpectation: Sendable, Equatable {
  /// The item has no entry.
  case absent
  /// The item's entry (sound or damaged) has this sequence.
  case sequence(Int64)
}

/// One step of a replication batch.
package enum ReplicationStep: Sendable {
  /// Writes an item received from a replica: over the row with its identity's key (keeping that
  /// row's persistent identifier, as an update does) or as a new row. Its change is fed as
  /// `.replica`, carrying `mark`.
  case store(NewItem, mark: ReplicaMark)
  /// Removes the row with this identity's key, if any; the change is a deletion fed as `.replica`.
  case remove(ItemIdentity, mark: ReplicaMark)
  /// Sets the entry's mark; the sequence, source and change stay. For an item with no entry (and
  /// no row), records a local deletion carrying the mark.
  case mark(ItemIdentity, ReplicaMark?)
  /// Feeds the item again as a local change with a new sequence: live with the row's protection
  /// when the row exists (the entry is made when missing), a deletion otherwise (nothing when the
  /// item has neither a row nor an entry).
  case refeed(ItemIdentity)
}

extension ReplicationStep {
  /// The item the step changes.
  package var identity: ItemIdentity {
    switch self {
    case .store(let item, _): ItemIdentity(item.itemClass, item.index)
    case .remove(let identity, _), .mark(let identity, _), .refeed(let identity): identity
    }
  }
}

/// Steps and namespace values written in one transaction, each step only if its expectation
/// holds. Every expectation is checked before any step is applied; a batch names each item once.
package struct ReplicationBatch: Sendable {
  package var steps: [(step: ReplicationStep, expecting: ChangeExpectation)] = []
  /// Values of the replicator's namespace to set (nil removes one).
  package var values: [String: Data?] = [:]
  /// Sequences of damaged entries to remove, so that they are reported once (an entry at such a
  /// sequence that opens is kept). A damaged entry's sequence is not trusted for anything else.
  package var discarding: [Int64] = []

  package init() {}
}

/// What `applyReplication` did.
package enum ReplicationOutcome: Sendable, Equatable {
  /// Every step and value is written.
  case applied
  /// An entry was not as expected: nothing was written, and the caller reads again.
  case changedSinceRead
}

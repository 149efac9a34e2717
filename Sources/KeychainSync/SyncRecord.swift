import Foundation

// What a sync replica (SyncReplica) and the engine that moves its records exchange: records as the
// server keeps them, the group's wrapped key, and the counts a round reports. The replica seals and
// opens records with the group's key, so the server (and the engine) never hold a key, a secret or
// an attribute value.

/// One version of one synchronizable item as it travels: everything a server keeps of it.
package struct SyncRecord: Sendable, Hashable {
  /// A keyed digest of the item's primary key under the group's key: the same on every store.
  package var recordID: Data
  /// The version, in microseconds since 1970: its modification time, raised when needed above
  /// every version the store had seen of the item, so that a later change always wins.
  package var version: Int64
  /// The store that made this version; it breaks ties between equal versions.
  package var origin: Data
  /// Whether the version is a deletion (a tombstone).
  package var deleted: Bool
  /// The item (or, for a tombstone, its primary key) sealed under the group's key, with every field
  /// above as associated data.
  package var sealed: Data

  package init(recordID: Data, version: Int64, origin: Data, deleted: Bool, sealed: Data) {
    self.recordID = recordID
    self.version = version
    self.origin = origin
    self.deleted = deleted
    self.sealed = sealed
  }

  /// Whether this version wins over one with `version` and `origin`: the later version, then the
  /// greater store identifier (bytewise), so every store picks the same winner.
  package func supersedes(version other: Int64, origin otherOrigin: Data) -> Bool {
    if version != other { return version > other }
    return otherOrigin.lexicographicallyPrecedes(origin)
  }
}

/// The passphrase-wrapped form of a group's key, as the server keeps it for stores that join.
package struct WrappedSyncKey: Sendable, Equatable {
  /// The group's public identifier (derived from its key, so a wrapped key cannot be moved to
  /// another group unnoticed).
  package var groupID: Data
  /// The key sealed under scrypt of the passphrase, with its parameters and salt in the header.
  package var wrapped: Data

  package init(groupID: Data, wrapped: Data) {
    self.groupID = groupID
    self.wrapped = wrapped
  }
}

/// How expensive the passphrase wrapping of a new group key is.
package enum SyncKeyWrappingCost: Sendable {
  /// scrypt N = 2^20, r = 8, p = 1: what every group gets (KeychainSync's threat model).
  case standard
  /// scrypt N = 2^15, r = 8, p = 1: the cost groups were wrapped at before, which joins still
  /// accept. Only the package's own tests choose it, for groups whose passphrase is not what they
  /// test, so that the suite does not pay a gigabyte and seconds per group.
  case earlier
}

/// A store's membership of a sync group.
package struct SyncMembership: Sendable, Equatable {
  package var groupID: Data
  /// The server's connection string (kept sealed in the store: it may hold a password).
  package var server: String
  /// This store's identifier in every record it makes.
  package var storeID: Data
  /// The server position up to which records were applied.
  package var cursor: Int64

  package init(groupID: Data, server: String, storeID: Data, cursor: Int64) {
    self.groupID = groupID
    self.server = server
    self.storeID = storeID
    self.cursor = cursor
  }
}

/// What a store holds of its synchronizable items, for `status`.
package struct SyncJournalSummary: Sendable, Equatable {
  /// Live synchronizable items the change feed holds that may leave the device.
  package var liveItems: Int
  /// Deletions the change feed still holds (tombstones not yet purged).
  package var tombstones: Int
  /// Versions made here and not yet acknowledged by the server.
  package var pending: Int
  /// Incoming records refused since the store joined (altered, moved or foreign).
  package var rejected: Int
  /// The store's own change feed entries that failed authentication and were never pushed.
  package var damaged: Int

  package init(liveItems: Int, tombstones: Int, pending: Int, rejected: Int, damaged: Int = 0) {
    self.liveItems = liveItems
    self.tombstones = tombstones
    self.pending = pending
    self.rejected = rejected
    self.damaged = damaged
  }
}

/// What a store has to push: its pending versions, sealed, and how many of its change feed entries
/// failed authentication (changed on disk) and were set aside instead.
package struct SyncOutgoing: Sendable, Equatable {
  /// The records to push.
  package var records: [SyncRecord] = []
  /// Change feed entries set aside because they failed authentication; they are no longer pending.
  package var damagedEntries = 0
  /// How many change feed entries this batch read (pushed, skipped or damaged): fewer than asked
  /// for means the feed is drained.
  package var entriesRead = 0

  package init() {}
}

/// What applying a batch of incoming records did.
package struct SyncApplyReport: Sendable, Equatable {
  /// Records whose version was newer than the store's and were applied.
  package var applied = 0
  /// Records no newer than what the store holds (echoes of its own pushes, lost conflicts, replays).
  package var stale = 0
  /// Records that failed authentication or whose contents are not the item they claim to be.
  package var rejected = 0
  /// Why each record was rejected, naming its position on the server, never a value.
  package var rejections: [String] = []
  /// Whether the batch stopped early because a record needs a key the lock state withholds; the
  /// cursor then stays before it.
  package var stoppedLocked = false

  package init() {}
}

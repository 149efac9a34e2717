import Foundation
import KeychainBackend
import Logging
import Security

/// A store's sync group: a set of stores that share a group key, through which their
/// synchronizable items (and only those, never ThisDeviceOnly ones) follow the user.
///
/// The group key is 256 random bits of its own (never a store key). The server keeps it only
/// wrapped under scrypt of the group's passphrase (N = 2^20, r = 8, p = 1: about 1 GiB and a few
/// seconds per try, see <doc:ThreatModel>); a store joins with that passphrase (one scrypt per
/// group tried) or with a key file `exportKey(store:)` wrote. Creating and joining write the membership
/// into the store, sealed under the store's key; a `KeychainSyncEngine` then keeps it in sync.
public enum KeychainSyncGroup {
  /// Creates a group on the server, with a new key wrapped under `passphrase`, and joins `store` to it.
  ///
  /// - Throws: errSecParam for a URL that is not a postgres:// URL or a passphrase shorter than 12
  ///   characters or among the most common ones (the server can guess it offline),
  ///   errSecNotAvailable when the server cannot be reached, errSecDuplicateItem when the store
  ///   is already in a group (leave it first).
  @discardableResult
  public static func create(store: KeychainStore, server: String, passphrase: String) async throws(KeychainSyncError)
    -> KeychainSyncStatus
  {
    try await create(store: store, server: server, passphrase: passphrase, cost: .standard)
  }

  /// `create(store:server:passphrase:)` with the wrapping cost chosen: the package's tests use the
  /// earlier cost for groups whose passphrase is not what they test.
  @discardableResult
  package static func create(
    store: KeychainStore, server: String, passphrase: String, cost: SyncKeyWrappingCost
  ) async throws(KeychainSyncError) -> KeychainSyncStatus {
    let backend = try syncable(store)
    let address = try SyncServerAddress(server)
    try requireNoGroup(backend)
    guard !passphrase.isEmpty else { throw KeychainSyncError(status: errSecParam, message: "The passphrase is empty.") }
    // The key is made and wrapped (seconds of scrypt) before the server is reached, so that no
    // connection or deadline waits on it.
    let wrapped: WrappedSyncKey
    do throws(SecStatus) {
      wrapped = try await deriving { () throws(SecStatus) in
        try backend.createSyncGroup(server: server, passphrase: passphrase, cost: cost)
      }
    } catch {
      throw KeychainSyncError(error, "Cannot create the sync group")
    }
    do throws(KeychainSyncError) {
      try await SyncServer.with(address) { connection throws(KeychainSyncError) in
        try await connection.createGroup(wrapped)
      }
    } catch {
      // The server never heard of the group: the store must not stay in it.
      try? backend.leaveSyncGroup()
      throw error
    }
    return try status(backend)!
  }

  /// Where passphrase work runs: scrypt at the group's cost takes about 1 GiB and seconds, so it
  /// runs off Swift's cooperative pool (where it would starve other tasks and their deadlines) and
  /// one at a time in the process (so concurrent joins cannot take a gigabyte each).
  private static let keyDerivation = DispatchQueue(label: "keychain-bridge.sync.key-derivation")

  /// `body`'s result, computed on `keyDerivation`.
  private static func deriving<T: Sendable>(_ body: @escaping @Sendable () throws(SecStatus) -> T)
    async throws(SecStatus) -> T
  {
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, SecStatus>, Never>) in
      keyDerivation.async {
        do throws(SecStatus) {
          continuation.resume(returning: .success(try body()))
        } catch {
          continuation.resume(returning: .failure(error))
        }
      }
    }
    return try result.get()
  }

  /// Joins `store` to a group the server holds, unwrapping its key with `passphrase`.
  ///
  /// - Parameters:
  ///   - store: the store that joins; it must be in no group.
  ///   - server: the server's postgres:// URL.
  ///   - passphrase: the group's passphrase (one scrypt per group tried).
  ///   - groupID: the group's identifier in hex, when the server holds several groups; by default
  ///     the first group the passphrase opens.
  /// - Throws: errSecAuthFailed for a wrong passphrase, errSecNoSuchKeychain when the server holds
  ///   no (such) group, errSecNotAvailable when it cannot be reached, errSecDuplicateItem when the
  ///   store is already in a group.
  @discardableResult
  public static func join(store: KeychainStore, server: String, passphrase: String, groupID: String? = nil)
    async throws(KeychainSyncError) -> KeychainSyncStatus
  {
    let backend = try syncable(store)
    let address = try SyncServerAddress(server)
    try requireNoGroup(backend)
    var groups = try await SyncServer.with(address) { connection throws(KeychainSyncError) in
      try await connection.groups()
    }
    if let groupID {
      groups = groups.filter { $0.groupID.hexString == groupID.lowercased() }
    }
    guard !groups.isEmpty else {
      throw KeychainSyncError(
        status: errSecNoSuchKeychain,
        message: groupID.map { "The sync server \(address.redacted) holds no group \($0)." }
          ?? "The sync server \(address.redacted) holds no sync group; create one first.")
    }
    var lastFailure: SecStatus?
    for group in groups {
      do throws(SecStatus) {
        try await deriving { () throws(SecStatus) in
          try backend.joinSyncGroup(server: server, wrappedKey: group, passphrase: passphrase)
        }
      } catch {
        lastFailure = error
        if error.code != errSecAuthFailed { break }
        continue
      }
      return try status(backend)!
    }
    if let lastFailure, lastFailure.code == errSecAuthFailed {
      throw KeychainSyncError(
        status: errSecAuthFailed, message: "The passphrase opens no sync group on \(address.redacted).")
    }
    throw KeychainSyncError(lastFailure ?? .notAvailable, "Cannot join the sync group")
  }

  /// Joins `store` to the group whose key file `exportKey(store:)` wrote.
  @discardableResult
  public static func join(store: KeychainStore, server: String, keyFile: Data) async throws(KeychainSyncError)
    -> KeychainSyncStatus
  {
    let backend = try syncable(store)
    let address = try SyncServerAddress(server)
    try requireNoGroup(backend)
    let groups = try await SyncServer.with(address) { connection throws(KeychainSyncError) in
      try await connection.groups()
    }
    let groupID: Data
    do throws(SecStatus) {
      groupID = try backend.joinSyncGroup(server: server, keyFile: keyFile)
    } catch {
      throw KeychainSyncError(error, "Cannot join the sync group with this key file")
    }
    guard groups.contains(where: { $0.groupID == groupID }) else {
      try? backend.leaveSyncGroup()
      throw KeychainSyncError(
        status: errSecNoSuchKeychain,
        message: "The sync server \(address.redacted) holds no group \(groupID.hexString) for this key file.")
    }
    return try status(backend)!
  }

  /// The group key of `store`'s group as a file another store can join with. It is the key itself:
  /// keep it as secret as the passphrase.
  public static func exportKey(store: KeychainStore) throws(KeychainSyncError) -> Data {
    let backend = try syncable(store)
    do throws(SecStatus) {
      return try backend.exportSyncKey()
    } catch {
      throw KeychainSyncError(error, "Cannot export the sync group key")
    }
  }

  /// Takes `store` out of its group: the key, the server and the tombstones are forgotten; the
  /// items stay in the store and stop syncing. The other stores and the server are not changed.
  public static func leave(store: KeychainStore) throws(KeychainSyncError) {
    let backend = try syncable(store)
    guard try status(backend) != nil else {
      throw KeychainSyncError(status: errSecNoSuchKeychain, message: "The store is in no sync group.")
    }
    do throws(SecStatus) {
      try backend.leaveSyncGroup()
    } catch {
      throw KeychainSyncError(error, "Cannot leave the sync group")
    }
  }

  /// The stores of `store`'s group, as the server last saw each sync, most recent first.
  ///
  /// - Throws: errSecNoSuchKeychain when the store is in no group, errSecNotAvailable when the
  ///   server cannot be reached.
  public static func members(store: KeychainStore) async throws(KeychainSyncError) -> [KeychainSyncMember] {
    let backend = try syncable(store)
    let membership: SyncMembership?
    do throws(SecStatus) { membership = try backend.syncMembership() } catch {
      throw KeychainSyncError(error, "Cannot read the store's sync state")
    }
    guard let membership else {
      throw KeychainSyncError(status: errSecNoSuchKeychain, message: "The store is in no sync group.")
    }
    let members = try await SyncServer.with(try SyncServerAddress(membership.server)) {
      server throws(KeychainSyncError) in try await server.members(group: membership.groupID)
    }
    return members.map { KeychainSyncMember(storeID: $0.store.hexString, lastSynced: $0.lastSeen) }
  }

  /// The store's membership and what its change feed holds, or nil when it is in no group.
  public static func status(store: KeychainStore) throws(KeychainSyncError) -> KeychainSyncStatus? {
    try status(try syncable(store))
  }

  static func status(_ backend: SyncReplica) throws(KeychainSyncError) -> KeychainSyncStatus? {
    do throws(SecStatus) {
      guard let membership = try backend.syncMembership() else { return nil }
      let summary = try backend.syncSummary()
      let server = (try? SyncServerAddress(membership.server))?.redacted ?? "(unreadable address)"
      return KeychainSyncStatus(
        groupID: membership.groupID.hexString, server: server, storeID: membership.storeID.hexString,
        serverPosition: membership.cursor, synchronizableItems: summary.liveItems, tombstones: summary.tombstones,
        pendingChanges: summary.pending, rejectedRecords: summary.rejected, damagedJournalEntries: summary.damaged)
    } catch {
      throw KeychainSyncError(error, "Cannot read the store's sync state")
    }
  }

  /// The sync side of `store`, over its storage's change feed (the agent's, for a store it holds).
  /// The sync API is a front end: it makes its backend value here, at its edge, and hands it on.
  static func syncable(_ store: KeychainStore) throws(KeychainSyncError) -> SyncReplica {
    let backend: any SecurityBackend = SQLiteOpenSSLBackend()
    switch store.holder {
    case .process(let storage): return SyncReplica(storage: storage, backend: backend)
    case .agent(let agent): return SyncReplica(storage: agent.replica, backend: backend)
    }
  }

  private static func requireNoGroup(_ backend: SyncReplica) throws(KeychainSyncError) {
    let membership: SyncMembership?
    do throws(SecStatus) { membership = try backend.syncMembership() } catch {
      throw KeychainSyncError(error, "Cannot read the store's sync state")
    }
    if let membership {
      throw KeychainSyncError(
        status: errSecDuplicateItem,
        message: "The store is already in sync group \(membership.groupID.hexString); leave it first.")
    }
  }
}

/// A store's place in its sync group.
public struct KeychainSyncStatus: Sendable, Equatable {
  /// The group's identifier (hex): derived from the group key, the same on every store.
  public let groupID: String
  /// The server, without its password.
  public let server: String
  /// This store's identifier (hex), which breaks ties between equal versions.
  public let storeID: String
  /// The server position up to which this store has applied records.
  public let serverPosition: Int64
  /// Synchronizable items the store holds.
  public let synchronizableItems: Int
  /// Deletions kept to propagate and to stop older versions coming back.
  public let tombstones: Int
  /// Changes made here that the server has not acknowledged yet.
  public let pendingChanges: Int
  /// Records from the server refused since joining (altered, moved, replayed or another group's).
  public let rejectedRecords: Int
  /// This store's own change feed entries (its sync journal) that failed authentication since
  /// joining, and were never pushed (the feed was changed on disk).
  public let damagedJournalEntries: Int
}

/// A store of a sync group, as the server knows it.
public struct KeychainSyncMember: Sendable, Equatable {
  /// The store's identifier (hex), as `KeychainSyncStatus.storeID` gives it on that store.
  public let storeID: String
  /// When the store last completed a sync round.
  public let lastSynced: Date
}

let syncLogger = Logger(label: "keychain-bridge.sync")

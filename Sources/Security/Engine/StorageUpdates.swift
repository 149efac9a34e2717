import Foundation

/// SecItemUpdate and the upsert over the storage contract, with no code of the API inside the
/// storage: read the matches with their versions, compute each revision here by Apple's rules,
/// and have the storage replace them only if none changed in between (`ItemStorage.replace`).
/// A concurrent writer that changes a match makes the storage answer `.changedSinceRead`, and the
/// change is read and computed again; the result is as if the update had run alone, at once.
enum StorageUpdates {
  /// How many times a change is computed again while other writers keep changing its matches:
  /// each round loses only to a write that committed meanwhile, so this bound is never reached
  /// in practice, and reaching it is a failure rather than a wait without end.
  static let attempts = 64

  /// Replaces every match of `filter` by what `change` makes of it (rules 7.1, 7.9);
  /// errSecItemNotFound when nothing matches. Returns how many changed.
  /// Revisions are fingerprinted by `backend` and dated by `clock`.
  /// `adjusting` may make the change fit the matches it is applied to (an application password's
  /// sealing, which depends on their access control), from what this read already holds.
  static func update(
    _ storage: any ItemRowStorage, _ filter: ItemFilter, _ change: ItemChange, backend: any SecurityBackend,
    clock: () -> Date = { Date() },
    adjusting adjust: (ItemChange, [StoredItem]) throws(SecStatus) -> ItemChange = { change, _ in change }
  ) throws(SecStatus) -> Int {
    for _ in 0..<attempts {
      let matches = try storage.find(filter, limit: nil, fetch: readForRevision)
      guard !matches.isEmpty else { throw .itemNotFound }
      let adjusted = try adjust(change, matches)
      if case .replaced(let count) = try storage.replace(
        try replacements(matches, adjusted, backend: backend, now: clock()))
      {
        return count
      }
    }
    throw gaveUp
  }

  /// Updates the matches of `filter` as `update` does, or adds `item` when there are none. An add
  /// that finds its primary key taken is errSecDuplicateItem, as in one transaction.
  /// `adjusting` is applied to the change as `update` applies it.
  static func upsert(
    _ storage: any ItemRowStorage, _ filter: ItemFilter, _ change: ItemChange, orInsert item: NewItem,
    backend: any SecurityBackend, clock: () -> Date = { Date() },
    adjusting adjust: (ItemChange, [StoredItem]) throws(SecStatus) -> ItemChange = { change, _ in change }
  ) throws(SecStatus) -> Int {
    for _ in 0..<attempts {
      let matches = try storage.find(filter, limit: nil, fetch: readForRevision)
      if matches.isEmpty {
        _ = try storage.insert(item)
        return 1
      }
      let adjusted = try adjust(change, matches)
      if case .replaced(let count) = try storage.replace(
        try replacements(matches, adjusted, backend: backend, now: clock()))
      {
        return count
      }
    }
    throw gaveUp
  }

  /// What a revision is computed from: the attributes, the access control and the version.
  private static let readForRevision = ItemFetch(attributes: true, data: false, version: true)

  private static let gaveUp = SecStatus(
    errSecInternalComponent, detail: "the items kept changing while they were being updated")

  private static func replacements(
    _ matches: [StoredItem], _ change: ItemChange, backend: any SecurityBackend, now: Date
  ) throws(SecStatus) -> [ItemReplacement] {
    var replacements: [ItemReplacement] = []
    replacements.reserveCapacity(matches.count)
    for item in matches {
      guard let version = item.version else {
        throw SecStatus(errSecInternalComponent, detail: "the storage read an item without its version")
      }
      replacements.append(
        ItemReplacement(
          itemClass: item.itemClass, persistentID: item.persistentID, expected: version,
          revision: try ItemRows.revision(of: item, change, at: now, backend: backend)))
    }
    return replacements
  }
}

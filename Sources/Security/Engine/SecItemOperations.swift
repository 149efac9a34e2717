import Foundation

// The bodies of SecItemCopyMatching, SecItemUpdate and SecItemDelete for every class but
// identities, shared by the CF functions (SecItem.swift) and the typed entry points
// (SecItemEntries.swift).

extension SecItemCall {
  /// What a caller's query is about: identities, which have a path of their own, or items.
  enum QueryTarget {
    case identities
    case items(ItemRequest)
  }

  /// Reads a caller's query once: its entries decide whether it is about identities and are then
  /// parsed, so the NSDictionary is not searched by key first (three bridged lookups, 5% of a raw
  /// lookup). A dictionary whose entries cannot be read is judged as before, so its error is the same.
  static func read(_ query: NSDictionary) throws(SecStatus) -> QueryTarget {
    guard let entries = try? query.keychainEntries() else {
      return IdentityItems.isIdentityQuery(query) ? .identities : .items(try ItemRequest(query))
    }
    return IdentityItems.isIdentityQuery(entries) ? .identities : .items(try ItemRequest(entries: entries))
  }

  /// SecItemUpdate's body for every class but identities.
  static func update(_ request: ItemRequest, _ changeEntries: RequestEntries, _ engine: SecItemEngine)
    throws(SecStatus)
  {
    let itemClass = try request.requiredClass()
    let filter = try SecItemCall.filter(from: request, engine, ignoringMatchAndReturn: true)
    let change = try SecItemCall.change(from: changeEntries, itemClass: itemClass, engine)
    _ = try changeStoredItems(filter, change, request, engine)
  }

  /// Replaces the matches of `filter` by what `change` makes of them (StorageUpdates.update),
  /// after the checks that depend on the matches themselves, decided from the update's own read
  /// (no second search): the user's proof where the change reaches a protected item's secret or
  /// access control, and new data sealed under an application password where one protects it.
  /// `insert`, when given, is added instead when nothing matches (an upsert).
  static func changeStoredItems(
    _ filter: ItemFilter, _ change: ItemChange, _ request: ItemRequest, _ engine: SecItemEngine,
    orInsert insert: NewItem? = nil
  ) throws(SecStatus) -> Int {
    guard ItemAuthentication.reachesSecret(change) else {
      guard let insert else {
        return try StorageUpdates.update(
          engine.storage, filter, change, backend: engine.backend, clock: engine.clock)
      }
      return try StorageUpdates.upsert(
        engine.storage, filter, change, orInsert: insert, backend: engine.backend, clock: engine.clock)
    }
    var authentication = try ItemAuthentication(request, engine: engine)
    var sealed: Data?
    let adjust = { (change: ItemChange, matches: [StoredItem]) throws(SecStatus) -> ItemChange in
      try authentication.authorizeChange(change, of: matches)
      return try ItemAuthentication.sealingChange(change, for: matches, request, engine, sealed: &sealed)
    }
    guard let insert else {
      return try StorageUpdates.update(
        engine.storage, filter, change, backend: engine.backend, clock: engine.clock, adjusting: adjust)
    }
    return try StorageUpdates.upsert(
      engine.storage, filter, change, orInsert: insert, backend: engine.backend, clock: engine.clock,
      adjusting: adjust)
  }

  /// SecItemDelete's body for every class but identities.
  static func delete(_ request: ItemRequest, _ engine: SecItemEngine) throws(SecStatus) {
    _ = try request.requiredClass()
    let filter = try SecItemCall.filter(from: request, engine, ignoringMatchAndReturn: true)
    _ = try engine.storage.delete(filter)
  }
}

extension SecItemCall {
  /// SecItemCopyMatching's search for every class but identities: the items the call hands out,
  /// in order, at most its limit, their secrets proven for and opened. The engine's typed result;
  /// the front end shapes it (`shaped`).
  static func matchingItems(_ request: ItemRequest, _ engine: SecItemEngine) throws(SecStatus) -> [StoredItem] {
    let itemClass = try request.requiredClass()
    if request.useKeys[SecConstantValue.useItemList] != nil
      || request.matchKeys.contains(SecConstantValue.matchItemList)
    {
      throw .param
    }
    if request.matchKeys.contains(SecConstantValue.matchPolicy) { throw .unimplemented }
    if request.issuers != nil && itemClass != .certificate {
      throw SecStatus.unimplemented.naming(SecConstantValue.matchIssuers, "applies to certificates and identities")
    }
    if request.hostOrSubdomain != nil && itemClass != .internetPassword { throw .unimplemented }
    let filter = try SecItemCall.filter(from: request, engine)
    let limit = request.limit ?? .one
    let flags = request.returnFlags
    var fetch = ResultShape.fetch(for: flags, itemClass)
    let readsSecrets = ItemAuthentication.readsSecrets(flags, of: itemClass)
    fetch.accessControl = readsSecrets
    var authentication = try ItemAuthentication(request, engine: engine)
    // Skipped items must not use up the limit, so a skipping search reads every match first.
    let rowLimit = readsSecrets && authentication.skipsItems ? nil : limit.rowLimit
    var items = try engine.storage.find(filter, limit: rowLimit, fetch: fetch)
    if readsSecrets { items = try authentication.admit(items, limit: limit.rowLimit) }
    guard !items.isEmpty else { throw .itemNotFound }
    return items
  }
}

import Foundation

/// Everything one SecItem call needs, as a value: the storage it acts on, the caller's access
/// groups, who proves the user's presence, the backend that seals and digests, and the clock that
/// dates new rows and revisions (issue 50).
///
/// Apple's rules run inside it and read nothing else: no task-local, environment or static lookup
/// of a store, groups or backend happens on its path, so a process that serves many callers (the
/// agent, the Secret Service) runs one engine per caller and none can act on another's store or
/// groups by a call site that forgot its context. Front ends are adapters that build or hold an
/// engine and convert their input to an `ItemRequest` once: Apple's CF functions
/// (`SecItemEngine.forCurrentCall()`, the process's default), the typed entry points the DSL's
/// generated wrappers call, the `security` tool, and the agent.
package struct SecItemEngine: Sendable {
  /// The store the calls read and write (its storage and, for an agent's store, its session).
  package let store: KeychainStore
  /// The caller's access groups in order, already narrowed to what the store grants; the first is
  /// the default group of new items (rule 11). "*" grants every group.
  package let accessGroups: [String]
  /// Who proves the user's presence and asks for application passwords.
  package let authenticator: any UserAuthenticating
  /// Seals application-password secrets, digests fingerprints, makes keys from rows.
  package let backend: any SecurityBackend
  /// The time new rows are created at and revisions are modified at.
  package let clock: @Sendable () -> Date

  /// An engine over `store` for a caller with `accessGroups`; the authenticator defaults to the
  /// store's, the clock to the system's.
  package init(
    store: KeychainStore, accessGroups: [String], authenticator: (any UserAuthenticating)? = nil,
    backend: any SecurityBackend, clock: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.store = store
    self.accessGroups = accessGroups
    self.authenticator = authenticator ?? store.authenticator
    self.backend = backend
    self.clock = clock
  }

  /// The engine of this process's CF functions: the store and groups `withKeychainContext` names,
  /// else the default store (opened once, from the environment) and the process's groups, narrowed
  /// to what an agent grants. errSecMissingEntitlement when no group is left (rule 11).
  package static func forCurrentCall() throws(SecStatus) -> SecItemEngine {
    let current = KeychainContext.current
    let store = try current.resolvedStore()
    var groups = current.resolvedAccessGroups
    if let granted = store.session.grantedAccessGroups {
      groups = KeychainAccessGroups.narrowed(
        groups, to: granted, callerChose: current.accessGroups != nil || KeychainAccessGroups.isConfigured)
    }
    guard !groups.isEmpty else { throw SecStatus.missingEntitlement }  // rule 11
    return SecItemEngine(store: store, accessGroups: groups, backend: try SecurityBackends.required())
  }
}

extension SecItemEngine {
  /// SecItemAdd for every class but identities (rule 5): the item as stored.
  package func add(_ request: ItemRequest) throws(SecStatus) -> StoredItem {
    try store.backend.insert(try SecItemCall.newItem(from: request, self))
  }

  /// SecItemCopyMatching for every class but identities (rules 3, 4 and 9): what the return keys
  /// ask for, or nil when they ask for nothing. Attribute values are Foundation objects when
  /// `foundationValues` (a CF caller bridges them next), Swift values otherwise.
  package func copyMatching(_ request: ItemRequest, foundationValues: Bool) throws(SecStatus) -> Any? {
    try SecItemCall.copyMatching(request, self, foundationValues: foundationValues)
  }

  /// SecItemUpdate for every class but identities (rule 7), `changes` being attributesToUpdate's
  /// entries.
  package func update(_ request: ItemRequest, changes: RequestEntries) throws(SecStatus) {
    try SecItemCall.update(request, changes, self)
  }

  /// SecItemDelete for every class but identities (rule 8).
  package func delete(_ request: ItemRequest) throws(SecStatus) {
    try SecItemCall.delete(request, self)
  }

  /// Updates what `request` matches with `changes`, or adds `addition` when nothing matches, in one
  /// store transaction: the typed API's atomic `set`. A request naming a persistent reference only
  /// updates (there is nothing to add when its item is gone).
  package func upsert(_ request: ItemRequest, changes: RequestEntries, addition: ItemRequest) throws(SecStatus) {
    let itemClass = try request.requiredClass()
    let filter = try SecItemCall.filter(from: request, self, ignoringMatchAndReturn: true)
    let change = try SecItemCall.change(from: changes, itemClass: itemClass, self)
    if request.reference != nil {
      _ = try SecItemCall.changeStoredItems(filter, change, request, self)
      return
    }
    let item = try SecItemCall.newItem(from: addition, self)
    _ = try SecItemCall.changeStoredItems(filter, change, request, self, orInsert: item)
  }

  /// Adds every request (each as `add` would) in one transaction: all or none. Returns how many.
  @discardableResult
  package func importItems(_ requests: [ItemRequest]) throws(SecStatus) -> Int {
    try importItems(count: requests.count) { index throws(SecStatus) in requests[index] }
  }

  /// Adds `count` items, the request of each read by `request` when its item is prepared, in one
  /// transaction: all or none. Returns how many. A caller converting its own values (SecItemImport's
  /// dictionaries) hands each over as it is needed, so that its requests are not all held beside
  /// the prepared items (keychain-bench's 5,000-item batches held both: 1.3 MB more at its peak).
  /// A negative count is errSecParam.
  @discardableResult
  package func importItems(count: Int, _ request: (Int) throws(SecStatus) -> ItemRequest) throws(SecStatus) -> Int {
    guard count >= 0 else { throw .param }
    var prepared: [NewItem] = []
    prepared.reserveCapacity(count)
    for index in 0..<count {
      let request = try request(index)
      if !request.returnFlags.isEmpty { throw .param }
      prepared.append(try SecItemCall.newItem(from: request, self))
    }
    return try store.backend.insertBatch(prepared, skippingDuplicates: false)
  }
}

import Foundation

/// The SecItem calls as every front end makes them: typed requests in, typed results out (items,
/// identity pairs, counts), with the CF and Foundation forms made by the front end.
///
/// Two implementations: `SecItemEngine` runs Apple's rules over a storage this process holds; the
/// agent's client (KeychainStorageAgent) hands each call, whole, to `keychaind`, which runs its own
/// engine for the caller it identified. Apple's CF functions, the typed entry points the DSL's
/// generated wrappers call, and the `security` tool take whichever the current store gives
/// (`SecItemServices.forCurrentCall()`), so no front end knows which one runs.
package protocol SecItemService: Sendable {
  /// Makes the refs of results (SecKey, SecCertificate) in this process.
  var backend: any SecurityBackend { get }

  /// SecItemAdd for every class but identities (rule 5): the item as stored.
  func add(_ request: ItemRequest) throws(SecStatus) -> StoredItem

  /// SecItemAdd of an identity (keys rule 8.5), `query` holding the SecIdentity as kSecValueRef:
  /// with `returningPair`, the identity as a search by its ref finds it (for the result).
  func addIdentity(_ query: RequestEntries, returningPair: Bool) throws(SecStatus) -> IdentityPair?

  /// SecItemCopyMatching for every class but identities (rules 3, 4 and 9): the items the call
  /// hands out, at most its limit, their secrets proven for and opened; errSecItemNotFound for none.
  func matchingItems(_ request: ItemRequest) throws(SecStatus) -> [StoredItem]

  /// SecItemCopyMatching of identities (keys rule 8.1 to 8.4): the pairs the call hands out.
  func matchingIdentities(_ query: RequestEntries) throws(SecStatus) -> [IdentityPair]

  /// SecItemUpdate for every class but identities (rule 7), `changes` being attributesToUpdate's.
  func update(_ request: ItemRequest, changes: RequestEntries) throws(SecStatus)

  /// SecItemUpdate of identities (keys rule 8.8).
  func updateIdentities(_ query: RequestEntries, changes: RequestEntries) throws(SecStatus)

  /// SecItemDelete for every class but identities (rule 8).
  func delete(_ request: ItemRequest) throws(SecStatus)

  /// SecItemDelete of identities (keys rule 8.6, 8.7).
  func deleteIdentities(_ query: RequestEntries) throws(SecStatus)

  /// Updates what `request` matches with `changes`, or adds `addition` when nothing matches, in one
  /// store transaction: the typed API's atomic `set`.
  func upsert(_ request: ItemRequest, changes: RequestEntries, addition: ItemRequest) throws(SecStatus)

  /// Adds `count` items, each as `add` would, in one transaction: all or none. Returns how many.
  func importItems(count: Int, _ request: (Int) throws(SecStatus) -> ItemRequest) throws(SecStatus) -> Int

  /// Seals every item of the caller's groups that may leave the device under `passphrase`.
  func exportBackup(passphrase: String) throws(SecStatus) -> SecKeychainBackup

  /// Restores what `exportBackup` sealed, skipping items the store already holds.
  func importBackup(_ file: Data, passphrase: String) throws(SecStatus) -> SecKeychainRestoreReport
}

extension SecItemService {
  /// Adds every request (each as `add` would) in one transaction: all or none. Returns how many.
  @discardableResult
  package func importItems(_ requests: [ItemRequest]) throws(SecStatus) -> Int {
    try importItems(count: requests.count) { index throws(SecStatus) in requests[index] }
  }

  /// SecItemCopyMatching for every class but identities, typed: each item the call hands out (at
  /// most its limit) with what its return keys ask for, the attributes as the store keeps them and
  /// a key's or certificate's ref made by `backend`; empty when nothing matches (a list needs no
  /// errSecItemNotFound). Apple's dictionary and array forms are made at the CF edge
  /// (`SecItemCall.shaped`), never here.
  package func searchedItems(_ request: ItemRequest) throws(SecStatus) -> [SearchedItem] {
    let items: [StoredItem]
    do {
      items = try matchingItems(request)
    } catch  where error.code == errSecItemNotFound {
      return []
    }
    return items.map { ResultShape.searched($0, request.returnFlags, backend: backend) }
  }
}

/// Everything one SecItem call needs, as a value: the storage it acts on, the caller's access
/// groups, who proves the user's presence, the backend that seals and digests, the clock that
/// dates new rows and revisions, and the name prompts give the caller (issue 50).
///
/// Apple's rules run inside it and read nothing else: no task-local, environment or static lookup
/// of a store, groups or backend happens on its path, so a process that serves many callers (the
/// agent, for its socket and the Secret Service) runs one engine per caller and none can act on
/// another's store or groups by a call site that forgot its context.
package struct SecItemEngine: SecItemService {
  /// The rows the calls read and write, and the lock state that decides what they may read.
  package let storage: any ItemRowStorage & KeyLockStorage
  /// The caller's access groups in order, already narrowed to what the store grants; the first is
  /// the default group of new items (rule 11). "*" grants every group.
  package let accessGroups: [String]
  /// Who proves the user's presence and asks for application passwords.
  package let authenticator: any UserAuthenticating
  /// Seals application-password secrets, digests fingerprints, makes keys from rows.
  package let backend: any SecurityBackend
  /// The time new rows are created at and revisions are modified at.
  package let clock: @Sendable () -> Date
  /// The caller as prompts name it: this process's name, or the program an agent serves.
  package let programName: String

  /// An engine over `storage` for a caller with `accessGroups`; the clock defaults to the system's,
  /// the program's name to this process's.
  package init(
    storage: any ItemRowStorage & KeyLockStorage, accessGroups: [String], authenticator: any UserAuthenticating,
    backend: any SecurityBackend, clock: @escaping @Sendable () -> Date = { Date() },
    programName: String = ProcessInfo.processInfo.processName
  ) {
    self.storage = storage
    self.accessGroups = accessGroups
    self.authenticator = authenticator
    self.backend = backend
    self.clock = clock
    self.programName = programName
  }

  /// This engine with another clock: a tool that keeps the dates of what it imports.
  package func dated(_ clock: @escaping @Sendable () -> Date) -> SecItemEngine {
    SecItemEngine(
      storage: storage, accessGroups: accessGroups, authenticator: authenticator, backend: backend, clock: clock,
      programName: programName)
  }

  package func add(_ request: ItemRequest) throws(SecStatus) -> StoredItem {
    try storage.insert(try SecItemCall.newItem(from: request, self))
  }

  package func addIdentity(_ query: RequestEntries, returningPair: Bool) throws(SecStatus) -> IdentityPair? {
    let dictionary = query.foundationDictionary
    guard let identity = IdentityItems.reference(in: dictionary) else {
      throw SecStatus.param.naming(SecConstantValue.valueRef, "must be a SecIdentity")
    }
    try IdentityItems.add(dictionary, identity, self)
    guard returningPair else { return nil }
    return try IdentityItems.pairs([SecConstantValue.valueRef: identity] as NSDictionary, self, limit: 1).first
  }

  package func matchingItems(_ request: ItemRequest) throws(SecStatus) -> [StoredItem] {
    try SecItemCall.matchingItems(request, self)
  }

  package func matchingIdentities(_ query: RequestEntries) throws(SecStatus) -> [IdentityPair] {
    try SecItemCall.matchingIdentities(query.foundationDictionary, self)
  }

  package func update(_ request: ItemRequest, changes: RequestEntries) throws(SecStatus) {
    try SecItemCall.update(request, changes, self)
  }

  package func updateIdentities(_ query: RequestEntries, changes: RequestEntries) throws(SecStatus) {
    try IdentityItems.update(query.foundationDictionary, changes.foundationDictionary, self)
  }

  package func delete(_ request: ItemRequest) throws(SecStatus) {
    try SecItemCall.delete(request, self)
  }

  package func deleteIdentities(_ query: RequestEntries) throws(SecStatus) {
    try IdentityItems.delete(query.foundationDictionary, self)
  }

  /// A request naming a persistent reference only updates (there is nothing to add when its item
  /// is gone).
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

  /// A caller converting its own values (SecItemImport's dictionaries) hands each request over as
  /// its item is prepared, so that its requests are not all held beside the prepared items
  /// (keychain-bench's 5,000-item batches held both: 1.3 MB more at its peak). A negative count is
  /// errSecParam.
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
    return try storage.insertBatch(prepared, skippingDuplicates: false)
  }

  package func exportBackup(passphrase: String) throws(SecStatus) -> SecKeychainBackup {
    try KeychainBackups.export(passphrase: passphrase, self)
  }

  package func importBackup(_ file: Data, passphrase: String) throws(SecStatus) -> SecKeychainRestoreReport {
    try KeychainBackups.restore(file, passphrase: passphrase, self)
  }
}

extension Array where Element == (String, RequestValue) {
  /// The entries as the Foundation dictionary they stand for: the identity paths read one.
  package var foundationDictionary: NSDictionary {
    let dictionary = NSMutableDictionary(capacity: count)
    for (key, value) in self { dictionary.setObject(value.foundationObject, forKey: key as NSString) }
    return dictionary
  }
}

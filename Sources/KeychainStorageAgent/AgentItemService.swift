import Foundation
import KeychainAgentWire
import Security

/// The SecItem calls of a program whose store the agent holds: each is handed to `keychaind` whole
/// (its entries, as the caller gave them, and the caller's groups), and the agent's engine runs it
/// for this program. What comes back is typed (items, identity pairs), shaped into Apple's results
/// here, at the front end.
struct AgentItemService: SecItemService {
  let client: AgentClient
  /// The caller's groups, narrowed here to what the agent grants; the agent narrows them again.
  let accessGroups: [String]

  var backend: any SecurityBackend { client.backend }

  func add(_ request: ItemRequest) throws(SecStatus) -> StoredItem {
    try send(.add, [request.entries], writing: true) { reader throws(SecStatus) in try reader.storedItem() }
  }

  func addIdentity(_ query: RequestEntries, returningPair: Bool) throws(SecStatus) -> IdentityPair? {
    try send(.addIdentity, [query], writing: true, { $0.flag(returningPair) }) { reader throws(SecStatus) in
      try reader.optional { reader throws(SecStatus) in try reader.identityPair() }
    }
  }

  func matchingItems(_ request: ItemRequest) throws(SecStatus) -> [StoredItem] {
    try send(.copyMatching, [request.entries]) { reader throws(SecStatus) in
      try reader.list { reader throws(SecStatus) in try reader.storedItem() }
    }
  }

  func matchingIdentities(_ query: RequestEntries) throws(SecStatus) -> [IdentityPair] {
    try send(.copyIdentities, [query]) { reader throws(SecStatus) in
      try reader.list { reader throws(SecStatus) in try reader.identityPair() }
    }
  }

  func update(_ request: ItemRequest, changes: RequestEntries) throws(SecStatus) {
    try send(.update, [request.entries, changes], writing: true) { _ throws(SecStatus) in }
  }

  func updateIdentities(_ query: RequestEntries, changes: RequestEntries) throws(SecStatus) {
    try send(.updateIdentities, [query, changes], writing: true) { _ throws(SecStatus) in }
  }

  func delete(_ request: ItemRequest) throws(SecStatus) {
    try send(.delete, [request.entries], writing: true) { _ throws(SecStatus) in }
  }

  func deleteIdentities(_ query: RequestEntries) throws(SecStatus) {
    try send(.deleteIdentities, [query], writing: true) { _ throws(SecStatus) in }
  }

  func upsert(_ request: ItemRequest, changes: RequestEntries, addition: ItemRequest) throws(SecStatus) {
    try send(.upsert, [request.entries, changes, addition.entries], writing: true) { _ throws(SecStatus) in }
  }

  /// The requests are read first, then sent as one batch: the agent adds them in one transaction.
  func importItems(count: Int, _ request: (Int) throws(SecStatus) -> ItemRequest) throws(SecStatus) -> Int {
    guard count >= 0 else { throw .param }
    var batch: [RequestEntries] = []
    batch.reserveCapacity(count)
    for index in 0..<count { batch.append(try request(index).entries) }
    let transferred = try batch.map { entries throws(SecStatus) in try entries.transferred() }
    return try send(.importItems, [], writing: true, { $0.list(transferred) { $0.entries($1) } }) {
      reader throws(SecStatus) in try reader.nonNegativeInt()
    }
  }

  func exportBackup(passphrase: String) throws(SecStatus) -> SecKeychainBackup {
    try send(.exportBackup, [], { $0.string(passphrase) }) { reader throws(SecStatus) in
      SecKeychainBackup(
        file: try reader.data(), exportedItems: try reader.nonNegativeInt(),
        skippedThisDeviceOnlyItems: try reader.nonNegativeInt())
    }
  }

  func importBackup(_ file: Data, passphrase: String) throws(SecStatus) -> SecKeychainRestoreReport {
    try send(
      .importBackup, [], writing: true,
      { writer in
        writer.data(file)
        writer.string(passphrase)
      }
    ) { reader throws(SecStatus) in
      SecKeychainRestoreReport(
        addedItems: try reader.nonNegativeInt(), duplicateItems: try reader.nonNegativeInt(),
        rejections: try reader.list { reader throws(SecStatus) in try reader.string() })
    }
  }

  /// Sends `operation` with the caller's groups, `requests`' entries and what `arguments` adds;
  /// records the proofs the agent reports for the requests' LAContexts in them, then reads the
  /// result with `read`, which must read all of it.
  func send<Result>(
    _ operation: AgentFrame.Operation, _ requests: [RequestEntries], writing: Bool = false,
    _ arguments: (inout WireWriter) -> Void = { _ in }, read: (inout WireReader) throws(SecStatus) -> Result
  ) throws(SecStatus) -> Result {
    let transferred = try requests.map { entries throws(SecStatus) in try entries.transferred() }
    let write = { (writer: inout WireWriter) in
      writer.list(accessGroups) { $0.string($1) }
      for entries in transferred { writer.entries(entries) }
      arguments(&writer)
    }
    var reader = writing ? try client.write(operation, write) : try client.call(operation, write)
    let sessions = requests.flatMap(\.authenticationSessions)
    let proofs = try reader.list { reader throws(SecStatus) in try reader.flag() }
    // The agent proved the user through these contexts in this call: so do the contexts here.
    for (session, proven) in zip(sessions, proofs) where proven { session.recordProof() }
    return try finished(try read(&reader), reader)
  }

  /// `value`, when the answer held nothing after it.
  private func finished<Value>(_ value: Value, _ reader: WireReader) throws(SecStatus) -> Value {
    guard reader.isAtEnd else { throw SecStatus(errSecDecode, detail: "bytes after the agent's answer") }
    return value
  }
}

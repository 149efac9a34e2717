import Foundation
import KeychainAgentWire
import KeychainStorageMemory
import Testing

@testable import KeychainAgent
@testable import Security

/// The agent stores only what its own engine computed (issue 64): a hand-written client's bytes are
/// SecItem requests, read by the keychain's grammar in the agent and run for the caller with the
/// groups its policy grants, so no index, date, fingerprint or group a client writes is stored, and
/// the operations that carried rows are gone from the protocol. The frames are built byte for byte
/// as such a client would, and answered by the agent's dispatch over an in-memory storage, with no
/// process or socket.
@Suite("The agent runs requests, never a client's rows")
struct CraftedFrameTests {
  let storage = InMemoryItemStorage()
  let service: AgentService
  /// A program granted one group, "mine"; "victim" is another program's.
  let caller: AgentCaller

  init() throws {
    service = try AgentServices.make(over: storage)
    caller = try AgentServices.caller(of: service, granted: ["mine"])
  }

  /// A SecItem call's frame: the caller's groups as the client claims them, then its entries.
  static func frame(
    _ operation: AgentFrame.Operation, groups: [String], _ requests: [[String: Any]],
    _ more: (inout WireWriter) -> Void = { _ in }
  ) throws -> [UInt8] {
    let transferred = try requests.map { try ($0 as NSDictionary).keychainEntries().transferred() }
    return AgentFrame.request(operation) { writer in
      writer.list(groups) { $0.string($1) }
      for entries in transferred { writer.entries(entries) }
      more(&writer)
    }
  }

  /// A generic password's add dictionary.
  static func password(_ account: String, _ extra: [String: Any] = [:]) -> [String: Any] {
    var dictionary: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword, SecConstantValue.attrService: "mail",
      SecConstantValue.attrAccount: account, SecConstantValue.valueData: Data("hunter2".utf8),
    ]
    dictionary.merge(extra) { _, new in new }
    return dictionary
  }

  /// The status the agent answers `request` with (nil: success), and its result's reader.
  func answer(_ request: [UInt8]) throws -> Result<WireReader, SecStatus> {
    let answer = try #require(try service.answer(request, from: caller) { _ in })
    do throws(SecStatus) {
      return .success(try AgentFrame.readAnswer(answer))
    } catch {
      return .failure(error)
    }
  }

  func status(_ request: [UInt8]) throws -> OSStatus? {
    if case .failure(let status) = try answer(request) { return status.code }
    return nil
  }

  /// Every row the storage holds, in any group.
  func storedRows() throws -> [StoredItem] {
    var filter = ItemFilter(itemClass: .genericPassword)
    filter.synchronizable = nil
    return try storage.find(filter, limit: nil, fetch: ItemFetch(attributes: true, data: false))
  }

  @Test("An add in the caller's group is stored, with the agent's dates and fingerprint, not the client's")
  func storeOwnedValuesAreTheAgents() throws {
    let claimed = Date(timeIntervalSinceReferenceDate: 0)
    let before = Date()
    let frame = try Self.frame(
      .add, groups: ["mine"],
      [
        Self.password(
          "me",
          [
            SecConstantValue.attrCreationDate: claimed, SecConstantValue.attrModificationDate: claimed,
            SecConstantValue.attrSHA1: Data(repeating: 0, count: 20),
          ])
      ])
    #expect(try status(frame) == nil)
    let row = try #require(try storedRows().first)
    #expect(row.attributes[SecConstantValue.attrAccessGroup] == .string("mine"))
    guard case .date(let created)? = row.attributes[SecConstantValue.attrCreationDate] else {
      Issue.record("the row has no creation date")
      return
    }
    #expect(created >= before.addingTimeInterval(-1))
    #expect(row.attributes[SecConstantValue.attrSHA1] != .data(Data(repeating: 0, count: 20)))
  }

  @Test("Groups a client claims beyond its grant, \"*\" included, give it nothing")
  func claimedGroupsAreNarrowed() throws {
    #expect(try status(Self.frame(.add, groups: ["victim"], [Self.password("me")])) == errSecMissingEntitlement)
    #expect(try status(Self.frame(.add, groups: ["*"], [Self.password("me")])) == errSecMissingEntitlement)
    let named = Self.password("me", [SecConstantValue.attrAccessGroup: "victim"])
    #expect(try status(Self.frame(.add, groups: ["mine", "victim", "*"], [named])) == errSecMissingEntitlement)
    #expect(try storedRows().isEmpty)
  }

  @Test("A search by a caller sees only its granted groups, whatever groups it claims")
  func searchesStayInTheGrant() throws {
    let victim = try AgentServices.caller(of: service, granted: ["victim"])
    let add = try Self.frame(.add, groups: ["victim"], [Self.password("theirs")])
    _ = try service.answer(add, from: victim) { _ in }
    #expect(try storedRows().count == 1)
    let search: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword,
      SecConstantValue.matchLimit: SecConstantValue.matchLimitAll, SecConstantValue.returnData: true,
    ]
    #expect(try status(Self.frame(.copyMatching, groups: ["mine", "victim", "*"], [search])) == errSecItemNotFound)
  }

  @Test("An update cannot move an item into another program's group")
  func anUpdateCannotMoveAnItem() throws {
    #expect(try status(Self.frame(.add, groups: ["mine"], [Self.password("me")])) == nil)
    let query: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword, SecConstantValue.attrAccount: "me",
    ]
    let change: [String: Any] = [SecConstantValue.attrAccessGroup: "victim"]
    #expect(try status(Self.frame(.update, groups: ["mine", "victim"], [query, change])) == errSecMissingEntitlement)
    #expect(try storedRows().first?.attributes[SecConstantValue.attrAccessGroup] == .string("mine"))
  }

  @Test("A batch with one request in another group stores nothing")
  func aBatchWithOneForeignRequestStoresNothing() throws {
    let requests = [Self.password("one"), Self.password("two", [SecConstantValue.attrAccessGroup: "victim"])]
    let transferred = try requests.map { try ($0 as NSDictionary).keychainEntries().transferred() }
    let frame = AgentFrame.request(.importItems) { writer in
      writer.list(["mine"]) { $0.string($1) }
      writer.list(transferred) { $0.entries($1) }
    }
    #expect(try status(frame) == errSecMissingEntitlement)
    #expect(try storedRows().isEmpty)
  }

  @Test("The replicator's reads and writes answer only a program granted every group")
  func replicationNeedsEveryGroup() throws {
    var filter = ItemFilter(itemClass: .genericPassword)
    filter.synchronizable = nil
    let find = AgentFrame.request(.find) { writer in
      writer.filter(filter)
      writer.optional(nil as Int?) { $0.int($1) }
      writer.fetch(ItemFetch(attributes: true, data: true))
    }
    #expect(try status(find) == errSecMissingEntitlement)
    #expect(try status(AgentFrame.request(.replicationValue) { $0.string("membership") }) == errSecMissingEntitlement)
  }

  @Test("A replicator's received item has no index or fingerprint to send: the agent computes both")
  func replicatedRowsAreTheAgents() throws {
    let replicator = try AgentServices.caller(of: service, granted: nil)
    let engine = SecItemEngine(
      storage: InMemoryItemStorage(), accessGroups: ["victim"],
      authenticator: KeychainStore(directory: URL(fileURLWithPath: "/nonexistent/crafted"), storage: storage)
        .authenticator, backend: try SecurityBackends.required())
    var item = try SecItemCall.newItem(
      from: try ItemRequest.reading(
        Self.password("synced", [SecConstantValue.attrSynchronizable: true]) as NSDictionary),
      engine)
    let fingerprint = item.attributes[SecConstantValue.attrSHA1]
    // What a crafted replicator would claim: a fingerprint of nothing and an index under its own
    // group for an item whose sealed attributes name the victim's.
    item.attributes[SecConstantValue.attrSHA1] = .data(Data(count: 20))
    item.index = ItemIndex(
      accessGroup: "mine", synchronizable: 1, protection: item.index.protection, primaryKey: [], spiKey: [],
      attributes: [:])
    var batch = ReplicationBatch()
    let mark = ReplicaMark(version: 1, origin: Data([1]), deleted: false, versionedSequence: nil, settled: true)
    batch.steps = [(.store(item, mark: mark), .absent)]
    let frame = AgentFrame.request(.applyReplication) { $0.batch(batch) }
    let answer = try #require(try service.answer(frame, from: replicator) { _ in })
    _ = try AgentFrame.readAnswer(answer)
    let stored = try #require(try storedRows().first)
    #expect(stored.attributes[SecConstantValue.attrSHA1] == fingerprint)
    var filter = ItemFilter(itemClass: .genericPassword)
    filter.synchronizable = nil
    filter.accessGroups = ["mine"]
    #expect(try storage.find(filter, limit: nil, fetch: ItemFetch(attributes: true, data: false)).isEmpty)
    // An attribute its class does not have is refused before anything is written.
    var foreign = item
    foreign.attributes["klbl"] = .data(Data([1]))
    batch.steps = [(.store(foreign, mark: mark), .absent)]
    #expect(throws: SecStatus.self) {
      _ = try service.answer(AgentFrame.request(.applyReplication) { $0.batch(batch) }, from: replicator) { _ in }
    }
  }

  @Test("The storage operations that carried rows are unknown operations, and end the connection")
  func rowOperationsAreGone() throws {
    // Version 2's insert was operation 1 with a row; now 1 is an add, whose entries these bytes are
    // not, and bytes of no operation at all are refused as such.
    #expect(throws: SecStatus.self) { _ = try service.answer([AgentFrame.version, 200], from: caller) { _ in } }
    #expect(throws: SecStatus.self) {
      _ = try service.answer([AgentFrame.version, AgentFrame.Operation.add.rawValue, 0xff, 0xff], from: caller) { _ in }
    }
    #expect(throws: SecStatus.self) { _ = try service.answer([2, 1], from: caller) { _ in } }
    #expect(try storedRows().isEmpty)
  }

  @Test("A request with an object the agent cannot make, or bytes after it, is refused")
  func malformedRequestsAreRefused() throws {
    var frame = try Self.frame(.add, groups: ["mine"], [Self.password("me")])
    frame.append(0)
    #expect(throws: SecStatus.self) { _ = try service.answer(frame, from: caller) { _ in } }
    let badKey = AgentFrame.request(.add) { writer in
      writer.list(["mine"]) { $0.string($1) }
      writer.entries([
        (
          SecConstantValue.valueRef,
          .key(TransferredKey(typeCode: "73", isPrivate: true, tokenID: nil, bytes: Data([1])))
        )
      ])
    }
    #expect(throws: SecStatus.self) { _ = try service.answer(badKey, from: caller) { _ in } }
    #expect(try storedRows().isEmpty)
  }
}

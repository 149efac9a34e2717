import Foundation
import KeychainAgentWire
import KeychainStorageMemory
import Testing

@testable import KeychainAgent
@testable import Security

/// The agent stores only rows it could have computed itself (issue 50): a hand-written client that
/// sends its own index beside an item's attributes cannot store a row that disagrees with itself or
/// names a group it was not granted. The frames are built byte for byte as such a client would,
/// and answered by the agent's dispatch over an in-memory storage, with no process or socket.
@Suite("The agent refuses crafted rows")
struct CraftedFrameTests {
  let storage = InMemoryItemStorage()
  let service: AgentService
  /// A program granted one group, "mine"; "victim" is another program's.
  let caller: AgentCaller

  init() throws {
    service = try AgentServices.make(over: storage)
    caller = try AgentServices.caller(of: service, granted: ["mine"])
  }

  /// A generic password as the API builds it: complete attributes, fingerprint and index.
  static func honestItem(account: String, group: String) throws -> NewItem {
    var attributes: [String: AttributeValue] = [
      SecConstantValue.attrAccount: .string(account), SecConstantValue.attrService: .string("mail"),
      SecConstantValue.attrAccessGroup: .string(group), SecConstantValue.attrSynchronizable: .integer(0),
      SecConstantValue.attrAccessible: .string(SecConstantValue.attrAccessibleWhenUnlocked),
    ]
    for (key, value) in ItemSchema.primaryKeyDefaults(of: .genericPassword) where attributes[key] == nil {
      attributes[key] = value
    }
    let complete = try ItemRows.completed(attributes, at: Date(), backend: try SecurityBackends.required())
    return NewItem(
      itemClass: .genericPassword, attributes: complete, accessControl: nil, data: Data("hunter2".utf8),
      index: try ItemRows.index(.genericPassword, complete))
  }

  /// The status the agent answers `request` with (nil: success).
  func status(of request: [UInt8]) throws -> OSStatus? {
    let answer = try #require(try service.answer(request, from: caller) { _ in })
    do throws(SecStatus) {
      _ = try AgentFrame.readAnswer(answer)
      return nil
    } catch {
      return error.code
    }
  }

  func insertFrame(_ item: NewItem) -> [UInt8] { AgentFrame.request(.insert) { $0.newItem(item) } }

  /// Every row the storage holds, in any group.
  func storedRows() throws -> [StoredItem] {
    var filter = ItemFilter(itemClass: .genericPassword)
    filter.synchronizable = nil
    return try storage.find(filter, limit: nil, fetch: ItemFetch(attributes: true, data: false))
  }

  @Test("An honest row in a granted group is stored")
  func anHonestRowIsStored() throws {
    #expect(try status(of: insertFrame(try Self.honestItem(account: "me", group: "mine"))) == nil)
    #expect(try storedRows().count == 1)
  }

  @Test("A row indexed under a granted group whose sealed attributes name another is refused")
  func aRowWhoseGroupDisagreesIsRefused() throws {
    var item = try Self.honestItem(account: "me", group: "victim")
    // The index says "mine", which the grant allows; the attributes, which are sealed and handed
    // to whoever reads the row, say "victim".
    item.index.accessGroup = "mine"
    #expect(try status(of: insertFrame(item)) == errSecParam)
    #expect(try storedRows().isEmpty)
  }

  @Test("A row whose index names another primary key than its attributes is refused")
  func aRowWhosePrimaryKeyDisagreesIsRefused() throws {
    #expect(try status(of: insertFrame(try Self.honestItem(account: "me", group: "mine"))) == nil)
    // The same account again under an index that claims another one: a duplicate the primary
    // key's uniqueness would never let through.
    var duplicate = try Self.honestItem(account: "me", group: "mine")
    duplicate.index = try Self.honestItem(account: "someone-else", group: "mine").index
    #expect(try status(of: insertFrame(duplicate)) == errSecParam)
    #expect(try storedRows().count == 1)
  }

  @Test("A row with an attribute its class does not have, or a forged fingerprint, is refused")
  func aRowWithForeignAttributesIsRefused() throws {
    var foreign = try Self.honestItem(account: "me", group: "mine")
    foreign.attributes["zzzz"] = .string("smuggled")
    #expect(try status(of: insertFrame(foreign)) == errSecNoSuchAttr)
    var forged = try Self.honestItem(account: "me", group: "mine")
    forged.attributes[SecConstantValue.attrSHA1] = .data(Data(repeating: 0, count: 20))
    #expect(try status(of: insertFrame(forged)) == errSecParam)
    #expect(try storedRows().isEmpty)
  }

  @Test("A batch with one crafted row stores nothing")
  func aBatchWithOneCraftedRowStoresNothing() throws {
    var crafted = try Self.honestItem(account: "two", group: "victim")
    crafted.index.accessGroup = "mine"
    let frame = AgentFrame.request(.insertBatch) { writer in
      writer.list([try! Self.honestItem(account: "one", group: "mine"), crafted]) { $0.newItem($1) }
      writer.flag(false)
    }
    #expect(try status(of: frame) == errSecParam)
    #expect(try storedRows().isEmpty)
  }

  @Test("An honest row in a group the program was not granted is refused")
  func aRowInAnotherGroupIsRefused() throws {
    #expect(
      try status(of: insertFrame(try Self.honestItem(account: "me", group: "victim"))) == errSecMissingEntitlement)
    #expect(try storedRows().isEmpty)
  }

  @Test("A change of the secret alone cannot carry another group's attributes")
  func aSecretOnlyReplacementCannotMoveTheRow() throws {
    #expect(try status(of: insertFrame(try Self.honestItem(account: "me", group: "mine"))) == nil)
    var filter = ItemFilter(itemClass: .genericPassword)
    filter.synchronizable = nil
    let stored = try #require(
      try storage.find(filter, limit: 1, fetch: ItemFetch(attributes: true, data: false, version: true)).first)
    // Attributes and index that agree with each other, in a granted group, but not with the row
    // the storage keeps: sent as a change that keeps the row's attributes, whose key and digests
    // no storage derives again, they would be sealed under the old row's identity.
    let moved = try Self.honestItem(account: "someone-else", group: "mine")
    let revision = ItemRevision(
      attributes: SortedAttributes(moved.attributes), accessControl: nil, data: Data("new".utf8), index: moved.index,
      keepsAttributes: true)
    let replacement = ItemReplacement(
      itemClass: .genericPassword, persistentID: stored.persistentID, expected: try #require(stored.version),
      revision: revision)
    #expect(try status(of: AgentFrame.request(.replace) { $0.list([replacement]) { $0.replacement($1) } }) != nil)
    let after = try storedRows()
    #expect(after.count == 1)
    #expect(after.first?.attributes[SecConstantValue.attrAccount] == .string("me"))
  }
}

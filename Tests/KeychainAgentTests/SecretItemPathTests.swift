import Foundation
import KeychainStorageMemory
import Security
import Testing

@testable import KeychainAgent

/// An item's object path names its persistent reference and nothing else: what `path(of:)` writes
/// reads back, and any other spelling names no item (D-Bus paths are compared exactly).
@Suite struct SecretItemPathTests {
  private func items() throws -> SecretItems {
    let service = try AgentServices.make(over: InMemoryItemStorage())
    let engine = service.engine(groups: ["*"])
    return SecretItems(engine: engine, collection: SecretCollection.login)
  }

  @Test("A path read back gives the reference it was written from")
  func pathsRoundTrip() throws {
    let items = try items()
    for uuid in [
      Data(repeating: 0, count: 16), Data(repeating: 0xff, count: 16), Data((0..<16).map { UInt8($0 * 17) }),
    ] {
      let reference = ItemReference.bytes(of: .genericPassword, uuid: uuid)
      let path = items.path(of: reference)
      #expect(path == SecretCollection.login.path + "/i" + uuid.map { String(format: "%02x", $0) }.joined())
      #expect(items.persistentReference(at: path) == reference)
    }
  }

  @Test("Paths that are not exactly 32 lowercase hexadecimal digits under the collection name no item")
  func otherPathsNameNoItem() throws {
    let items = try items()
    let base = SecretCollection.login.path + "/i"
    for path in [
      base + String(repeating: "A", count: 32), base + "+" + String(repeating: "a", count: 31),
      base + String(repeating: "a", count: 31), base + String(repeating: "a", count: 33),
      base + "g" + String(repeating: "0", count: 31),
      base + String(repeating: "é", count: 16), SecretCollection.prefix + "other/i" + String(repeating: "0", count: 32),
      base,
    ] {
      #expect(items.persistentReference(at: path) == nil, "\(path)")
    }
  }
}

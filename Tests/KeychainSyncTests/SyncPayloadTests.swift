import Foundation
import Testing

@testable import KeychainSync
@testable import Security

/// The binary form of a live record's item: what travels, and what a damaged form gives.
@Suite struct SyncPayloadEncoding {
  static func item(synchronizable: Int64 = 1, protection: String = "ck") throws -> StoredItem {
    let attributes = try ItemRows.completed(
      [
        "acct": .data(Data("alice".utf8)), "svce": .string("mail"), "agrp": .string("com.example.sync"),
        "sync": .integer(synchronizable), "pdmn": .string(protection), "labl": .string("Mail (alice)"),
        "icmt": .string("ünïcode ✓"), "invi": .integer(1),
      ], at: Date(timeIntervalSinceReferenceDate: 800_000_000.25), backend: try SecurityBackends.required())
    return StoredItem(
      itemClass: .genericPassword, persistentID: Data(count: 16), attributes: SortedAttributes(attributes),
      accessControl: SecAccessControl(protection: protection, flags: []), data: Data([0, 1, 2, 255]))
  }

  @Test func anItemTravelsWithItsTypesDatesAccessControlAndSecret() throws {
    let original = try Self.item()
    let decoded = try SyncPayload.decode(try SyncPayload.encode(original), backend: try SecurityBackends.required())
    #expect(decoded.itemClass == .genericPassword)
    #expect(decoded.data == original.data)
    #expect(decoded.accessControl?.protection == "ck")
    for key in ["acct", "svce", "agrp", "sync", "pdmn", "labl", "icmt", "invi", "cdat", "mdat"] {
      #expect(decoded.attributes[key] == original.attributes[key], "\(key)")
    }
  }

  @Test func itemsThatMayNotSyncAreRefused() throws {
    #expect(throws: SecStatus.self) {
      try SyncPayload.decode(
        try SyncPayload.encode(try Self.item(synchronizable: 0)), backend: try SecurityBackends.required())
    }
    #expect(throws: SecStatus.self) {
      try SyncPayload.decode(
        try SyncPayload.encode(try Self.item(protection: "cku")), backend: try SecurityBackends.required())
    }
  }

  @Test func truncatedAndMutatedFormsAreDecodeErrorsNeverCrashes() throws {
    let valid = [UInt8](try SyncPayload.encode(try Self.item()))
    for length in 0..<valid.count {
      #expect(throws: SecStatus.self) {
        try SyncPayload.decode(Data(valid.prefix(length)), backend: try SecurityBackends.required())
      }
    }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<5_000 {
      var bytes = valid
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
      }
      _ = try? SyncPayload.decode(Data(bytes), backend: try SecurityBackends.required())
    }
  }
}

/// Issue 52: a sync error reads as its sentence through `localizedDescription`.
@Suite struct SyncErrorDescriptionTests {
  @Test func syncErrorsAreLocalized() {
    let error: any Error = KeychainSyncError(status: errSecNotAvailable, message: "The sync server cannot be reached.")
    #expect(error.localizedDescription == "The sync server cannot be reached.")
  }
}

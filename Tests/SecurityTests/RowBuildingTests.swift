import Foundation
import KeychainCrypto
import Testing

@testable import KeychainStorageSQLite
@testable import Security

/// The parts of row building with an outside reference: the SHA-1 behind `sha1`, checked against
/// the openssl command line, and the query planner's SQL for each kind of search.
@Suite struct RowBuilding {
  static func openSSLSHA1(_ bytes: [UInt8]) throws -> String {
    let input = FileManager.default.temporaryDirectory.appendingPathComponent("sha1-\(UUID().uuidString)")
    try Data(bytes).write(to: input)
    defer { try? FileManager.default.removeItem(at: input) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl", "dgst", "-sha1", "-r", input.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return String(output.prefix(40))
  }

  @Test(arguments: [0, 1, 55, 56, 63, 64, 65, 1000])
  func sha1AgreesWithOpenSSL(length: Int) throws {
    let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    let ours = try SecurityBackends.required().sha1(bytes).map { String(format: "%02x", $0) }.joined()
    #expect(ours == (try Self.openSSLSHA1(bytes)))
  }

  /// A planner over digests under a fixed key, for reading the SQL of a filter.
  static func withPlanner<T>(_ body: (QueryPlanner) throws -> T) throws -> T {
    let ring = try KeyRing(storeKey: SecretKey(copying: [UInt8](repeating: 7, count: 32)))
    return try body(QueryPlanner(digests: SearchDigests(ring: ring, groups: GroupDigestCache())))
  }

  @Test func groupDigestsAreKeptPerStore() throws {
    // Two stores with different index keys, one after the other on one thread: each keeps its own
    // digests, though the second may take the first's address.
    var first: RowDigest?
    for keyByte: UInt8 in [7, 8] {
      let ring = try KeyRing(storeKey: SecretKey(copying: [UInt8](repeating: keyByte, count: 32)))
      let digests = SearchDigests(ring: ring, groups: GroupDigestCache())
      let computed = try digests.group("team.app")
      #expect(try digests.group("team.app") == computed)
      #expect(computed == (try digests.digest(Array("agrp\u{0}team.app".utf8))))
      if let first { #expect(computed != first) }
      first = computed
    }
  }

  @Test func aRowDigestIsExactlySixteenBytesKeptInOrder() throws {
    let bytes = (0..<16).map { UInt8($0 * 17) }
    let digest = try #require(bytes.withUnsafeBytes { RowDigest($0) })
    #expect(digest.data == Data(bytes))
    #expect(RowDigest(prefixOf: bytes + [1, 2]) == digest)
    for count in [0, 15, 17] {
      #expect([UInt8](repeating: 1, count: count).withUnsafeBytes { RowDigest($0) } == nil)
    }
    // The columns' digests, one inline slot per digest column.
    #expect(ItemTable.digestColumns.count == SearchDigestColumns.count)
    var columns = SearchDigestColumns()
    #expect(columns.isEmpty)
    columns[2] = digest
    #expect(!columns.isEmpty && columns[2] == digest && columns[0] == nil)
  }

  @Test func theDigestInputOfEachValueKindIsRowFormatTwos() {
    // Every stored digest was computed over these bytes: a tag, then the bytes or eight
    // little-endian bytes. Appending in place must give exactly what the whole array gave.
    let cases: [(ComparableValue, [UInt8])] = [
      (.bytes([1, 2]), [0x62, 1, 2]),
      (.text("é"), [0x73, 0xC3, 0xA9]),
      (.integer(-2), [0x6E, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
      (.double(1.5), [0x66, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F]),
      (.date(-1), [0x74, 0, 0, 0, 0, 0, 0, 0xF0, 0xBF]),
    ]
    for (value, bytes) in cases {
      #expect(value.encoded == bytes)
      #expect(value.encodedCount == bytes.count)
      var appended: [UInt8] = [9]
      value.encode(into: &appended)
      #expect(appended == [9] + bytes)
    }
  }

  @Test func aQueryNamingTheWholePrimaryKeyComparesItsDigestPerGroupAndSyncValue() throws {
    try Self.withPlanner { planner in
      var filter = ItemFilter(itemClass: .genericPassword)
      filter.accessGroups = ["g1", "g2"]
      filter.attributes = ["acct": .bytes(Array("a".utf8)), "svce": .bytes(Array("s".utf8))]
      filter.primaryKey = [
        IndexedAttribute(key: "acct", value: .bytes(Array("a".utf8))),
        IndexedAttribute(key: "svce", value: .bytes(Array("s".utf8))),
      ]
      let plan = try planner.plan(filter)
      #expect(plan.sql.hasSuffix("WHERE class = ? AND agrp IN (?,?) AND pk IN (?,?,?,?)"))
      #expect(plan.arguments.count == 1 + 2 + 4)
      #expect(plan.sortsInMemory)
      #expect(!plan.needsPostFilter)
    }
  }

  @Test func aQueryByDigestColumnsLeavesTheRestToTheAPIsVerdict() throws {
    try Self.withPlanner { planner in
      var filter = ItemFilter(itemClass: .internetPassword)
      filter.accessGroups = ["g1"]
      filter.synchronizable = 0
      filter.attributes = ["srvr": .bytes(Array("example.com".utf8)), "desc": .bytes(Array("d".utf8))]
      let plan = try planner.plan(filter)
      #expect(plan.sql.hasSuffix("WHERE class = ? AND agrp IN (?) AND sync = ? AND srvr = ? ORDER BY id"))
      #expect(plan.needsPostFilter)
      #expect(!plan.sortsInMemory)
    }
  }

  @Test func aReferenceQuerySearchesEveryGroupByItsIdentifier() throws {
    try Self.withPlanner { planner in
      var filter = ItemFilter(itemClass: .genericPassword)
      filter.reference = .uuid(.genericPassword, Data(repeating: 1, count: 16))
      let plan = try planner.plan(filter)
      #expect(plan.sql.hasSuffix("WHERE class = ? AND persistref = ? ORDER BY id"))
      #expect(plan.expected.persistentID == Data(repeating: 1, count: 16))
    }
  }

  @Test func searchesOfOneShapeShareOneSQLText() throws {
    try Self.withPlanner { planner in
      var first = ItemFilter(itemClass: .genericPassword)
      first.accessGroups = ["g1"]
      first.attributes = ["acct": .bytes(Array("a".utf8))]
      var second = first
      second.attributes = ["acct": .bytes(Array("b".utf8))]
      let (one, two) = (try planner.plan(first), try planner.plan(second))
      #expect(one.sql == two.sql)
      #expect(one.arguments.count == two.arguments.count)
    }
  }

  @Test("Every digest column is of an attribute the API's index carries, and an index carries no other")
  func digestColumnsAreOfTheIndexesAttributes() throws {
    // A digest column of an attribute the index leaves out would be empty in every row, and a
    // search by that attribute alone would find nothing.
    for (_, attribute) in ItemTable.digestColumns {
      #expect(ItemIndex.searchableAttributes.contains(attribute), "\(attribute)")
    }
    let attributes: [String: AttributeValue] = [
      SecConstantValue.attrAccount: .string("alice"), SecConstantValue.attrService: .string("mail"),
      SecConstantValue.attrLabel: .string("Mail"), SecConstantValue.attrComment: .string("a comment"),
      SecConstantValue.attrAccessGroup: .string("group"), SecConstantValue.attrSynchronizable: .integer(0),
      SecConstantValue.attrAccessible: .string(SecConstantValue.attrAccessibleWhenUnlocked),
    ]
    let index = try ItemIndex(of: .genericPassword, attributes: attributes)
    #expect(
      Set(index.attributes.keys)
        == [SecConstantValue.attrAccount, SecConstantValue.attrService, SecConstantValue.attrLabel])
    #expect(index.attributes[SecConstantValue.attrAccount] == AttributeValue.string("alice").comparable(as: .string))
  }
}

import Foundation
import GRDB
import Security
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Row format 3 (the access control in a plain column bound into both ciphertexts) and the upgrade
/// of stores written in formats 1 and 2, including a process killed at each of the upgrade's writes.
@Suite struct RowFormatUpgrade {
  /// A copy of a fixture store in a new directory, with the modes a store has.
  static func copyFixture(_ name: String) throws -> URL {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    for file in ["keychain.db", "keychain.key"] {
      let target = directory.appendingPathComponent(file)
      try FileManager.default.copyItem(at: fixture.appendingPathComponent(file), to: target)
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target.path)
    }
    return directory
  }

  /// The row format `store_info` records, read without the runtime.
  static func recordedFormat(_ directory: URL) throws -> Data? {
    try DatabaseQueue(path: directory.appendingPathComponent("keychain.db").path).read { db in
      try Data.fetchOne(db, sql: "SELECT value FROM store_info WHERE name = 'row_format'")
    }
  }

  static let passcode = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, .devicePasscode, nil)!
  static let unconstrained = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], nil)!

  /// Checks every item of a fixture (see its README) through the API, and that nothing is damaged.
  static func expectFixtureItems(_ name: String, in directory: URL) throws {
    let store = try KeychainStore(directory: directory)
    withKeychainContext(store: store, accessGroups: ["fixture.group"]) {
      #expect(readData(genp("alice", service: "com.example.api")) == Data(utf8: "alice-secret"))
      #expect(
        readAttributes(genp("alice", service: "com.example.api"))?[kSecAttrLabel as String] as? String == "Alice token")
      #expect(readData(genp("nodata", service: "com.example.empty")) == Data())
      #expect(readData(inet("carol", server: "example.com")) == Data(utf8: "carol-secret"))
      if name == "store-format-2" {
        let bob = genp("bob", service: "com.example.api", [kSecAttrSynchronizable as String: true])
        #expect(readData(bob) == Data(utf8: "bob-secret"))
        #expect(readAttributes(inet("carol", server: "example.com"))?[kSecAttrPort as String] as? Int == 8443)
        let dave = genp("dave", service: "com.example.acl")
        #expect(readData(dave) == Data(utf8: "dave-secret"))
        #expect(readAttributes(dave)?[kSecAttrAccessControl as String] as? SecAccessControl == unconstrained)
        // erin's access control asks for a passcode this store cannot check: listed, data withheld.
        let erin = genp("erin", service: "com.example.acl")
        #expect(readAttributes(erin)?[kSecAttrAccessControl as String] as? SecAccessControl == passcode)
        #expect(
          copy(genp("erin", service: "com.example.acl", [kSecReturnData as String: true])).0
            == errSecInteractionNotAllowed)
        let frank = readAttributes(genp("frank", service: "com.example.api"))
        #expect(frank?[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAlwaysThisDeviceOnly as String)
        #expect(frank?[kSecAttrAccessControl as String] == nil)
      } else {
        #expect(readData(genp("bob", service: "com.example.api")) == Data(utf8: "bob-secret"))
      }
    }
    let items = name == "store-format-2" ? 7 : 4
    #expect(
      try store.checkIntegrity()
        == KeychainIntegrityReport(checkedItems: items, damagedItems: 0, skippedSinceOpen: 0))
  }

  @Test func aStoreOfRowFormatTwoIsUpgradedWithItsAccessControlsInTheirColumn() throws {
    let directory = try Self.copyFixture("store-format-2")
    defer { try? FileManager.default.removeItem(at: directory) }
    try Self.expectFixtureItems("store-format-2", in: directory)
    #expect(try Self.recordedFormat(directory) == Data([3]))
    // dave (row 5) and erin (row 6) have an access control; the other rows' column is NULL.
    let columns = try (0..<7).map { try StoreTampering.column("acl", row: $0, directory: directory) }
    #expect(columns.map { $0 != nil } == [false, false, false, false, true, true, false])
  }

  @Test("An access control cleared, copied or altered on disk makes its row unreadable, never unguarded")
  func anAccessControlAlteredOnDiskIsDetected() throws {
    let directory = try Self.copyFixture("store-format-2")
    defer { try? FileManager.default.removeItem(at: directory) }
    _ = try KeychainStore(directory: directory)  // upgraded to format 3
    let daves = try #require(try StoreTampering.column("acl", row: 4, directory: directory))
    // erin's passcode constraint removed; dave's access control put on alice; frank's invented.
    try StoreTampering.setColumn("acl", row: 5, to: nil, directory: directory)
    try StoreTampering.setColumn("acl", row: 0, to: daves, directory: directory)
    var altered = daves
    altered[0] ^= 0x01
    try StoreTampering.setColumn("acl", row: 6, to: altered, directory: directory)
    let store = try KeychainStore(directory: directory)
    withKeychainContext(store: store, accessGroups: ["fixture.group"]) {
      for (account, service) in [
        ("erin", "com.example.acl"), ("alice", "com.example.api"), ("frank", "com.example.api"),
      ] {
        #expect(copy(genp(account, service: service, [kSecReturnData as String: true])).0 == errSecDecode, "\(account)")
        #expect(copy(genp(account, service: service, [kSecReturnAttributes as String: true])).0 == errSecDecode)
      }
      #expect(readData(genp("dave", service: "com.example.acl")) == Data(utf8: "dave-secret"))
    }
    #expect(try store.checkIntegrity().damagedItems == 3)
  }

  @Test("A data lookup opens the secret alone; the metadata is opened when attributes are asked for")
  func aDataLookupOpensOnlyTheSecret() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-format3-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    withKeychainContext(store: try KeychainStore(directory: directory), accessGroups: ["g"]) {
      #expect(add(genp("alice", [kSecValueData as String: Data(utf8: "alice-secret")])) == errSecSuccess)
      // A sound item too: a store none of whose items opens is refused at opening.
      #expect(add(genp("bob", [kSecValueData as String: Data(utf8: "bob-secret")])) == errSecSuccess)
    }
    try StoreTampering.checkpoint(directory)
    // The metadata's ciphertext damaged: nothing that reads it answers, the data read does not read it.
    try StoreTampering.flipByte(in: "meta", account: 0, directory: directory)
    let store = try KeychainStore(directory: directory)
    withKeychainContext(store: store, accessGroups: ["g"]) {
      #expect(readData(genp("alice")) == Data(utf8: "alice-secret"))
      #expect(copy(genp("alice", [kSecReturnAttributes as String: true])).0 == errSecDecode)
    }
    #expect(try store.checkIntegrity().damagedItems == 1)
  }

  @Test func aStoreOfANewerRowFormatIsRefusedAndLeftUntouched() throws {
    let directory = try Self.copyFixture("store-format-2")
    defer { try? FileManager.default.removeItem(at: directory) }
    let database = directory.appendingPathComponent("keychain.db")
    try DatabaseQueue(path: database.path).write { db in
      try db.execute(sql: "UPDATE store_info SET value = x'04' WHERE name = 'row_format'")
    }
    try StoreTampering.checkpoint(directory)
    /// What the file holds: its schema, store_info and rows (the bytes change as SQLite opens it).
    func contents() throws -> [String] {
      try DatabaseQueue(path: database.path).read { db in
        try String.fetchAll(db, sql: "SELECT name || ifnull(sql, '') FROM sqlite_master ORDER BY name")
          + String.fetchAll(db, sql: "SELECT name || hex(value) FROM store_info ORDER BY name")
          + String.fetchAll(
            db, sql: "SELECT hex(persistref) || hex(meta) || ifnull(hex(secret), '') FROM item ORDER BY id")
      }
    }
    let before = try contents()
    do {
      _ = try KeychainStore(directory: directory)
      Issue.record("a store of row format 4 was opened")
    } catch {
      #expect(error.status == errSecInvalidKeychain)
      #expect(error.message.contains("written by a newer version of KeychainBridge"), "\(error.message)")
    }
    #expect(try contents() == before)
  }

  /// The preloaded library that kills a process at its Nth write to the store (Fixtures/kill-at-write).
  static func killAtWriteLibrary() throws -> URL {
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/kill-at-write/kill-at-write.c")
    let library = FileManager.default.temporaryDirectory.appendingPathComponent(
      "kb-kill-at-write-\(UUID().uuidString).so")
    // cc where the system has one, else the clang the Swift toolchain ships.
    for compilerName in ["cc", "clang"] {
      let compiler = Process()
      compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      compiler.arguments = [compilerName, "-shared", "-fPIC", "-o", library.path, source.path, "-ldl"]
      compiler.standardError = FileHandle.nullDevice
      try compiler.run()
      compiler.waitUntilExit()
      if compiler.terminationStatus == 0 { break }
    }
    try #require(
      FileManager.default.fileExists(atPath: library.path), "neither cc nor clang could build \(source.path)")
    return library
  }

  @Test(
    "An upgrade killed before any one of its writes leaves a store that opens with every item intact",
    arguments: ["store-format-1", "store-format-2"])
  func anUpgradeKilledAtAnyWriteLosesNothing(fixture: String) throws {
    let library = try Self.killAtWriteLibrary()
    defer { try? FileManager.default.removeItem(at: library) }
    var kills = 0
    var killedInsideTheUpgrade = 0
    var completed = false
    // The Nth write for N = 1, 2, ... until the helper opens the store with fewer writes than N.
    for write in 1...400 {
      let directory = try Self.copyFixture(fixture)
      defer { try? FileManager.default.removeItem(at: directory) }
      let helper = Process()
      helper.executableURL = FullDisk.helper
      helper.arguments = ["upgrade", directory.path]
      helper.environment = ["LD_PRELOAD": library.path, "KB_KILL_AT_WRITE": String(write)]
      let output = Pipe()
      helper.standardOutput = output
      try helper.run()
      let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      helper.waitUntilExit()
      if helper.terminationReason == .exit {
        #expect(helper.terminationStatus == 0 && printed == "opened\n", "write \(write): \(printed)")
        completed = true
      } else {
        #expect(helper.terminationStatus == SIGKILL, "write \(write): ended by signal \(helper.terminationStatus)")
        kills += 1
        // Killed after the schema change (the `acl` column is there) but before the upgrade's
        // commit (the old format is still recorded): inside the upgrade's transaction.
        let columns = try DatabaseQueue(path: directory.appendingPathComponent("keychain.db").path).read { db in
          try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('item')")
        }
        if columns.contains("acl"), try Self.recordedFormat(directory) != Data([3]) { killedInsideTheUpgrade += 1 }
      }
      try Self.expectFixtureItems(fixture, in: directory)
      #expect(try Self.recordedFormat(directory) == Data([3]))
      if completed { break }
    }
    #expect(completed, "the helper never opened the store")
    #expect(killedInsideTheUpgrade >= 1, "no kill landed inside the upgrade (\(kills) kills)")
    print("\(fixture): killed at each of \(kills) writes, \(killedInsideTheUpgrade) inside the upgrade; nothing lost")
  }
}

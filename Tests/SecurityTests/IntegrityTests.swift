import Foundation
import GRDB
import Security
import Testing

@testable import KeychainStorageSQLite

/// The store never answers with another item's secret, whatever was done to its files: every row a
/// call returns, counts or deletes is proven to match the query by its authenticated contents.
@Suite struct TamperedColumns {
  /// Three generic passwords that differ in every searchable value.
  private static let people = ["alice", "bob", "carol"]

  private func seed() {
    for name in Self.people {
      add(
        genp(
          name, service: "svc-\(name)",
          [kSecAttrLabel as String: "label-\(name)", kSecValueData as String: Data(utf8: "\(name)-secret")]))
    }
  }

  private func all(_ extra: [String: Any] = [:]) -> [String: Any] {
    var query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
      kSecReturnAttributes as String: true, kSecReturnData as String: true,
    ]
    query.merge(extra) { _, new in new }
    return query
  }

  /// The accounts a listing returned, each checked against its own secret.
  private func listedAccounts(_ query: [String: Any]) -> [String] {
    let (status, result) = copy(query)
    guard status == errSecSuccess, let items = result as? [[String: Any]] else { return [] }
    return items.map { item in
      let account = item[kSecAttrAccount as String] as? String ?? "?"
      #expect(item[kSecValueData as String] as? Data == Data(utf8: "\(account)-secret"), "\(account)'s data")
      return account
    }
  }

  @Test(arguments: [("acct", kSecAttrAccount as String), ("labl", kSecAttrLabel as String)])
  func swappedSearchDigestsNeverAnswerWithTheOtherItem(column: String, attribute: String) throws {
    let temporary = try TemporaryStore()
    temporary.run { seed() }
    try StoreTampering.swapColumn(column, 0, 1, directory: temporary.directory)
    temporary.run {
      for name in ["alice", "bob"] {
        let value = column == "acct" ? name : "label-\(name)"
        let query: [String: Any] = [
          kSecClass as String: kSecClassGenericPassword, attribute: value, kSecReturnData as String: true,
        ]
        let (status, result) = copy(query)
        #expect(status == errSecDecode, "\(column) query for \(name)")
        #expect(result == nil)
      }
      #expect(listedAccounts(all()) == ["carol"])
      #expect(readData(genp("carol", service: "svc-carol")) == Data(utf8: "carol-secret"))
    }
    let report = try temporary.store.checkIntegrity()
    #expect(report.checkedItems == 3)
    #expect(report.damagedItems == 2)
    #expect(report.skippedSinceOpen >= 2)
  }

  @Test func aCopiedAccountDigestIsDetectedAndTheOwnerStillAnswers() throws {
    let temporary = try TemporaryStore()
    temporary.run { seed() }
    try StoreTampering.copyColumn("acct", from: 0, to: 1, directory: temporary.directory)
    temporary.run {
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice",
        kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnData as String: true,
      ]
      let (status, result) = copy(query)
      #expect(status == errSecSuccess)
      #expect(result as? [Data] == [Data(utf8: "alice-secret")])
      // Bob's row now claims alice's account: it is neither alice's item nor a readable bob.
      let (bobStatus, _) = copy([
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc-bob",
        kSecReturnData as String: true,
      ])
      #expect(bobStatus == errSecDecode)
    }
  }

  @Test func aDeleteNeverRemovesAnItemThroughAnAlteredColumn() throws {
    let temporary = try TemporaryStore()
    temporary.run { seed() }
    try StoreTampering.swapColumn("acct", 0, 1, directory: temporary.directory)
    temporary.run {
      #expect(
        delete([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice"]) == errSecDecode)
      #expect(
        update(
          [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "bob"],
          [
            kSecValueData as String: Data(utf8: "overwritten")
          ]) == errSecDecode)
    }
    // Swapped back, both items are intact: the store changed neither.
    try StoreTampering.swapColumn("acct", 0, 1, directory: temporary.directory)
    temporary.run {
      #expect(readData(genp("alice", service: "svc-alice")) == Data(utf8: "alice-secret"))
      #expect(readData(genp("bob", service: "svc-bob")) == Data(utf8: "bob-secret"))
    }
  }

  @Test func aSecretSetToNullIsDetected() throws {
    let temporary = try TemporaryStore()
    temporary.run { seed() }
    try StoreTampering.setNull("secret", row: 0, directory: temporary.directory)
    temporary.run {
      let (status, result) = copy(genp("alice", service: "svc-alice", [kSecReturnData as String: true]))
      #expect(status == errSecDecode)
      #expect(result == nil)
      let (attributesStatus, _) = copy(genp("alice", service: "svc-alice", [kSecReturnAttributes as String: true]))
      #expect(attributesStatus == errSecDecode)
      #expect(listedAccounts(all()) == ["bob", "carol"])
    }
  }

  @Test func aDamagedRowIsSkippedByListingsAndReportedWhileALookupOfItIsDecode() throws {
    let temporary = try TemporaryStore()
    temporary.run { seed() }
    try StoreTampering.flipByte(in: "meta", account: 1, directory: temporary.directory)
    temporary.run {
      #expect(listedAccounts(all()) == ["alice", "carol"])
      #expect(listedAccounts(all([kSecAttrService as String: "svc-carol"])) == ["carol"])
      #expect(copy(genp("bob", service: "svc-bob", [kSecReturnAttributes as String: true])).0 == errSecDecode)
      // The data read opens only the secret (row format 3): its associated data proves every plain
      // column, the access control included, so nothing it depends on is in the damaged metadata.
      #expect(readData(genp("bob", service: "svc-bob")) == Data(utf8: "bob-secret"))
      #expect(readData(genp("alice", service: "svc-alice")) == Data(utf8: "alice-secret"))
    }
    let report = try temporary.store.checkIntegrity()
    #expect(report == KeychainIntegrityReport(checkedItems: 3, damagedItems: 1, skippedSinceOpen: 2))
  }

  @Test func aStoreOfRowFormatOneIsUpgradedWithItsItemsIntact() throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/store-format-1")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-format1-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: false,
      attributes: [
        .posixPermissions: 0o700
      ])
    for name in ["keychain.db", "keychain.key"] {
      let target = directory.appendingPathComponent(name)
      try FileManager.default.copyItem(at: fixture.appendingPathComponent(name), to: target)
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target.path)
    }
    let store = try KeychainStore(directory: directory)
    withKeychainContext(store: store, accessGroups: ["fixture.group"]) {
      #expect(readData(genp("alice", service: "com.example.api")) == Data(utf8: "alice-secret"))
      #expect(readData(genp("bob", service: "com.example.api")) == Data(utf8: "bob-secret"))
      #expect(readData(genp("nodata", service: "com.example.empty")) == Data())
      #expect(readData(inet("carol", server: "example.com")) == Data(utf8: "carol-secret"))
      #expect(
        readAttributes(genp("alice", service: "com.example.api"))?[kSecAttrLabel as String] as? String == "Alice token")
    }
    #expect(
      try store.checkIntegrity() == KeychainIntegrityReport(checkedItems: 4, damagedItems: 0, skippedSinceOpen: 0))
    let format = try DatabaseQueue(path: directory.appendingPathComponent("keychain.db").path).read { db in
      try Data.fetchOne(db, sql: "SELECT value FROM store_info WHERE name = 'row_format'")
    }
    #expect(format == Data([3]))
    // Its four digest indexes were full (an entry for every row, NULL or not); they are partial
    // now, and the searches above ran over them.
    let digestIndexes = try DatabaseQueue(path: directory.appendingPathComponent("keychain.db").path).read { db in
      try String.fetchAll(
        db, sql: "SELECT sql FROM sqlite_master WHERE name IN ('item_acct', 'item_svce', 'item_srvr', 'item_labl')")
    }
    #expect(digestIndexes.count == 4)
    #expect(digestIndexes.allSatisfy { $0.hasSuffix("IS NOT NULL") })
  }
}

/// Random tampering over many trials: swapped, copied, nulled and bit-flipped columns, and bit
/// flips anywhere in the database file. Every answer is checked against what was stored; the count
/// of wrong reads must be 0. KEYCHAIN_BRIDGE_LONG=1 runs 2,000 trials instead of 150.
@Suite struct RandomTampering {
  private struct Stored {
    var query: [String: Any]
    var account: String
    var secret: Data
    var reference: Data
    var accessControl: SecAccessControl?
  }

  private static let columns = [
    "class", "persistref", "agrp", "sync", "pdmn", "pk", "spi", "acct", "svce", "srvr", "labl", "acl", "meta",
    "secret",
  ]

  /// The access controls of the last two items (neither asks for the user, so every read is
  /// answered): a swapped, copied, cleared or altered `acl` column must be detected like any other.
  private static let accessControls = [
    SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], nil)!,
    SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, .privateKeyUsage, nil)!,
  ]

  @Test func noTamperingMakesTheStoreAnswerWithWrongData() throws {
    let trials = ReliabilityTests.long ? 2000 : 150
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    var wrongReads: [String] = []
    var detected = 0
    var refusedAtOpen = 0
    var plantedKeysAccepted = 0
    var answered = 0
    for trial in 0..<trials {
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-tamper-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: directory) }
      var items: [Stored] = []
      do {
        let store = try KeychainStore(directory: directory)
        withKeychainContext(store: store, accessGroups: ["tamper"]) {
          for index in 0..<6 {
            let account = "user-\(index)"
            let secret = Data("secret-\(index)-\(trial)".utf8)
            var attributes: [String: Any] =
              index < 4
              ? genp(account, service: "svc-\(index)", [kSecAttrLabel as String: "label-\(index)"])
              : inet(account, server: "host-\(index).example")
            attributes[kSecValueData as String] = secret
            if index >= 4 { attributes[kSecAttrAccessControl as String] = Self.accessControls[index - 4] }
            attributes[kSecReturnPersistentRef as String] = true
            let (status, reference) = addReturning(attributes)
            #expect(status == errSecSuccess)
            attributes[kSecReturnPersistentRef as String] = nil
            attributes[kSecValueData as String] = nil
            attributes[kSecAttrAccessControl as String] = nil
            items.append(
              Stored(
                query: attributes, account: account, secret: secret, reference: reference as! Data,
                accessControl: index >= 4 ? Self.accessControls[index - 4] : nil))
          }
        }
      }
      try StoreTampering.checkpoint(directory)
      let tamper = Int.random(in: 0..<8, using: &generator)
      let first = Int.random(in: 0..<6, using: &generator)
      let second = (first + Int.random(in: 1..<6, using: &generator)) % 6
      let column = Self.columns[Int.random(in: 0..<Self.columns.count, using: &generator)]
      switch tamper {
      case 0: try? StoreTampering.swapColumn(column, first, second, directory: directory)
      case 1: try? StoreTampering.copyColumn(column, from: first, to: second, directory: directory)
      case 2: try? StoreTampering.setNull("secret", row: first, directory: directory)
      case 3 where column != "sync":
        try? StoreTampering.flipByte(in: column, account: first, at: nil, directory: directory)
      case 3: try? StoreTampering.swapColumn("sync", first, second, directory: directory)
      case 4: try Self.flipBits(in: directory.appendingPathComponent("keychain.db"), using: &generator)
      // The key file: bits flipped, cut short, or replaced by a plain one of the attacker's (with
      // the database's key check deleted half the time).
      case 5: try Self.flipBits(in: directory.appendingPathComponent("keychain.key"), from: 0, using: &generator)
      case 6:
        let keyFile = directory.appendingPathComponent("keychain.key")
        let contents = try Data(contentsOf: keyFile)
        try contents.prefix(Int.random(in: 0..<contents.count, using: &generator)).write(to: keyFile)
      default:
        let planted =
          Data("KBK1".utf8) + Data([0]) + Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try planted.write(to: directory.appendingPathComponent("keychain.key"))
        if Bool.random(using: &generator) { try StoreTampering.deleteStoreInfo("key_check", directory: directory) }
      }
      let store: KeychainStore
      do {
        store = try KeychainStore(directory: directory)
      } catch {
        refusedAtOpen += 1
        continue
      }
      // A planted key file opens none of the items: the store must have been refused.
      if tamper == 7 { plantedKeysAccepted += 1 }
      withKeychainContext(store: store, accessGroups: ["tamper"]) {
        for item in items {
          var queries: [[String: Any]] = [item.query, [kSecValuePersistentRef as String: item.reference]]
          for key in [kSecAttrAccount, kSecAttrService, kSecAttrServer, kSecAttrLabel] as [String]
          where item.query[key] != nil {
            queries.append([kSecClass as String: item.query[kSecClass as String]!, key: item.query[key]!])
          }
          for query in queries {
            var lookup = query
            lookup[kSecReturnData as String] = true
            lookup[kSecReturnAttributes as String] = true
            let (status, result) = copy(lookup)
            if status == errSecDecode { detected += 1 }
            if status == errSecSuccess {
              answered += 1
              let found = result as? [String: Any]
              if found?[kSecValueData as String] as? Data != item.secret
                || found?[kSecAttrAccount as String] as? String != item.account
                || found?[kSecAttrAccessControl as String] as? SecAccessControl != item.accessControl
              {
                wrongReads.append(
                  "trial \(trial) tamper \(tamper) \(column): \(query) answered \(String(describing: found))")
              }
            }
            // The data alone: in row format 3 only the secret is opened, with every plain column
            // (the access control included) as its associated data.
            lookup[kSecReturnAttributes as String] = nil
            let (dataStatus, data) = copy(lookup)
            if dataStatus == errSecSuccess, data as? Data != item.secret {
              wrongReads.append(
                "trial \(trial) tamper \(tamper) \(column): \(query) answered data \(String(describing: data))")
            }
          }
        }
        for itemClass in [kSecClassGenericPassword, kSecClassInternetPassword] {
          let (status, result) = copy([
            kSecClass as String: itemClass, kSecMatchLimit as String: kSecMatchLimitAll,
            kSecReturnData as String: true, kSecReturnAttributes as String: true,
          ])
          guard status == errSecSuccess else { continue }
          for found in result as? [[String: Any]] ?? [] {
            let account = found[kSecAttrAccount as String] as? String
            if !items.contains(where: { $0.account == account && $0.secret == found[kSecValueData as String] as? Data })
            {
              wrongReads.append("trial \(trial) tamper \(tamper) \(column): listing answered \(found)")
            }
          }
        }
      }
    }
    print(
      "tamper: \(trials) trials (seed \(seed)), \(answered) correct answers, \(detected) errSecDecode, "
        + "\(refusedAtOpen) stores refused at open, \(plantedKeysAccepted) planted key files accepted, "
        + "\(wrongReads.count) wrong reads")
    #expect(wrongReads.isEmpty, "seed \(seed): \(wrongReads.prefix(5))")
    #expect(plantedKeysAccepted == 0, "seed \(seed)")
  }

  /// Flips one to three bits past `start` (by default past the database header, which SQLite
  /// checks on open anyway).
  private static func flipBits(in file: URL, from start: UInt64 = 100, using generator: inout SeededGenerator) throws {
    let handle = try FileHandle(forUpdating: file)
    defer { try? handle.close() }
    let size = try handle.seekToEnd()
    guard size > start else { return }
    for _ in 0..<Int.random(in: 1...3, using: &generator) {
      let offset = UInt64.random(in: start..<size, using: &generator)
      try handle.seek(toOffset: offset)
      var byte = try handle.read(upToCount: 1)![0]
      byte ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
      try handle.seek(toOffset: offset)
      try handle.write(contentsOf: [byte])
    }
  }
}

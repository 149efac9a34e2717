import Foundation
import GRDB
import Testing

@testable import KeychainStorageSQLite
@testable import Security

/// The encrypted SQLite store: files, keys, tampering, concurrency and hostile input.
@Suite struct StoreBehaviour {
  private func mode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
  }

  private func newDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("kb-store-\(UUID().uuidString)", isDirectory: true)
  }

  @Test func theDirectoryIs0700AndEveryFileIs0600() throws {
    let temporary = try TemporaryStore()
    temporary.run { _ = add(genp([kSecValueData as String: Data(utf8: "pw")])) }
    #expect(try mode(temporary.directory.path) == 0o700)
    for name in ["keychain.db", "keychain.db-wal", "keychain.db-shm", "keychain.key"] {
      #expect(try mode(temporary.directory.appendingPathComponent(name).path) == 0o600, "\(name)")
    }
  }

  @Test func backgroundCheckpointsMoveCommittedPagesIntoTheDatabaseFile() async throws {
    // Callers' commits never checkpoint (wal_autocheckpoint is off); the WAL hook starts one in the
    // background every 500 WAL pages. Without it every page would stay in the WAL.
    let temporary = try TemporaryStore()
    let database = temporary.directory.appendingPathComponent("keychain.db").path
    func size(_ path: String) throws -> Int {
      try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }
    let before = try size(database)
    temporary.run {
      for index in 0..<400 {
        _ = add(genp("account-\(index)", [kSecValueData as String: Data(repeating: 7, count: 2000)]))
      }
    }
    var after = try size(database)
    for _ in 0..<100 where after <= before {
      try await Task.sleep(for: .milliseconds(50))
      after = try size(database)
    }
    #expect(after > before + 400 * 2000 / 2, "database file \(before) -> \(after) bytes")
    temporary.run { #expect(count(genp([:]).filter { $0.key != kSecAttrAccount as String }) == 400) }
  }

  @Test func aSteadyStreamOfWritesKeepsTheWALBounded() throws {
    // A background checkpoint alone never lets SQLite start the WAL again while writes keep coming;
    // the writer finishes the checkpoint at 16,384 pages (64 MiB) so the next commit rewinds the
    // file. Without that, these 6,000 writes (about 7 pages each) leave a WAL of about 170 MB.
    let temporary = try TemporaryStore()
    let wal = temporary.directory.appendingPathComponent("keychain.db-wal").path
    temporary.run {
      for index in 0..<2000 {
        let account = "stream-\(index)"
        #expect(add(genp(account, [kSecValueData as String: Data(utf8: "first")])) == errSecSuccess)
        #expect(update(genp(account, [:]), [kSecValueData as String: Data(utf8: "second")]) == errSecSuccess)
        #expect(delete(genp(account, [:])) == errSecSuccess)
      }
    }
    let walBytes = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int ?? 0
    #expect(walBytes <= 80 << 20, "WAL of \(walBytes) bytes")
  }

  @Test func aDirectoryOthersCanReadIsRefused() throws {
    let directory = newDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    let error = #expect(throws: KeychainStoreError.self) { try KeychainStore(directory: directory) }
    #expect(error?.status == errSecInvalidKeychain)
    #expect(error?.message.contains("0700") == true)
  }

  @Test func aKeyFileOthersCanReadIsRefused() throws {
    let temporary = try TemporaryStore()
    let keyFile = temporary.directory.appendingPathComponent("keychain.key").path
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile)
    let error = #expect(throws: KeychainStoreError.self) { try KeychainStore(directory: temporary.directory) }
    #expect(error?.message.contains("0600") == true)
  }

  @Test func aCorruptDatabaseFileIsRefusedAndLeftUntouched() throws {
    let directory = newDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    let database = directory.appendingPathComponent("keychain.db")
    _ = FileManager.default.createFile(atPath: database.path, contents: garbage, attributes: [.posixPermissions: 0o600])
    let error = #expect(throws: KeychainStoreError.self) { try KeychainStore(directory: directory) }
    #expect(error?.status == errSecInvalidKeychain)
    #expect(FileManager.default.contents(atPath: database.path) == garbage)
  }

  @Test func aForeignSQLiteDatabaseIsRefusedAndKeepsItsTables() throws {
    let directory = newDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let path = directory.appendingPathComponent("keychain.db").path
    _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
    try DatabaseQueue(path: path).write { db in
      try db.execute(sql: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
    }
    let error = #expect(throws: KeychainStoreError.self) { try KeychainStore(directory: directory) }
    #expect(error?.message.contains("another program") == true)
    let kept = try DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: "SELECT body FROM notes") }
    #expect(kept == "keep me")
  }

  @Test func aMissingKeyFileIsRefusedUntilItIsRestored() throws {
    let temporary = try TemporaryStore()
    temporary.run { _ = add(genp([kSecValueData as String: Data(utf8: "pw")])) }
    let keyFile = temporary.directory.appendingPathComponent("keychain.key")
    let saved = try Data(contentsOf: keyFile)
    try FileManager.default.removeItem(at: keyFile)
    let error = #expect(throws: KeychainStoreError.self) { try KeychainStore(directory: temporary.directory) }
    #expect(error?.status == errSecAuthFailed)
    #expect(!FileManager.default.fileExists(atPath: keyFile.path))
    _ = FileManager.default.createFile(atPath: keyFile.path, contents: saved, attributes: [.posixPermissions: 0o600])
    let restored = try KeychainStore(directory: temporary.directory)
    withKeychainContext(store: restored, accessGroups: ["test.group"]) {
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }

  @Test func anotherStoresKeyFileIsRefusedAndTheItemsSurvive() throws {
    let victim = try TemporaryStore()
    let other = try TemporaryStore()
    victim.run { _ = add(genp([kSecValueData as String: Data(utf8: "pw")])) }
    let keyFile = victim.directory.appendingPathComponent("keychain.key")
    let saved = try Data(contentsOf: keyFile)
    try FileManager.default.removeItem(at: keyFile)
    try FileManager.default.copyItem(at: other.directory.appendingPathComponent("keychain.key"), to: keyFile)
    let error = #expect(throws: KeychainStoreError.self) { try KeychainStore(directory: victim.directory) }
    #expect(error?.status == errSecAuthFailed)
    try FileManager.default.removeItem(at: keyFile)
    _ = FileManager.default.createFile(atPath: keyFile.path, contents: saved, attributes: [.posixPermissions: 0o600])
    withKeychainContext(store: try KeychainStore(directory: victim.directory), accessGroups: ["test.group"]) {
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }

  @Test func aDamagedKeyFileIsRefused() throws {
    let temporary = try TemporaryStore()
    let keyFile = temporary.directory.appendingPathComponent("keychain.key")
    let saved = try Data(contentsOf: keyFile)
    try saved.prefix(10).write(to: keyFile)
    let error = #expect(throws: KeychainStoreError.self) { try KeychainStore(directory: temporary.directory) }
    #expect(error?.status == errSecDecode)
  }

  @Test func noSecretOrSearchableValueIsStoredInTheClear() throws {
    let temporary = try TemporaryStore()
    let values = ["acct-7f3a9c", "svce-b81e22", "labl-44d0aa", "gena-9e11c3", "secret-5c6d7e", "agrp-e0f1a2"]
    temporary.run(accessGroups: [values[5]]) {
      _ = add(
        genp(
          values[0], service: values[1],
          [
            kSecAttrLabel as String: values[2], kSecAttrGeneric as String: Data(utf8: values[3]),
            kSecValueData as String: Data(utf8: values[4]),
          ]))
      _ = add(inet("acct-inet-1234", server: "srvr-host-5678", [kSecAttrPath as String: "/path-9abc"]))
    }
    let bytes = try StoreTampering.databaseBytes(temporary.directory)
    #expect(bytes.count > 0)
    for value in values + ["acct-inet-1234", "srvr-host-5678", "/path-9abc"] {
      #expect(bytes.range(of: Data(value.utf8)) == nil, "\(value) is in the database in the clear")
    }
  }

  @Test(arguments: ["meta", "secret"], [0, 14, -1])
  func aFlippedByteInNonceCiphertextOrTagIsDetected(column: String, offset: Int) throws {
    let temporary = try TemporaryStore()
    temporary.run {
      _ = add(genp("victim", [kSecValueData as String: Data(utf8: "victim-secret")]))
      _ = add(genp("bystander", [kSecValueData as String: Data(utf8: "bystander-secret")]))
    }
    let length = try GRDB.DatabaseQueue(path: temporary.directory.appendingPathComponent("keychain.db").path).read {
      db in
      try Data.fetchOne(db, sql: "SELECT \(column) FROM item ORDER BY id LIMIT 1")!.count
    }
    try StoreTampering.flipByte(
      in: column, account: 0, at: offset < 0 ? length - 1 : offset, directory: temporary.directory)
    temporary.run {
      let query = genp("victim", [kSecReturnData as String: true, kSecReturnAttributes as String: true])
      let (status, result) = copy(query)
      #expect(status == errSecDecode)
      #expect(result == nil)
      #expect(readData(genp("bystander")) == Data(utf8: "bystander-secret"))
    }
  }

  @Test func swappedRowsAreDetected() throws {
    let temporary = try TemporaryStore()
    temporary.run {
      _ = add(genp("a", [kSecValueData as String: Data(utf8: "secret-a")]))
      _ = add(genp("b", [kSecValueData as String: Data(utf8: "secret-b")]))
      _ = add(genp("c", [kSecValueData as String: Data(utf8: "secret-c")]))
    }
    try StoreTampering.swapSealedColumns(0, 1, directory: temporary.directory)
    temporary.run {
      #expect(copy(genp("a", [kSecReturnData as String: true])).0 == errSecDecode)
      #expect(copy(genp("b", [kSecReturnAttributes as String: true])).0 == errSecDecode)
      #expect(readData(genp("c")) == Data(utf8: "secret-c"))
    }
  }

  @Test func itemsSurviveClosingAndReopeningTheStore() throws {
    let temporary = try TemporaryStore()
    temporary.run { _ = add(genp([kSecValueData as String: Data(utf8: "durable")])) }
    let reopened = try KeychainStore(directory: temporary.directory)
    withKeychainContext(store: reopened, accessGroups: ["test.group"]) {
      #expect(readData(genp()) == Data(utf8: "durable"))
    }
  }

  @Test func dictionaryEntriesPairEveryKeyWithItsOwnValue() throws {
    // The fast path reads allKeys and allValues separately; both must come in the same order.
    var plain: [String: Any] = [:]
    for index in 0..<120 { plain["key\(index)"] = "value\(index)" }
    let mutable = NSMutableDictionary(dictionary: plain)
    mutable.removeObject(forKey: "key7")
    mutable["key-late"] = "value-late"
    final class Subclass: NSDictionary {
      let backing: NSDictionary
      init(_ backing: NSDictionary) {
        self.backing = backing
        super.init(objects: nil, forKeys: nil, count: 0)
      }
      required init?(coder: NSCoder) { nil }
      required convenience init(dictionaryLiteral elements: (Any, Any)...) { self.init(NSDictionary()) }
      required convenience init(
        objects: UnsafePointer<AnyObject>!, forKeys keys: UnsafePointer<NSObject>!, count: Int
      ) {
        self.init(NSDictionary(objects: objects, forKeys: keys, count: count))
      }
      override var count: Int { backing.count }
      override func object(forKey key: Any) -> Any? { backing.object(forKey: key) }
      override func keyEnumerator() -> NSEnumerator { backing.keyEnumerator() }
    }
    for dictionary in [plain as NSDictionary, mutable, Subclass(mutable)] {
      let entries = try dictionary.keychainEntries()
      #expect(entries.count == dictionary.count)
      for (key, value) in entries {
        #expect(value.string == "value" + key.dropFirst(3), "\(key)")
      }
    }
    // A Swift object is stored wrapped; both readers hand back the object itself.
    let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAlways, [], nil))
    let holding = NSMutableDictionary()
    holding["accc"] = control
    #expect(try holding.keychainEntries().first?.1.object as AnyObject === control)
    #expect(holding.stringKeyedEntries().first?.value as AnyObject === control)
    #expect(throws: SecStatus.noSuchAttribute) { try ([1: "x"] as NSDictionary).keychainEntries() }
    #expect(throws: SecStatus.param) { try ([Data(): "x"] as NSDictionary).keychainEntries() }
  }

  @Test(.enabled(if: !TemporaryStore.overAgent, "reads the SQLite storage's query plans in this process"))
  func primaryKeyAndAttributeSearchesUseIndexes() throws {
    let temporary = try TemporaryStore()
    let store = try #require(temporary.store.storage as? SQLiteItemStorage)
    var byKey = ItemFilter(itemClass: .genericPassword)
    byKey.accessGroups = ["g"]
    byKey.synchronizable = 0
    byKey.attributes = ["acct": .bytes(Array("a".utf8)), "svce": .bytes(Array("s".utf8))]
    byKey.primaryKey = [
      IndexedAttribute(key: "acct", value: .bytes(Array("a".utf8))),
      IndexedAttribute(key: "svce", value: .bytes(Array("s".utf8))),
    ]
    let keyPlan = try store.queryPlan(for: byKey).joined(separator: "\n")
    #expect(keyPlan.contains("USING INDEX sqlite_autoindex_item") && keyPlan.contains("pk"), "\(keyPlan)")
    #expect(!keyPlan.contains("SCAN item"))
    // Lookups by primary key are sorted in Swift: SQLite's sorter would cost more than the search.
    #expect(!keyPlan.contains("TEMP B-TREE"), "\(keyPlan)")
    var byServer = ItemFilter(itemClass: .internetPassword)
    byServer.accessGroups = ["g"]
    byServer.attributes = ["srvr": .bytes(Array("example.com".utf8))]
    let serverPlan = try store.queryPlan(for: byServer).joined(separator: "\n")
    #expect(serverPlan.contains("item_srvr"), "\(serverPlan)")
    #expect(!serverPlan.contains("TEMP B-TREE"), "\(serverPlan)")
  }

  @Test func concurrentThreadsOnOverlappingKeysGetOnlyApplesStatuses() async throws {
    let temporary = try TemporaryStore()
    let store = temporary.store
    let allowed: Set<OSStatus> = [errSecSuccess, errSecDuplicateItem, errSecItemNotFound]
    let unexpected = await withTaskGroup(of: [OSStatus].self) { group in
      for worker in 0..<8 {
        group.addTask {
          withKeychainContext(store: store, accessGroups: ["test.group"]) {
            var generator = SeededGenerator(seed: UInt64(worker + 1))
            var odd: [OSStatus] = []
            for _ in 0..<60 {
              let account = "k\(Int.random(in: 0..<6, using: &generator))"
              let status: OSStatus
              switch Int.random(in: 0..<4, using: &generator) {
              case 0: status = add(genp(account, [kSecValueData as String: Data(utf8: account)]))
              case 1: status = copy(genp(account, [kSecReturnData as String: true])).0
              case 2: status = update(genp(account), [kSecValueData as String: Data(utf8: account + "!")])
              default: status = delete(genp(account))
              }
              if !allowed.contains(status) { odd.append(status) }
            }
            return odd
          }
        }
      }
      return await group.reduce(into: []) { $0 += $1 }
    }
    #expect(unexpected.isEmpty, "unexpected statuses: \(unexpected)")
  }

  /// 100,000 dictionaries per run; KEYCHAIN_BRIDGE_LONG=1 makes it 1,000,000. Over the agent a
  /// tenth: the dictionaries exercise the rules, which run in this process either way, and the
  /// agent's socket has a fuzz test of its own (AgentTests); 100,000 round trips were 56 s of the
  /// agent pass.
  static var fuzzCount: Int {
    let count = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_LONG"] == "1" ? 1_000_000 : 100_000
    return TemporaryStore.overAgent ? count / 10 : count
  }

  @Test func randomDictionariesGetStatusCodesAndLeaveExistingItemsIntact() throws {
    let temporary = try TemporaryStore()
    let count = Self.fuzzCount
    var statuses: [OSStatus: Int] = [:]
    // The sentinel lives in a group the fuzzing caller does not hold: valid random updates cannot
    // reach it, so any change to it would be damage.
    temporary.run(accessGroups: ["sentinel.group"]) {
      _ = add(genp("sentinel", [kSecValueData as String: Data(utf8: "keep"), kSecAttrLabel as String: "label"]))
    }
    temporary.run {
      var generator = SeededGenerator(seed: 2026)
      for index in 0..<count {
        // Emptied every 10,000 dictionaries: the items random adds leave would otherwise make every
        // search that reads all rows slower, and the long mode quadratic. The sentinel is in a
        // group this caller does not hold, so it stays.
        if index % 10_000 == 9_999 {
          for itemClass in [kSecClassGenericPassword, kSecClassInternetPassword] {
            _ = SecItemDelete(
              [kSecClass as String: itemClass, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]
                as CFDictionary)
          }
        }
        let dictionary = HostileDictionary.make(&generator)
        let other = HostileDictionary.make(&generator)
        var result: CFTypeRef?
        statuses[SecItemCopyMatching(dictionary, &result), default: 0] += 1
        statuses[SecItemAdd(dictionary, &result), default: 0] += 1
        statuses[SecItemUpdate(dictionary, other), default: 0] += 1
        // Deletes stay away from the sentinel's service so its survival proves nothing was lost.
        if (dictionary["svce"] as? String) != "svc" && (dictionary["class"] != nil) {
          let mutable = dictionary.mutableCopy() as! NSMutableDictionary
          mutable["svce"] = "fuzz-only"
          _ = SecItemDelete(mutable)
        }
      }
    }
    temporary.run(accessGroups: ["sentinel.group"]) {
      #expect(readData(genp("sentinel")) == Data(utf8: "keep"))
      #expect(readAttributes(genp("sentinel"))?[kSecAttrLabel as String] as? String == "label")
    }
    let known = statuses.keys.allSatisfy {
      $0 == errSecSuccess || SecCopyErrorMessageString($0, nil) as String? != "OSStatus \($0)"
    }
    print(
      "fuzz: \(count) dictionaries, \(count * 3) calls (plus deletes), 0 crashes, statuses \(statuses.sorted { $0.key < $1.key })"
    )
    #expect(known, "every answer must be an errSec code the runtime knows")
  }

  @Test(.enabled(if: !TemporaryStore.overAgent, "reads the SQLite storage's key memory in this process"))
  func lockingDropsTheStoreKeyFromMemory() throws {
    let temporary = try TemporaryStore()
    let store = try #require(temporary.store.storage as? SQLiteItemStorage)
    #expect(store.holdsStoreKey)
    temporary.store.lock()
    #expect(!store.holdsStoreKey)
    temporary.store.unlock()
    #expect(store.holdsStoreKey)
  }

  @Test func hugeValuesAreStoredOrRefusedWithAStatus() throws {
    try withFreshStore { _ in
      let bigData = Data(repeating: 0xAB, count: 8 * 1024 * 1024)
      let bigAccount = String(repeating: "x", count: 1024 * 1024)
      #expect(add(genp(bigAccount, [kSecValueData as String: bigData])) == errSecSuccess)
      #expect(readData(genp(bigAccount)) == bigData)
    }
  }
}

/// A small deterministic generator, so a failure can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

/// Random dictionaries: valid keys with wrong types, unknown keys, NSNull, nested collections,
/// non-string keys and large values.
enum HostileDictionary {
  static let keys: [String] = [
    "class", "acct", "svce", "srvr", "labl", "port", "ptcl", "pdmn", "agrp", "sync", "cdat", "v_Data", "r_Data",
    "r_Attributes", "r_PersistentRef", "r_Ref", "m_Limit", "v_PersistentRef", "u_AuthUI", "accc", "nleg", "zzzz",
    "m_HostOrSubdomainOfHost", "tomb", "musr", "gena", "invi", "bogus-key", "v_Ref", "u_ItemList",
  ]

  static func value(_ generator: inout SeededGenerator, depth: Int = 0) -> Any {
    switch Int.random(in: 0..<14, using: &generator) {
    case 0: return NSNull()
    case 1: return Int.random(in: -5...70000, using: &generator)
    case 2: return Bool.random(using: &generator)
    case 3:
      return ["genp", "inet", "cert", "ak", "syna", "m_LimitAll", "m_LimitOne", "1", ""].randomElement(
        using: &generator)!
    case 4:
      return Data(
        (0..<Int.random(in: 0..<40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
    case 5: return Date(timeIntervalSince1970: Double.random(in: -1e9...1e10, using: &generator))
    case 6: return depth < 2 ? [value(&generator, depth: depth + 1), value(&generator, depth: depth + 1)] : "leaf"
    case 7: return depth < 2 ? ["nested": value(&generator, depth: depth + 1)] : "leaf"
    case 8: return String(repeating: "é", count: Int.random(in: 0..<5000, using: &generator))
    case 9: return Double.random(in: -1e6...1e6, using: &generator)
    case 10: return Data(utf8: "genp") + Data(count: 16)
    case 11: return SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil)!
    default: return "value-\(Int.random(in: 0..<4, using: &generator))"
    }
  }

  static func make(_ generator: inout SeededGenerator) -> NSDictionary {
    let dictionary = NSMutableDictionary()
    if Bool.random(using: &generator) { dictionary["class"] = ["genp", "inet"].randomElement(using: &generator)! }
    for _ in 0..<Int.random(in: 0..<7, using: &generator) {
      let key = keys.randomElement(using: &generator)!
      dictionary[key] = value(&generator)
    }
    if Int.random(in: 0..<20, using: &generator) == 0 { dictionary[NSNumber(value: 3)] = "number key" }
    if Int.random(in: 0..<20, using: &generator) == 0 { dictionary[Data([1]) as NSData] = "data key" }
    return dictionary
  }
}

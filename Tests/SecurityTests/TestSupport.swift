import AgentProcess
import Foundation
import Security
import Testing

/// A fresh store in a temporary directory, removed when the test ends.
///
/// With `KEYCHAIN_BRIDGE_TEST_STORE=agent` the store is served by a `keychaind` started for the
/// test, and this process reaches it over the agent's socket: every rule test that uses a
/// temporary store runs in agent mode (`make test` runs the suite both ways).
final class TemporaryStore {
  let directory: URL
  let store: KeychainStore
  private let agent: RunningAgent?

  static let overAgent = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_TEST_STORE"] == "agent"

  init(passphrase: String? = nil) throws {
    if Self.overAgent {
      let agent = try RunningAgent(passphrase: passphrase)
      self.agent = agent
      directory = agent.storeDirectory
      store = try KeychainStore.agentStore(socketPath: agent.socketPath)
    } else {
      agent = nil
      directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("kb-test-\(UUID().uuidString)", isDirectory: true)
      store = try KeychainStore(directory: directory, passphrase: passphrase)
    }
  }

  deinit {
    agent?.stop()
    try? FileManager.default.removeItem(at: directory)
  }

  /// Runs `body` with SecItem calls routed to this store, as a caller with `accessGroups`.
  @discardableResult
  func run<T>(accessGroups: [String]? = ["test.group"], _ body: () throws -> T) rethrows -> T {
    try withKeychainContext(store: store, accessGroups: accessGroups, body)
  }
}

/// Runs `body` against a new temporary store.
func withFreshStore<T>(
  accessGroups: [String]? = ["test.group"], passphrase: String? = nil, _ body: (KeychainStore) throws -> T
) throws -> T {
  let temporary = try TemporaryStore(passphrase: passphrase)
  return try temporary.run(accessGroups: accessGroups) { try body(temporary.store) }
}

/// SecItemAdd without a result.
@discardableResult
func add(_ attributes: [String: Any]) -> OSStatus {
  SecItemAdd(attributes as CFDictionary, nil)
}

/// SecItemAdd returning its result.
func addReturning(_ attributes: [String: Any]) -> (OSStatus, AnyObject?) {
  var result: CFTypeRef?
  let status = SecItemAdd(attributes as CFDictionary, &result)
  return (status, result)
}

/// SecItemCopyMatching returning status and result.
func copy(_ query: [String: Any]) -> (OSStatus, AnyObject?) {
  var result: CFTypeRef?
  let status = SecItemCopyMatching(query as CFDictionary, &result)
  return (status, result)
}

func update(_ query: [String: Any], _ attributes: [String: Any]) -> OSStatus {
  SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
}

func delete(_ query: [String: Any]) -> OSStatus {
  SecItemDelete(query as CFDictionary)
}

/// A generic password dictionary.
func genp(_ account: String = "alice", service: String = "svc", _ extra: [String: Any] = [:]) -> [String: Any] {
  var dictionary: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword,
    kSecAttrAccount as String: account,
    kSecAttrService as String: service,
  ]
  dictionary.merge(extra) { _, new in new }
  return dictionary
}

/// An internet password dictionary.
func inet(_ account: String = "alice", server: String = "example.com", _ extra: [String: Any] = [:]) -> [String: Any] {
  var dictionary: [String: Any] = [
    kSecClass as String: kSecClassInternetPassword,
    kSecAttrAccount as String: account,
    kSecAttrServer as String: server,
  ]
  dictionary.merge(extra) { _, new in new }
  return dictionary
}

/// The data of the one item `query` finds, or nil.
func readData(_ query: [String: Any]) -> Data? {
  var query = query
  query[kSecReturnData as String] = true
  return copy(query).1 as? Data
}

/// The attributes of the one item `query` finds, or nil.
func readAttributes(_ query: [String: Any]) -> [String: Any]? {
  var query = query
  query[kSecReturnAttributes as String] = true
  return copy(query).1 as? [String: Any]
}

/// How many items `query` matches (kSecMatchLimitAll, persistent refs).
func count(_ query: [String: Any]) -> Int {
  var query = query
  query[kSecMatchLimit as String] = kSecMatchLimitAll
  query[kSecReturnPersistentRef as String] = true
  return (copy(query).1 as? [Any])?.count ?? 0
}

extension Data {
  init(utf8 string: String) { self = Data(string.utf8) }
}

/// A generic password for "alice" in "svc" with extra attributes.
func genp(_ extra: [String: Any]) -> [String: Any] { genp("alice", service: "svc", extra) }

/// An internet password for "alice" at "example.com" with extra attributes.
func inet(_ extra: [String: Any]) -> [String: Any] { inet("alice", server: "example.com", extra) }

/// The backend this test program linked, for the API functions that take one.
let testBackend: any SecurityBackend = try! SecurityBackends.required()

extension KeychainStore {
  /// The store's rows as a test reads them behind the API: the storage of a store this process
  /// opened, or the rows the agent hands a replicator (the test runner is granted every group).
  var rowsForTests: any ItemRowReader {
    switch holder {
    case .process(let storage): storage
    case .agent(let agent): agent.replica
    }
  }
}

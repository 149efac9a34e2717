// The implementations keychain-bench compares: the C baselines, Apple's raw API and the DSL, each
// over a store of its own (the agent's is in AgentBenchmark.swift).
import CKeychainBaseline
import Dispatch
import Foundation
import Keychain
import Security

/// One implementation of the benchmark's operations on its own store of `size` items.
protocol Implementation: AnyObject {
  var name: String { get }
  func add(_ account: String) -> Bool
  func lookupData(_ account: String) -> Bool
  func lookupAttributes(_ account: String) -> Bool
  func update(_ account: String) -> Bool
  func delete(_ account: String) -> Bool
  func list() -> Bool
  /// Runs `body` in whatever context the implementation's calls need.
  func batch(_ body: () -> Void)
}

let service = "bench.service"
let secret = Data("benchmark-secret-0123456789".utf8)

/// The entry points of one C baseline (baseline.h): the minimal one and the same-work one take the
/// same arguments, so one class drives either.
struct CBaselineFunctions {
  let name: String
  let file: String
  let open: @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
  let close: @convention(c) (OpaquePointer?) -> Void
  let fill: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32) -> Int32
  let add:
    @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int) -> Int32
  let lookup:
    @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutablePointer<UInt8>?, Int)
      -> Int32
  let attributes: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
  let update:
    @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int) -> Int32
  let delete: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
  let list: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32

  /// baseline.c: one narrow table, one seal; the limit.
  static let minimal = CBaselineFunctions(
    name: "C", file: "baseline.db", open: kb_baseline_open, close: kb_baseline_close, fill: kb_baseline_fill,
    add: kb_baseline_add, lookup: kb_baseline_lookup, attributes: kb_baseline_attributes,
    update: kb_baseline_update, delete: kb_baseline_delete, list: kb_baseline_list)

  /// same_work.c: the store's own schema, digests, seals and statements in C.
  static let sameWork = CBaselineFunctions(
    name: "C same-work", file: "same-work.db", open: kb_same_work_open, close: kb_same_work_close,
    fill: kb_same_work_fill, add: kb_same_work_add, lookup: kb_same_work_lookup,
    attributes: kb_same_work_attributes, update: kb_same_work_update, delete: kb_same_work_delete,
    list: kb_same_work_list)
}

/// A C baseline's store, driven through its entry points.
final class CBaseline: Implementation {
  let name: String
  let store: OpaquePointer
  private let functions: CBaselineFunctions

  init(_ functions: CBaselineFunctions = .minimal, directory: URL, size: Int) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    guard let store = functions.open(directory.appendingPathComponent(functions.file).path) else {
      throw BenchError("cannot open the \(functions.name) baseline database")
    }
    self.name = functions.name
    self.store = store
    self.functions = functions
    guard functions.fill(store, "acct", service, Int32(size)) == 0 else {
      throw BenchError("cannot fill the \(functions.name) baseline")
    }
  }

  deinit { functions.close(store) }

  func add(_ account: String) -> Bool {
    secret.withUnsafeBytes {
      functions.add(store, account, service, $0.bindMemory(to: UInt8.self).baseAddress, $0.count) == 0
    }
  }
  func lookupData(_ account: String) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 256)
    return functions.lookup(store, account, service, &buffer, buffer.count) >= 0
  }
  func lookupAttributes(_ account: String) -> Bool { functions.attributes(store, account, service) == 0 }
  func update(_ account: String) -> Bool {
    secret.withUnsafeBytes {
      functions.update(store, account, service, $0.bindMemory(to: UInt8.self).baseAddress, $0.count) == 0
    }
  }
  func delete(_ account: String) -> Bool { functions.delete(store, account, service) == 0 }
  func list() -> Bool { functions.list(store, service, 100) == 100 }
  func batch(_ body: () -> Void) { body() }
}

/// Fills a Security store with `size` items in batches (one transaction each; not measured).
func fill(_ store: KeychainStore, size: Int) throws {
  try withKeychainContext(store: store, accessGroups: ["bench"]) {
    var next = 0
    while next < size {
      let batch = (next..<min(size, next + 5000)).map { index -> CFDictionary in
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
          kSecAttrAccount as String: "acct-\(index)", kSecAttrLabel as String: service,
          kSecValueData as String: secret,
        ] as CFDictionary
      }
      let status = SecItemImport(batch)
      guard status == errSecSuccess else { throw BenchError("filling the store failed: \(status)") }
      next += batch.count
    }
  }
}

final class RawSecurity: Implementation {
  let name = "raw"
  let store: KeychainStore

  init(directory: URL, size: Int) throws {
    store = try KeychainStore(directory: directory)
    try fill(store, size: size)
  }

  func query(_ account: String) -> [String: Any] {
    [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
      kSecAttrAccount as String: account,
    ]
  }
  func add(_ account: String) -> Bool {
    var attributes = query(account)
    attributes[kSecAttrLabel as String] = service
    attributes[kSecValueData as String] = secret
    return SecItemAdd(attributes as CFDictionary, nil) == errSecSuccess
  }
  func lookupData(_ account: String) -> Bool {
    var query = query(account)
    query[kSecReturnData as String] = true
    query[kSecMatchLimit as String] = kSecMatchLimitOne
    var result: CFTypeRef?
    return SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess && result is Data
  }
  func lookupAttributes(_ account: String) -> Bool {
    var query = query(account)
    query[kSecReturnAttributes as String] = true
    query[kSecReturnPersistentRef as String] = true
    query[kSecMatchLimit as String] = kSecMatchLimitOne
    var result: CFTypeRef?
    // Read the result as client code does, so the comparison with the DSL's typed item is fair.
    guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let item = result as? [String: Any]
    else { return false }
    return item[kSecAttrAccount as String] as? String == account && item[kSecAttrLabel as String] is String
  }
  func update(_ account: String) -> Bool {
    SecItemUpdate(query(account) as CFDictionary, [kSecValueData as String: secret] as CFDictionary) == errSecSuccess
  }
  func delete(_ account: String) -> Bool { SecItemDelete(query(account) as CFDictionary) == errSecSuccess }
  func list() -> Bool {
    let query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
      kSecReturnAttributes as String: true, kSecReturnPersistentRef as String: true, kSecReturnData as String: true,
      kSecMatchLimit as String: 100,
    ]
    var result: CFTypeRef?
    guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let items = result as? [[String: Any]]
    else { return false }
    return items.count == 100
      && items.allSatisfy { $0[kSecAttrAccount as String] is String && $0[kSecValueData as String] is Data }
  }
  func batch(_ body: () -> Void) { withKeychainContext(store: store, accessGroups: ["bench"], body) }
}

final class DSL: Implementation {
  let name: String
  let store: KeychainStore
  let items = GenericPassword().service(service)
  /// What must live as long as the store: the agent that serves it (AgentBenchmark.swift).
  private let server: AnyObject?

  init(directory: URL, size: Int) throws {
    name = "DSL"
    store = try KeychainStore(directory: directory)
    server = nil
    try fill(store, size: size)
  }

  /// The DSL over `store`, filled with `size` items, under another name.
  init(name: String, store: KeychainStore, server: AnyObject, size: Int) throws {
    self.name = name
    self.store = store
    self.server = server
    try fill(store, size: size)
  }

  func add(_ account: String) -> Bool { (try? items.account(account).label(service).add(secret).get()) != nil }
  func lookupData(_ account: String) -> Bool { ((try? items.account(account).data().get()) ?? nil) != nil }
  func lookupAttributes(_ account: String) -> Bool { ((try? items.account(account).item().get()) ?? nil) != nil }
  func update(_ account: String) -> Bool { (try? items.account(account).update(data: secret).get()) == true }
  func delete(_ account: String) -> Bool { (try? items.account(account).delete().get()) == true }
  func list() -> Bool { (try? items.all(includingData: true, limit: 100).get())?.count == 100 }
  func batch(_ body: () -> Void) { withKeychainContext(store: store, accessGroups: ["bench"], body) }
}

extension Implementation {
  /// Runs `operation` on `account` (a listing ignores it); whether it succeeded.
  func run(_ operation: Operation, _ account: String) -> Bool {
    switch operation {
    case .add: add(account)
    case .lookupData: lookupData(account)
    case .lookupAttributes: lookupAttributes(account)
    case .update: update(account)
    case .delete: delete(account)
    case .list: list()
    }
  }
}

/// A keychain-bench process started by this one in the profile mode `profile` (a partner or a
/// measuring child), with `environment` added to this process's.
func benchChild(profile: String, environment added: [String: String] = [:]) -> Process {
  let child = Process()
  child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  var environment = ProcessInfo.processInfo.environment.merging(added) { _, new in new }
  environment["KEYCHAIN_BRIDGE_BENCH_PROFILE"] = profile
  child.environment = environment
  return child
}

struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

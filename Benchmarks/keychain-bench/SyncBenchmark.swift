import Dispatch
import Foundation
import KeychainSync
import LocalPostgres
import Security

// `keychain-bench sync`: sync through PostgreSQL on loopback (the server KEYCHAIN_BRIDGE_SYNC_SERVER
// names, else one started here with initdb). Prints store-to-store propagation latency with
// LISTEN/NOTIFY (p50, p99), the initial sync of 10,000 items into a new store, and end-to-end sync
// throughput; writes benchmark-results/sync.json.

/// Runs async work from the benchmark's synchronous top level.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
  nonisolated(unsafe) var outcome: Result<T, any Error>?
  let done = DispatchSemaphore(value: 0)
  Task {
    do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
    done.signal()
  }
  done.wait()
  return try outcome!.get()
}

/// A store of the benchmark with Apple-style calls routed to it.
final class SyncBenchStore: Sendable {
  let store: KeychainStore

  init(_ directory: URL) throws { store = try KeychainStore(directory: directory) }

  func call<T>(_ body: () -> T) -> T { withKeychainContext(store: store, accessGroups: ["bench.sync"], body) }

  func add(_ account: String, _ value: String) -> OSStatus {
    call {
      SecItemAdd(
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench.sync",
          kSecAttrAccount as String: account, kSecValueData as String: Data(value.utf8),
          kSecAttrSynchronizable as String: true,
        ] as CFDictionary, nil)
    }
  }

  func update(_ account: String, _ value: String) -> OSStatus {
    call {
      SecItemUpdate(
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench.sync",
          kSecAttrAccount as String: account, kSecAttrSynchronizable as String: true,
        ] as CFDictionary, [kSecValueData as String: Data(value.utf8)] as CFDictionary)
    }
  }

  func value(_ account: String) -> String? {
    var result: CFTypeRef?
    let status = call {
      SecItemCopyMatching(
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench.sync",
          kSecAttrAccount as String: account, kSecAttrSynchronizable as String: true,
          kSecReturnData as String: true,
        ] as CFDictionary, &result)
    }
    guard status == errSecSuccess, let data = result as? Data else { return nil }
    return String(decoding: data, as: UTF8.self)
  }
}

func runSyncBenchmark() throws {
  let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("keychain-bench-sync-\(getpid())")
  defer { try? FileManager.default.removeItem(at: scratch) }
  let url: String
  if let configured = KeychainSyncEnvironment().server {
    url = configured
    print("sync: using the server KEYCHAIN_BRIDGE_SYNC_SERVER names")
  } else {
    print("sync: starting PostgreSQL on 127.0.0.1 (initdb in a temporary folder)")
    let server = try PostgresTestServer.shared()
    url = try server.makeDatabase()
  }
  let itemCount = Int(ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_BENCH_SYNC_ITEMS"] ?? "") ?? 10_000
  let first = try SyncBenchStore(scratch.appendingPathComponent("first"))
  let second = try SyncBenchStore(scratch.appendingPathComponent("second"))
  _ = try blocking {
    try await KeychainSyncGroup.create(store: first.store, server: url, passphrase: "benchmark group passphrase")
  }

  // Initial sync: one store holds the items; a new store joins and takes them all.
  var start = now()
  for index in 0..<itemCount where first.add("item-\(index)", "value-\(index)") != errSecSuccess {
    throw TestServerError("adding item \(index) failed")
  }
  let addSeconds = Double(now() - start) / 1e9
  print(
    String(
      format: "sync: added %d synchronizable items in %.2f s (%.0f/s)", itemCount, addSeconds,
      Double(itemCount) / addSeconds))
  start = now()
  let pushed = try blocking { try await KeychainSyncEngine(store: first.store).syncOnce() }
  let pushSeconds = Double(now() - start) / 1e9
  print(
    String(
      format: "sync: pushed %d records in %.2f s (%.0f records/s)", pushed.pushed, pushSeconds,
      Double(pushed.pushed) / pushSeconds))
  start = now()
  _ = try blocking {
    try await KeychainSyncGroup.join(store: second.store, server: url, passphrase: "benchmark group passphrase")
  }
  let joinSeconds = Double(now() - start) / 1e9
  start = now()
  let pulled = try blocking { try await KeychainSyncEngine(store: second.store).syncOnce() }
  let initialSeconds = Double(now() - start) / 1e9
  print(
    String(
      format: "sync: a new store joined in %.2f s (one scrypt) and applied %d records in %.2f s (%.0f records/s)",
      joinSeconds, pulled.applied, initialSeconds, Double(pulled.applied) / initialSeconds))

  // Propagation: both engines running; one store changes an item, the other sees it.
  let engines = [try KeychainSyncEngine(store: first.store), try KeychainSyncEngine(store: second.store)]
  let tasks = engines.map { engine in Task { await engine.run() } }
  // The engines must have closed their connections before the process exits.
  defer {
    tasks.forEach { $0.cancel() }
    _ = try? blocking { for task in tasks { await task.value } }
  }
  Thread.sleep(forTimeInterval: 0.5)
  var latencies: [Double] = []
  let probes = 200
  for probe in 0..<probes {
    let value = "probe-\(probe)"
    let sent = now()
    guard first.update("item-0", value) == errSecSuccess else { throw TestServerError("probe \(probe) failed") }
    while second.value("item-0") != value {
      usleep(200)
      if now() - sent > 10_000_000_000 { throw TestServerError("probe \(probe) did not arrive in 10 s") }
    }
    latencies.append(Double(now() - sent) / 1e6)
    if probe % 50 == 49 { print("sync: propagation probes \(probe + 1) of \(probes)") }
  }
  latencies.sort()
  let p50 = latencies[latencies.count / 2]
  let p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
  print(String(format: "sync: propagation store to store p50 %.1f ms, p99 %.1f ms (%d probes)", p50, p99, probes))

  // Throughput: a burst of changes, until the other store holds the last of them.
  let burst = 2_000
  start = now()
  for index in 0..<burst { _ = first.update("item-\(index % itemCount)", "burst-\(index)") }
  let lastAccount = "item-\((burst - 1) % itemCount)"
  while second.value(lastAccount) != "burst-\(burst - 1)" {
    usleep(1000)
    if now() - start > 120_000_000_000 { throw TestServerError("the burst did not arrive in 120 s") }
  }
  let burstSeconds = Double(now() - start) / 1e9
  print(
    String(
      format: "sync: %d changes reached the other store in %.2f s (%.0f changes/s end to end)", burst, burstSeconds,
      Double(burst) / burstSeconds))

  let output = URL(fileURLWithPath: "benchmark-results", isDirectory: true)
  try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
  let figures: [String: Double] = [
    "items": Double(itemCount), "addPerSecond": Double(itemCount) / addSeconds,
    "pushRecordsPerSecond": Double(pushed.pushed) / pushSeconds, "joinSeconds": joinSeconds,
    "initialSyncSeconds": initialSeconds, "initialSyncRecordsPerSecond": Double(pulled.applied) / initialSeconds,
    "propagationP50Milliseconds": p50, "propagationP99Milliseconds": p99,
    "burstChangesPerSecond": Double(burst) / burstSeconds,
  ]
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  try encoder.encode(figures).write(to: output.appendingPathComponent("sync.json"))
  print("sync: wrote benchmark-results/sync.json")
}

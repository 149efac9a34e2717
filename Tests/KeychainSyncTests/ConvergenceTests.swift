import Foundation
import KeychainSync
import Security
import Testing

/// Three stores in three processes change items at once with sync running, through a server of
/// their own that is stopped and restarted mid-run (one of them behind 20 ms of network delay each
/// way), while one process is killed with SIGKILL and started again. After quiescence every store holds the same synchronizable items, each worker's
/// own keys hold exactly what its acknowledged writes say (nothing lost, nothing deleted comes
/// back), and local items stay where they were made.
@Suite(.serialized) struct MultiProcessConvergence {
  /// What a worker's log says its own keys must hold: the last acknowledged write of each, and
  /// the write it had begun when it was killed (which may or may not have committed).
  struct WorkerModel {
    /// The last acknowledged write of each key (nil: deleted).
    var acknowledged: [String: String?] = [:]
    /// Writes begun after a key's last acknowledgement and never finished (their process was
    /// killed): each may or may not have committed.
    var interrupted: [String: [String?]] = [:]
    /// Every value this worker wrote or began to write to each key, and the keys it deleted.
    var written: [String: Set<String>] = [:]
    var deleted: Set<String> = []
    var done = false

    init(log: String) {
      var inFlight: (account: String, value: String?)?
      for line in log.split(separator: "\n") {
        let fields = line.split(separator: " ", maxSplits: 3).map(String.init)
        switch fields.first {
        case "begin":
          if let pending = inFlight { interrupted[pending.account, default: []].append(pending.value) }
          inFlight = (fields[2], fields[1] == "set" ? fields[3] : nil)
          if fields[1] == "set" { written[fields[2], default: []].insert(fields[3]) } else { deleted.insert(fields[2]) }
        case "ack":
          acknowledged[fields[2]] = fields[1] == "set" ? fields[3] : String?.none
          interrupted[fields[2]] = nil
          inFlight = nil
        case "failed":
          inFlight = nil
        case "done":
          done = true
        default:
          continue
        }
      }
      if let pending = inFlight { interrupted[pending.account, default: []].append(pending.value) }
    }

    /// Whether a store may hold `value` for `account` after this worker's writes.
    func allows(_ account: String, holding value: String?) -> Bool {
      let last: String? = acknowledged[account] ?? nil
      return value == last || (interrupted[account] ?? []).contains(value)
    }
  }

  /// The store's generic passwords of the workers' service: account -> secret, synchronizable ones
  /// and local ones apart.
  static func contents(_ store: KeychainStore, synchronizable: Bool) -> [String: String] {
    let query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "sync-worker",
      kSecAttrSynchronizable as String: synchronizable, kSecMatchLimit as String: kSecMatchLimitAll,
      kSecReturnAttributes as String: true, kSecReturnData as String: true,
    ]
    var result: CFTypeRef?
    let status = withKeychainContext(store: store, accessGroups: ["com.example.sync"]) {
      SecItemCopyMatching(query as CFDictionary, &result)
    }
    guard status == errSecSuccess, let items = result as? [[String: Any]] else { return [:] }
    var contents: [String: String] = [:]
    for item in items {
      if let account = item[kSecAttrAccount as String] as? String, let data = item[kSecValueData as String] as? Data {
        contents[account] = String(decoding: data, as: UTF8.self)
      }
    }
    return contents
  }

  @Test func threeProcessesConvergeThroughKillsAndAServerRestart() async throws {
    let seed =
      UInt64(ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_SYNC_SEED"] ?? "")
      ?? UInt64.random(in: 1...1_000_000)
    let operations = Int(ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_SYNC_OPERATIONS"] ?? "") ?? 80
    let server = try PostgresTestServer.dedicated()
    defer { server.stop() }
    let url = try server.makeDatabase()
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("converge-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let directories = (0..<3).map { root.appendingPathComponent("store-\($0)", isDirectory: true) }
    // The third store reaches the server through 20 ms of delay each way.
    let proxy = try DelayingProxy(targetPort: server.port, delay: .milliseconds(20))
    defer { proxy.stop() }
    let delayedURL = url.replacingOccurrences(of: ":\(server.port)/", with: ":\(proxy.port)/")
    for (index, directory) in directories.enumerated() {
      let store = try KeychainStore(directory: directory)
      if index == 0 {
        try await KeychainSyncGroup.create(
          store: store, server: url, passphrase: "convergence passphrase", cost: .earlier)
      } else {
        try await KeychainSyncGroup.join(
          store: store, server: index == 2 ? delayedURL : url, passphrase: "convergence passphrase")
      }
    }
    let logs = (0..<3).map { root.appendingPathComponent("worker-\($0).log").path }
    let outputs = (0..<3).map { root.appendingPathComponent("worker-\($0).out").path }
    let worker = builtProgram("keychain-sync-worker")
    func start(_ index: Int, seed: UInt64) throws -> pid_t {
      try spawn(
        worker, [directories[index].path, "\(index)", "\(seed)", "\(operations)", logs[index]],
        outputPath: outputs[index])
    }
    var pids = try (0..<3).map { try start($0, seed: seed &+ UInt64($0)) }
    defer { for pid in pids { kill(pid, SIGKILL) } }

    // Mid-run: the server goes away and comes back; worker 1 is killed and started again.
    try await Task.sleep(for: .milliseconds(400))
    try server.stopForRestart()
    try await Task.sleep(for: .milliseconds(400))
    kill(pids[1], SIGKILL)
    waitForExit(pids[1])
    try server.startAgain()
    pids[1] = try start(1, seed: seed &+ 1000)

    let stores = try directories.map { try KeychainStore(directory: $0) }
    let models = { (0..<3).map { WorkerModel(log: (try? String(contentsOfFile: logs[$0], encoding: .utf8)) ?? "") } }
    let converged = await eventually(seconds: 90) {
      guard models().allSatisfy(\.done) else { return false }
      let pending = stores.map { (try? KeychainSyncGroup.status(store: $0))??.pendingChanges ?? 1 }
      let contents = stores.map { Self.contents($0, synchronizable: true) }
      return pending.allSatisfy { $0 == 0 } && contents.allSatisfy { $0 == contents[0] }
    }
    let contents = stores.map { Self.contents($0, synchronizable: true) }
    #expect(converged, "seed \(seed): the stores did not converge: \(contents)")
    for pid in pids {
      kill(pid, SIGTERM)
      waitForExit(pid)
    }
    pids = []

    // Each worker's own keys: its last acknowledged write, or one in flight when it was killed.
    for (index, model) in models().enumerated() {
      let accounts = Set(model.acknowledged.keys).union(model.interrupted.keys)
        .union(contents[0].keys.filter { $0.hasPrefix("own-\(index)-") })
      for account in accounts where account.hasPrefix("own-") {
        let held = contents[0][account]
        #expect(
          model.allows(account, holding: held),
          "seed \(seed): worker \(index)'s \(account) holds \(held ?? "nothing"), acknowledged \(String(describing: model.acknowledged[account]))"
        )
      }
      // Contested keys: whatever the winner, its value is one a worker wrote.
      if index == 0 {
        let all = models()
        for (account, value) in contents[0] where account.hasPrefix("shared-") {
          #expect(all.contains { $0.written[account]?.contains(value) == true }, "seed \(seed): \(account) = \(value)")
        }
      }
      // Local items stay in their own store.
      for (other, store) in stores.enumerated() {
        let local = Self.contents(store, synchronizable: false)
        #expect(local.keys.allSatisfy { $0.hasPrefix("local-\(other)-") }, "seed \(seed): \(local.keys)")
      }
    }
  }
}

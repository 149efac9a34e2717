import Foundation
import GRDB
import Security
import Testing

/// Crash safety and multi-process concurrency, with child processes. Each test prints its figures.
/// KEYCHAIN_BRIDGE_LONG=1 runs the long mode (200 kills).
@Suite(.serialized) struct ReliabilityTests {
  static let long = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_LONG"] == "1"

  static func crashData(_ name: String) -> Data {
    Data((0..<48).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }) })
  }

  static func mode(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int ?? -1) & 0o777
  }

  @Test func everyAcknowledgedWriteSurvivesSIGKILL() throws {
    let temporary = try TemporaryStore()
    let kills = Self.long ? 200 : 50
    var acknowledged: [String] = []
    var generator = SystemRandomNumberGenerator()
    for round in 0..<kills {
      let process = Process()
      process.executableURL = FullDisk.helper
      process.arguments = ["write", temporary.directory.path, "k\(round)"]
      let pipe = Pipe()
      process.standardOutput = pipe
      try process.run()
      usleep(UInt32.random(in: 20_000...120_000, using: &generator))
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      // Only complete lines count: a line cut by the kill was never acknowledged.
      let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
      acknowledged += lines.filter { $0.hasPrefix("ack ") }.map { String($0.dropFirst(4)) }

      let integrity = try DatabaseQueue(path: temporary.directory.appendingPathComponent("keychain.db").path).read {
        db in
        try String.fetchOne(db, sql: "PRAGMA integrity_check")
      }
      #expect(integrity == "ok", "integrity after kill \(round): \(integrity ?? "nil")")
      for name in ["keychain.db", "keychain.db-wal", "keychain.db-shm", "keychain.key"] {
        let path = temporary.directory.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: path) {
          #expect(Self.mode(path) == 0o600, "\(name) after kill \(round)")
        }
      }
      #expect(Self.mode(temporary.directory.path) == 0o700)
    }
    let reopened = try KeychainStore(directory: temporary.directory)
    let (lost, corrupt, stored) = withKeychainContext(store: reopened, accessGroups: ["helper"]) {
      () -> (Int, Int, Int) in
      let lost = acknowledged.filter {
        readData([
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "crash",
          kSecAttrAccount as String: $0,
        ])
          != Self.crashData($0)
      }.count
      var result: CFTypeRef?
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "crash",
        kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
        kSecReturnData as String: true,
      ]
      let status = SecItemCopyMatching(query as CFDictionary, &result)
      let items = status == errSecSuccess ? (result as? [[String: Any]] ?? []) : []
      // Writes that committed before their acknowledgement was printed may be there; each must be whole.
      let corrupt = items.filter { item in
        guard let name = item[kSecAttrAccount as String] as? String else { return true }
        return item[kSecValueData as String] as? Data != Self.crashData(name)
      }.count
      return (lost, corrupt, items.count)
    }
    print(
      "crash: \(kills) kills, \(acknowledged.count) acknowledged writes, \(lost) lost, \(stored) stored, \(corrupt) half-written"
    )
    #expect(acknowledged.count > kills)
    #expect(lost == 0)
    #expect(corrupt == 0)
  }

  /// Three processes add, update and delete their own keys at random and are killed together at a
  /// random moment, again and again: every key must hold what its last acknowledged operation left,
  /// or what the one operation in flight at the kill made of it, and the file must stay sound.
  /// 51 kills per run (17 rounds of 3); 201 in the long mode.
  @Test func mixedWritesFromSeveralProcessesSurviveSIGKILL() throws {
    let temporary = try TemporaryStore()
    let rounds = Self.long ? 67 : 17
    var generator = SystemRandomNumberGenerator()
    var acknowledgedOperations = 0
    var violations: [String] = []
    for round in 0..<rounds {
      let processes = (0..<3).map { index -> (Process, Pipe) in
        let process = Process()
        process.executableURL = FullDisk.helper
        process.arguments = ["churn", temporary.directory.path, "r\(round)p\(index)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        return (process, pipe)
      }
      for (process, _) in processes { try process.run() }
      usleep(UInt32.random(in: 30_000...150_000, using: &generator))
      for (process, _) in processes { kill(process.processIdentifier, SIGKILL) }
      // Per key: the value its last acknowledgement left ("-": absent), and the value the operation
      // in flight would leave, which may or may not have landed.
      var acknowledged: [String: String] = [:]
      var inFlight: [String: String] = [:]
      for (process, pipe) in processes {
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Only complete lines count: a line cut by the kill was never written whole.
        for line in output.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
          let parts = line.split(separator: " ").map(String.init)
          switch parts.first {
          case "begin" where parts.count == 4:
            inFlight[parts[2]] = parts[1] == "delete" ? "-" : parts[3]
          case "ack" where parts.count == 3:
            acknowledged[parts[1]] = parts[2]
            inFlight[parts[1]] = nil
            acknowledgedOperations += 1
          case "unchanged" where parts.count == 2:
            inFlight[parts[1]] = nil
          default:
            break
          }
        }
      }
      let reopened = try KeychainStore(directory: temporary.directory)
      withKeychainContext(store: reopened, accessGroups: ["helper"]) {
        for key in Set(acknowledged.keys).union(inFlight.keys) {
          let data = readData([
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "churn",
            kSecAttrAccount as String: key,
          ])
          let stored = data.map { String(decoding: $0, as: UTF8.self) } ?? "-"
          let allowed = [acknowledged[key] ?? "-", inFlight[key]].compactMap { $0 }
          if !allowed.contains(stored) { violations.append("round \(round) \(key): \(stored), expected \(allowed)") }
        }
      }
      #expect(try reopened.checkIntegrity().damagedItems == 0)
    }
    print(
      "crash (mixed): \(rounds * 3) kills of 3 processes at a time, \(acknowledgedOperations) acknowledged "
        + "adds, updates and deletes, \(violations.count) keys not in an acknowledged or in-flight state")
    #expect(violations.isEmpty, "\(violations.prefix(10))")
    #expect(acknowledgedOperations > rounds * 3)
  }

  /// Four processes of two threads each; four of four in the long mode.
  @Test func fourProcessesOfSeveralThreadsAgreeWithTheSerialModel() throws {
    let temporary = try TemporaryStore()
    let operationsPerThread = 650
    let threads = Self.long ? 4 : 2
    let processes = (0..<4).map { index -> (Process, Pipe) in
      let process = Process()
      process.executableURL = FullDisk.helper
      process.arguments = [
        "mix", temporary.directory.path, String(index), String(operationsPerThread), String(threads),
      ]
      let pipe = Pipe()
      process.standardOutput = pipe
      return (process, pipe)
    }
    for (process, _) in processes { try process.run() }
    var expected: [String: String] = [:]
    var anomalies: [String] = []
    for (process, pipe) in processes {
      let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      for line in output.split(separator: "\n") {
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        if parts.first == "own", parts.count == 3 { expected[parts[1]] = parts[2] }
        if parts.first == "anomaly" { anomalies.append(String(line)) }
      }
    }
    let reopened = try KeychainStore(directory: temporary.directory)
    let mismatches = withKeychainContext(store: reopened, accessGroups: ["helper"]) {
      expected.filter { key, value in
        let data = readData([
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "mix",
          kSecAttrAccount as String: key,
        ])
        return (data.map { String(decoding: $0, as: UTF8.self) } ?? "absent") != value
      }.map(\.key)
    }
    let total = 4 * threads * operationsPerThread
    print(
      "concurrency: \(total) operations by 4 processes x \(threads) threads, \(anomalies.count) anomalies, "
        + "\(mismatches.count) keys differing from the serial model")
    #expect(anomalies.isEmpty, "\(anomalies.prefix(10))")
    #expect(mismatches.isEmpty, "\(mismatches)")
    #expect(!expected.isEmpty)
  }
}

import Foundation
import KeychainSync
import Security

// A store in a process of its own for the sync convergence test: it runs the sync engine in the
// background and applies seeded random operations through SecItem calls, writing each to its log
// before ("begin") and after ("ack") the call, so a test that kills it knows what was acknowledged.
//
// Usage: keychain-sync-worker STORE_DIR WORKER_ID SEED OPERATIONS LOG_FILE
// Keys: "own-W-i" are this worker's alone (an exact model), "shared-i" are contested by every
// worker (convergence only), "local-W-i" are not synchronizable (they must stay here).

let arguments = CommandLine.arguments
guard arguments.count == 6, let worker = Int(arguments[2]), let seed = UInt64(arguments[3]),
  let operations = Int(arguments[4])
else {
  FileHandle.standardError.write(Data("usage: keychain-sync-worker STORE WORKER SEED OPERATIONS LOG\n".utf8))
  exit(64)
}
let store = try KeychainStore(directory: URL(fileURLWithPath: arguments[1], isDirectory: true))
if !FileManager.default.fileExists(atPath: arguments[5]) {
  _ = FileManager.default.createFile(atPath: arguments[5], contents: nil)
}
let log = try FileHandle(forWritingTo: URL(fileURLWithPath: arguments[5]))
log.seekToEndOfFile()

/// One line per write(2): a SIGKILL after it returns cannot lose the line.
func record(_ line: String) { log.write(Data((line + "\n").utf8)) }

/// SplitMix64: a seeded generator, so a failure's sequence can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

func query(_ account: String, synchronizable: Bool) -> [String: Any] {
  [
    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "sync-worker",
    kSecAttrAccount as String: account, kSecAttrSynchronizable as String: synchronizable,
  ]
}

func exists(_ account: String, synchronizable: Bool) -> Bool {
  SecItemCopyMatching(query(account, synchronizable: synchronizable) as CFDictionary, nil) == errSecSuccess
}

let engine = try KeychainSyncEngine(store: store)
let syncing = Task { await engine.run() }

var random = SeededGenerator(state: seed)
withKeychainContext(store: store, accessGroups: ["com.example.sync"]) {
  for step in 0..<operations {
    let value = "w\(worker)-s\(seed)-\(step)"
    let roll = Int.random(in: 0..<10, using: &random)
    let account: String
    let synchronizable: Bool
    switch roll {
    case 0..<6:
      account = "own-\(worker)-\(Int.random(in: 0..<6, using: &random))"
      synchronizable = true
    case 6..<9:
      account = "shared-\(Int.random(in: 0..<3, using: &random))"
      synchronizable = true
    default:
      account = "local-\(worker)-\(Int.random(in: 0..<3, using: &random))"
      synchronizable = false
    }
    let present = exists(account, synchronizable: synchronizable)
    let deleting = present && Int.random(in: 0..<4, using: &random) == 0
    let status: OSStatus
    if deleting {
      record("begin del \(account)")
      status = SecItemDelete(query(account, synchronizable: synchronizable) as CFDictionary)
      if status == errSecSuccess { record("ack del \(account)") }
    } else if present {
      record("begin set \(account) \(value)")
      status = SecItemUpdate(
        query(account, synchronizable: synchronizable) as CFDictionary,
        [kSecValueData as String: Data(value.utf8)] as CFDictionary)
      if status == errSecSuccess { record("ack set \(account) \(value)") }
    } else {
      record("begin set \(account) \(value)")
      var attributes = query(account, synchronizable: synchronizable)
      attributes[kSecValueData as String] = Data(value.utf8)
      status = SecItemAdd(attributes as CFDictionary, nil)
      if status == errSecSuccess { record("ack set \(account) \(value)") }
    }
    // A contested key may change under this worker between its check and its call.
    if status != errSecSuccess && !account.hasPrefix("shared-") {
      record("failed \(account) \(status)")
    }
    usleep(UInt32.random(in: 0..<15_000, using: &random))
  }
}
record("done")
// Keep syncing until the test has seen every store converge and stops this process.
signal(SIGTERM, SIG_IGN)
let stop = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .main)
stop.setEventHandler {
  syncing.cancel()
  exit(0)
}
stop.resume()
dispatchMain()

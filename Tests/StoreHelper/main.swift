import Dispatch
import Foundation
import KeychainCrypto
import Security
import Synchronization

// A child process for store tests that must not run inside the test process: filling the disk
// (a file-size limit applies to the whole process), being killed mid-write, and several processes
// writing at once.
//
//   keychain-store-helper fill DIRECTORY MAX_FILE_BYTES
//     adds 4 KiB items until a call fails (under a file-size limit unless MAX_FILE_BYTES is 0);
//     prints "ok N" after each acknowledged add and "failed STATUS" for the first failure; then
//     deletes the first five items ("deleted STATUS" each) and adds one more ("refilled STATUS").
//   keychain-store-helper passcode
//     adds a WhenPasscodeSetThisDeviceOnly item to the default store (KEYCHAIN_BRIDGE_HOME, with
//     KEYCHAIN_BRIDGE_PASSPHRASE when set) as Apple code would; prints "status STATUS" and
//     "message TEXT" (SecCopyErrorMessageString of the status).
//   keychain-store-helper open DIRECTORY NAME [PASSPHRASE]
//     opens (creating) the store, with PASSPHRASE when given, and adds one item NAME; prints
//     "added NAME passphrase|plain" (how the store it got is protected) or "failed STATUS MESSAGE".
//   keychain-store-helper write DIRECTORY PREFIX
//     adds items PREFIX-0, PREFIX-1... forever, printing "ack NAME" after each acknowledged add.
//   keychain-store-helper mix DIRECTORY PROCESS OPERATIONS [THREADS]
//     THREADS (default 2) threads of random operations on keys of their own and on shared keys;
//     prints the final state of their own keys as the serial model predicts it, and every
//     unexpected status.
//   keychain-store-helper churn DIRECTORY PREFIX
//     adds, updates and deletes PREFIX-0 ... PREFIX-7 at random, forever. Before each operation it
//     prints "begin add|update|delete KEY VALUE", after each acknowledged one "ack KEY VALUE" (VALUE
//     "-" for a delete), so a test that kills it knows each key's last acknowledged state and the
//     one operation that may or may not have landed.
//   keychain-store-helper upgrade DIRECTORY
//     opens the store (which seals rows of an earlier row format again) and prints "opened"; run
//     under a preloaded library that kills it at a chosen write.
//   keychain-store-helper secure-heap-hmac
//     enables OpenSSL's secure heap as keychaind does, prepares an HMAC key, and prints the secure
//     heap's bytes in use before, with the key prepared, and after it is freed: "before N
//     prepared N freed N" (a test process cannot enable the heap for itself alone).
#if canImport(Glibc)
  import Glibc
#endif

func fill(directory: String, maxBytes: UInt64) throws -> Int32 {
  let store = try KeychainStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
  // The kernel's file-size limit stands in for a full disk: writes past it fail with EFBIG.
  if maxBytes > 0 {
    signal(SIGXFSZ, SIG_IGN)
    var limit = rlimit(rlim_cur: rlim_t(maxBytes), rlim_max: rlim_t(maxBytes))
    setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
  }
  func item(_ index: Int) -> [String: Any] {
    [
      kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "item-\(index)",
      kSecValueData as String: Data(repeating: UInt8(truncatingIfNeeded: index), count: 4096),
    ]
  }
  return withKeychainContext(store: store, accessGroups: ["helper"]) {
    for index in 0..<1_000_000 {
      let status = SecItemAdd(item(index) as CFDictionary, nil)
      guard status == errSecSuccess else {
        FileHandle.standardOutput.write(Data("failed \(status)\n".utf8))
        for deleted in 0..<5 {
          let query = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "item-\(deleted)"]
          FileHandle.standardOutput.write(Data("deleted \(SecItemDelete(query as CFDictionary))\n".utf8))
        }
        FileHandle.standardOutput.write(Data("refilled \(SecItemAdd(item(index) as CFDictionary, nil))\n".utf8))
        return 0
      }
      // Unbuffered, so a kill after this line still leaves the acknowledgement on the pipe.
      FileHandle.standardOutput.write(Data("ok \(index)\n".utf8))
    }
    return 1
  }
}

/// The data of a crash-test item: derived from its name, so a reader can check it.
func crashData(_ name: String) -> Data {
  Data((0..<48).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }) })
}

func write(directory: String, prefix: String) throws -> Int32 {
  let store = try KeychainStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
  return withKeychainContext(store: store, accessGroups: ["helper"]) {
    for index in 0... {
      let name = "\(prefix)-\(index)"
      let attributes: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "crash",
        kSecAttrAccount as String: name, kSecValueData as String: crashData(name),
      ]
      let status = SecItemAdd(attributes as CFDictionary, nil)
      guard status == errSecSuccess else {
        FileHandle.standardOutput.write(Data("failed \(status)\n".utf8))
        return 1
      }
      FileHandle.standardOutput.write(Data("ack \(name)\n".utf8))
    }
    return 0
  }
}

/// Random operations of one thread: on its own keys (only it writes them, so a serial model of
/// its acknowledged operations predicts their final state) and on shared keys (contention).
func mixThread(process: Int, thread: Int, operations: Int, store: KeychainStore) -> (
  model: [String: Data?], anomalies: [String]
) {
  withKeychainContext(store: store, accessGroups: ["helper"]) {
    var generator = SystemRandomNumberGenerator()
    var model: [String: Data?] = [:]
    var anomalies: [String] = []
    let allowed: Set<OSStatus> = [errSecSuccess, errSecDuplicateItem, errSecItemNotFound]
    for step in 0..<operations {
      let own = Bool.random(using: &generator)
      let key =
        own
        ? "own-\(process)-\(thread)-\(Int.random(in: 0..<8, using: &generator))"
        : "shared-\(Int.random(in: 0..<6, using: &generator))"
      let token = "p\(process)t\(thread)s\(step)"
      let data = Data(token.utf8)
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "mix", kSecAttrAccount as String: key,
      ]
      // Data and label always travel together, so a reader can tell a half-applied change.
      let contents: [String: Any] = [kSecValueData as String: data, kSecAttrLabel as String: token]
      func addItem() -> OSStatus {
        SecItemAdd(query.merging(contents) { $1 } as CFDictionary, nil)
      }
      var status: OSStatus
      switch Int.random(in: 0..<5, using: &generator) {
      case 0:
        status = addItem()
        if own && status == errSecSuccess { model[key] = data }
        if own && status == errSecDuplicateItem && (model[key] ?? nil) == nil {
          // The model says absent; only a store that lost a delete could answer duplicate.
          anomalies.append("duplicate on \(key), which the model says is absent")
        }
      case 1:
        var read = query
        read[kSecReturnData as String] = true
        read[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        status = SecItemCopyMatching(read as CFDictionary, &result)
        if status == errSecSuccess, let item = result as? [String: Any] {
          // Data and label are always written together: a mismatch is a half-applied update.
          let label = item[kSecAttrLabel as String] as? String
          let value = (item[kSecValueData as String] as? Data).map { String(decoding: $0, as: UTF8.self) }
          if label != value { anomalies.append("half-applied item \(key): label \(label ?? "-") data \(value ?? "-")") }
          if own, (model[key] ?? nil) != item[kSecValueData as String] as? Data {
            anomalies.append("read of \(key) disagrees with the model")
          }
        }
        if own && status == errSecItemNotFound && (model[key] ?? nil) != nil {
          anomalies.append("\(key) missing, the model has it")
        }
      case 2:
        status = SecItemUpdate(query as CFDictionary, contents as CFDictionary)
        if own && status == errSecSuccess { model[key] = data }
      case 3:
        status = SecItemUpdate(query as CFDictionary, contents as CFDictionary)
        if status == errSecItemNotFound { status = addItem() }
        if own && status == errSecSuccess { model[key] = data }
      default:
        status = SecItemDelete(query as CFDictionary)
        if own && status == errSecSuccess { model[key] = .some(nil) }
      }
      if !allowed.contains(status) { anomalies.append("status \(status) on \(key)") }
    }
    return (model, anomalies)
  }
}

func mix(directory: String, process: Int, operations: Int, threads: Int) throws -> Int32 {
  let store = try KeychainStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
  let results = Mutex<[(model: [String: Data?], anomalies: [String])]>([])
  DispatchQueue.concurrentPerform(iterations: threads) { thread in
    let result = mixThread(process: process, thread: thread, operations: operations, store: store)
    results.withLock { $0.append(result) }
  }
  var lines: [String] = []
  for result in results.withLock({ $0 }) {
    for (key, data) in result.model.sorted(by: { $0.key < $1.key }) {
      lines.append("own \(key) " + ((data ?? nil).map { String(decoding: $0, as: UTF8.self) } ?? "absent"))
    }
    lines += result.anomalies.map { "anomaly \($0)" }
  }
  FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
  return 0
}

/// Random adds, updates and deletes of eight keys, each announced before and acknowledged after.
func churn(directory: String, prefix: String) throws -> Int32 {
  let store = try KeychainStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
  return withKeychainContext(store: store, accessGroups: ["helper"]) {
    var generator = SystemRandomNumberGenerator()
    for step in 0... {
      let key = "\(prefix)-\(Int.random(in: 0..<8, using: &generator))"
      let value = "\(prefix)s\(step)"
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "churn",
        kSecAttrAccount as String: key,
      ]
      let operation = ["add", "update", "delete"][Int.random(in: 0..<3, using: &generator)]
      FileHandle.standardOutput.write(Data("begin \(operation) \(key) \(value)\n".utf8))
      let status: OSStatus
      switch operation {
      case "add":
        status = SecItemAdd(query.merging([kSecValueData as String: Data(value.utf8)]) { $1 } as CFDictionary, nil)
      case "update":
        status = SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data(value.utf8)] as CFDictionary)
      default:
        status = SecItemDelete(query as CFDictionary)
      }
      switch (operation, status) {
      case ("add", errSecSuccess), ("update", errSecSuccess):
        FileHandle.standardOutput.write(Data("ack \(key) \(value)\n".utf8))
      case ("delete", errSecSuccess):
        FileHandle.standardOutput.write(Data("ack \(key) -\n".utf8))
      case (_, errSecDuplicateItem), (_, errSecItemNotFound):
        // Nothing changed: the key keeps the state its last acknowledgement gave it.
        FileHandle.standardOutput.write(Data("unchanged \(key)\n".utf8))
      default:
        FileHandle.standardOutput.write(Data("failed \(status)\n".utf8))
        return 1
      }
    }
    return 0
  }
}

/// Opens the store, which may not exist yet, and adds one item.
func openAndAdd(directory: String, name: String, passphrase: String?) -> Int32 {
  let store: KeychainStore
  do {
    store = try KeychainStore(directory: URL(fileURLWithPath: directory, isDirectory: true), passphrase: passphrase)
  } catch {
    FileHandle.standardOutput.write(Data("failed \(error.status) \(error.message)\n".utf8))
    return 1
  }
  let status = withKeychainContext(store: store, accessGroups: ["helper"]) {
    let attributes: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: name,
      kSecValueData as String: Data(name.utf8),
    ]
    return SecItemAdd(attributes as CFDictionary, nil)
  }
  let protection = store.hasPassphrase ? "passphrase" : "plain"
  FileHandle.standardOutput.write(
    Data((status == errSecSuccess ? "added \(name) \(protection)\n" : "failed \(status)\n").utf8))
  return status == errSecSuccess ? 0 : 1
}

/// Apple-style code: no store is named, so the default store and its environment apply.
func passcodeItem() -> Int32 {
  let attributes: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "passcode",
    kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
    kSecValueData as String: Data("needs a passcode".utf8),
  ]
  let status = SecItemAdd(attributes as CFDictionary, nil)
  let message = SecCopyErrorMessageString(status, nil) as String? ?? ""
  FileHandle.standardOutput.write(Data("status \(status)\nmessage \(message)\n".utf8))
  return 0
}

let arguments = CommandLine.arguments
do {
  switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
  case (4, "fill"):
    guard let maxBytes = UInt64(arguments[3]) else { throw HelperUsage() }
    exit(try fill(directory: arguments[2], maxBytes: maxBytes))
  case (2, "passcode"):
    exit(passcodeItem())
  case (4, "open"), (5, "open"):
    exit(openAndAdd(directory: arguments[2], name: arguments[3], passphrase: arguments.count == 5 ? arguments[4] : nil))
  case (4, "write"):
    exit(try write(directory: arguments[2], prefix: arguments[3]))
  case (5, "mix"), (6, "mix"):
    guard let process = Int(arguments[3]), let operations = Int(arguments[4]),
      let threads = arguments.count == 6 ? Int(arguments[5]) : 2, threads > 0
    else { throw HelperUsage() }
    exit(try mix(directory: arguments[2], process: process, operations: operations, threads: threads))
  case (4, "churn"):
    exit(try churn(directory: arguments[2], prefix: arguments[3]))
  case (2, "secure-heap-hmac"):
    _ = try SecureHeap.enable()
    let before = SecureHeap.bytesInUse
    var prepared: HMAC.Prepared? = try HMAC.Prepared(key: [UInt8](repeating: 7, count: 32))
    let inUse = SecureHeap.bytesInUse
    _ = try prepared?.authenticationCode(for: [1, 2, 3])
    prepared = nil
    FileHandle.standardOutput.write(Data("before \(before) prepared \(inUse) freed \(SecureHeap.bytesInUse)\n".utf8))
    exit(0)
  case (3, "upgrade"):
    _ = try KeychainStore(directory: URL(fileURLWithPath: arguments[2], isDirectory: true))
    FileHandle.standardOutput.write(Data("opened\n".utf8))
    exit(0)
  default:
    throw HelperUsage()
  }
} catch is HelperUsage {
  FileHandle.standardError.write(
    Data(
      ("usage: keychain-store-helper fill DIR MAX_BYTES | open DIR NAME | write DIR PREFIX "
        + "| mix DIR PROCESS OPERATIONS [THREADS] | churn DIR PREFIX | upgrade DIR | secure-heap-hmac\n").utf8))
  exit(2)
} catch {
  FileHandle.standardError.write(Data("keychain-store-helper: \(error)\n".utf8))
  exit(3)
}

struct HelperUsage: Error {}

import Foundation
import KeychainStorageMemory
import Testing

@testable import Security

/// The same random SecItem calls, through the API, over the SQLite storage and the in-memory one:
/// every status and every result must be the same. Apple's rules live above the storage contract,
/// so two storages that keep the contract give one keychain; a difference is a rule that leaked
/// into a storage, or a contract one of them does not keep. `KEYCHAIN_BRIDGE_STORAGE_DIFF_OPS`
/// raises the count (long mode).
@Suite struct StorageDifferential {
  static let operations =
    ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_STORAGE_DIFF_OPS"].flatMap(Int.init) ?? 400

  /// Attributes that differ between two runs by nature: the dates of the moment and the random
  /// persistent reference.
  static let unstable: Set<String> = [
    SecConstantValue.attrCreationDate, SecConstantValue.attrModificationDate, SecConstantValue.valuePersistentRef,
  ]

  /// A call's outcome, in a form two storages can be compared by.
  static func outcome(_ status: OSStatus, _ result: AnyObject?) -> String {
    "\(status) " + describe(result)
  }

  static func describe(_ value: Any?) -> String {
    switch value {
    case nil: return "nil"
    case let array as [Any]: return "[" + array.map(describe).joined(separator: ", ") + "]"
    case let dictionary as [String: Any]:
      return "{"
        + dictionary.filter { !unstable.contains($0.key) }.sorted { $0.key < $1.key }
        .map { "\($0.key): \(describe($0.value))" }.joined(separator: ", ") + "}"
    case let data as Data: return "data(\(data.map { String(format: "%02x", $0) }.joined()))"
    case let number as NSNumber: return "n\(number)"
    case let string as String: return "s\(string)"
    default: return "\(type(of: value!))"
    }
  }

  /// One random call, as a function of the generator's draws, run against the current context.
  static func randomCall(_ generator: inout SeededGenerator) -> (description: String, run: () -> String) {
    let internet = Bool.random(using: &generator)
    let account = ["alice", "bob", "carol"].randomElement(using: &generator)!
    let place = ["one.example", "two.example"].randomElement(using: &generator)!
    var query: [String: Any] = [
      kSecClass as String: internet ? kSecClassInternetPassword : kSecClassGenericPassword,
      (internet ? kSecAttrServer : kSecAttrService) as String: place,
    ]
    if Int.random(in: 0..<4, using: &generator) > 0 { query[kSecAttrAccount as String] = account }
    if Bool.random(using: &generator) {
      query[kSecAttrAccessGroup as String] = ["g1", "g2"].randomElement(using: &generator)!
    }
    switch Int.random(in: 0..<3, using: &generator) {
    case 0: query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
    case 1: query[kSecAttrSynchronizable as String] = true
    default: break
    }
    let data = Data(
      (0..<Int.random(in: 0..<12, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
    let label = ["red", "blue"].randomElement(using: &generator)!
    let protection =
      [
        kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlock,
        kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
      ]
      .randomElement(using: &generator)!
    let returns = Int.random(in: 0..<5, using: &generator)
    let all = Bool.random(using: &generator)
    switch Int.random(in: 0..<12, using: &generator) {
    case 0...3:
      var attributes = query
      attributes[kSecValueData as String] = data
      attributes[kSecAttrLabel as String] = label
      attributes[kSecAttrAccessible as String] = protection
      if attributes[kSecAttrSynchronizable as String] is CFString { attributes[kSecAttrSynchronizable as String] = nil }
      return (
        "add \(attributes.keys.sorted())",
        {
          outcome(SecItemAdd(attributes as CFDictionary, nil), nil)
        }
      )
    case 4...6:
      var search = query
      if returns & 1 != 0 { search[kSecReturnAttributes as String] = true }
      if returns & 2 != 0 { search[kSecReturnData as String] = true }
      if returns == 0 { search[kSecReturnAttributes as String] = true }
      search[kSecMatchLimit as String] = all ? kSecMatchLimitAll : kSecMatchLimitOne
      if Bool.random(using: &generator) { search[kSecAttrLabel as String] = label }
      return (
        "copy \(search.keys.sorted())",
        {
          var result: AnyObject?
          let status = SecItemCopyMatching(search as CFDictionary, &result)
          return outcome(status, result)
        }
      )
    case 7...8:
      var changes: [String: Any] = [kSecAttrLabel as String: label]
      if Bool.random(using: &generator) { changes[kSecValueData as String] = data }
      if Int.random(in: 0..<4, using: &generator) == 0 { changes[kSecAttrAccessible as String] = protection }
      // A new account moves the item onto another primary key, which may be taken.
      if Int.random(in: 0..<4, using: &generator) == 0 {
        changes[kSecAttrAccount as String] = ["alice", "bob", "carol"].randomElement(using: &generator)!
      }
      return (
        "update \(query.keys.sorted()) \(changes.keys.sorted())",
        {
          outcome(SecItemUpdate(query as CFDictionary, changes as CFDictionary), nil)
        }
      )
    case 9:
      return ("delete \(query.keys.sorted())", { outcome(SecItemDelete(query as CFDictionary), nil) })
    case 10:
      return ("lock", { "locked" })
    default:
      return ("unlock", { "unlocked" })
    }
  }

  @Test func theSameCallsOverBothStoragesGiveTheSameAnswers() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storage-diff-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let sqlite = try KeychainStore(directory: directory)
    let memory = KeychainStore(directory: directory.appendingPathComponent("memory"), storage: InMemoryItemStorage())
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    var differences: [String] = []
    for step in 0..<Self.operations {
      let (description, run) = Self.randomCall(&generator)
      var answers: [String] = []
      for store in [sqlite, memory] {
        switch description {
        case "lock": store.lock()
        case "unlock": _ = store.unlock()
        default: break
        }
        answers.append(withKeychainContext(store: store, accessGroups: ["g1", "g2"]) { run() })
      }
      if answers[0] != answers[1] {
        differences.append("step \(step) \(description): sqlite \(answers[0]) / memory \(answers[1])")
        if differences.count >= 5 { break }
      }
    }
    #expect(differences.isEmpty, "seed \(seed): \(differences.joined(separator: "\n"))")
  }
}

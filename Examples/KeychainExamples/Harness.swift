import Foundation
import Keychain
import Security

/// What an example may do besides keychain calls: act as another app, or lock the device.
public struct ExampleEnvironment {
  let store: KeychainStore
  /// The access groups of the app an example runs as by default.
  public static let defaultGroups = ["com.example.app"]

  /// Runs `body` as an app with these access groups.
  public func asApp<T>(_ groups: [String], _ body: () -> T) -> T {
    withKeychainContext(store: store, accessGroups: groups, body)
  }

  /// Locks the store, as a device locks.
  public func lockDevice() { store.lock() }

  /// Unlocks it again.
  public func unlockDevice() { store.unlock() }
}

/// A keychain task written twice: with the raw dictionary API and with the DSL.
public protocol KeychainExample {
  /// A short name for `--example`.
  static var name: String { get }
  /// What the task does.
  static var title: String { get }
  /// The source files of the two versions, for counting their lines.
  static var rawSource: String { get }
  static var dslSource: String { get }
  /// The raw version: returns a transcript of what it observed.
  static func raw(_ environment: ExampleEnvironment) -> [String]
  /// The DSL version: the same scenario, the same transcript if the two are equivalent.
  static func dsl(_ environment: ExampleEnvironment) -> [String]
}

/// Every example, in order.
public var allExamples: [any KeychainExample.Type] {
  [
    KeyValueStoreExample.self, PasswordWrapperExample.self, CodableReferencesExample.self,
    CoreFoundationHelperExample.self, LockStateExample.self, AccessGroupsExample.self, SearchExample.self,
    SigningKeyExample.self, ClientIdentityExample.self,
  ]
}

/// Both sides of an example, each against a fresh store.
public func runPair<Example: KeychainExample>(_ example: Example.Type) throws -> (raw: ExampleRun, dsl: ExampleRun) {
  (try runExample { Example.raw($0) }, try runExample { Example.dsl($0) })
}

/// One side of an example, run against a fresh store.
public struct ExampleRun {
  /// What the code observed, line by line.
  public var transcript: [String]
  /// Every SecItem call it made, with its dictionaries typed.
  public var calls: [KeychainCall]
  /// The store's contents afterwards, canonically.
  public var finalStore: [String]
  public var seconds: Double
}

/// Runs one side of an example in a temporary store.
public func runExample(_ body: (ExampleEnvironment) -> [String]) throws -> ExampleRun {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-example-\(UUID().uuidString)")
  defer { try? FileManager.default.removeItem(at: directory) }
  let store = try KeychainStore(directory: directory)
  let environment = ExampleEnvironment(store: store)
  let start = Date()
  let (transcript, calls) = recordingKeychainCalls {
    environment.asApp(ExampleEnvironment.defaultGroups) { body(environment) }
  }
  let seconds = Date().timeIntervalSince(start)
  store.unlock()
  return ExampleRun(
    transcript: transcript, calls: calls, finalStore: canonicalDump(store), seconds: seconds)
}

/// Every item of the store, one line each, sorted: attributes (without the dates and the
/// persistent reference, which differ between two runs) and data.
public func canonicalDump(_ store: KeychainStore) -> [String] {
  withKeychainContext(store: store, accessGroups: ["*"]) {
    var lines: [String] = []
    for itemClass in [kSecClassGenericPassword, kSecClassInternetPassword, kSecClassKey, kSecClassCertificate] {
      let query: [String: Any] = [
        kSecClass as String: itemClass, kSecMatchLimit as String: kSecMatchLimitAll,
        kSecReturnAttributes as String: true, kSecReturnData as String: true,
        kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
      ]
      var result: CFTypeRef?
      let status = SecItemCopyMatching(query as CFDictionary, &result)
      guard status == errSecSuccess, let items = result as? [NSDictionary] else {
        if status != errSecItemNotFound { lines.append("\(itemClass) dump failed: \(status)") }
        continue
      }
      for item in items {
        let fields = item.compactMap { key, value -> String? in
          // Dates differ between runs, and so do a generated key's bytes and the label derived from them.
          guard let key = key as? String, !["cdat", "mdat", "klbl", "v_Data", "sha1"].contains(key) else { return nil }
          guard let typed = KeychainValue(object: value) else { return "\(key)=?" }
          return "\(key)=\(typed)"
        }
        lines.append("\(itemClass) " + fields.sorted().joined(separator: " "))
      }
    }
    return lines.sorted()
  }
}

/// Lines of code in a file: not blank, not only a comment.
public func linesOfCode(_ path: String) -> Int {
  guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
  return text.split(separator: "\n").filter {
    let line = $0.trimmingCharacters(in: .whitespaces)
    return !line.isEmpty && !line.hasPrefix("//")
  }.count
}

/// Whether every DSL call's dictionaries equal, key by key and value by value with types, those of
/// a raw call to the same function (an upsert matches a raw update, which it replaces).
///
/// Persistent references are random per store, and each run generates its own keys, so each is
/// compared by identity within its run: the n-th distinct reference (or key) a run passes stands
/// for "persistent reference #n" (or "key #n").
public func dslCallsMatchRawCalls(dsl: [KeychainCall], raw: [KeychainCall]) -> (matches: Bool, unmatched: [String]) {
  let dsl = normalizingReferences(dsl)
  let raw = normalizingReferences(raw)
  var unmatched: [String] = []
  for call in dsl {
    let function = call.function == .upsert ? .update : call.function
    let found = raw.contains { candidate in
      candidate.function == function && candidate.dictionary == call.dictionary && candidate.changes == call.changes
    }
    if !found { unmatched.append(call.description) }
  }
  return (unmatched.isEmpty, unmatched)
}

/// The calls with every persistent reference and key replaced by its ordinal in the run.
func normalizingReferences(_ calls: [KeychainCall]) -> [KeychainCall] {
  var ordinals: [Data: Int] = [:]
  var keyOrdinals: [SecKey: Int] = [:]
  return calls.map { call in
    var call = call
    if case .data(let reference)? = call.dictionary[kSecValuePersistentRef] {
      let ordinal = ordinals[reference] ?? (ordinals.count + 1)
      ordinals[reference] = ordinal
      call.dictionary[kSecValuePersistentRef] = .string("persistent reference #\(ordinal)")
    }
    if case .key(let key)? = call.dictionary[kSecValueRef] {
      // Keys generated in each run differ; a key from the same file does not, but is numbered alike.
      let ordinal = keyOrdinals[key] ?? (keyOrdinals.count + 1)
      keyOrdinals[key] = ordinal
      call.dictionary[kSecValueRef] = .string("key #\(ordinal)")
    }
    return call
  }
}

/// "ok" or "error <status>", the same for both sides.
public func describe(_ status: OSStatus) -> String {
  status == errSecSuccess ? "ok" : "error \(status)"
}

/// "ok" or "error <status>" for a DSL result.
public func describe<T>(_ result: Result<T, KeychainError>) -> String {
  switch result {
  case .success: "ok"
  case .failure(let error): "error \(error.status)"
  }
}

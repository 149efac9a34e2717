import Foundation
import Keychain
import KeychainExamples
import Security
import Testing

/// Random operation sequences run through the DSL and through a hand-written raw translation, on
/// two stores, compared after every step. `KEYCHAIN_BRIDGE_DIFFERENTIAL_OPS` raises the count.
@Suite struct DifferentialTests {
  /// An item key drawn from small pools, so collisions and misses happen on purpose.
  struct Key: CustomStringConvertible {
    var internet: Bool
    var account: String
    var place: String
    var port: Int

    var description: String { internet ? "inet \(account)@\(place):\(port)" : "genp \(account)/\(place)" }

    var dsl: any KeychainRequest {
      if isBroad { return internet ? InternetPassword().server(place) : GenericPassword().service(place) }
      return internet
        ? InternetPassword().server(place).account(account).port(port)
        : GenericPassword().service(place).account(account)
    }

    var raw: [String: Any] {
      internet
        ? [
          kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: place,
          kSecAttrAccount as String: account, kSecAttrPort as String: port,
        ]
        : [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: place,
          kSecAttrAccount as String: account,
        ]
    }

    /// A partial query: only the class and the place (matches several items).
    var broad: Key { Key(internet: internet, account: "", place: place, port: -1) }
    var isBroad: Bool { account.isEmpty }
  }

  enum ReadShape: CaseIterable { case data, item, itemWithData, all, allWithData, reference, exists }

  enum Operation: CustomStringConvertible {
    case add(Key, Data?, label: String?)
    case read(Key, ReadShape)
    case update(Key, label: String?, data: Data?)
    case upsert(Key, Data)
    case delete(Key)
    case readByReference(Int, ReadShape)
    case updateByReference(Int, Data)
    case deleteByReference(Int)

    var description: String {
      switch self {
      case .add(let key, let data, let label): "add \(key) data=\(data?.count ?? -1) label=\(label ?? "-")"
      case .read(let key, let shape): "read \(key) \(shape)"
      case .update(let key, let label, let data): "update \(key) label=\(label ?? "-") data=\(data?.count ?? -1)"
      case .upsert(let key, let data): "upsert \(key) data=\(data.count)"
      case .delete(let key): "delete \(key)"
      case .readByReference(let index, let shape): "read ref#\(index) \(shape)"
      case .updateByReference(let index, let data): "update ref#\(index) data=\(data.count)"
      case .deleteByReference(let index): "delete ref#\(index)"
      }
    }
  }

  static func randomOperation(_ generator: inout some RandomNumberGenerator) -> Operation {
    var key = Key(
      internet: Bool.random(using: &generator), account: ["alice", "bob", "carol"].randomElement(using: &generator)!,
      place: ["one.example", "two.example"].randomElement(using: &generator)!,
      port: [443, 8443].randomElement(using: &generator)!)
    if Int.random(in: 0..<5, using: &generator) == 0 { key = key.broad }
    let data = Data(
      (0..<Int.random(in: 0..<24, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
    let label = Bool.random(using: &generator) ? ["red", "blue"].randomElement(using: &generator)! : nil
    let shape = ReadShape.allCases.randomElement(using: &generator)!
    let reference = Int.random(in: 0..<8, using: &generator)
    switch Int.random(in: 0..<11, using: &generator) {
    case 0, 1: return .add(key.isBroad ? key.broad : key, Bool.random(using: &generator) ? data : nil, label: label)
    case 2, 3: return .read(key, shape)
    case 4: return .update(key, label: label, data: Bool.random(using: &generator) ? data : nil)
    case 5: return .upsert(key.isBroad ? key.broad : key, data)
    case 6: return .delete(key)
    case 7, 8: return .readByReference(reference, shape)
    case 9: return .updateByReference(reference, data)
    default: return .deleteByReference(reference)
    }
  }

  /// One side's state: its store and the persistent references it has seen, in order.
  final class Side {
    let store: KeychainStore
    let directory: URL
    var references: [Data] = []

    init() throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-diff-\(UUID().uuidString)")
      store = try KeychainStore(directory: directory)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// "#n" for a reference seen before, a new ordinal otherwise: refs differ between stores.
    func ordinal(_ reference: Data?) -> String {
      guard let reference else { return "none" }
      if let index = references.firstIndex(of: reference) { return "#\(index)" }
      references.append(reference)
      return "#\(references.count - 1)"
    }
  }

  /// What a step observed, comparable across the two sides.
  static func describeItem(
    _ side: Side, account: String?, label: String?, reference: Data?, data: Data?, withData: Bool
  ) -> String {
    "item(\(account ?? "?"), label=\(label ?? "-"), ref=\(side.ordinal(reference))"
      + (withData ? ", data=\(data.map { Array($0) } ?? [])" : "") + ")"
  }

  // MARK: The DSL side

  static func runDSL(_ operation: Operation, _ side: Side) -> String {
    withKeychainContext(store: side.store, accessGroups: ["diff"]) { dslStep(operation, side) }
  }

  static func outcome<T>(_ result: Result<T, KeychainError>, _ describe: (T) -> String) -> String {
    switch result {
    case .success(let value): describe(value)
    case .failure(let error): "error \(error.status)"
    }
  }

  static func dslRead<Request: KeychainRequest>(_ request: Request, _ shape: ReadShape, _ side: Side) -> String {
    func item(_ item: Request.Item, withData: Bool) -> String {
      let attributes = Mirror(reflecting: item).children
      let account = attributes.first { $0.label == "account" }?.value as? String
      let label = attributes.first { $0.label == "label" }?.value as? String
      return describeItem(
        side, account: account, label: label, reference: item.persistentReference?.data, data: item.data,
        withData: withData)
    }
    switch shape {
    case .data: return outcome(request.data()) { $0.map { "data \(Array($0))" } ?? "absent" }
    case .item: return outcome(request.item()) { $0.map { item($0, withData: false) } ?? "absent" }
    case .itemWithData:
      return outcome(request.item(includingData: true)) { $0.map { item($0, withData: true) } ?? "absent" }
    case .all:
      return outcome(request.all()) { "[" + $0.map { item($0, withData: false) }.joined(separator: ", ") + "]" }
    case .allWithData:
      return outcome(request.all(includingData: true)) {
        "[" + $0.map { item($0, withData: true) }.joined(separator: ", ") + "]"
      }
    case .reference: return outcome(request.reference()) { $0.map { "ref \(side.ordinal($0.data))" } ?? "absent" }
    case .exists: return outcome(request.exists()) { "exists \($0)" }
    }
  }

  static func dslStep(_ operation: Operation, _ side: Side) -> String {
    func labelled<Request: KeychainRequest>(_ request: Request, _ label: String?) -> Request {
      guard let label else { return request }
      return request.merging(Request.Changes(attributes: KeychainDictionary([kSecAttrLabel as String: .string(label)])))
    }
    func reference(_ index: Int) -> PersistentReference? {
      side.references.indices.contains(index) ? PersistentReference(side.references[index]) : nil
    }
    func open<Request: KeychainRequest>(_ request: Request) -> String {
      switch operation {
      case .add(_, let data, let label): return outcome(labelled(request, label).add(data)) { "ok" }
      case .read(_, let shape): return dslRead(request, shape, side)
      case .update(_, let label, let data):
        let changes = label.map {
          Request.Changes(attributes: KeychainDictionary([kSecAttrLabel as String: .string($0)]))
        }
        return outcome(request.update(changes, data: data)) { "updated \($0)" }
      case .upsert(_, let data): return outcome(request.set(data)) { "ok" }
      case .delete: return outcome(request.delete()) { "deleted \($0)" }
      default: return "unreachable"
      }
    }
    switch operation {
    case .add(let key, _, _), .read(let key, _), .update(let key, _, _), .upsert(let key, _), .delete(let key):
      return open(key.dsl)
    case .readByReference(let index, let shape):
      guard let reference = reference(index) else { return "no reference" }
      return dslRead(GenericPasswordOrInternet(reference: reference), shape, side)
    case .updateByReference(let index, let data):
      guard let reference = reference(index) else { return "no reference" }
      return outcome(GenericPasswordOrInternet(reference: reference).update(data: data)) { "updated \($0)" }
    case .deleteByReference(let index):
      guard let reference = reference(index) else { return "no reference" }
      return outcome(GenericPasswordOrInternet(reference: reference).delete()) { "deleted \($0)" }
    }
  }

  // MARK: The raw side

  static func runRaw(_ operation: Operation, _ side: Side) -> String {
    withKeychainContext(store: side.store, accessGroups: ["diff"]) { rawStep(operation, side) }
  }

  static func rawRead(_ base: [String: Any], _ shape: ReadShape, _ side: Side) -> String {
    var query = base
    func item(_ dictionary: [String: Any], withData: Bool) -> String {
      describeItem(
        side, account: dictionary[kSecAttrAccount as String] as? String,
        label: dictionary[kSecAttrLabel as String] as? String,
        reference: dictionary[kSecValuePersistentRef as String] as? Data,
        data: dictionary[kSecValueData as String] as? Data,
        withData: withData)
    }
    switch shape {
    case .data: query[kSecReturnData as String] = true
    case .item, .all: query[kSecReturnAttributes as String] = true; query[kSecReturnPersistentRef as String] = true
    case .itemWithData, .allWithData:
      query[kSecReturnAttributes as String] = true; query[kSecReturnPersistentRef as String] = true
      query[kSecReturnData as String] = true
    case .reference: query[kSecReturnPersistentRef as String] = true
    case .exists: break
    }
    if shape != .exists {
      query[kSecMatchLimit as String] = (shape == .all || shape == .allWithData) ? kSecMatchLimitAll : kSecMatchLimitOne
    }
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    if status == errSecItemNotFound {
      switch shape {
      case .all, .allWithData: return "[]"
      case .exists: return "exists false"
      default: return "absent"
      }
    }
    guard status == errSecSuccess else { return "error \(status)" }
    switch shape {
    case .data: return "data \(Array(result as! Data))"
    case .item: return item(result as! [String: Any], withData: false)
    case .itemWithData: return item(result as! [String: Any], withData: true)
    case .all: return "[" + (result as! [[String: Any]]).map { item($0, withData: false) }.joined(separator: ", ") + "]"
    case .allWithData:
      return "[" + (result as! [[String: Any]]).map { item($0, withData: true) }.joined(separator: ", ") + "]"
    case .reference: return "ref \(side.ordinal(result as? Data))"
    case .exists: return "exists true"
    }
  }

  static func rawStep(_ operation: Operation, _ side: Side) -> String {
    func reference(_ index: Int) -> [String: Any]? {
      side.references.indices.contains(index) ? [kSecValuePersistentRef as String: side.references[index]] : nil
    }
    func changed(_ status: OSStatus, _ word: String) -> String {
      status == errSecSuccess ? "\(word) true" : status == errSecItemNotFound ? "\(word) false" : "error \(status)"
    }
    switch operation {
    case .add(let key, let data, let label):
      var attributes = key.isBroad ? key.broad.rawBroad : key.raw
      if let data { attributes[kSecValueData as String] = data }
      if let label { attributes[kSecAttrLabel as String] = label }
      let status = SecItemAdd(attributes as CFDictionary, nil)
      return status == errSecSuccess ? "ok" : "error \(status)"
    case .read(let key, let shape):
      return rawRead(key.isBroad ? key.rawBroad : key.raw, shape, side)
    case .update(let key, let label, let data):
      var changes: [String: Any] = [:]
      if let label { changes[kSecAttrLabel as String] = label }
      if let data { changes[kSecValueData as String] = data }
      return changed(
        SecItemUpdate((key.isBroad ? key.rawBroad : key.raw) as CFDictionary, changes as CFDictionary), "updated")
    case .upsert(let key, let data):
      // The item's identity: its primary key, with the values an add gives the parts left out.
      var query = key.isBroad ? key.rawBroad : key.raw
      let defaults: [String: Any] =
        key.internet
        ? [
          kSecAttrAccount as String: "", kSecAttrSecurityDomain as String: "", kSecAttrProtocol as String: 0,
          kSecAttrAuthenticationType as String: "", kSecAttrPort as String: 0, kSecAttrPath as String: "",
        ]
        : [kSecAttrAccount as String: "", kSecAttrService as String: ""]
      query.merge(defaults) { given, _ in given }
      var status = SecItemUpdate(query as CFDictionary, [kSecValueData as String: data] as CFDictionary)
      if status == errSecItemNotFound {
        var attributes = query
        attributes[kSecValueData as String] = data
        status = SecItemAdd(attributes as CFDictionary, nil)
      }
      return status == errSecSuccess ? "ok" : "error \(status)"
    case .delete(let key):
      return changed(SecItemDelete((key.isBroad ? key.rawBroad : key.raw) as CFDictionary), "deleted")
    case .readByReference(let index, let shape):
      guard let query = reference(index) else { return "no reference" }
      return rawRead(query, shape, side)
    case .updateByReference(let index, let data):
      guard let query = reference(index) else { return "no reference" }
      return changed(SecItemUpdate(query as CFDictionary, [kSecValueData as String: data] as CFDictionary), "updated")
    case .deleteByReference(let index):
      guard let query = reference(index) else { return "no reference" }
      return changed(SecItemDelete(query as CFDictionary), "deleted")
    }
  }

  // MARK: Running and shrinking

  /// Runs a sequence on two fresh stores; returns the index and both outcomes of the first step
  /// that differs (the final stores count as a last step), or nil when they agree throughout.
  static func firstDifference(_ operations: [Operation]) throws -> (index: Int, dsl: String, raw: String)? {
    let dslSide = try Side()
    let rawSide = try Side()
    for (index, operation) in operations.enumerated() {
      let dsl = runDSL(operation, dslSide)
      let raw = runRaw(operation, rawSide)
      if dsl != raw { return (index, dsl, raw) }
    }
    let dslStore = canonicalDump(dslSide.store)
    let rawStore = canonicalDump(rawSide.store)
    return dslStore == rawStore
      ? nil : (operations.count, dslStore.joined(separator: "\n"), rawStore.joined(separator: "\n"))
  }

  /// The shortest failing prefix, then greedily without each operation that is not needed.
  static func shrink(_ operations: [Operation], failingAt index: Int) throws -> [Operation] {
    var sequence = Array(operations.prefix(index + 1))
    var position = 0
    while position < sequence.count {
      var candidate = sequence
      candidate.remove(at: position)
      if try firstDifference(candidate) != nil { sequence = candidate } else { position += 1 }
    }
    return sequence
  }

  static var operationCount: Int {
    ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_DIFFERENTIAL_OPS"].flatMap(Int.init) ?? 10_000
  }

  @Test func randomSequencesBehaveTheSameThroughTheDSLAndTheRawAPI() throws {
    let sequenceLength = 400
    let sequences = max(1, Self.operationCount / sequenceLength)
    var executed = 0
    for sequence in 0..<sequences {
      let seed = UInt64(20_261_121 + sequence)
      var generator = SeededRandom(seed: seed)
      let operations = (0..<sequenceLength).map { _ in Self.randomOperation(&generator) }
      executed += operations.count
      if let difference = try Self.firstDifference(operations) {
        let shortest = try Self.shrink(operations, failingAt: difference.index)
        Issue.record(
          """
          seed \(seed): step \(difference.index) differs
            DSL: \(difference.dsl)
            raw: \(difference.raw)
          shortest failing sequence (\(shortest.count) operations):
          \(shortest.map { "  \($0)" }.joined(separator: "\n"))
          """)
        return
      }
    }
    print("differential: \(executed) operations in \(sequences) sequences, 0 differences")
    #expect(executed >= min(10_000, Self.operationCount))
  }
}

extension DifferentialTests.Key {
  /// The raw form of a broad key: class and place only.
  var rawBroad: [String: Any] {
    internet
      ? [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: place]
      : [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: place]
  }
}

/// A persistent-reference request for either password class: the reference carries the class, so
/// the query holds only `kSecValuePersistentRef`, as the raw side passes it.
struct GenericPasswordOrInternet: KeychainRequest {
  typealias Item = GenericPasswordItem
  typealias Changes = GenericPassword.Changes
  static var itemClass: CFString { kSecClassGenericPassword }
  let attributes: KeychainDictionary
  let persistentReference: PersistentReference?
  init(attributes: KeychainDictionary, persistentReference: PersistentReference?) {
    self.attributes = attributes
    self.persistentReference = persistentReference
  }
  /// No kSecClass: the reference alone says which class.
  var dictionary: KeychainDictionary {
    attributes.setting(kSecValuePersistentRef, persistentReference.map { .data($0.data) })
  }
}

/// A deterministic generator (SplitMix64), so a failure replays from its seed.
struct SeededRandom: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

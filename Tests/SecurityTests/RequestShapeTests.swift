import Foundation
import Synchronization
import Testing

@testable import Security

/// Requests are parsed with the key roles of a shape seen before (issue 34's compiled queries):
/// the outcome must be the one of classifying every key again, whatever the keys, values and order.
@Suite struct RequestShapeTests {
  /// What a parse produced, in words: the error with its detail, or every field the calls read.
  static func outcome(_ entries: [(String, Any)], shapes: RequestShapes?) -> String {
    do throws(SecStatus) {
      let request = try ItemRequest(entries: Self.typed(entries), shapes: shapes)
      return [
        "class \(String(describing: request.itemClass))",
        "attributes \(request.attributes.sorted { $0.key < $1.key })",
        "returns \(request.returnFlags.rawValue) limit \(String(describing: request.limit))",
        "match \(request.matchKeys.sorted()) host \(String(describing: request.hostOrSubdomain))",
        "use \(request.useKeys.keys.sorted()) data \(String(describing: request.valueData))",
        "any \(request.synchronizableAny) control \(request.accessControl != nil)",
      ].joined(separator: "; ")
    } catch {
      return "error \(error.code) \(error.detail ?? "")"
    }
  }

  /// Entries as Apple's CF functions hand them over: each value classified as it is read.
  static func typed(_ entries: [(String, Any)]) -> RequestEntries { entries.map { ($0, RequestValue($1)) } }

  /// Keys and the values each may take, a valid one first, then values of the wrong type and nulls;
  /// keys with one value are rarer, among them keys that are never valid.
  static var pool: [(String, [Any])] {
    [
      (kSecClass as String, [kSecClassGenericPassword as String, kSecClassInternetPassword as String, "nope", 7]),
      (kSecAttrAccount as String, ["alice", Data([1]), NSNull(), 3]),
      (kSecAttrService as String, ["svc", true]),
      (kSecAttrServer as String, ["example.com", Data([2])]),
      (kSecAttrSynchronizable as String, [true, kSecAttrSynchronizableAny as String, "x"]),
      (kSecAttrLabel as String, ["label", 1]),
      (kSecAttrCreationDate as String, [Date(timeIntervalSinceReferenceDate: 5), "yesterday"]),
      (kSecMatchLimit as String, [kSecMatchLimitAll as String, 5, true, 0]),
      (kSecReturnData as String, [true, false, "yes"]),
      (kSecReturnAttributes as String, [true, "no"]),
      (kSecUseAuthenticationUI as String, [kSecUseAuthenticationUIFail as String, "sometimes", NSNull()]),
      (kSecValueData as String, [Data([9, 9]), "text"]),
      ("r_Bogus", [true]),
      ("zzzz", ["no such attribute"]),
      ("f_callback", [1]),
    ]
  }

  @Test func everyOutcomeIsThatOfClassifyingEachKey() {
    var generator = SeededGenerator(seed: 34)
    let shapes = RequestShapes()
    let pool = Self.pool
    var parsed = 0
    for _ in 0..<3000 {
      var entries: [(String, Any)] = []
      for (key, values) in pool where Int.random(in: 0..<(values.count > 1 ? 2 : 8), using: &generator) == 0 {
        // The first value is a valid one: taken most of the time, so that many requests parse.
        let valid = Int.random(in: 0..<4, using: &generator) > 0
        entries.append((key, valid ? values[0] : values.randomElement(using: &generator)!))
      }
      entries.shuffle(using: &generator)
      let expected = Self.outcome(entries, shapes: nil)
      if !expected.hasPrefix("error") { parsed += 1 }
      // The first parse may decide the shape, the second uses it.
      #expect(Self.outcome(entries, shapes: shapes) == expected, "\(entries.map(\.0))")
      #expect(Self.outcome(entries.reversed(), shapes: shapes) == Self.outcome(entries.reversed(), shapes: nil))
    }
    // Both kinds are compared: requests that parse and requests that fail.
    #expect(parsed > 100 && parsed < 2900, "\(parsed) of 3000 parsed")
    #expect(shapes.count > 0)
  }

  @Test func oneShapeServesEveryOrderOfItsKeys() throws {
    let shapes = RequestShapes()
    let entries: [(String, Any)] = [
      (kSecClass as String, kSecClassGenericPassword as String), (kSecAttrAccount as String, "alice"),
      (kSecReturnData as String, true), (kSecMatchLimit as String, kSecMatchLimitOne as String),
    ]
    _ = try ItemRequest(entries: Self.typed(entries), shapes: shapes)
    _ = try ItemRequest(entries: Self.typed(entries.reversed()), shapes: shapes)
    _ = try ItemRequest(entries: Self.typed([entries[2], entries[0], entries[3], entries[1]]), shapes: shapes)
    #expect(shapes.count == 1)
    // One key more or less is another shape.
    _ = try ItemRequest(entries: Self.typed(Array(entries.dropLast())), shapes: shapes)
    #expect(shapes.count == 2)
  }

  @Test func aShapeIsDecidedPerClass() throws {
    let shapes = RequestShapes()
    let generic: [(String, Any)] = [
      (kSecClass as String, kSecClassGenericPassword as String), (kSecAttrService as String, "svc"),
    ]
    _ = try ItemRequest(entries: Self.typed(generic), shapes: shapes)
    // Internet passwords have no service attribute: the generic password's shape must not serve.
    let internet: [(String, Any)] = [
      (kSecClass as String, kSecClassInternetPassword as String), (kSecAttrService as String, "svc"),
    ]
    #expect(throws: SecStatus.noSuchAttribute) { try ItemRequest(entries: Self.typed(internet), shapes: shapes) }
  }

  @Test func invalidKeySetsAreNotKeptAndTheCacheIsBounded() throws {
    let shapes = RequestShapes()
    let invalid: [(String, Any)] = [(kSecClass as String, kSecClassGenericPassword as String), ("r_Bogus", true)]
    #expect(throws: SecStatus.param) { try ItemRequest(entries: Self.typed(invalid), shapes: shapes) }
    #expect(shapes.count == 0)
    for index in 0..<(RequestShapes.capacity + 8) {
      // Each count of callback keys is another key set.
      var entries: [(String, Any)] = [(kSecClass as String, kSecClassGenericPassword as String)]
      for callback in 0...index { entries.append(("f_callback\(callback)", 1)) }
      _ = try ItemRequest(entries: Self.typed(entries), shapes: shapes)
    }
    #expect(shapes.count == RequestShapes.capacity)
  }

  @Test func threadsKeepTheirOwnShapes() {
    let shapes = RequestShapes()
    let mismatches = Mutex(0)
    // Four threads parse the same requests at once, each deciding the shapes it meets.
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      var generator = SeededGenerator(seed: 100 + UInt64(thread))
      let pool = Self.pool
      for _ in 0..<300 {
        var entries: [(String, Any)] = [(kSecClass as String, kSecClassGenericPassword as String)]
        for (key, values) in pool.dropFirst() where Bool.random(using: &generator) {
          entries.append((key, values[0]))
        }
        if Self.outcome(entries, shapes: shapes) != Self.outcome(entries, shapes: nil) {
          mismatches.withLock { $0 += 1 }
        }
      }
    }
    #expect(mismatches.withLock { $0 } == 0)
  }
}

import Foundation
import Keychain
import KeychainExamples
import Testing

/// Every example pair: the same dictionaries (static), and the same results and final store (dynamic).
@Suite struct ExampleEquivalenceTests {
  static let names = allExamples.map { $0.name }

  static func pair(_ name: String) throws -> (raw: ExampleRun, dsl: ExampleRun) {
    let example = try #require(allExamples.first { $0.name == name })
    return try runPair(example)
  }

  @Test(arguments: names)
  func everyDSLCallLowersToTheDictionaryTheRawVersionPasses(name: String) throws {
    let (raw, dsl) = try Self.pair(name)
    #expect(!dsl.calls.isEmpty)
    let match = dslCallsMatchRawCalls(dsl: dsl.calls, raw: raw.calls)
    #expect(match.matches, "\(match.unmatched.joined(separator: "\n\n"))")
  }

  @Test(arguments: names)
  func bothVersionsObserveTheSameResultsAndLeaveTheSameStore(name: String) throws {
    let (raw, dsl) = try Self.pair(name)
    #expect(raw.transcript == dsl.transcript)
    #expect(raw.finalStore == dsl.finalStore)
    #expect(raw.calls.map(\.status) != [] && dsl.calls.map(\.status) != [])
  }

  @Test func theDSLIsShorterInEveryExample() {
    for example in allExamples {
      #expect(linesOfCode(example.dslSource) < linesOfCode(example.rawSource), "\(example.name)")
    }
  }

  @Test func deleteThenAddLosesTheSecretThatTheAtomicSetKeeps() throws {
    let naive = try runExample { LockStateExample.rawDeleteThenAdd($0) }
    #expect(naive.transcript.last == "read after unlock: error \(KeychainError.itemNotFound.status)")
    let (_, dsl) = try runPair(LockStateExample.self)
    #expect(dsl.transcript.last == "read after unlock: original")
  }

  @Test func theDictionaryComparisonNoticesADifferentValueType() throws {
    let dsl = KeychainCall(
      function: .add, dictionary: KeychainDictionary(["port": .integer(443)]), changes: nil, status: 0)
    let raw = KeychainCall(
      function: .add, dictionary: KeychainDictionary(["port": .string("443")]), changes: nil, status: 0)
    #expect(!dslCallsMatchRawCalls(dsl: [dsl], raw: [raw]).matches)
    #expect(dslCallsMatchRawCalls(dsl: [dsl], raw: [dsl]).matches)
  }
}

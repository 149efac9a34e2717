import ArgumentParser
import Foundation
import Keychain
import KeychainExamples

@main
struct KeychainExamplesCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keychain-examples",
    abstract: "Runs every example with the raw API and with the DSL, on fresh stores, and compares them.",
    discussion: "Exits non-zero if any pair differs in its dictionaries, its results or the store it leaves.")

  @Option(help: "Run one example and print both versions' dictionaries side by side.")
  var example: String?

  func run() throws {
    if let name = example {
      guard let example = allExamples.first(where: { $0.name == name }) else {
        throw ValidationError(
          "no example named \(name); the examples: \(allExamples.map { $0.name }.joined(separator: ", "))")
      }
      try detail(example)
      return
    }
    var rows: [[String]] = []
    var allEqual = true
    for example in allExamples {
      let (raw, dsl) = try runPair(example)
      let dictionaries = dslCallsMatchRawCalls(dsl: dsl.calls, raw: raw.calls).matches
      let results = raw.transcript == dsl.transcript
      let store = raw.finalStore == dsl.finalStore
      allEqual = allEqual && dictionaries && results && store
      rows.append([
        example.name, String(linesOfCode(example.rawSource)), String(linesOfCode(example.dslSource)),
        yes(dictionaries), yes(results), yes(store), milliseconds(raw.seconds), milliseconds(dsl.seconds),
      ])
    }
    printTable(
      [
        "example", "LOC raw", "LOC DSL", "same dictionaries", "same results", "same final store", "time raw",
        "time DSL",
      ],
      rows)
    guard allEqual else {
      print("\nSome pair differs: run with --example NAME to see where.")
      throw ExitCode.failure
    }
    print("\nEvery pair is equivalent.")
  }

  func yes(_ value: Bool) -> String { value ? "yes" : "NO" }
  func milliseconds(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }

  func printTable(_ header: [String], _ rows: [[String]]) {
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max()! }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: " | ")
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "-|-"))
    rows.forEach { print(line($0)) }
  }

  /// One example: both transcripts and every call's dictionaries, raw on the left, DSL on the right.
  func detail(_ example: any KeychainExample.Type) throws {
    let (raw, dsl) = try runPair(example)
    print("\(example.name): \(example.title)\n")
    printColumns(
      "raw (\(linesOfCode(example.rawSource)) lines)", raw.transcript, "DSL (\(linesOfCode(example.dslSource)) lines)",
      dsl.transcript)
    print("\nSecItem calls:")
    let count = max(raw.calls.count, dsl.calls.count)
    for index in 0..<count {
      let left = raw.calls.indices.contains(index) ? describe(raw.calls[index]) : []
      let right = dsl.calls.indices.contains(index) ? describe(dsl.calls[index]) : []
      print("")
      printColumns("raw call \(index + 1)", left, "DSL call \(index + 1)", right)
    }
    let match = dslCallsMatchRawCalls(dsl: dsl.calls, raw: raw.calls)
    print(
      "\nsame dictionaries: \(yes(match.matches)); same results: \(yes(raw.transcript == dsl.transcript)); "
        + "same final store: \(yes(raw.finalStore == dsl.finalStore))")
    for unmatched in match.unmatched { print("DSL call without a raw equal:\n\(unmatched)") }
    if example == LockStateExample.self {
      print("\nThe same scenario with delete-then-add, as much raw code replaces secrets:")
      try runExample { LockStateExample.rawDeleteThenAdd($0) }.transcript.forEach { print("  \($0)") }
    }
  }

  func describe(_ call: KeychainCall) -> [String] {
    var lines = ["\(call.function.rawValue) -> \(call.status)"]
    lines += call.dictionary.lines.map { "  \($0)" }
    if let changes = call.changes {
      lines.append("  attributesToUpdate:")
      lines += changes.lines.map { "    \($0)" }
    }
    return lines
  }

  func printColumns(_ leftTitle: String, _ left: [String], _ rightTitle: String, _ right: [String]) {
    let width = max(44, ([leftTitle] + left).map(\.count).max() ?? 0)
    let rows =
      [(leftTitle, rightTitle)]
      + (0..<max(left.count, right.count)).map {
        (left.indices.contains($0) ? left[$0] : "", right.indices.contains($0) ? right[$0] : "")
      }
    for (l, r) in rows { print(l.padding(toLength: width, withPad: " ", startingAt: 0) + " | " + r) }
  }
}

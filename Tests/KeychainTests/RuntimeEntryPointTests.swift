import Foundation
import Testing

/// The typed API reaches the runtime through the wrappers secgen generates (`KeychainFunctions`).
/// The hand-written Keychain sources may call a SecItem entry point directly only where issue 29's
/// engine work has not replaced the call yet; this list only shrinks, and a new direct call fails.
@Suite struct RuntimeEntryPoints {
  /// The entry points the hand-written code still calls: none. The list stays, so that a bypass
  /// added later has to be written down here and argued for.
  static let remainingDirectCalls: Set<String> = []

  @Test func theHandWrittenKeychainCodeCallsNoOtherEntryPoint() throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Sources/Keychain")
    let walker = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
    var called: [String: [String]] = [:]
    for case let url as URL in walker where url.pathExtension == "swift" {
      let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
      for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
        let entryPoints =
          #/\b(SecItem(?:Add|CopyMatching|Update|Delete|Upsert|Import)(?:Entries)?|SecItemCallEntries)\(/#
        for match in line.matches(of: entryPoints) {
          called[String(match.1), default: []].append("\(url.lastPathComponent):\(number + 1)")
        }
      }
    }
    let unexpected = called.filter { !Self.remainingDirectCalls.contains($0.key) }
    #expect(unexpected.isEmpty, "direct calls that should go through KeychainFunctions: \(unexpected)")
    // A name that is no longer called comes off the list, so the list stays the truth.
    #expect(Set(called.keys) == Self.remainingDirectCalls, "\(called)")
  }
}

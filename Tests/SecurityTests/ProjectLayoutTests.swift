import Foundation
import Testing

/// Files by job: a hand-written source file over 500 lines almost always holds more than one job.
/// What secgen generates (Sources/Security/Generated) is exempt, and so is the runtime's C table of
/// constant definitions (Sources/Security/Definitions), one table that secgen reads as data.
@Suite struct ProjectLayout {
  @Test func noHandWrittenSourceFileIsOver500Lines() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    var long: [String] = []
    var counted = 0
    for folder in ["Sources", "Generator"] {
      let walker = try #require(
        FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil))
      for case let url as URL in walker where url.pathExtension == "swift" {
        guard !url.path.contains("/Generated/") else { continue }
        let lines = try String(contentsOf: url, encoding: .utf8).split(
          separator: "\n", omittingEmptySubsequences: false)
        counted += 1
        if lines.count > 500 { long.append("\(url.path.dropFirst(root.path.count + 1)): \(lines.count) lines") }
      }
    }
    #expect(counted > 100)
    #expect(long.isEmpty, "\(long)")
  }
}

import Foundation
import Testing

/// The specification lives in the repository, as DocC articles of Security: every citation in code,
/// tests and the README names a rule that exists there, and nothing points outside the repository.
@Suite struct SpecificationCitations {
  private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  private static let catalog = root.appendingPathComponent("Sources/Security/Security.docc")

  /// Every text file a reader of the project meets, by path relative to the root.
  private static func projectFiles() throws -> [(path: String, text: String)] {
    let folders = ["Sources", "Tests", "Generator", "Templates", "Plugins", "Examples", "Benchmarks", "scripts"]
    let extensions: Set<String> = ["swift", "c", "h", "md", "stencil", "sh", "json", "yaml"]
    var files: [(String, String)] = []
    for name in ["README.md", "Makefile"] {
      files.append((name, try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)))
    }
    for folder in folders {
      let base = root.appendingPathComponent(folder)
      guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
      for case let url as URL in walker where extensions.contains(url.pathExtension) {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
        files.append((String(url.path.dropFirst(root.path.count + 1)), text))
      }
    }
    return files
  }

  /// The numbers of an article's rules: its sections ("7", "5.1") and the numbered items under
  /// each ("7.18", "5.1.5").
  static func ruleNumbers(inArticle text: String) -> Set<String> {
    var numbers: Set<String> = []
    var section: String?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("#"), let match = line.firstMatch(of: #/^#+ (\d+(?:\.\d+)*)\.? /#) {
        section = String(match.1)
        numbers.insert(String(match.1))
      } else if let section, let match = line.firstMatch(of: #/^(\d+)\. /#) {
        numbers.insert("\(section).\(match.1)")
      }
    }
    return numbers
  }

  @Test func nothingPointsOutsideTheRepository() throws {
    // The names the specification had outside, spelled in pieces so this file does not match.
    let outside =
      ["shared" + "/spec", "../" + "shared"] + ["keys", "keychain"].map { $0 + "-semantics.md" }
      + ["keys-implementation-notes", "header-conventions"].map { $0 + ".md" }
    var found: [String] = []
    for (path, text) in try Self.projectFiles() {
      for name in outside where text.contains(name) { found.append("\(path): \(name)") }
    }
    #expect(found.isEmpty, "\(found)")
  }

  @Test func everyKeysRuleCitedExists() throws {
    let rules = Self.ruleNumbers(
      inArticle: try String(contentsOf: Self.catalog.appendingPathComponent("KeysSemantics.md"), encoding: .utf8))
    #expect(rules.contains("7.18") && rules.contains("5.1.5") && rules.contains("8"))
    var missing: [String] = []
    var cited = 0
    for (path, text) in try Self.projectFiles() {
      for match in text.matches(of: /keys rules?\s+(?:\/\/+\s*)?(\d+(?:\.\d+)*)/) {
        cited += 1
        if !rules.contains(String(match.1)) { missing.append("\(path): keys rule \(match.1)") }
      }
    }
    #expect(cited > 20)
    #expect(missing.isEmpty, "\(missing)")
  }

  @Test func everySecItemRuleCitedExists() throws {
    let rules = Self.ruleNumbers(
      inArticle: try String(contentsOf: Self.catalog.appendingPathComponent("KeychainSemantics.md"), encoding: .utf8))
    #expect(rules.contains("5.2") && rules.contains("16.1"))
    var missing: [String] = []
    var cited = 0
    for (path, text) in try Self.projectFiles() {
      // "keys rule 7.18" cites the other article.
      for match in text.matches(of: /([Kk]eys )?\b[Rr]ules?\s+(?:\/\/+\s*)?(\d+(?:\.\d+)*)/) where match.1 == nil {
        cited += 1
        if !rules.contains(String(match.2)) { missing.append("\(path): rule \(match.2)") }
      }
    }
    #expect(cited > 100)
    #expect(missing.isEmpty, "\(missing)")
  }

  @Test func everyKeysDecisionCitedExists() throws {
    let article = try String(contentsOf: Self.catalog.appendingPathComponent("KeysSemantics.md"), encoding: .utf8)
    let decisions = Set(article.matches(of: /^\| (D\d+) \|/.anchorsMatchLineEndings()).map { String($0.1) })
    #expect(decisions.count >= 11)
    var missing: [String] = []
    for (path, text) in try Self.projectFiles() {
      for match in text.matches(of: /decision (D\d+)/) where !decisions.contains(String(match.1)) {
        missing.append("\(path): decision \(match.1)")
      }
    }
    #expect(missing.isEmpty, "\(missing)")
  }
}

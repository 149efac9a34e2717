import Foundation
import Testing

/// What a newcomer reads first (issue 67): the README names articles by links whose text is the
/// article's own title, and neither it nor the how-to articles cite internal numbers (issues,
/// decisions), which only the specification articles keep.
@Suite("The README and the how-to articles")
struct ReadmeLinkTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
    .standardizedFileURL

  static func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// Every catalog article's path (from the root) and its title.
  static func articles() throws -> [(path: String, title: String)] {
    var found: [(String, String)] = []
    for catalog in ["Security/Security.docc", "Keychain/Keychain.docc", "KeychainSync/KeychainSync.docc"] {
      let folder = root.appendingPathComponent("Sources/\(catalog)")
      for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".md") {
        let first = try text("Sources/\(catalog)/\(name)").split(separator: "\n").first.map(String.init) ?? ""
        if first.hasPrefix("# "), !first.hasPrefix("# ``") {
          found.append(("Sources/\(catalog)/\(name)", String(first.dropFirst(2))))
        }
      }
    }
    return found
  }

  @Test("Every article the README links to exists and is linked by its own title; none is named unlinked")
  func articleLinksResolve() throws {
    let readme = try Self.text("README.md")
    let articles = try Self.articles()
    let links = readme.matches(of: /\[([^\]]+)\]\((Sources\/[^)]+\.md)\)/)
    #expect(links.count >= 15, "the README links its articles")
    for link in links {
      let path = String(link.2)
      let article = articles.first { $0.path == path }
      #expect(article != nil, "\(path) is not an article")
      #expect(
        article?.title == String(link.1),
        "the link to \(path) reads “\(link.1)”, its title is “\(article?.title ?? "")”")
    }
    for quoted in readme.matches(of: /"([^"\n]{4,90})"/) where articles.contains(where: { $0.title == quoted.1 }) {
      Issue.record("the README names “\(quoted.1)” without linking it")
    }
  }

  @Test("No issue or decision number in the README, the how-to articles or the tools' messages")
  func noInternalIdentifiers() throws {
    let howTo = [
      "README.md", "Sources/Security/Security.docc/GettingStartedWithAskpass.md",
      "Sources/Security/Security.docc/GettingStartedWithKeys.md",
      "Sources/Security/Security.docc/GettingStartedWithTheAgent.md",
      "Sources/Security/Security.docc/SecretService.md", "Sources/Security/Security.docc/StoresAndLocking.md",
      "Sources/Security/Security.docc/SecurityTool.md", "Sources/Security/Security.docc/CertificateTrust.md",
      "Sources/Security/Security.docc/HardwareKeys.md", "Sources/Security/Security.docc/KeychainAgent.md",
      "Sources/KeychainSync/KeychainSync.docc/GettingStartedWithSync.md",
      "Sources/Keychain/Keychain.docc/UsingTheTypedAPI.md",
    ]
    let citation = /([Ii]ssue [0-9]+|the issue's|decision D?[0-9]+|\(D[0-9]+\)|kcls [0-9])/
    for path in howTo {
      for (number, line) in try Self.text(path).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        if let match = line.firstMatch(of: citation) { Issue.record("\(path):\(number + 1): “\(match.1)”") }
      }
    }
    // The README's rules are the specification's: it names none by number.
    let readme = try Self.text("README.md")
    #expect(readme.firstMatch(of: /rules? [0-9]+\.[0-9]+/) == nil)
  }
}

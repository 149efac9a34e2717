import Foundation
import SecGenParse

/// One `@tag` of a HeaderDoc comment, with the line it starts on.
struct HeaderDocTag: Equatable {
  var name: String
  /// The first word after the tag, for `@constant NAME` and `@param NAME`.
  var argument: String
  /// The text after the tag (and after the argument, for tags that take one), lines joined.
  var text: String
  /// The tag's lines as written, for tables inside a `@discussion`.
  var lines: [(text: String, line: Int)]
  var line: Int

  static func == (lhs: HeaderDocTag, rhs: HeaderDocTag) -> Bool {
    lhs.name == rhs.name && lhs.argument == rhs.argument && lhs.text == rhs.text && lhs.line == rhs.line
  }
}

/// A parsed `/*! ... */` comment.
struct HeaderDocComment {
  var tags: [HeaderDocTag]
  var file: String
  /// The line the comment starts on.
  var line: Int

  func first(_ name: String) -> HeaderDocTag? { tags.first { $0.name == name } }
  func all(_ name: String) -> [HeaderDocTag] { tags.filter { $0.name == name } }

  private static let tagsWithArgument: Set<String> = ["constant", "param"]

  /// Parses `raw`, which starts on `line` of `file`.
  init(raw: String, file: String, line: Int) {
    self.file = file
    self.line = line
    var body = raw
    if body.hasPrefix("/*!") { body.removeFirst(3) } else if body.hasPrefix("/**") { body.removeFirst(3) }
    if body.hasSuffix("*/") { body.removeLast(2) }
    var tags: [HeaderDocTag] = []
    for (offset, rawLine) in body.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      var text = rawLine.trimmingSpaces()
      if text.hasPrefix("*") && !text.hasPrefix("*/") {
        text = text.dropFirst().trimmingSpaces()
      }
      let lineNumber = line + offset
      if text.hasPrefix("@"), let name = text.dropFirst().split(separator: " ", maxSplits: 1).first {
        var rest = text.dropFirst(name.count + 1).trimmingSpaces()
        var argument = ""
        if Self.tagsWithArgument.contains(String(name)) {
          let parts = rest.split(separator: " ", maxSplits: 1)
          // Real headers write "@constant kSecAttrProtocolFTP." now and then: the dot is no part of the name.
          argument = parts.first.map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ".,:;")) } ?? ""
          rest = parts.count > 1 ? String(parts[1]) : ""
        }
        tags.append(
          HeaderDocTag(
            name: String(name), argument: argument, text: rest, lines: [(rest, lineNumber)], line: lineNumber))
      } else if !tags.isEmpty {
        tags[tags.count - 1].lines.append(
          (rawLine.trimmingSpaces() == "" ? "" : String(rawLine), lineNumber))
        if !text.isEmpty {
          let current = tags[tags.count - 1].text
          tags[tags.count - 1].text = current.isEmpty ? text : current + " " + text
        }
      }
    }
    self.tags = tags
  }
}

/// Finds where a comment starts in its file, so diagnostics inside comments get real lines.
struct SourceTexts {
  private var lines: [String: [Substring]] = [:]

  /// The line `comment` starts on: the comment ends on the last line before the declaration that
  /// closes a comment, and starts as many lines earlier as it has line breaks.
  mutating func line(of comment: String, before declaration: SourceLocation) -> Int {
    if lines[declaration.file] == nil {
      let text = (try? String(contentsOfFile: declaration.file, encoding: .utf8)) ?? ""
      lines[declaration.file] = text.split(separator: "\n", omittingEmptySubsequences: false)
    }
    let fileLines = lines[declaration.file]!
    let breaks = comment.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
    var end = min(declaration.line, fileLines.count)
    while end >= 1, !fileLines[end - 1].contains("*/") { end -= 1 }
    guard end >= 1 else { return declaration.line }
    return max(1, end - breaks)
  }
}

extension StringProtocol {
  /// The text without the spaces and tabs around it. Foundation's `trimmingCharacters(in:)` goes
  /// through NSString on Linux, and the comment parser trims every line of every comment: it was a
  /// twentieth of the model stage (perf, release).
  func trimmingSpaces() -> String {
    let isSpace = { (character: Character) in character.isWhitespace && !character.isNewline }
    guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
      return ""
    }
    return String(self[first...last])
  }
}

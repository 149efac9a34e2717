import Foundation
import SecGenParse

/// The optional sidecar, in the spirit of Clang's API notes: it may rename a constant, a group or a
/// status code in Swift, or override an attribute's value type, and nothing more.
///
/// ```json
/// { "names": { "kSecAttrAccessible": "accessibility", "kSecAttrAccessible Value Constants": "Accessibility" },
///   "types": { "kSecAttrAlias": "data" } }
/// ```
public struct APINotes: Codable, Equatable, Sendable {
  /// Swift names by constant name, group title or status code name.
  public var names: [String: String]
  /// Value types (`ValueType` raw values) by attribute constant.
  public var types: [String: String]

  /// No overrides.
  public static let empty = APINotes(names: [:], types: [:])

  /// Creates notes.
  public init(names: [String: String], types: [String: String]) {
    self.names = names
    self.types = types
  }

  /// Reads a notes file; anything but `names` and `types` objects of strings is a diagnostic.
  public static func load(_ file: URL) throws(DiagnosticsError) -> APINotes {
    let start = SourceLocation(file: file.path, line: 1, column: 1)
    guard let data = FileManager.default.contents(atPath: file.path) else {
      throw DiagnosticsError([Diagnostic(location: start, severity: .error, message: "cannot read the API notes")])
    }
    guard let object = try? JSONSerialization.jsonObject(with: data), let top = object as? [String: Any] else {
      throw DiagnosticsError([
        Diagnostic(location: start, severity: .error, message: "the API notes are not a JSON object")
      ])
    }
    let text = String(decoding: data, as: UTF8.self)
    var diagnostics: [Diagnostic] = []
    var notes = APINotes.empty
    for (key, value) in top {
      guard key == "names" || key == "types", let entries = value as? [String: Any] else {
        diagnostics.append(
          Diagnostic(
            location: location(of: key, in: text, file: file.path), severity: .error,
            message: "API notes may only hold \"names\" and \"types\" objects; \"\(key)\" is not allowed"))
        continue
      }
      for (name, override) in entries {
        guard let string = override as? String else {
          diagnostics.append(
            Diagnostic(
              location: location(of: name, in: text, file: file.path), severity: .error,
              message: "the override of \(name) must be a string"))
          continue
        }
        if key == "names" {
          notes.names[name] = string
        } else if ValueType(rawValue: string) != nil {
          notes.types[name] = string
        } else {
          diagnostics.append(
            Diagnostic(
              location: location(of: name, in: text, file: file.path), severity: .error,
              message: "unknown value type \"\(string)\" for \(name); expected one of "
                + ValueType.allCases.map(\.rawValue).joined(separator: ", ")))
        }
      }
    }
    guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics) }
    return notes
  }

  private static func location(of key: String, in text: String, file: String) -> SourceLocation {
    guard let range = text.range(of: "\"\(key)\"") else { return SourceLocation(file: file, line: 1, column: 1) }
    let before = text[..<range.lowerBound]
    let line = before.reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
    let column =
      before.distance(
        from: before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex, to: before.endIndex) + 1
    return SourceLocation(file: file, line: line, column: column)
  }
}

/// Swift names from C names: `kSecAttrAccessibleAfterFirstUnlock` becomes `afterFirstUnlock`.
enum SwiftNaming {
  /// Lower camel case, with a leading acronym lowered as Swift's API guidelines ask
  /// (`HTTPS` → `https`, `HTMLForm` → `htmlForm`).
  static func lowerCamel(_ name: String) -> String {
    let characters = Array(name)
    let upperRun = characters.prefix { $0.isUppercase || $0.isNumber }.count
    if upperRun == 0 { return name }
    if upperRun == characters.count { return name.lowercased() }
    let lowered = upperRun == 1 ? 1 : upperRun - 1
    return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
  }

  /// `name` without the longest prefix it shares with `key` that ends on a word boundary.
  static func stripSharedPrefix(_ name: String, key: String) -> String {
    let nameCharacters = Array(name)
    let keyCharacters = Array(key)
    var shared = 0
    while shared < min(nameCharacters.count, keyCharacters.count), nameCharacters[shared] == keyCharacters[shared] {
      shared += 1
    }
    // Back up to the start of the word the two diverge in: an uppercase letter after a lowercase
    // one, or the last capital of an acronym that a lowercase letter follows ("PRF|Hmac").
    func startsWord(_ index: Int) -> Bool {
      guard index > 0, index < nameCharacters.count, nameCharacters[index].isUppercase || nameCharacters[index].isNumber
      else { return false }
      let previous = nameCharacters[index - 1]
      let next = index + 1 < nameCharacters.count ? nameCharacters[index + 1] : "A"
      return previous.isLowercase || previous.isNumber || next.isLowercase
    }
    while shared > 0, shared < nameCharacters.count, !startsWord(shared) {
      shared -= 1
    }
    var rest = String(nameCharacters[shared...])
    // As ClangImporter does, a remainder that cannot start an identifier ("3DES") keeps one more
    // word of the prefix ("Type3DES").
    if let first = rest.first, first.isNumber, shared > 0 {
      var start = shared - 1
      while start > 0, !startsWord(start) { start -= 1 }
      rest = String(nameCharacters[start...])
    }
    return rest.isEmpty ? name : rest
  }

  static func stripPrefix(_ name: String, _ prefixes: [String]) -> String {
    for prefix in prefixes where name.hasPrefix(prefix) && name.count > prefix.count {
      return String(name.dropFirst(prefix.count))
    }
    return name
  }

  /// Whether `name` can stand as a Swift identifier without backticks.
  static func isIdentifier(_ name: String) -> Bool {
    guard let first = name.first, first.isLetter || first == "_" else { return false }
    return name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
  }
}

import Foundation
import SecGenParse

// Constant groups: the `@enum` blocks of string constants, each with its members and entries.

extension ModelBuilder {
  /// An `@enum` group and the constants declared after it.
  struct ConstantGroup {
    var title: String
    var comment: HeaderDocComment
    var members: [ConstantDeclaration] = []

    var discussion: String { comment.first("discussion")?.text ?? "" }

    func entry(for name: String) -> HeaderDocTag? {
      comment.all("constant").first { $0.argument == name }
    }
  }

  /// Whether a constant is a string (`const CFStringRef`, or of a CF_STRING_ENUM type such as
  /// SecKeyAlgorithm): the constants the model holds, as dictionary keys and values.
  static func isString(_ constant: ConstantDeclaration, stringEnums: Set<String>) -> Bool {
    let type = constant.type.replacingOccurrences(of: " _Nonnull", with: "")
    return type == "const CFStringRef"
      || (type.hasPrefix("const ") && stringEnums.contains(String(type.dropFirst("const ".count))))
  }

  mutating func groups(_ constants: [ConstantDeclaration]) -> [ConstantGroup] {
    var groups: [ConstantGroup] = []
    var currentFile = ""
    for constant in constants {
      if constant.location.file != currentFile {
        currentFile = constant.location.file
        if let last = groups.indices.last, groups[last].comment.file != currentFile {
          // A group never continues into another file.
          groups.append(ConstantGroup(title: "", comment: HeaderDocComment(raw: "", file: currentFile, line: 0)))
        }
      }
      if !Self.isString(constant, stringEnums: parsedStringEnums) {
        // An object constant (SecRandom.h's `const SecRandomRef kSecRandomDefault`): ClangImporter
        // imports it as a global the runtime defines; it is no dictionary key or value, so it is
        // recognised and left out of the model, as a typedef is, not refused.
        otherConstants.append(
          SkippedDeclarationModel(
            kind: "constant of type '\(constant.type.replacingOccurrences(of: " _Nonnull", with: ""))'",
            name: constant.name))
        continue
      }
      if let raw = constant.comment {
        let parsed = comment(raw, before: constant.location)
        if let title = parsed.first("enum") {
          // The name is the rest of the @enum line; what follows it belongs to the discussion.
          let name = title.lines.first?.0.trimmingCharacters(in: .whitespaces) ?? title.text
          groups.append(ConstantGroup(title: name.isEmpty ? title.text : name, comment: parsed))
        }
      }
      guard let last = groups.indices.last, !groups[last].title.isEmpty, groups[last].comment.file == currentFile else {
        report(constant.location, "\(constant.name) is not inside an @enum group; every constant needs one")
        continue
      }
      groups[last].members.append(constant)
    }
    groups.removeAll { $0.title.isEmpty }
    for group in groups {
      let declared = Set(group.members.map(\.name))
      // A constant left out for the platform keeps its documentation entry: not an error.
      for entry in group.comment.all("constant")
      where !declared.contains(entry.argument) && !excludedNames.contains(entry.argument) {
        let location = SourceLocation(file: group.comment.file, line: entry.line, column: 5)
        if Self.declaresInSomeBranch(entry.argument, file: group.comment.file) {
          // Declared under an #if this platform does not take (kSecPolicyAppleiChat, macOS only).
          warn(
            location, .misnamedDocumentation,
            "@constant \(entry.argument) is declared only in a branch of an #if this platform does not take")
        } else {
          report(location, "@constant \(entry.argument) names no constant declared in the group \"\(group.title)\"")
        }
      }
    }
    return groups
  }

  /// Whether `file` declares a constant named `name` in any of its branches: its text holds an
  /// `extern` declaration of it, whichever `#if` it is under.
  static func declaresInSomeBranch(_ name: String, file: String) -> Bool {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return false }
    return text.split(separator: "\n").contains { line in
      line.hasPrefix("extern ")
        && line.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
          .contains { $0 == name }
    }
  }

  // MARK: The model
}

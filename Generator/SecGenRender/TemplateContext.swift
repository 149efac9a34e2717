import Foundation
import SecGenModel
import SecGenParse
import Stencil

/// The model seen from Swift: what the templates print.
enum TemplateContext {
  static let keywords: Set<String> = [
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
    "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static", "struct",
    "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do", "else", "fallthrough",
    "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "Any", "catch", "false", "is",
    "nil", "super", "self", "Self", "throw", "throws", "true", "try",
  ]

  static func escaped(_ name: String) -> String { keywords.contains(name) ? "`\(name)`" : name }

  /// Members every builder and item has besides the attributes; an attribute may not take their names.
  static let reservedMembers: Set<String> = [
    "attributes", "data", "persistentReference", "request", "add", "set", "string", "decode", "item", "all",
    "reference", "exists", "update", "delete", "with", "result", "addReturningReference",
  ]

  /// Attributes whose Swift name would collide with a member the templates always generate.
  static func nameCollisions(_ model: SecurityModel) -> [Diagnostic] {
    model.attributes.filter { reservedMembers.contains($0.swiftName) && !$0.classes.isEmpty }.map {
      Diagnostic(
        location: .none, severity: .error,
        message: "\($0.constant) would be named '\($0.swiftName)', which the generated types already use; "
          + "give it another name in the API notes")
    }
  }

  /// Wraps prose into `///` lines of at most `width` characters, indented by `indent`.
  static func docComment(_ text: String, indent: String = "", width: Int = 100) -> String {
    var lines: [String] = []
    var current = ""
    // The line's length in characters, kept as it grows: String.count walks the whole string.
    var currentCount = 0
    for word in text.split(separator: " ") {
      let wordCount = word.count
      if !current.isEmpty && currentCount + 1 + wordCount > width {
        lines.append(current)
        current = String(word)
        currentCount = wordCount
      } else if current.isEmpty {
        current = String(word)
        currentCount = wordCount
      } else {
        current += " "
        current += word
        currentCount += 1 + wordCount
      }
    }
    if !current.isEmpty { lines.append(current) }
    if lines.isEmpty { lines = [""] }
    // "`kSecAttrLabel`: " with no documentation after it (an undocumented declaration) ends the
    // sentence instead.
    if let last = lines.last, last.hasSuffix(":") { lines[lines.count - 1] = String(last.dropLast()) + "." }
    return lines.map { $0.isEmpty ? "\(indent)///" : "\(indent)/// \($0)" }.joined(separator: "\n")
  }

  /// A sentence for the documentation of a deprecated declaration that generated code itself
  /// refers to (enum cases, item fields), where an attribute would make the build warn.
  static func deprecationNote(_ deprecation: String?) -> String {
    guard let deprecation else { return "" }
    return deprecation.isEmpty ? " Deprecated." : " Deprecated: \(deprecation)"
  }

  /// `@available(*, deprecated, message: "...")` on its own line after a doc comment, for a
  /// builder method the headers deprecate on the target platform; empty otherwise.
  static func deprecationAttribute(_ deprecation: String?, indent: String) -> String {
    guard let deprecation else { return "" }
    if deprecation.isEmpty { return "\n\(indent)@available(*, deprecated)" }
    let escaped = deprecation.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    return "\n\(indent)@available(*, deprecated, message: \"\(escaped)\")"
  }

  static func swiftType(_ attribute: AttributeModel, groups: [String: ValueGroupModel]) -> String? {
    switch attribute.valueType {
    case .string: "String"
    case .number: "Int"
    case .boolean: "Bool"
    case .date: "Date"
    case .data: "Data"
    case .accessControl: "SecAccessControl"
    case .valueConstant: attribute.valueGroup.flatMap { groups[$0]?.swiftName }
    case .unsupported, .opaqueReference: nil
    }
  }

  static func lowering(_ attribute: AttributeModel) -> String {
    switch attribute.valueType {
    case .string: ".string(value)"
    case .number: ".integer(value)"
    case .boolean: ".boolean(value)"
    case .date: ".date(value)"
    case .data: ".data(value)"
    case .accessControl: ".accessControl(value)"
    case .valueConstant, .unsupported, .opaqueReference: ".string(value.constant.description)"
    }
  }

  static func reading(_ attribute: AttributeModel, type: String) -> String {
    let key = resultKey(attribute.constant)
    switch attribute.valueType {
    case .string: return "result.string(\(key))"
    case .number: return "result.integer(\(key))"
    case .boolean: return "result.boolean(\(key))"
    case .date: return "result.date(\(key))"
    case .data: return "result.data(\(key))"
    case .accessControl: return "result.accessControl(\(key))"
    case .valueConstant, .unsupported, .opaqueReference:
      return "result.constant(\(key)).flatMap(\(type).init(constant:))"
    }
  }

  /// How `init(result:)` names a key constant: as this module's copy (`ResultKeys` in
  /// ItemClasses.swift.stencil), which is read without the retain and release another module's
  /// global costs around every call.
  static func resultKey(_ constant: String) -> String { "ResultKeys.\(constant)" }

  /// A Swift string literal of `text`.
  static func literal(_ text: String) -> String {
    var escaped = ""
    for character in text.unicodeScalars {
      switch character {
      case "\\": escaped += "\\\\"
      case "\"": escaped += "\\\""
      case "\n": escaped += "\\n"
      default: escaped.unicodeScalars.append(character)
      }
    }
    return "\"\(escaped)\""
  }

  /// A status code's comment as the sentence SecCopyErrorMessageString returns: capitalized, with
  /// a full stop (Apple builds its messages from the same comments).
  static func message(_ meaning: String) -> String {
    guard let first = meaning.first else { return "The operation failed." }
    let sentence = first.uppercased() + meaning.dropFirst()
    return [".", "!", "?"].contains(sentence.last) ? sentence : sentence + "."
  }
}

/// A dictionary of the view model as the templates read it.
///
/// Stencil reads `function.name` on a Swift dictionary by first copying the dictionary deeply (its
/// `normalize`) and casting it to its `Context` class, which on Linux bridges the dictionary to an
/// NSDictionary: most of secgen's render time went there (perf, release build: 27% in the bridging
/// casts alone). A class that answers Stencil's `DynamicMemberLookup` is read with one lookup.
final class TemplateValue: DynamicMemberLookup {
  private let fields: [String: Any]

  private init(_ fields: [String: Any]) { self.fields = fields }

  subscript(dynamicMember member: String) -> Any? { fields[member] }

  /// `value` with every dictionary in it, at any depth, made a `TemplateValue`.
  static func wrapping(_ value: Any) -> Any {
    if let dictionary = value as? [String: Any] { return TemplateValue(dictionary.mapValues(wrapping)) }
    if let array = value as? [Any] { return array.map(wrapping) }
    return value
  }
}

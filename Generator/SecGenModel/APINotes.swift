import Foundation
import SecGenParse

/// The optional sidecar, in the spirit of Clang's API notes: it may rename a constant, a group or a
/// status code in Swift, override an attribute's value type, add an attribute to item classes, declare the typed Swift types that
/// stand for runtime references, and import functions as their members (as an API-notes SwiftName
/// such as `getter:PrivateKey.publicKey(self:)` does for ClangImporter), and nothing more.
///
/// ```json
/// { "names": { "kSecAttrAccessible": "accessibility", "kSecAttrAccessible Value Constants": "Accessibility" },
///   "types": { "kSecAttrAlias": "data" }, "classes": { "kSecAttrTokenID": ["kSecClassKey"] },
///   "references": { "PrivateKey": { "type": "SecKeyRef", "property": "secKey", "when": "isPrivate",
///                                    "doc": "The private half of a key pair." } },
///   "methods": [ { "function": "SecKeyCreateSignature", "swiftName": "PrivateKey.signature(for:algorithm:)",
///                  "arguments": ["dataToSign", "algorithm"], "types": { "algorithm": "SigningAlgorithm" } } ] }
/// ```
public struct APINotes: Codable, Equatable, Sendable {
  /// Swift names by constant name, group title or status code name.
  public var names: [String: String]
  /// Value types (`ValueType` raw values) by attribute constant.
  public var types: [String: String]
  /// Item classes an attribute belongs to beyond what the headers say, by attribute constant.
  public var classes: [String: [String]] = [:]
  /// Typed Swift types over runtime references, by Swift name.
  public var references: [String: ReferenceNote] = [:]
  /// Functions imported as members of those types, in the notes' order.
  public var methods: [MethodNote] = []

  /// No overrides.
  public static let empty = APINotes(names: [:], types: [:])

  /// Creates notes.
  public init(
    names: [String: String], types: [String: String], references: [String: ReferenceNote] = [:],
    methods: [MethodNote] = []
  ) {
    self.names = names
    self.types = types
    self.references = references
    self.methods = methods
  }

  /// Reads a notes file; anything but the four sections, each of its documented shape, is a
  /// diagnostic naming the entry's line and column.
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
    func report(_ key: String, _ message: String) {
      diagnostics.append(
        Diagnostic(location: location(of: key, in: text, file: file.path), severity: .error, message: message))
    }
    var notes = APINotes.empty
    for (key, value) in top.sorted(by: { $0.key < $1.key }) {
      switch (key, value) {
      case ("references", let entries as [String: Any]):
        for (name, entry) in entries.sorted(by: { $0.key < $1.key }) {
          guard let reference = ReferenceNote(name, entry, location(of: name, in: text, file: file.path)) else {
            report(
              name,
              "the reference type \(name) must be an object with string \"type\", \"property\" and \"doc\", "
                + "and optionally \"when\" (a Boolean property of the reference, or its negation with !) and "
                + "\"itemClass\" with \"itemField\" (the class whose items carry it, and the field's name)")
            continue
          }
          notes.references[name] = reference
        }
        continue
      case ("methods", let entries as [Any]):
        for entry in entries {
          let swiftName = (entry as? [String: Any])?["swiftName"] as? String
          let at =
            swiftName.map { location(of: $0, in: text, file: file.path) }
            ?? location(of: key, in: text, file: file.path)
          guard let method = MethodNote(entry, at) else {
            diagnostics.append(
              Diagnostic(
                location: at, severity: .error,
                message: "a method must be an object with string \"function\" and \"swiftName\", and optionally "
                  + "\"arguments\" (a list of parameter names) and \"types\", \"fixed\" and \"defaults\" "
                  + "(objects of strings)"))
            continue
          }
          notes.methods.append(method)
        }
        continue
      case ("classes", let entries as [String: Any]):
        for (name, value) in entries {
          guard let classes = value as? [String], !classes.isEmpty, classes.allSatisfy({ $0.hasPrefix("kSecClass") })
          else {
            report(name, "the classes of \(name) must be a list of item class constants (kSecClassKey...)")
            continue
          }
          notes.classes[name] = classes
        }
        continue
      case ("names", let entries as [String: Any]), ("types", let entries as [String: Any]):
        for (name, override) in entries {
          guard let string = override as? String else {
            report(name, "the override of \(name) must be a string")
            continue
          }
          if key == "names" {
            notes.names[name] = string
          } else if ValueType(rawValue: string) != nil {
            notes.types[name] = string
          } else {
            report(
              name,
              "unknown value type \"\(string)\" for \(name); expected one of "
                + ValueType.allCases.map(\.rawValue).joined(separator: ", "))
          }
        }
      default:
        report(
          key,
          "API notes may only hold \"names\", \"types\", \"classes\" and \"references\" objects and a "
            + "\"methods\" list; "
            + "\"\(key)\" is not allowed here")
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

/// A typed Swift type over a runtime reference (`PrivateKey` over `SecKeyRef`).
public struct ReferenceNote: Codable, Equatable, Sendable {
  /// The Swift type's name.
  public var swiftName: String
  /// The C reference type it wraps (`SecKeyRef`).
  public var cType: String
  /// The stored property that holds the reference (`secKey`).
  public var property: String
  /// A Boolean property of the reference that must hold (`isPrivate`), or fail with `!`, for a
  /// reference to be of this type; nil when every reference is.
  public var condition: String?
  /// The type's documentation.
  public var documentation: String
  /// The item class whose search results carry such a reference (`kSecClassKey`), if any.
  public var itemClass: String?
  /// The name of the typed item's field holding it (`privateKey`).
  public var itemField: String?
  /// Where the notes declare it.
  public var location: SourceLocation

  init?(_ name: String, _ entry: Any, _ location: SourceLocation) {
    guard let entry = entry as? [String: Any], let type = entry["type"] as? String,
      let property = entry["property"] as? String, let documentation = entry["doc"] as? String,
      SwiftNaming.isIdentifier(name), SwiftNaming.isIdentifier(property)
    else { return nil }
    let condition = entry["when"] as? String
    if let condition, !SwiftNaming.isIdentifier(condition.hasPrefix("!") ? String(condition.dropFirst()) : condition) {
      return nil
    }
    if entry["when"] != nil && condition == nil { return nil }
    itemClass = entry["itemClass"] as? String
    itemField = entry["itemField"] as? String
    // Both or neither, and the field must be a name.
    guard (itemClass == nil) == (itemField == nil), itemField.map(SwiftNaming.isIdentifier) ?? true else { return nil }
    let known: Set<String> = ["type", "property", "when", "doc", "itemClass", "itemField"]
    guard Set(entry.keys).isSubset(of: known) else { return nil }
    swiftName = name
    cType = type
    self.property = property
    self.condition = condition
    self.documentation = documentation
    self.location = location
  }
}

/// A C function imported as a member of a reference type (`SecKeyCreateSignature` as
/// `PrivateKey.signature(for:algorithm:)`).
public struct MethodNote: Codable, Equatable, Sendable {
  /// The C function.
  public var function: String
  /// `Type.name(label:...)`, `Type.init(label:...)` or `getter:Type.name`.
  public var swiftName: String
  /// The C parameters the Swift labels stand for, in the Swift order; the parameter of the type's
  /// own reference type that is not listed is `self`.
  public var arguments: [String]
  /// Swift types by C parameter name, and `return` for the result, where the C type's own Swift
  /// counterpart is not the one wanted (`SigningAlgorithm` for a `SecKeyAlgorithm`).
  public var types: [String: String]
  /// Swift expressions for C parameters the method always passes the same value (`.sign`).
  public var fixed: [String: String]
  /// Swift default values for arguments.
  public var defaults: [String: String]
  /// Where the notes declare it.
  public var location: SourceLocation

  init?(_ entry: Any, _ location: SourceLocation) {
    guard let entry = entry as? [String: Any], let function = entry["function"] as? String,
      let swiftName = entry["swiftName"] as? String
    else { return nil }
    func strings(_ key: String) -> [String: String]? {
      guard let value = entry[key] else { return [:] }
      return value as? [String: String]
    }
    guard let types = strings("types"), let fixed = strings("fixed"), let defaults = strings("defaults") else {
      return nil
    }
    let arguments = entry["arguments"] ?? [String]()
    guard let arguments = arguments as? [String] else { return nil }
    let known: Set<String> = ["function", "swiftName", "arguments", "types", "fixed", "defaults"]
    guard Set(entry.keys).isSubset(of: known) else { return nil }
    self.function = function
    self.swiftName = swiftName
    self.arguments = arguments
    self.types = types
    self.fixed = fixed
    self.defaults = defaults
    self.location = location
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

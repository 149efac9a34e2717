import Foundation
import SecGenParse
import Yams

// Reads the API notes in clang's YAML format. The first document is clang's own (its keys mean
// what they mean to ClangImporter); the second, optional, holds under `SecGen` what that format
// cannot say. clang's reader parses the first document of the file only. Every mistake is one
// diagnostic at the line and column of the node it concerns.
//
// ```yaml
// ---
// Name: Security
// Globals:
// - Name: kSecAttrAccessible
//   SwiftName: accessibility
// Enumerators:
// - Name: kSecPaddingPKCS1
//   SwiftName: PKCS1
// ---
// SecGen:
//   Groups:
//   - Name: kSecAttrAccessible Value Constants
//     SwiftName: Accessibility
//   Attributes:
//   - Name: kSecAttrTokenID
//     ValueType: string
//     Classes: [kSecClassKey]
//   References:
//   - SwiftName: PrivateKey
//     Type: SecKeyRef
//     Property: secKey
//     When: isPrivate
//     Doc: The private half of a key pair.
//   Members:
//   - Function: SecKeyCreateSignature
//     SwiftName: PrivateKey.signature(for:algorithm:)
//     Arguments: [dataToSign, algorithm]
//     Types: { algorithm: SigningAlgorithm }
// ```

extension APINotes {
  /// The largest notes file secgen reads (1 MiB).
  public static let maximumNotesBytes = 1 << 20

  /// Reads an API notes file (see the comment at the top of APINotesReader.swift for its shape).
  public static func load(_ file: URL) throws(DiagnosticsError) -> APINotes {
    var reader = APINotesReader(file: file.path)
    guard let data = FileManager.default.contents(atPath: file.path) else {
      throw DiagnosticsError([
        Diagnostic(location: reader.start, severity: .error, message: "cannot read the API notes")
      ])
    }
    // A notes file is a few kilobytes; a larger one is not notes, and YAML's parser would build
    // a tree of all of it.
    guard data.count <= maximumNotesBytes else {
      throw DiagnosticsError([
        Diagnostic(
          location: reader.start, severity: .error,
          message: "the API notes are \(data.count) bytes; more than \(maximumNotesBytes) is not notes")
      ])
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw DiagnosticsError([
        Diagnostic(location: reader.start, severity: .error, message: "the API notes are not UTF-8 text")
      ])
    }
    let notes = reader.read(text)
    guard reader.diagnostics.isEmpty else { throw DiagnosticsError(reader.diagnostics) }
    return notes
  }
}

/// One pass over the notes' YAML, collecting what it says and a diagnostic for each mistake.
struct APINotesReader {
  let file: String
  var diagnostics: [Diagnostic] = []
  var notes = APINotes.empty

  init(file: String) { self.file = file }

  var start: SourceLocation { SourceLocation(file: file, line: 1, column: 1) }

  /// Keys of clang's API notes that secgen does not act on: naming one is an error rather than
  /// silence, since the notes would then say something the output does not honour.
  static let clangKeysNotRead: Set<String> = [
    "Availability", "AvailabilityMsg", "SwiftInferImportAsMember", "Classes", "Protocols", "Namespaces",
    "SwiftVersions", "SwiftPrivate", "Nullability", "NullabilityOfRet", "Type",
    "ResultType", "Parameters", "SwiftBridge", "SwiftWrapper", "NSErrorDomain", "EnumExtensibility", "FlagEnum",
    "EnumKind", "SwiftImportAs", "SwiftRetainOp", "SwiftReleaseOp", "SwiftCopyable", "SwiftConformsTo",
    "SwiftReturnOwnership", "Methods", "Properties", "SwiftImportAsNonGeneric", "SwiftObjCMembers",
  ]

  mutating func read(_ text: String) -> APINotes {
    var documents: [Node] = []
    do {
      var sequence = try Yams.compose_all(yaml: text)
      while let document = sequence.next() { documents.append(document) }
      if let error = sequence.error { throw error }
    } catch {
      report(at: Self.mark(of: error), "the API notes are not valid YAML: \(Self.problem(of: error))")
      return notes
    }
    guard let clang = documents.first else {
      report(at: nil, "the API notes are empty: clang's format needs at least a document with a Name")
      return notes
    }
    readClangDocument(clang)
    if documents.count > 1 { readAdditions(documents[1]) }
    for extra in documents.dropFirst(2) {
      report(at: extra.mark, "the API notes hold a third document; only clang's and secgen's (SecGen) are read")
    }
    return notes
  }

  // MARK: clang's document

  private mutating func readClangDocument(_ document: Node) {
    guard let top = mapping(document, "clang's document") else { return }
    var hasName = false
    for (key, value) in top {
      switch key.string {
      case "Name":
        hasName = scalar(value, "Name") != nil
      case "Globals", "Enumerators":
        for entry in entries(value, key.string ?? "") {
          readEntry(entry, of: key.string ?? "", allowed: ["Name", "SwiftName", "Availability", "AvailabilityMsg"])
        }
      case "Functions", "Typedefs", "Tags":
        // clang's SwiftName of a function labels every parameter in order; the functions secgen
        // imports as members reorder, fix or default them, so they are SecGen's Members instead.
        for entry in entries(value, key.string ?? "") {
          readEntry(entry, of: key.string ?? "", allowed: ["Name", "Availability", "AvailabilityMsg"])
        }
      case let other:
        unknown(
          key, other, in: "clang's document",
          allowed: ["Name", "Globals", "Enumerators", "Functions", "Typedefs", "Tags"])
      }
    }
    if !hasName { report(at: document.mark, "clang's API notes need the module's Name (Name: Security)") }
  }

  /// clang's `Availability` values: `available` (the default), `nonswift` (not imported into
  /// Swift) and `none` (unavailable everywhere). The last two leave the declaration out.
  static let availabilities: Set<String> = ["available", "nonswift", "none"]

  /// One entry of Globals, Enumerators, Functions, Typedefs or Tags: a Swift name, an
  /// availability with its message, or both.
  private mutating func readEntry(_ entry: Node, of section: String, allowed: [String]) {
    guard let fields = fields(entry, of: "an entry of \(section)", allowed: allowed),
      let name = fields.required("Name", &self)
    else { return }
    let availability = fields.values["Availability"]
    if availability == nil, let message = fields.values["AvailabilityMsg"] {
      report(at: message.mark, "AvailabilityMsg of \(name) goes with an Availability")
      return
    }
    if let swiftName = fields.string("SwiftName", &self) {
      notes.names[name] = swiftName
    } else if availability == nil {
      report(
        at: entry.mark,
        allowed.contains("SwiftName")
          ? "an entry of \(section) needs a SwiftName or an Availability"
          : "an entry of \(section) needs an Availability: it is all secgen reads there")
      return
    }
    guard let availability else { return }
    guard let value = scalar(availability, "Availability"), Self.availabilities.contains(value) else {
      report(
        at: availability.mark,
        "the Availability of \(name) must be one of \(Self.availabilities.sorted().joined(separator: ", "))")
      return
    }
    if value != "available" {
      notes.unavailable[name] =
        fields.string("AvailabilityMsg", &self) ?? "unavailable in Swift (Availability: \(value) in the API notes)"
    }
  }

  // MARK: secgen's document

  private mutating func readAdditions(_ document: Node) {
    guard let top = mapping(document, "the second document") else { return }
    for (key, value) in top {
      guard key.string == "SecGen" else {
        unknown(key, key.string, in: "the second document", allowed: ["SecGen"])
        continue
      }
      guard let sections = mapping(value, "SecGen") else { continue }
      for (section, content) in sections {
        switch section.string {
        case "Groups":
          for entry in entries(content, "Groups") {
            guard let fields = fields(entry, of: "a group", allowed: ["Name", "SwiftName"]),
              let name = fields.required("Name", &self), let swiftName = fields.required("SwiftName", &self)
            else { continue }
            notes.names[name] = swiftName
          }
        case "Attributes": readAttributes(content)
        case "References": readReferences(content)
        case "Members": readMembers(content)
        case let other:
          unknown(section, other, in: "SecGen", allowed: ["Groups", "Attributes", "References", "Members"])
        }
      }
    }
  }

  private mutating func readAttributes(_ content: Node) {
    for entry in entries(content, "Attributes") {
      guard let fields = fields(entry, of: "an attribute", allowed: ["Name", "ValueType", "Classes", "AliasOf"]),
        let name = fields.required("Name", &self)
      else { continue }
      if let type = fields.values["ValueType"] {
        if let string = scalar(type, "ValueType"), ValueType(rawValue: string) != nil {
          notes.types[name] = string
        } else {
          report(
            at: type.mark,
            "unknown value type for \(name); expected one of "
              + ValueType.allCases.map(\.rawValue).joined(separator: ", "))
        }
      }
      if let alias = fields.values["AliasOf"] {
        if let target = scalar(alias, "AliasOf"), target.hasPrefix("kSec") {
          notes.aliases[name] = target
        } else {
          report(at: alias.mark, "the AliasOf of \(name) must name another attribute constant (kSecAttr...)")
        }
      }
      if let classes = fields.values["Classes"] {
        let list: [String]? =
          if case .sequence(let sequence) = classes { sequence.compactMap(\.string) } else { nil }
        if let list, !list.isEmpty, list.count == classes.sequence?.count,
          list.allSatisfy({ $0.hasPrefix("kSecClass") })
        {
          notes.classes[name] = list
        } else {
          report(at: classes.mark, "the Classes of \(name) must be a list of item class constants (kSecClassKey...)")
        }
      }
    }
  }

  private mutating func readReferences(_ content: Node) {
    let allowed = ["SwiftName", "Type", "Property", "When", "Doc", "ItemClass", "ItemField"]
    for entry in entries(content, "References") {
      guard let fields = fields(entry, of: "a reference", allowed: allowed),
        let name = fields.required("SwiftName", &self), let type = fields.required("Type", &self),
        let property = fields.required("Property", &self), let documentation = fields.required("Doc", &self)
      else { continue }
      let condition = fields.string("When", &self)
      let itemClass = fields.string("ItemClass", &self)
      let itemField = fields.string("ItemField", &self)
      guard SwiftNaming.isIdentifier(name), SwiftNaming.isIdentifier(property) else {
        report(at: entry.mark, "the reference's SwiftName and Property must be Swift identifiers")
        continue
      }
      if let condition,
        !SwiftNaming.isIdentifier(condition.hasPrefix("!") ? String(condition.dropFirst()) : condition)
      {
        report(
          at: fields.values["When"]?.mark,
          "When must name a Boolean property of the reference, or its negation with !")
        continue
      }
      guard (itemClass == nil) == (itemField == nil), itemField.map(SwiftNaming.isIdentifier) ?? true else {
        report(
          at: entry.mark,
          "ItemClass and ItemField go together: the class whose items carry the reference, and the field's name")
        continue
      }
      notes.references[name] = ReferenceNote(
        swiftName: name, cType: type, property: property, condition: condition, documentation: documentation,
        itemClass: itemClass, itemField: itemField, location: location(entry.mark))
    }
  }

  private mutating func readMembers(_ content: Node) {
    let allowed = ["Function", "SwiftName", "Arguments", "Types", "Fixed", "Defaults"]
    for entry in entries(content, "Members") {
      guard let fields = fields(entry, of: "a member", allowed: allowed),
        let function = fields.required("Function", &self), let swiftName = fields.required("SwiftName", &self)
      else { continue }
      let arguments = fields.values["Arguments"].map { strings($0, "Arguments") } ?? []
      let types = fields.values["Types"].map { stringMap($0, "Types") } ?? [:]
      let fixed = fields.values["Fixed"].map { stringMap($0, "Fixed") } ?? [:]
      let defaults = fields.values["Defaults"].map { stringMap($0, "Defaults") } ?? [:]
      guard let arguments, let types, let fixed, let defaults else { continue }
      notes.methods.append(
        MethodNote(
          function: function, swiftName: swiftName, arguments: arguments, types: types, fixed: fixed,
          defaults: defaults, location: location(fields.values["SwiftName"]?.mark ?? entry.mark)))
    }
  }

  // MARK: Nodes

  /// A mapping's fields by key, each key allowed and given once.
  struct Fields {
    /// The mapping, and what it is (for messages).
    var owner: Node
    var what: String
    var values: [String: Node] = [:]

    func required(_ key: String, _ reader: inout APINotesReader) -> String? {
      guard let node = values[key] else {
        reader.report(at: owner.mark, "\(what) needs a \(key)")
        return nil
      }
      return reader.scalar(node, key)
    }

    func string(_ key: String, _ reader: inout APINotesReader) -> String? {
      values[key].flatMap { reader.scalar($0, key) }
    }
  }

  mutating func fields(_ node: Node, of what: String, allowed: [String]) -> Fields? {
    guard let pairs = mapping(node, what) else { return nil }
    var fields = Fields(owner: node, what: what)
    var sound = true
    for (key, value) in pairs {
      guard let name = key.string, allowed.contains(name) else {
        unknown(key, key.string, in: what, allowed: allowed)
        sound = false
        continue
      }
      if fields.values[name] != nil {
        report(at: key.mark, "\(name) is given twice in \(what)")
        sound = false
      }
      fields.values[name] = value
    }
    return sound ? fields : nil
  }

  mutating func mapping(_ node: Node, _ what: String) -> [(Node, Node)]? {
    guard case .mapping(let mapping) = node else {
      report(at: node.mark, "\(what) must be a mapping (key: value lines)")
      return nil
    }
    return mapping.map { ($0.key, $0.value) }
  }

  mutating func entries(_ node: Node, _ what: String) -> [Node] {
    guard case .sequence(let sequence) = node else {
      report(at: node.mark, "\(what) must be a list (lines starting with -)")
      return []
    }
    return Array(sequence)
  }

  mutating func scalar(_ node: Node, _ what: String) -> String? {
    guard case .scalar(let scalar) = node, !scalar.string.isEmpty else {
      report(at: node.mark, "\(what) must be a non-empty string")
      return nil
    }
    return scalar.string
  }

  mutating func strings(_ node: Node, _ what: String) -> [String]? {
    guard case .sequence(let sequence) = node else {
      report(at: node.mark, "\(what) must be a list of strings")
      return nil
    }
    var values: [String] = []
    for element in sequence {
      guard let value = scalar(element, "each of \(what)") else { return nil }
      values.append(value)
    }
    return values
  }

  mutating func stringMap(_ node: Node, _ what: String) -> [String: String]? {
    guard let pairs = mapping(node, what) else { return nil }
    var values: [String: String] = [:]
    for (key, value) in pairs {
      guard let name = scalar(key, "a key of \(what)"), let string = scalar(value, "\(what) of \(name)") else {
        return nil
      }
      values[name] = string
    }
    return values
  }

  mutating func unknown(_ key: Node, _ name: String?, in what: String, allowed: [String]) {
    let name = name ?? "?"
    let reason =
      Self.clangKeysNotRead.contains(name)
      ? "\(name) is a key of clang's API notes that secgen does not act on; leave it out, or the notes would "
        + "say something the output does not honour"
      : "unknown key \(name)"
    report(at: key.mark, "\(reason) (\(what) may hold \(allowed.joined(separator: ", ")))")
  }

  mutating func report(at mark: Mark?, _ message: String) {
    diagnostics.append(Diagnostic(location: location(mark), severity: .error, message: message))
  }

  func location(_ mark: Mark?) -> SourceLocation {
    guard let mark else { return start }
    return SourceLocation(file: file, line: mark.line, column: mark.column)
  }

  static func mark(of error: Error) -> Mark? {
    switch error as? YamlError {
    case .scanner(_, _, let mark, _)?, .parser(_, _, let mark, _)?, .composer(_, _, let mark, _)?: mark
    default: nil
    }
  }

  static func problem(of error: Error) -> String {
    switch error as? YamlError {
    case .scanner(_, let problem, _, _)?, .parser(_, let problem, _, _)?, .composer(_, let problem, _, _)?: problem
    case .reader(let problem, _, _, _)?: problem
    default: "\(error)"
    }
  }
}

import Foundation
import SecGenParse

// Attribute key constants: each one's value type, read-only mark and documentation.

extension ModelBuilder {
  static let cfTypes: [String: ValueType] = [
    "CFStringRef": .string, "CFNumberRef": .number, "CFBooleanRef": .boolean, "CFDateRef": .date, "CFDataRef": .data,
    "SecAccessControlRef": .accessControl, "SecAccessRef": .unsupported,
  ]

  mutating func attribute(
    _ declaration: ConstantDeclaration, in group: ConstantGroup, groups: [ValueGroupModel]
  ) -> AttributeModel {
    let name = declaration.name
    let swiftName = notes.names[name] ?? SwiftNaming.lowerCamel(SwiftNaming.stripPrefix(name, ["kSecAttr", "kSec"]))
    guard let entry = group.entry(for: name) else {
      // The declaration says only that it is a key: the API notes may give its value type.
      let noted = notes.types[name].flatMap(ValueType.init(rawValue:))
      warn(
        declaration.location, .undocumentedAttribute,
        "\(name) has no @constant entry; "
          + (noted.map { "its value type (\($0.rawValue)) comes from the API notes" }
            ?? "its value type is unknown (the API notes may give one), so it gets no typed setter"))
      return AttributeModel(
        constant: name, swiftName: swiftName, valueType: noted ?? .unsupported, valueGroup: nil, readOnly: false,
        classes: [], isPrivate: isPrivate(declaration.location), documentation: "")
    }
    let location = SourceLocation(file: group.comment.file, line: entry.line, column: 5)
    var text = entry.text
    var readOnly = false
    for marker in ["(read-only)", "(read only)"] where text.hasPrefix(marker) {
      readOnly = true
      text = text.dropFirst(marker.count).trimmingCharacters(in: .whitespaces)
    }
    var valueType = ValueType.unsupported
    var valueGroup: String?
    if let override = notes.types[name].flatMap(ValueType.init(rawValue:)) {
      valueType = override
    } else if groups.contains(where: { $0.key == name && $0.cases.contains { !$0.isPrivate } }),
      text.contains("CFNumber") || text.contains("one of ")
        || text.range(of: #"\b(CF|Sec)[A-Za-z]+"#, options: .regularExpression) == nil
    {
      // A "<key> Value Constants" group wins over a number or a missing type: legacy wording calls
      // the values of kSecAttrProtocol a CFNumberRef, yet they are string constants. A string or
      // boolean attribute whose group lists special values (kSecAttrAccessGroupToken,
      // kSecAttrSynchronizableAny) keeps its type, and takes the constants in an extra setter; so
      // does a number whose only listed values are Apple SPI (kSecAttrKeySizeInBits).
      valueType = .valueConstant
      valueGroup = name
    } else if let range = text.range(of: #"(\S+) Value Constants"#, options: .regularExpression) {
      // "listed in X Value Constants", "See the \"X Value Constants\" section", "(see \"X Value Constants\".)"
      let key = text[range].dropLast(" Value Constants".count).trimmingCharacters(
        in: CharacterSet(charactersIn: "\"(“"))
      if groups.contains(where: { $0.key == key }) {
        valueType = .valueConstant
        valueGroup = String(key)
      } else {
        report(location, "\(name) refers to \"\(key) Value Constants\", which is not a group of the headers")
      }
    } else if let range = text.range(of: #"\b(CF|Sec)[A-Za-z]+\b"#, options: .regularExpression),
      let known = Self.cfTypes[String(text[range])] ?? Self.cfTypes[String(text[range]) + "Ref"]
    {
      // CFDataRef, or written without Ref ("a CFData", "a SecAccessControl instance").
      valueType = known
    } else if let range = text.range(of: #"\b(CF|Sec)[A-Za-z]*Ref\b"#, options: .regularExpression) {
      // A binding generator reading an SDK does not refuse a header for one legacy constant: the
      // attribute is imported untyped, and the warning says so (an error under --strict).
      warn(
        location, .untypedAttribute,
        "\(name) has the value type \(text[range]), which secgen does not know, so it gets no typed setter")
    } else {
      warn(
        location, .untypedAttribute,
        "the @constant text of \(name) names no value type (a CF type such as CFStringRef, or a value-constants "
          + "group), so it gets no typed setter; the API notes may give one")
    }
    return AttributeModel(
      constant: name, swiftName: swiftName, valueType: valueType, valueGroup: valueGroup, readOnly: readOnly,
      classes: [], isPrivate: isPrivate(declaration.location), documentation: text)
  }
}

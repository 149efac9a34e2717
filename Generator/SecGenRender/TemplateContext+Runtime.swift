import Foundation
import SecGenModel

extension TemplateContext {
  /// What the runtime templates (Templates/Runtime) print: the constants with their values, every
  /// status code with its message, the store schema and the option sets.
  static func runtimeContext(_ model: SecurityModel, _ definitions: RuntimeDefinitionsModel) -> [String: Any] {
    func constantContext(_ constant: ConstantDefinitionModel) -> [String: Any] {
      let documentation = constant.documentation.isEmpty ? "" : ": \(constant.documentation)"
      return [
        "name": constant.constant, "literal": literal(constant.value), "swiftName": escaped(constant.swiftName),
        "member": escaped(constant.memberName ?? constant.swiftName),
        // How Swift code names it: the global, or the static member's string.
        "reference": constant.wrapperType.map { "\($0).\(escaped(constant.memberName ?? constant.swiftName)).rawValue" }
          ?? constant.constant,
        "doc": docComment(
          "`\(constant.value)`\(documentation)" + (constant.isPrivate ? " Apple declares it privately (SPI)." : ""),
          indent: constant.wrapperType == nil ? "" : "  "),
      ]
    }
    let constants = definitions.constants.filter { $0.wrapperType == nil }.map(constantContext)
    // Constants of a CF_STRING_ENUM type are static members of it in Swift, as ClangImporter
    // imports them: `SecKeyAlgorithm.rsaSignatureRaw`, not a global.
    var wrapperNames: [String] = []
    for constant in definitions.constants {
      if let type = constant.wrapperType, !wrapperNames.contains(type) { wrapperNames.append(type) }
    }
    let wrappedTypes: [[String: Any]] = wrapperNames.map { type in
      [
        "name": type,
        "members": definitions.constants.filter { $0.wrapperType == type }.map(constantContext),
      ]
    }
    var firstOfValue: [Int64: StatusCodeModel] = [:]
    for code in model.statusCodes where firstOfValue[code.value] == nil { firstOfValue[code.value] = code }
    let statusCodes: [[String: Any]] = model.statusCodes.map { code in
      [
        "name": code.name, "value": code.value,
        "doc": docComment(
          code.aliasOf.map { "Another name of `\($0)`: \(code.meaning)" } ?? message(code.meaning)),
      ]
    }
    let messages: [[String: Any]] = firstOfValue.values.sorted { $0.value > $1.value }.map { code in
      ["value": code.value, "literal": literal(message(code.meaning))]
    }
    let stored = definitions.itemClasses.filter { !$0.primaryKey.isEmpty }
    let itemClasses: [[String: Any]] = definitions.itemClasses.filter { !$0.isPrivate }.map { itemClass in
      [
        "name": escaped(itemClass.swiftName), "literal": literal(itemClass.value),
        "stored": !itemClass.primaryKey.isEmpty,
        "doc": docComment("`\(itemClass.constant)`.", indent: "  "),
      ]
    }
    let schema: [[String: Any]] = stored.map { itemClass in
      [
        "name": escaped(itemClass.swiftName),
        "attributes": definitions.attributes.filter { $0.classes.contains(itemClass.value) }.map { attribute in
          ["literal": literal(attribute.key), "kind": attribute.kind, "owner": attribute.owner]
        },
        "primaryKey": itemClass.primaryKey.map { literal($0.key) }.joined(separator: ", "),
        "defaults": itemClass.primaryKey.compactMap { key -> [String: Any]? in
          let kind = definitions.attributes.first { $0.key == key.key && $0.classes.contains(itemClass.value) }?.kind
          let value: String
          switch key.fallback {
          // A data attribute's default is data, as the caller's strings become data (rule 1.1).
          case .string(let text)? where kind == "data":
            value = text.isEmpty ? ".data(Data())" : ".data(Data(\(literal(text)).utf8))"
          case .string(let text)?: value = ".string(\(literal(text)))"
          case .integer(let number)?: value = ".integer(\(number))"
          case nil: return nil
          }
          return ["literal": literal(key.key), "value": value]
        },
      ]
    }
    let protections: [[String: Any]] = definitions.protections.map {
      ["literal": literal($0.value), "availability": $0.availability]
    }
    let optionSets: [[String: Any]] = model.typedEnums.filter(\.isOptions).map { options in
      [
        "name": options.name, "rawType": swiftIntegerType(options.underlyingType),
        "doc": docComment("Apple's `\(options.name)`: \(options.documentation)"),
        // A zero-valued member (kSecPaddingNone) is the empty set, `[]`, as ClangImporter imports it.
        "cases": options.cases.filter { $0.value != 0 }.map { option -> [String: Any] in
          let renamed = option.replacement.flatMap { replacement in
            options.cases.first { $0.constant == replacement }?.swiftName
          }
          return [
            "name": escaped(option.swiftName), "value": option.value,
            "doc": docComment("`\(option.constant)`: \(option.documentation)", indent: "  ")
              + (renamed.map { "\n  @available(*, deprecated, renamed: \"\($0)\")" } ?? ""),
          ]
        },
      ]
    }
    // The use keys: kSecUse constants that name a dictionary key (u_...), not a value of one.
    let values = Set(model.valueGroups.flatMap { $0.cases.map(\.constant) })
    let useKeys = Set(
      definitions.constants.filter {
        $0.constant.hasPrefix("kSecUse") && $0.value.hasPrefix("u_") && !values.contains($0.constant)
      }.map(\.value)
    ).sorted().map(literal)
    return [
      "useKeys": useKeys,
      "constants": constants, "wrappedTypes": wrappedTypes, "allConstants": definitions.constants.map(constantContext),
      "statusCodes": statusCodes, "messages": messages, "itemClasses": itemClasses,
      "schema": schema, "protections": protections,
      "defaultProtection": definitions.protections.first.map { literal($0.value) } ?? "\"\"",
      "optionSets": optionSets,
    ]
  }

  /// The Swift type of a C integer type an option set is declared with (`uint32_t` is `UInt32`);
  /// CF's own names (`CFOptionFlags`) are typealiases in Security and stay as they are.
  static func swiftIntegerType(_ type: String) -> String {
    let known = [
      "uint32_t": "UInt32", "int32_t": "Int32", "uint64_t": "UInt64", "int64_t": "Int64", "uint16_t": "UInt16",
      "int": "Int32", "unsigned int": "UInt32", "UInt32": "UInt32", "SInt32": "Int32",
    ]
    return known[type] ?? type
  }
}

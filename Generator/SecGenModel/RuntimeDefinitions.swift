import Foundation
import SecGenParse

/// What the runtime's definitions files add to the headers: the value of every constant and the
/// store schema. The Security module's constants, status codes and schema table are rendered from
/// it (Templates/Runtime), so the headers plus these files are the one source of the schema.
public struct RuntimeDefinitionsModel: Codable, Equatable, Sendable {
  /// Every constant the headers declare, with its value, in declaration order.
  public var constants: [ConstantDefinitionModel]
  /// How the store keeps each attribute a stored class has.
  public var attributes: [StoredAttributeModel]
  /// Attributes a class table names that the store does not keep as attributes.
  public var notStored: [String]
  /// The item classes, those with a primary key being the ones the store keeps.
  public var itemClasses: [StoredClassModel]
  /// The protection classes, the first being the default.
  public var protections: [ProtectionModel]
}

/// A constant and the string it stands for.
public struct ConstantDefinitionModel: Codable, Equatable, Sendable {
  /// The C name (`kSecAttrAccount`).
  public var constant: String
  /// Its value (`acct`).
  public var value: String
  /// The runtime's name for code that compares keys: the C name without `kSec`, lower camel case.
  public var swiftName: String
  /// The header's documentation of it.
  public var documentation: String
  /// Whether a private header declares it (Apple's SPI).
  public var isPrivate: Bool
  /// The CF_STRING_ENUM type it is declared with (`SecKeyAlgorithm`), whose static member Swift
  /// imports it as; nil for a plain CFStringRef.
  public var wrapperType: String? = nil
  /// Its name as a static member of `wrapperType`: the C name without `k` and the type's name,
  /// lower camel case (`kSecKeyAlgorithmRSASignatureRaw` is `rsaSignatureRaw`).
  public var memberName: String? = nil
}

extension SourceLocation {
  /// Whether the declaration is in a private header (`...Priv.h`), as Apple's SPI is.
  var isInPrivateHeader: Bool { file.hasSuffix("Priv.h") }
}

/// How the store keeps one attribute.
public struct StoredAttributeModel: Codable, Equatable, Sendable {
  /// The C name.
  public var constant: String
  /// The attribute's key string (`acct`).
  public var key: String
  /// How values are accepted, compared and returned (`blob`, `number`...).
  public var kind: String
  /// Who sets it (`caller`, `storeDates`, `system`, `unsupported`).
  public var owner: String
  /// The values of the classes whose table lists it.
  public var classes: [String]
}

/// An item class as the store sees it.
public struct StoredClassModel: Codable, Equatable, Sendable {
  /// The C name (`kSecClassGenericPassword`).
  public var constant: String
  /// Its value (`genp`).
  public var value: String
  /// The Swift case name (`genericPassword`).
  public var swiftName: String
  /// Whether a private header declares it (Apple's SPI).
  public var isPrivate: Bool
  /// The primary key, in order; empty for a class the store does not keep.
  public var primaryKey: [PrimaryKeyAttributeModel]
}

/// One attribute of a class's primary key.
public struct PrimaryKeyAttributeModel: Codable, Equatable, Sendable {
  /// The C name.
  public var constant: String
  /// The attribute's key string.
  public var key: String
  /// The value an add gives it when the caller leaves it out; nil when it stays absent.
  public var fallback: AttributeFallback?
}

/// A primary-key attribute's default.
public enum AttributeFallback: Codable, Equatable, Sendable {
  case string(String)
  case integer(Int64)
}

/// A protection class: a kSecAttrAccessible value and when its data is available.
public struct ProtectionModel: Codable, Equatable, Sendable {
  /// The C name.
  public var constant: String
  /// Its value (`ak`).
  public var value: String
  /// When data is available (`whenUnlocked`, `afterFirstUnlock`, `always`, `whenPasscodeSet`).
  public var availability: String
}

extension ModelBuilder {
  static let attributeKinds: Set<String> = [
    "blob", "data", "string", "number", "synchronizable", "date", "accessibility", "accessControl",
  ]
  static let attributeOwners: Set<String> = ["caller", "storeDates", "system", "unsupported"]
  static let protectionAvailabilities: Set<String> = ["whenUnlocked", "afterFirstUnlock", "always", "whenPasscodeSet"]

  /// The runtime definitions of `parsed`, checked against the model of its headers; every problem
  /// is a located diagnostic.
  static func runtimeDefinitions(_ parsed: ParsedHeaders, model: SecurityModel, unavailable: Set<String>) -> (
    RuntimeDefinitionsModel, [Diagnostic]
  ) {
    var diagnostics: [Diagnostic] = []
    func report(_ location: SourceLocation, _ message: String) {
      diagnostics.append(Diagnostic(location: location, severity: .error, message: message))
    }
    let declared = Dictionary(parsed.constants.map { ($0.name, $0) }) { first, _ in first }
    var documentation: [String: String] = [:]
    for itemClass in model.itemClasses { documentation[itemClass.constant] = itemClass.documentation }
    for attribute in model.attributes { documentation[attribute.constant] = attribute.documentation }
    for group in model.valueGroups {
      for valueCase in group.cases { documentation[valueCase.constant] = valueCase.documentation }
    }
    for group in model.keyGroups {
      for constant in group.constants { documentation[constant.constant] = constant.documentation }
    }

    var values: [String: String] = [:]
    var kinds: [String: (kind: String, owner: String)] = [:]
    var notStored: [String] = []
    var primaryKeys: [String: [PrimaryKeyAttributeModel]] = [:]
    var primaryKeyPlaces: [String: SourceLocation] = [:]
    var protections: [(constant: String, availability: String)] = []
    var definedAt: [String: SourceLocation] = [:]

    for definition in parsed.definitions {
      let fields = definition.fields
      let place = definition.location
      func once(_ key: String) -> Bool {
        if let first = definedAt[key] {
          report(place, "\(key.split(separator: " ").last ?? "") is already defined at \(first)")
          return false
        }
        definedAt[key] = place
        return true
      }
      switch (fields.first, fields.count) {
      case ("value", let count) where count >= 3:
        guard declared[fields[1]] != nil else {
          report(place, "SEC_CONST_DECL defines \(fields[1]), which no header declares")
          continue
        }
        // A value may itself hold colons (com.apple.setoken:aks).
        if once("value \(fields[1])") { values[fields[1]] = fields[2...].joined(separator: ":") }
      case ("attribute", 4):
        guard kinds[fields[1]] == nil, once("attribute \(fields[1])") else { continue }
        guard attributeKinds.contains(fields[2]) else {
          report(
            place, "\(fields[2]) is not an attribute kind (one of \(attributeKinds.sorted().joined(separator: ", ")))")
          continue
        }
        guard attributeOwners.contains(fields[3]) else {
          report(place, "\(fields[3]) is not an owner (one of \(attributeOwners.sorted().joined(separator: ", ")))")
          continue
        }
        kinds[fields[1]] = (fields[2], fields[3])
      case ("not-stored", 2):
        if once("attribute \(fields[1])") { notStored.append(fields[1]) }
      case ("primary-key", 4):
        guard model.itemClasses.contains(where: { $0.constant == fields[1] }) else {
          report(place, "\(fields[1]) is not an item class of the headers")
          continue
        }
        let fallback: AttributeFallback?
        if fields[3] == "SEC_NO_DEFAULT" {
          fallback = nil
        } else if fields[3].count >= 2, fields[3].hasPrefix("\""), fields[3].hasSuffix("\"") {
          fallback = .string(String(fields[3].dropFirst().dropLast()))
        } else if let number = Int64(fields[3]) {
          fallback = .integer(number)
        } else {
          report(place, "the default \(fields[3]) is not a string, an integer or SEC_NO_DEFAULT")
          continue
        }
        guard once("primary key \(fields[1]) \(fields[2])") else { continue }
        primaryKeyPlaces[fields[1]] = primaryKeyPlaces[fields[1]] ?? place
        primaryKeys[fields[1], default: []].append(
          PrimaryKeyAttributeModel(constant: fields[2], key: "", fallback: fallback))
      case ("protection", 3):
        guard protectionAvailabilities.contains(fields[2]) else {
          report(
            place,
            "\(fields[2]) is not a protection availability (one of "
              + "\(protectionAvailabilities.sorted().joined(separator: ", ")))")
          continue
        }
        if once("protection \(fields[1])") { protections.append((fields[1], fields[2])) }
      default:
        report(place, "secgen does not understand this definition (\(definition.text))")
      }
    }

    // Every declared constant needs its value; values name no undeclared constant (checked above).
    var constants: [ConstantDefinitionModel] = []
    // Every declared string constant, on every platform, but those the API notes keep out of
    // Swift: the runtime does not implement them, so it defines no value for them either.
    let defined = parsed.constants.filter {
      ModelBuilder.isString($0, stringEnums: Set(parsed.stringEnums)) && !unavailable.contains($0.name)
    }
    for constant in defined {
      guard let value = values[constant.name] else {
        report(constant.location, "\(constant.name) has no value: add SEC_CONST_DECL(\(constant.name), \"...\")")
        continue
      }
      var definition = ConstantDefinitionModel(
        constant: constant.name, value: value,
        swiftName: SwiftNaming.lowerCamel(SwiftNaming.stripPrefix(constant.name, ["kSec"])),
        documentation: documentation[constant.name] ?? "", isPrivate: constant.location.isInPrivateHeader)
      let type = constant.type.replacingOccurrences(of: " _Nonnull", with: "").replacingOccurrences(
        of: "const ", with: "")
      if parsed.stringEnums.contains(type) {
        definition.wrapperType = type
        definition.memberName = SwiftNaming.lowerCamel(SwiftNaming.stripPrefix(constant.name, ["k" + type]))
      }
      constants.append(definition)
    }
    func value(_ name: String) -> String { values[name] ?? name }

    // Every attribute of a stored class is kept or explicitly not.
    var attributes: [StoredAttributeModel] = []
    let stored = model.itemClasses.filter { primaryKeys[$0.constant] != nil }
    for itemClass in stored {
      let place = primaryKeyPlaces[itemClass.constant]!
      for attribute in itemClass.attributes where kinds[attribute] == nil && !notStored.contains(attribute) {
        report(
          place,
          "\(attribute) of \(itemClass.constant) has no SEC_ATTR (or SEC_ATTR_NOT_STORED) saying how it is stored")
      }
      for index in primaryKeys[itemClass.constant]!.indices {
        let key = primaryKeys[itemClass.constant]![index].constant
        primaryKeys[itemClass.constant]![index].key = value(key)
        if !itemClass.attributes.contains(key) || kinds[key] == nil {
          report(place, "the primary key of \(itemClass.constant) names \(key), which is not a stored attribute of it")
        }
      }
    }
    // Two constants may stand for one key (kSecAttrType and kSecAttrKeyType are both "type"): a
    // class keeps the key once, and both must say the same about how it is stored.
    var keptKinds: [String: (constant: String, kind: String, owner: String)] = [:]
    for attribute in model.attributes {
      guard let (kind, owner) = kinds[attribute.constant] else { continue }
      let key = value(attribute.constant)
      var classes: [String] = []
      for itemClass in stored where itemClass.attributes.contains(attribute.constant) {
        let slot = "\(value(itemClass.constant)) \(key)"
        if let kept = keptKinds[slot] {
          if kept.kind != kind || kept.owner != owner {
            report(
              definedAt["attribute \(attribute.constant)"] ?? .none,
              "\(attribute.constant) and \(kept.constant) are both \"\(key)\" but are stored differently")
          }
          continue
        }
        keptKinds[slot] = (attribute.constant, kind, owner)
        classes.append(value(itemClass.constant))
      }
      attributes.append(
        StoredAttributeModel(
          constant: attribute.constant, key: value(attribute.constant), kind: kind, owner: owner, classes: classes))
    }
    for name in kinds.keys where !model.attributes.contains(where: { $0.constant == name }) {
      report(definedAt["attribute \(name)"] ?? .none, "SEC_ATTR names \(name), which is not an attribute key")
    }
    let accessible = Set(model.valueGroups.first { $0.key == "kSecAttrAccessible" }?.cases.map(\.constant) ?? [])
    for protection in protections where !accessible.contains(protection.constant) {
      report(
        definedAt["protection \(protection.constant)"] ?? .none,
        "\(protection.constant) is not a kSecAttrAccessible value")
    }
    let itemClasses = model.itemClasses.map { itemClass in
      StoredClassModel(
        constant: itemClass.constant, value: value(itemClass.constant),
        swiftName: SwiftNaming.lowerCamel(SwiftNaming.stripPrefix(itemClass.constant, ["kSecClass"])),
        isPrivate: declared[itemClass.constant]?.location.isInPrivateHeader ?? false,
        primaryKey: primaryKeys[itemClass.constant] ?? [])
    }
    let definitions = RuntimeDefinitionsModel(
      constants: constants, attributes: attributes, notStored: notStored, itemClasses: itemClasses,
      protections: protections.map {
        ProtectionModel(constant: $0.constant, value: value($0.constant), availability: $0.availability)
      })
    return (definitions, diagnostics)
  }
}

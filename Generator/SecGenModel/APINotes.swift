import Foundation
import SecGenParse

/// The API notes: what the headers cannot say about their Swift side. They are read from clang's
/// YAML API notes format (`Security.apinotes`, see ``APINotes/load(_:)``): clang's keys in the first
/// document (global and enumerator Swift names), secgen's additions in a second document under
/// `SecGen` (group names, attribute value types and classes, typed references, functions imported
/// as their members).
public struct APINotes: Codable, Equatable, Sendable {
  /// Swift names by constant name, group title or status code name.
  public var names: [String: String]
  /// Value types (`ValueType` raw values) by attribute constant.
  public var types: [String: String]
  /// Item classes an attribute belongs to beyond what the headers say, by attribute constant.
  public var classes: [String: [String]] = [:]
  /// The attribute each of these is another name of (`AliasOf`), by attribute constant.
  public var aliases: [String: String] = [:]
  /// Typed Swift types over runtime references, by Swift name.
  public var references: [String: ReferenceNote] = [:]
  /// Functions imported as members of those types, in the notes' order.
  public var methods: [MethodNote] = []
  /// Declarations clang's `Availability: nonswift` (or `none`) keeps out of Swift, with the
  /// reason (its `AvailabilityMsg`), by name: a function, constant, enumerator, or a typedef or tag
  /// whose enumeration goes with it.
  public var unavailable: [String: String] = [:]

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

  init(
    swiftName: String, cType: String, property: String, condition: String?, documentation: String,
    itemClass: String?, itemField: String?, location: SourceLocation
  ) {
    self.swiftName = swiftName
    self.cType = cType
    self.property = property
    self.condition = condition
    self.documentation = documentation
    self.itemClass = itemClass
    self.itemField = itemField
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

  init(
    function: String, swiftName: String, arguments: [String], types: [String: String], fixed: [String: String],
    defaults: [String: String], location: SourceLocation
  ) {
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

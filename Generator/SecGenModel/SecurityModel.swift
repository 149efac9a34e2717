import SecGenParse

/// Stage 2's output: what the headers declare, in the terms the templates need.
///
/// Codable, so `secgen dump` can print it and the reference tests can compare it as JSON.
public struct SecurityModel: Codable, Equatable, Sendable {
  /// The header file names the model was built from, in order.
  public var inputs: [String]
  /// Item classes with the attributes the class table gives them.
  public var itemClasses: [ItemClassModel]
  /// Every attribute key constant.
  public var attributes: [AttributeModel]
  /// `<key> Value Constants` groups: each a typed enum.
  public var valueGroups: [ValueGroupModel]
  /// The other constant groups (search, return, value, other keys).
  public var keyGroups: [KeyGroupModel]
  /// Status codes with their values and meanings.
  public var statusCodes: [StatusCodeModel]
  /// Function prototypes.
  public var functions: [FunctionModel]
  /// Named `CF_ENUM` and `CF_OPTIONS` types (`SecAccessControlCreateFlags`).
  public var typedEnums: [TypedEnumModel] = []
  /// The typed Swift types over runtime references that the API notes declare, with the functions
  /// imported as their members.
  public var typedReferences: [TypedReferenceModel] = []
  /// The runtime definitions (constant values, store schema), when definitions files were read.
  public var definitions: RuntimeDefinitionsModel?
  /// The platform whose declarations the model holds.
  public var platform: TargetPlatform = .ios
  /// Declarations unavailable on the platform, left out with the reason.
  public var excluded: [ExcludedDeclarationModel] = []
  /// Declarations of kinds the model has no use for, recognised and skipped.
  public var skipped: [SkippedDeclarationModel] = []
  /// What was odd but not wrong (a status code with no meaning anywhere), to print as warnings.
  /// Not part of the JSON: warnings carry file paths, which differ between machines.
  public var warnings: [Diagnostic] = []

  private enum CodingKeys: String, CodingKey {
    case inputs, itemClasses, attributes, valueGroups, keyGroups, statusCodes, functions, typedEnums,
      typedReferences, definitions, platform, excluded, skipped
  }
}

/// An item class (`kSecClassGenericPassword`) and its attributes.
public struct ItemClassModel: Codable, Equatable, Sendable {
  /// The C constant's name.
  public var constant: String
  /// `GenericPassword`.
  public var swiftName: String
  /// The HeaderDoc text.
  public var documentation: String
  /// Attribute constants, in the class table's order.
  public var attributes: [String]
}

/// The Swift-facing kind of an attribute's values.
public enum ValueType: String, Codable, Sendable, CaseIterable {
  case string, number, boolean, date, data
  /// A SecAccessControlRef.
  case accessControl
  /// One of the constants of a value group (a typed enum).
  case valueConstant
  /// A legacy macOS type with no Swift representation (SecAccessRef).
  case unsupported
  /// A reference type with no meaning on Linux (macOS's SecAccessRef for kSecAttrAccess): typed,
  /// so the model is complete, but given no setter; the runtime refuses the key with
  /// errSecUnimplemented.
  case opaqueReference
}

/// An attribute key (`kSecAttrAccount`).
public struct AttributeModel: Codable, Equatable, Sendable {
  /// The C constant's name.
  public var constant: String
  /// `account`.
  public var swiftName: String
  /// The kind of its values.
  public var valueType: ValueType
  /// The value group's key when `valueType` is `valueConstant` (`kSecAttrAccessible`).
  public var valueGroup: String?
  /// Only the store sets it (`(read-only)` in the header).
  public var readOnly: Bool
  /// Class constants whose table lists the attribute.
  public var classes: [String]
  /// Declared in a private header (`...Priv.h`), as Apple's SPI constants are.
  public var isPrivate: Bool
  /// The HeaderDoc text.
  public var documentation: String
  /// The deprecation message on the platform ("" without a message), or nil.
  public var deprecation: String? = nil
  /// The attribute this one is another name of (kSecAttrPersistantReference, Apple's misspelling of
  /// kSecAttrPersistentReference), from the API notes: typed and assigned as that one, rendered
  /// once, under that one's name.
  public var aliasOf: String? = nil
}

/// A `<key> Value Constants` group.
public struct ValueGroupModel: Codable, Equatable, Sendable {
  /// The key whose values these are (`kSecAttrAccessible`).
  public var key: String
  /// `Accessibility`.
  public var swiftName: String
  /// The HeaderDoc text.
  public var documentation: String
  /// The constants of the group, as cases.
  public var cases: [ValueCaseModel]
}

/// One constant of a value group.
public struct ValueCaseModel: Codable, Equatable, Sendable {
  /// The C constant's name.
  public var constant: String
  /// `afterFirstUnlock`.
  public var swiftName: String
  /// Whether a private header (`...Priv.h`) declares it.
  public var isPrivate: Bool
  /// The HeaderDoc text.
  public var documentation: String
  /// The deprecation message on the platform ("" without a message), or nil.
  public var deprecation: String? = nil
}

/// Another `@enum` group of key constants.
public struct KeyGroupModel: Codable, Equatable, Sendable {
  /// The `@enum` title.
  public var title: String
  /// Its constants, in source order.
  public var constants: [KeyConstantModel]
  /// The typed API's enum for a group of CF_STRING_ENUM constants (`SigningAlgorithm`), named by
  /// the API notes from the title; nil for other groups.
  public var swiftName: String? = nil
}

/// A key constant of a `KeyGroupModel`.
public struct KeyConstantModel: Codable, Equatable, Sendable {
  /// The C constant's name.
  public var constant: String
  /// Whether a private header (`...Priv.h`) declares it.
  public var isPrivate: Bool
  /// The HeaderDoc text.
  public var documentation: String
  /// The CF_STRING_ENUM type it is declared with (`SecKeyAlgorithm`), nil for a CFStringRef.
  public var wrapperType: String? = nil
  /// Its name as a static member of `wrapperType` and as a case of the group's enum.
  public var memberName: String? = nil
}

/// A status code (`errSecDuplicateItem = -25299`).
public struct StatusCodeModel: Codable, Equatable, Sendable {
  /// The name as declared.
  public var name: String
  /// `duplicateItem`.
  public var swiftName: String
  /// Its value.
  public var value: Int64
  /// The trailing comment.
  public var meaning: String
  /// The first code declared with the same value, when this one is an alias.
  public var aliasOf: String?
  /// Whether a function lists it in its `@result` (then KeychainError has a case for it).
  public var returnedByFunctions: Bool
  /// The deprecation message on the platform ("" without a message), or nil.
  public var deprecation: String? = nil
}

/// A function prototype with its HeaderDoc.
public struct FunctionModel: Codable, Equatable, Sendable {
  /// The name as declared.
  public var name: String
  /// The `@abstract` text.
  public var abstract: String
  /// The result type as libclang spells it.
  public var resultType: String
  /// The parameters, in order.
  public var parameters: [ParameterModel]
  /// The `@result` text.
  public var result: String
  /// Status codes named in `@result`.
  public var resultCodes: [String]
  /// The Swift wrapper the declaration gives (see `WrapperModel` for the rules).
  public var wrapper: WrapperModel? = nil
  /// The deprecation message on the platform ("" without a message), or nil.
  public var deprecation: String? = nil
  /// Declared in a private header (`…Priv.h`, as Apple's SPI): its wrapper is `package`, for this
  /// package's own modules, never public API.
  public var isPrivate = false
}

/// A function parameter.
public struct ParameterModel: Codable, Equatable, Sendable {
  /// The name as declared.
  public var name: String
  /// The type as libclang spells it.
  public var type: String
  /// Whether it may be NULL.
  public var nullable: Bool
  /// The HeaderDoc text.
  public var documentation: String
}

/// A named `CF_ENUM` or `CF_OPTIONS`: a C integer type with named values.
public struct TypedEnumModel: Codable, Equatable, Sendable {
  /// The C type's name, which is also the Swift type's (`SecAccessControlCreateFlags`).
  public var name: String
  /// The integer type it is declared with (`CFOptionFlags`).
  public var underlyingType: String
  /// Whether its values are bits that combine (`CF_OPTIONS`, an `OptionSet` in Swift).
  public var isOptions: Bool
  /// The HeaderDoc text.
  public var documentation: String
  /// Its values, in declaration order.
  public var cases: [TypedEnumCaseModel]
}

/// One value of a typed enum.
public struct TypedEnumCaseModel: Codable, Equatable, Sendable {
  /// The C enumerator's name.
  public var constant: String
  /// The Swift name: the enumerator without the prefix all of the type's values share.
  public var swiftName: String
  /// Its value.
  public var value: Int64
  /// Its `@constant` entry or trailing comment.
  public var documentation: String
  /// Set when the headers deprecate it on the target platform: the message (may be empty).
  public var deprecation: String?
  /// The value whose name it replaces, when the deprecation names one (`kSecAccessControlTouchIDAny`
  /// is replaced by `kSecAccessControlBiometryAny`).
  public var replacement: String?
}

/// The kinds of warning the model stage gives: documentation the headers lack, which leaves the
/// output correct but less informed. `secgen dump --summary` counts them by kind; `--strict`
/// makes them errors (the project's own headers are generated strictly).
public enum WarningKind: String, CaseIterable, Sendable {
  /// A value of a `CF_ENUM`/`CF_OPTIONS` with no trailing comment or `@constant` entry.
  case undocumentedEnumCase = "undocumented enum case"
  /// An attribute key under an attribute group with no `@constant` entry: typed by the API notes,
  /// or left without a typed setter.
  case undocumentedAttribute = "undocumented attribute"
  /// An errSec code with no trailing comment or `@constant` entry.
  case undocumentedStatusCode = "undocumented status code"
  /// An attribute key whose `@constant` entry names no value type secgen knows (an SDK's legacy
  /// constant): imported untyped, as an undocumented one is, rather than refusing the header.
  case untypedAttribute = "untyped attribute"
  /// Documentation that names another declaration than the one it stands before (an SDK's slip,
  /// `@function SecTrustSignedCertificateTimestamps` before SecTrustSetSignedCertificateTimestamps),
  /// or a constant declared only in a branch this platform does not take: read as written.
  case misnamedDocumentation = "misnamed documentation"
}

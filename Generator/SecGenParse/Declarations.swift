/// A place in a header: file, line and column (1-based).
public struct SourceLocation: Codable, Hashable, Sendable, CustomStringConvertible {
  /// The file's path.
  public var file: String
  /// The line, from 1.
  public var line: Int
  /// The column, from 1.
  public var column: Int

  /// Creates a location.
  public init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  /// No location (a failure that belongs to no file, such as a missing libclang).
  public static let none = SourceLocation(file: "secgen", line: 0, column: 0)

  /// `file:line:column`.
  public var description: String { "\(file):\(line):\(column)" }
}

/// A problem found in the input, reported as `file:line:column: error: message`.
public struct Diagnostic: Error, Codable, Hashable, Sendable, CustomStringConvertible {
  /// How bad the problem is: secgen fails on an error; a warning is printed (and fails with
  /// `--strict`).
  public enum Severity: String, Codable, Sendable {
    case warning, error
  }

  /// Where it is declared.
  public var location: SourceLocation
  /// How bad the problem is.
  public var severity: Severity
  /// What is wrong, in words.
  public var message: String
  /// For a warning, what kind of gap it is ("undocumented enum case"...): summaries count by it.
  public var kind: String?

  /// Creates a diagnostic.
  public init(location: SourceLocation, severity: Severity, message: String, kind: String? = nil) {
    self.location = location
    self.severity = severity
    self.message = message
    self.kind = kind
  }

  /// The diagnostic in the compiler's format (`secgen: error: ...` when it has no place).
  public var description: String {
    location == .none ? "secgen: \(severity.rawValue): \(message)" : "\(location): \(severity.rawValue): \(message)"
  }
}

/// A failed stage: every diagnostic it found.
public struct DiagnosticsError: Error, Sendable, CustomStringConvertible {
  /// Every diagnostic, in the order found.
  public var diagnostics: [Diagnostic]

  /// Creates the error.
  public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

  /// One diagnostic per line.
  public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// `extern const CFStringRef kSecAttrAccount;` and the like.
public struct ConstantDeclaration: Codable, Hashable, Sendable {
  /// The name as declared.
  public var name: String
  /// The type as written after resolving the prelude's typedefs' names (`const CFStringRef`).
  public var type: String
  /// The HeaderDoc comment right before the declaration, if any.
  public var comment: String?
  /// Where it is declared.
  public var location: SourceLocation
  /// Its availability macros as written (`API_DEPRECATED("use X", macos(10.0, 10.7))`).
  public var availability: [String] = []
}

/// One enumerator of a `CF_ENUM`.
public struct EnumConstantDeclaration: Codable, Hashable, Sendable {
  /// The name as declared.
  public var name: String
  /// Its value.
  public var value: Int64
  /// The `/* ... */` comment that follows the enumerator on its line.
  public var trailingComment: String?
  /// Where it is declared.
  public var location: SourceLocation
  /// Its availability macros as written.
  public var availability: [String] = []
}

/// A `CF_ENUM` or `CF_OPTIONS` (Apple's status codes are one anonymous enum).
public struct EnumDeclaration: Codable, Hashable, Sendable {
  /// The name as declared; nil for an anonymous `CF_ENUM(OSStatus)`.
  public var name: String?
  /// The integer type a named `CF_ENUM` or `CF_OPTIONS` is declared with (`CFOptionFlags`).
  public var underlyingType: String?
  /// Whether it is a `CF_OPTIONS` (bits that combine) rather than a `CF_ENUM`.
  public var isOptions: Bool = false
  /// The HeaderDoc comment before it, if any.
  public var comment: String?
  /// Its constants, in source order.
  public var constants: [EnumConstantDeclaration]
  /// Where it is declared.
  public var location: SourceLocation
}

/// A parameter of a function prototype.
public struct ParameterDeclaration: Codable, Hashable, Sendable {
  /// Nullability as written or implied by `CF_ASSUME_NONNULL`.
  public enum Nullability: String, Codable, Sendable {
    case nonnull, nullable, unspecified
  }

  /// The name as declared.
  public var name: String
  /// The type as libclang spells it.
  public var type: String
  /// Its nullability.
  public var nullability: Nullability
}

/// A function prototype.
public struct FunctionDeclaration: Codable, Hashable, Sendable {
  /// The name as declared.
  public var name: String
  /// The result type as libclang spells it.
  public var resultType: String
  /// The parameters, in order.
  public var parameters: [ParameterDeclaration]
  /// The HeaderDoc comment before it, if any.
  public var comment: String?
  /// Where it is declared.
  public var location: SourceLocation
  /// Its availability macros as written.
  public var availability: [String] = []
}

/// Everything secgen understood in the headers, in source order.
public struct ParsedHeaders: Codable, Sendable {
  /// The headers read, in order.
  public var files: [String]
  /// Its constants, in source order.
  public var constants: [ConstantDeclaration] = []
  /// The CF_ENUMs, in source order.
  public var enumerations: [EnumDeclaration] = []
  /// The function prototypes, in source order.
  public var functions: [FunctionDeclaration] = []
  /// The names of `CF_STRING_ENUM` typedefs (`typedef CFStringRef SecKeyAlgorithm CF_STRING_ENUM`):
  /// string types whose constants Swift imports as static members of a wrapper type.
  public var stringEnums: [String] = []
  /// Declarations of kinds the model has no use for (typedefs, structs, unions), skipped by kind
  /// and listed by `secgen --verbose`.
  public var skipped: [SkippedDeclaration] = []
  /// The runtime definitions (`SEC_CONST_DECL`, `SEC_ATTR`...) of the definitions files, in order.
  public var definitions: [DefinitionDeclaration] = []

  /// Creates an empty result for `files`.
  public init(files: [String]) { self.files = files }

  /// Adds what another file declares after what this one holds.
  mutating func append(_ other: ParsedHeaders) {
    constants += other.constants
    enumerations += other.enumerations
    functions += other.functions
    stringEnums += other.stringEnums
    skipped += other.skipped
    definitions += other.definitions
  }
}

/// A declaration the parse stage recognised and left out of the model, with the reason.
public struct SkippedDeclaration: Codable, Hashable, Sendable, CustomStringConvertible {
  /// `typedef`, `struct` or `union`.
  public var kind: String
  /// Its name (empty for an anonymous one).
  public var name: String
  /// Where it is declared.
  public var location: SourceLocation

  /// Creates a record of a skipped declaration.
  public init(kind: String, name: String, location: SourceLocation) {
    self.kind = kind
    self.name = name
    self.location = location
  }

  /// `file:line:column: skipped typedef SecKeychainAttrType (not modelled)`.
  public var description: String {
    "\(location): skipped \(kind) \(name) (secgen models constants, enums and functions)"
  }
}

/// One runtime definition of a definitions file: a macro's arguments, as `kind:argument:...`.
public struct DefinitionDeclaration: Codable, Hashable, Sendable {
  /// The macro's arguments as its stand-in recorded them (`value:kSecClass:class`,
  /// `attribute:kSecAttrAccount:blob:caller`).
  public var text: String
  /// Where the macro is used.
  public var location: SourceLocation

  /// The fields of `text`: the kind, then the arguments.
  public var fields: [String] { text.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
}

import Foundation
import SecGen
import SecGenParse
import Testing

/// Malformed input gives a file:line:column diagnostic and a failing exit, never a crash or
/// silently wrong output.
@Suite struct DiagnosticsTests {
  /// A valid header around `body`, so each case breaks exactly one thing.
  static func header(_ body: String) -> String {
    """
    CF_ASSUME_NONNULL_BEGIN
    /*!
        @enum Class Value Constants
        @discussion Classes.
        @constant kSecClassGenericPassword Generic passwords.
    */
    extern const CFStringRef kSecClassGenericPassword;
    \(body)
    CF_ASSUME_NONNULL_END

    """
  }

  static let attributeGroup = """
    /*!
        @enum Attribute Key Constants
        @discussion The attributes.

        kSecClassGenericPassword item attributes:
            kSecAttrAccount

        @constant kSecAttrAccount The account, a CFStringRef.
    */
    extern const CFStringRef kSecAttrAccount;
    """

  struct Case: CustomStringConvertible, Sendable {
    var name: String
    var contents: Data?
    var line: Int
    var message: String
    var description: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "syntax error", contents: Data(header("extern const CFStringRef kSecAttrAccount\nint broken(;").utf8),
      line: 8, message: "expected"),
    Case(
      name: "class table naming an undeclared constant",
      contents: Data(
        header(
          attributeGroup.replacingOccurrences(
            of: "    kSecAttrAccount\n\n", with: "    kSecAttrAccount\n        kSecAttrNowhere\n\n")
        ).utf8),
      line: 14, message: "names kSecAttrNowhere, which is not a declared attribute"),
    Case(
      name: "class table naming an undeclared class",
      contents: Data(
        header(
          attributeGroup.replacingOccurrences(of: "kSecClassGenericPassword item", with: "kSecClassSpaceship item")
        ).utf8),
      line: 12, message: "kSecClassSpaceship, which is not a declared item class"),
    Case(
      name: "constant outside any group",
      contents: Data("extern const CFStringRef kSecStray;\n".utf8), line: 1, message: "not inside an @enum group"),
    Case(
      // The silent damage of a deleted "@enum Attribute Key Constants" line: the attribute keys
      // would fall into the class group and every class would lose its attributes.
      name: "attribute keys without their @enum line",
      contents: Data(header("extern const CFStringRef kSecAttrAccount;").utf8), line: 8,
      message: "kSecAttrAccount is among the item classes"),
    Case(name: "empty file", contents: Data("  \n\n".utf8), line: 1, message: "the header is empty"),
    Case(
      name: "binary file", contents: Data([0x7F, 0x45, 0x4C, 0x46, 0, 1, 2, 0xFF, 0xFE]), line: 1,
      message: "not UTF-8 text"),
    Case(name: "missing file", contents: nil, line: 1, message: "cannot read the header"),
  ]

  static func write(_ testCase: Case) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-diag-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("Broken.h")
    if let contents = testCase.contents { try contents.write(to: file) }
    return file
  }

  @Test func aStatusCodeWithNoMeaningAnywhereIsAWarningWithItsPlace() throws {
    let file = try Self.write(
      Case(
        name: "status code without a meaning",
        contents: Data("CF_ENUM(OSStatus) {\n    errSecSuccess = 0,\n};\n".utf8), line: 2, message: ""))
    defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
    var timings = Pipeline.Timings()
    let model = try Pipeline.model(headers: [file], apiNotes: nil, timings: &timings)
    let warning = try #require(model.warnings.first)
    #expect(warning.severity == .warning)
    #expect(warning.location.file.hasSuffix("Broken.h") && warning.location.line == 2)
    #expect(warning.message.contains("errSecSuccess has no trailing comment or @constant entry"))
    #expect(model.statusCodes.map { $0.name } == ["errSecSuccess"])
  }

  /// Issue 53: an SDK's legacy constant whose documentation names no type, or a type secgen does
  /// not know, is a warning with its place and an untyped attribute, never an error that stops the
  /// run (under --strict every warning is an error, as for the project's own headers).
  @Test(arguments: [
    ("a CFWidgetRef", "CFWidgetRef, which secgen does not know, so it gets no typed setter"),
    ("something", "names no value type"),
  ])
  func anAttributeOfNoKnownTypeIsImportedUntypedWithAWarning(_ wording: String, _ message: String) throws {
    let file = try Self.write(
      Case(
        name: "untyped attribute",
        contents: Data(Self.header(Self.attributeGroup.replacingOccurrences(of: "a CFStringRef", with: wording)).utf8),
        line: 15, message: ""))
    defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
    var timings = Pipeline.Timings()
    let model = try Pipeline.model(headers: [file], apiNotes: nil, timings: &timings)
    let warning = try #require(model.warnings.first { $0.kind == "untyped attribute" })
    #expect(warning.location.line == 15 && warning.message.contains(message), "\(warning)")
    #expect(model.attributes.first { $0.constant == "kSecAttrAccount" }?.valueType == .unsupported)
    _ = try Pipeline.generate(headers: [file], apiNotes: nil, templates: Paths.templates, timings: &timings)
  }

  @Test func aStatusCodeTakesItsMeaningFromTheEnumsConstantEntries() throws {
    let file = try Self.write(
      Case(
        name: "meaning from @constant",
        contents: Data(
          ("/*!\n    @enum Security Error Codes\n    @constant errSecSuccess No error.\n*/\n"
            + "CF_ENUM(OSStatus) {\n    errSecSuccess = 0,\n    errSecDskFull = 0,\n    errSSLWeird = -9800,\n};\n")
            .utf8), line: 1, message: ""))
    defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
    var timings = Pipeline.Timings()
    let model = try Pipeline.model(headers: [file], apiNotes: nil, timings: &timings)
    #expect(model.warnings.isEmpty, "\(model.warnings)")
    #expect(model.statusCodes.map { $0.meaning } == ["No error.", "No error."])
    // An alias takes the meaning of the code it aliases; another family is filtered on the record.
    #expect(model.statusCodes.last?.aliasOf == "errSecSuccess")
    #expect(model.excluded.map { $0.name } == ["errSSLWeird"])
  }

  @Test(arguments: cases)
  func malformedInputIsADiagnosticWithItsPlace(_ testCase: Case) throws {
    let file = try Self.write(testCase)
    defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
    var timings = Pipeline.Timings()
    let error = #expect(throws: DiagnosticsError.self) {
      _ = try Pipeline.generate(headers: [file], apiNotes: nil, templates: Paths.templates, timings: &timings)
    }
    let diagnostic = try #require(error?.diagnostics.first)
    #expect(diagnostic.location.file.hasSuffix("Broken.h"), "\(diagnostic)")
    #expect(diagnostic.location.line == testCase.line, "\(diagnostic)")
    #expect(diagnostic.location.column >= 1, "\(diagnostic)")
    #expect(error?.diagnostics.contains { $0.message.contains(testCase.message) } == true, "\(error!)")
  }

  @Test(arguments: cases)
  func theCommandExitsNonZeroWithTheDiagnostic(_ testCase: Case) throws {
    let file = try Self.write(testCase)
    let output = file.deletingLastPathComponent().appendingPathComponent("out")
    defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
    let result = try run(
      Paths.products.appendingPathComponent("secgen"),
      ["generate", "--header", file.path, "--templates", Paths.templates.path, "--output", output.path])
    #expect(result.status != 0)
    #expect(result.errors.contains("Broken.h:\(testCase.line):"), "\(result.errors)")
    #expect(result.errors.contains("error:"))
    #expect(!FileManager.default.fileExists(atPath: output.path), "no output may be written on failure")
  }

  /// Writes `text` as an API notes file and builds the real headers' model with it: the
  /// diagnostics it fails with, and the file's path.
  static func modelFailure(notes text: String) throws -> (diagnostics: [Diagnostic], file: String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-notes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let notes = folder.appendingPathComponent("Bad.apinotes")
    try Data(text.utf8).write(to: notes)
    var timings = Pipeline.Timings()
    let error = #expect(throws: DiagnosticsError.self) {
      _ = try Pipeline.model(headers: Paths.realHeaders, apiNotes: notes, timings: &timings)
    }
    return (error?.diagnostics ?? [], notes.path)
  }

  /// Each mistake in the notes' YAML is one diagnostic at the line and column of what is wrong.
  @Test(
    arguments: [
      // A key of clang's format that secgen does not act on, and one of no format.
      ("---\nName: Security\nAvailability: nonswift\n", 3, 1, "Availability is a key of clang's API notes"),
      ("---\nName: Security\nGlobals:\n- Name: kSecAttrLabel\n  Colour: red\n", 5, 3, "unknown key Colour"),
      ("---\nName: Security\nGlobals:\n- Name: kSecAttrLabel\n  SwiftPrivate: true\n", 5, 3, "SwiftPrivate is a key"),
      ("---\nGlobals: []\n", 2, 1, "need the module's Name"),
      ("---\nName: Security\nGlobals: kSecAttrLabel\n", 3, 10, "Globals must be a list"),
      ("---\nName: Security\nGlobals:\n- SwiftName: label\n", 4, 3, "needs a Name"),
      ("---\nName: Security\n  Globals: [\n", 3, 10, "not valid YAML"),
      ("---\nName: Security\n---\nExtras: {}\n", 4, 1, "unknown key Extras"),
      (
        "---\nName: Security\n---\nSecGen:\n  Attributes:\n  - Name: kSecAttrLabel\n    ValueType: colour\n", 7, 16,
        "unknown value type for kSecAttrLabel"
      ),
      (
        "---\nName: Security\n---\nSecGen:\n  Attributes:\n  - Name: kSecAttrLabel\n    Classes: kSecClassKey\n", 7, 14,
        "must be a list of item class constants"
      ),
      (
        "---\nName: Security\n---\nSecGen:\n  References:\n  - SwiftName: Signer\n    Type: SecKeyRef\n", 6, 5,
        "needs a Property"
      ),
      ("---\nName: Security\n---\nSecGen:\n  Methods: []\n", 5, 3, "Methods is a key of clang's API notes"),
      ("---\nName: Security\n---\nSecGen: {}\n---\nMore: 1\n", 6, 1, "a third document"),
      // clang's availability: its three values, its message with it, and only it in Functions.
      (
        "---\nName: Security\nFunctions:\n- Name: SecItemAdd\n  Availability: sometimes\n", 5, 17,
        "must be one of available, none, nonswift"
      ),
      ("---\nName: Security\nFunctions:\n- Name: SecItemAdd\n  SwiftName: add(_:)\n", 5, 3, "unknown key SwiftName"),
      ("---\nName: Security\nTypedefs:\n- Name: SecPadding\n", 4, 3, "needs an Availability"),
      (
        "---\nName: Security\nGlobals:\n- Name: kSecAttrLabel\n  AvailabilityMsg: why\n", 5, 20,
        "goes with an Availability"
      ),
    ] as [(String, Int, Int, String)])
  func badAPINotesAreDiagnosedWhereTheyAreWrong(text: String, line: Int, column: Int, problem: String) throws {
    let (diagnostics, file) = try Self.modelFailure(notes: text)
    let diagnostic = try #require(diagnostics.first)
    #expect(diagnostic.message.contains(problem), "\(diagnostic.message)")
    #expect(diagnostic.location == SourceLocation(file: file, line: line, column: column), "\(diagnostic)")
  }

  @Test func notesLargerThanTheBoundAreRefusedUnread() throws {
    let text = "---\nName: Security\n" + String(repeating: "# padding\n", count: 110_000)
    let diagnostic = try #require(try Self.modelFailure(notes: text).diagnostics.first)
    #expect(diagnostic.message.contains("more than 1048576 is not notes"), "\(diagnostic)")
    #expect(diagnostic.location.line == 1)
  }

  /// A class the headers do not declare, named by the notes' Classes, is diagnosed at the
  /// attribute's declaration.
  @Test func anUndeclaredClassInTheNotesIsDiagnosed() throws {
    let notes =
      "---\nName: Security\n---\nSecGen:\n  Attributes:\n  - Name: kSecAttrLabel\n    Classes: [kSecClassSpaceship]\n"
    let diagnostic = try #require(try Self.modelFailure(notes: notes).diagnostics.first)
    #expect(diagnostic.message.contains("kSecClassSpaceship, which is not a declared item class"), "\(diagnostic)")
    #expect(diagnostic.location.file.hasSuffix("SecItem.h"), "\(diagnostic)")
  }

  @Test(
    arguments: [
      // A getter cannot carry SecKeyCopyExternalRepresentation's error report.
      (
        "{ Function: SecKeyCopyExternalRepresentation, SwiftName: \"getter:Signer.bytes\" }",
        "reports errors, so it cannot be the getter"
      ),
      // dataToSign is left over: neither an argument, a fixed value nor self.
      (
        "{ Function: SecKeyCreateSignature, SwiftName: \"Signer.sign(algorithm:)\", Arguments: [algorithm], Types: { algorithm: SigningAlgorithm } }",
        "exactly one parameter of type SecKey left for self"
      ),
      ("{ Function: SecKeyMakeCoffee, SwiftName: Signer.coffee() }", "not a function the headers declare"),
      ("{ Function: SecKeyCreateSignature, SwiftName: Nobody.sign() }", "not one of the References"),
      (
        "{ Function: SecKeyCreateSignature, SwiftName: \"Signer.sign(_:)\", Arguments: [data] }",
        "data is not a parameter of SecKeyCreateSignature"
      ),
      ("{ Function: SecKeyCreateSignature, SwiftName: Signer sign }", "is no member name"),
    ])
  func badMemberNotesAreDiagnosedAtTheirEntry(entry: String, problem: String) throws {
    let text = """
      ---
      Name: Security
      ---
      SecGen:
        References:
        - { SwiftName: Signer, Type: SecKeyRef, Property: secKey, Doc: A key. }
        Members:
        - \(entry)

      """
    let (diagnostics, file) = try Self.modelFailure(notes: text)
    let diagnostic = try #require(diagnostics.first)
    #expect(diagnostic.message.contains(problem), "\(diagnostic.message)")
    #expect(diagnostic.location.file == file && diagnostic.location.line == 8, "\(diagnostic)")
  }

  @Test func aMissingLibclangIsOneMessageSayingWhatToInstall() throws {
    let process = Process()
    process.executableURL = Paths.products.appendingPathComponent("secgen")
    process.arguments = ["dump", "--header", Paths.realHeaders[0].path]
    process.environment = ["SECGEN_LIBCLANG": "/nonexistent/libclang.so"]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = Pipe()
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus != 0)
    #expect(message.contains("secgen needs libclang") && message.contains("apt-get install libclang-dev"), "\(message)")
    #expect(message.split(separator: "\n").count == 1)
  }

  @Test func aMissingArgumentPrintsUsage() throws {
    let result = try run(Paths.products.appendingPathComponent("secgen"), ["generate"])
    #expect(result.status != 0)
    #expect(result.errors.contains("Usage:") || result.errors.contains("Error:"))
  }
}

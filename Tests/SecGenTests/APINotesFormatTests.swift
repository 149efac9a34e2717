import Foundation
import SecGenModel
import Testing

/// The API notes are clang's format: clang's own API notes reader (the toolchain's clang, as
/// ClangImporter runs it when it builds a module) accepts the project's notes, and secgen reads
/// each key they use.
@Suite struct APINotesFormatTests {
  /// Builds a module named Security with the notes beside its module map; clang reads
  /// `Security.apinotes` there and fails the build on a key or shape its format does not have.
  static func clangBuildsModule(notes: String) throws -> (status: Int32, errors: String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-clang-\(UUID().uuidString)")
    let include = folder.appendingPathComponent("include")
    try FileManager.default.createDirectory(at: include, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data("module Security {\n  header \"Security.h\"\n  export *\n}\n".utf8)
      .write(to: include.appendingPathComponent("module.modulemap"))
    try Data("extern const int kSecAttrAccessible;\n".utf8).write(to: include.appendingPathComponent("Security.h"))
    try Data(notes.utf8).write(to: include.appendingPathComponent("Security.apinotes"))
    let source = folder.appendingPathComponent("main.c")
    try Data("#include <Security.h>\nint main(void) { return kSecAttrAccessible; }\n".utf8).write(to: source)
    let result = try run(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "clang", "-fmodules", "-fimplicit-module-maps", "-fapinotes-modules", "-fsyntax-only",
        "-fmodules-cache-path=\(folder.appendingPathComponent("cache").path)", "-I", include.path, source.path,
      ])
    return (result.status, result.errors)
  }

  @Test func clangReadsTheProjectNotes() throws {
    let result = try Self.clangBuildsModule(notes: try String(contentsOf: Paths.realNotes, encoding: .utf8))
    #expect(result.status == 0, "\(result.errors)")
  }

  /// The check above can fail: clang does read the notes, and refuses a key its format lacks.
  @Test func clangRefusesAKeyItsFormatLacks() throws {
    let result = try Self.clangBuildsModule(
      notes: "---\nName: Security\nGlobals:\n- Name: kSecAttrAccessible\n  Colour: red\n")
    #expect(result.status != 0)
    #expect(result.errors.contains("unknown key 'Colour'"), "\(result.errors)")
  }

  /// `Availability: nonswift` means to secgen what it means to ClangImporter: the declaration is
  /// not there for Swift. swiftc, importing a module whose notes say so, refuses a use of the
  /// function with the notes' message, and accepts its neighbour that the notes leave alone.
  @Test func swiftHonoursNonswiftAsSecgenDoes() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-swift-\(UUID().uuidString)")
    let include = folder.appendingPathComponent("include")
    try FileManager.default.createDirectory(at: include, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data("module Security {\n  header \"Security.h\"\n  export *\n}\n".utf8)
      .write(to: include.appendingPathComponent("module.modulemap"))
    try Data("int SecTrustGetTypeID(void);\nint SecRandomGetTypeID(void);\n".utf8)
      .write(to: include.appendingPathComponent("Security.h"))
    try Data(
      "---\nName: Security\nFunctions:\n- Name: SecTrustGetTypeID\n  Availability: nonswift\n  AvailabilityMsg: not implemented by the runtime\n"
        .utf8
    ).write(to: include.appendingPathComponent("Security.apinotes"))
    func typecheck(_ call: String) throws -> (status: Int32, errors: String) {
      let source = folder.appendingPathComponent("main.swift")
      try Data("import Security\nlet value = \(call)()\n".utf8).write(to: source)
      let result = try run(
        URL(fileURLWithPath: "/usr/bin/env"),
        [
          "swiftc", "-typecheck", "-I", include.path, "-module-cache-path",
          folder.appendingPathComponent("cache").path, source.path,
        ])
      return (result.status, result.errors)
    }
    let refused = try typecheck("SecTrustGetTypeID")
    #expect(refused.status != 0)
    #expect(refused.errors.contains("not implemented by the runtime"), "\(refused.errors)")
    let accepted = try typecheck("SecRandomGetTypeID")
    #expect(accepted.status == 0, "\(accepted.errors)")
  }

  /// Every key secgen reads, each in a fixture of its own writing.
  @Test func everyKeyIsRead() throws {
    let text = """
      ---
      Name: Security
      Globals:
      - Name: kSecAttrAccount
        SwiftName: accountName
      - Name: kSecPolicyOid
        Availability: nonswift
      Enumerators:
      - Name: errSecParam
        SwiftName: badParameter
      - Name: kSecRevocationCRLMethod
        Availability: none
        AvailabilityMsg: no revocation here
      Functions:
      - Name: SecTrustCopyKey
        Availability: nonswift
        AvailabilityMsg: not implemented by the runtime
      - Name: SecItemAdd
        Availability: available
      Typedefs:
      - Name: SecTrustResultType
        Availability: nonswift
      Tags:
      - Name: SecPadding
        Availability: nonswift
        AvailabilityMsg: no padding
      ---
      SecGen:
        Groups:
        - Name: kSecAttrAccessible Value Constants
          SwiftName: Protection
        Attributes:
        - Name: kSecAttrAlias
          ValueType: data
          Classes: [kSecClassGenericPassword, kSecClassKey]
        References:
        - SwiftName: Signer
          Type: SecKeyRef
          Property: secKey
          When: isPrivate
          Doc: A key that signs.
          ItemClass: kSecClassKey
          ItemField: signer
        Members:
        - Function: SecKeyIsAlgorithmSupported
          SwiftName: Signer.canSign(with:)
          Arguments: [algorithm]
          Types: { algorithm: SigningAlgorithm }
          Fixed: { operation: .sign }
          Defaults: { algorithm: .ecdsaSignatureMessageX962SHA256 }

      """
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "secgen-keys-\(UUID().uuidString).apinotes")
    try Data(text.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let notes = try APINotes.load(file)
    #expect(notes.names["kSecAttrAccount"] == "accountName")
    #expect(notes.names["errSecParam"] == "badParameter")
    #expect(
      notes.unavailable == [
        "kSecPolicyOid": "unavailable in Swift (Availability: nonswift in the API notes)",
        "kSecRevocationCRLMethod": "no revocation here", "SecTrustCopyKey": "not implemented by the runtime",
        "SecTrustResultType": "unavailable in Swift (Availability: nonswift in the API notes)",
        "SecPadding": "no padding",
      ])
    #expect(notes.names["kSecAttrAccessible Value Constants"] == "Protection")
    #expect(notes.types["kSecAttrAlias"] == "data")
    #expect(notes.classes["kSecAttrAlias"] == ["kSecClassGenericPassword", "kSecClassKey"])
    let signer = try #require(notes.references["Signer"])
    #expect(signer.cType == "SecKeyRef" && signer.property == "secKey" && signer.condition == "isPrivate")
    #expect(signer.documentation == "A key that signs." && signer.itemClass == "kSecClassKey")
    #expect(signer.itemField == "signer")
    let member = try #require(notes.methods.first)
    #expect(member.function == "SecKeyIsAlgorithmSupported" && member.swiftName == "Signer.canSign(with:)")
    #expect(member.arguments == ["algorithm"] && member.types == ["algorithm": "SigningAlgorithm"])
    #expect(member.fixed == ["operation": ".sign"])
    #expect(member.defaults == ["algorithm": ".ecdsaSignatureMessageX962SHA256"])
    #expect(member.location.line == 46, "the member is located at its SwiftName")
  }
}

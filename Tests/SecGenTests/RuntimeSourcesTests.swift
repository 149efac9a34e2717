import Foundation
import SecGen
import SecGenModel
import SecGenParse
import Testing

/// The Security module's constants, status codes and schema come from one source: the headers and
/// the runtime's definitions, rendered by secgen's runtime templates and committed.
@Suite struct RuntimeSources {
  static let definitions = [Paths.root.appendingPathComponent("Sources/Security/Definitions/SecItemDefinitions.c")]
  static let generated = Paths.root.appendingPathComponent("Sources/Security/Generated")

  @Test func theCommittedRuntimeSourcesAreWhatTheHeadersAndDefinitionsGive() throws {
    var timings = Pipeline.Timings()
    let outputs = try Pipeline.generate(
      headers: Paths.realHeaders, definitions: Self.definitions, apiNotes: Paths.realNotes,
      templates: Paths.templates.appendingPathComponent("Runtime"), timings: &timings)
    let committed = try FileManager.default.contentsOfDirectory(atPath: Self.generated.path).sorted()
    #expect(outputs.map(\.fileName).sorted() == committed)
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("runtime-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    for output in outputs {
      // `make runtime-sources` formats what secgen writes; so does this comparison.
      let file = scratch.appendingPathComponent(output.fileName)
      try output.contents.write(to: file, atomically: true, encoding: .utf8)
      let formatted = try run(
        URL(fileURLWithPath: "/usr/bin/env"),
        ["swift", "format", "--configuration", Paths.root.appendingPathComponent(".swift-format").path, file.path])
      #expect(formatted.status == 0)
      let expected = try String(contentsOf: Self.generated.appendingPathComponent(output.fileName), encoding: .utf8)
      #expect(
        formatted.output == expected, "\(output.fileName) is stale: run `make runtime-sources` and commit the result")
    }
  }

  @Test func everyDeclaredConstantHasItsValueAndEveryStoredAttributeItsKind() throws {
    var timings = Pipeline.Timings()
    let model = try Pipeline.model(
      headers: Paths.realHeaders, definitions: Self.definitions, apiNotes: Paths.realNotes, timings: &timings)
    let definitions = try #require(model.definitions)
    #expect(definitions.constants.count == 354)
    // SecKey.h's algorithms are static members of their CF_STRING_ENUM type, as Swift imports them.
    let signing = try #require(
      definitions.constants.first { $0.constant == "kSecKeyAlgorithmECDSASignatureMessageX962SHA256" })
    #expect(signing.wrapperType == "SecKeyAlgorithm" && signing.memberName == "ecdsaSignatureMessageX962SHA256")
    #expect(definitions.itemClasses.filter { !$0.primaryKey.isEmpty }.map(\.value) == ["genp", "inet", "cert", "keys"])
    // kSecAttrType and kSecAttrKeyType are both "type": the key class keeps it once.
    #expect(definitions.attributes.filter { $0.key == "type" && $0.classes.contains("keys") }.count == 1)
    #expect(definitions.protections.first?.value == "ak")
    #expect(definitions.attributes.first { $0.key == "acct" }?.kind == "blob")
  }

  /// A definitions file that breaks one rule, and the diagnostic it must give.
  struct BrokenDefinitions: CustomStringConvertible, Sendable {
    var name: String
    var replace: String
    var with: String
    var message: String
    var description: String { name }
  }

  static let broken: [BrokenDefinitions] = [
    BrokenDefinitions(
      name: "a constant without its value", replace: "SEC_CONST_DECL(kSecAttrAccount, \"acct\");\n", with: "",
      message: "kSecAttrAccount has no value"),
    BrokenDefinitions(
      name: "two constants of one key stored differently", replace: "SEC_ATTR(kSecAttrKeyType, number, caller);",
      with: "SEC_ATTR(kSecAttrKeyType, string, caller);", message: "are both \"type\" but are stored differently"),
    BrokenDefinitions(
      name: "a misspelt constant", replace: "SEC_ATTR(kSecAttrAccount, blob, caller);",
      with: "SEC_ATTR(kSecAttrAcount, blob, caller);", message: "kSecAttrAcount"),
    BrokenDefinitions(
      name: "an unknown kind", replace: "SEC_ATTR(kSecAttrAccount, blob, caller);",
      with: "SEC_ATTR(kSecAttrAccount, blobby, caller);", message: "blobby is not an attribute kind"),
    BrokenDefinitions(
      name: "a stored attribute without its kind", replace: "SEC_ATTR(kSecAttrAccount, blob, caller);\n", with: "",
      message: "kSecAttrAccount of kSecClassGenericPassword has no SEC_ATTR"),
    BrokenDefinitions(
      name: "a value defined twice", replace: "SEC_CONST_DECL(kSecAttrAccount, \"acct\");",
      with: "SEC_CONST_DECL(kSecAttrAccount, \"acct\");\nSEC_CONST_DECL(kSecAttrAccount, \"acct\");",
      message: "redefinition"),
  ]

  @Test(arguments: broken)
  func brokenDefinitionsAreLocatedDiagnostics(_ broken: BrokenDefinitions) throws {
    let original = try String(contentsOf: Self.definitions[0], encoding: .utf8)
    #expect(original.contains(broken.replace))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("definitions-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("SecItemDefinitions.c")
    try original.replacingOccurrences(of: broken.replace, with: broken.with).write(
      to: file, atomically: true, encoding: .utf8)
    var timings = Pipeline.Timings()
    do {
      _ = try Pipeline.model(
        headers: Paths.realHeaders, definitions: [file], apiNotes: Paths.realNotes, timings: &timings)
      Issue.record("\(broken.name) was accepted")
    } catch {
      let matching = error.diagnostics.filter { $0.message.contains(broken.message) }
      #expect(!matching.isEmpty, "\(error.diagnostics.map(\.description))")
      #expect(matching.allSatisfy { $0.location.line > 0 }, "\(matching.map(\.description))")
    }
  }
}

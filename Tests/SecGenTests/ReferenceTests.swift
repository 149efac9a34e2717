import Foundation
import SecGen
import SecGenModel
import SecGenParse
import Testing

/// Reference tests in the manner of rust-bindgen and swift-openapi-generator: each folder of
/// Fixtures/ holds headers (and optionally API notes), the model they must give
/// (expected-model.json) and the Swift they must render (expected/). `SECGEN_RECORD=1` re-records.
/// Every fixture also reads Fixtures/FixturePriv.h, the private header that declares the runtime's
/// typed entry points (as SecItemPriv.h does beside the real headers), so it is written once.
@Suite struct ReferenceTests {
  static let cases = [
    "generic-password", "added-attribute", "value-groups", "sdk-layout", "function-wrappers", "real-conventions",
    "typed-enums", "string-enums", "undocumented", "system-includes", "class-membership",
  ]
  static let recording = ProcessInfo.processInfo.environment["SECGEN_RECORD"] == "1"

  struct Fixture {
    var folder: URL
    var headers: [URL]
    var notes: URL?

    init(_ name: String) throws {
      let folder = Paths.fixtures.appendingPathComponent(name)
      let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
      self.folder = folder
      headers =
        names.filter { $0.hasSuffix(".h") }.map { folder.appendingPathComponent($0) }
        + [Paths.fixtures.appendingPathComponent("FixturePriv.h")]
      notes = names.first { $0.hasSuffix(".apinotes") }.map { folder.appendingPathComponent($0) }
    }

    var expectedModel: URL { folder.appendingPathComponent("expected-model.json") }
    var expectedSwift: URL { folder.appendingPathComponent("expected") }
  }

  static func json(_ model: SecurityModel) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(model), as: UTF8.self) + "\n"
  }

  @Test(arguments: cases)
  func theModelMatchesTheRecordedOne(name: String) throws {
    let fixture = try Fixture(name)
    var timings = Pipeline.Timings()
    let model = try Pipeline.model(headers: fixture.headers, apiNotes: fixture.notes, timings: &timings)
    let actual = try Self.json(model)
    if Self.recording { try actual.write(to: fixture.expectedModel, atomically: true, encoding: .utf8) }
    #expect(actual == (try String(contentsOf: fixture.expectedModel, encoding: .utf8)))
  }

  @Test(arguments: cases)
  func theSwiftMatchesTheRecordedOne(name: String) throws {
    let fixture = try Fixture(name)
    var timings = Pipeline.Timings()
    let outputs = try Pipeline.generate(
      headers: fixture.headers, apiNotes: fixture.notes, templates: Paths.templates, timings: &timings)
    if Self.recording {
      try? FileManager.default.removeItem(at: fixture.expectedSwift)
      try FileManager.default.createDirectory(at: fixture.expectedSwift, withIntermediateDirectories: true)
      for output in outputs {
        try output.contents.write(
          to: fixture.expectedSwift.appendingPathComponent(output.fileName), atomically: true, encoding: .utf8)
      }
    }
    let expectedNames = try FileManager.default.contentsOfDirectory(atPath: fixture.expectedSwift.path).sorted()
    #expect(outputs.map(\.fileName) == expectedNames)
    for output in outputs {
      let expected = try String(
        contentsOf: fixture.expectedSwift.appendingPathComponent(output.fileName), encoding: .utf8)
      #expect(output.contents == expected, "\(name)/\(output.fileName) differs from the recording")
    }
  }

  @Test(arguments: cases)
  func theExpectedSwiftCompilesWithTheKeychainSupport(name: String) throws {
    let fixture = try Fixture(name)
    let support = try FileManager.default.contentsOfDirectory(
      atPath: Paths.root.appendingPathComponent("Sources/Keychain").path
    )
    .filter { $0.hasSuffix(".swift") }.map { Paths.root.appendingPathComponent("Sources/Keychain/\($0)").path }
    let generated = try FileManager.default.contentsOfDirectory(atPath: fixture.expectedSwift.path)
      .map { fixture.expectedSwift.appendingPathComponent($0).path }
    let result = try run(
      URL(fileURLWithPath: "/usr/bin/env"),
      [
        "swiftc", "-typecheck", "-swift-version", "6", "-module-name", "Fixture", "-package-name", Paths.packageName,
        "-I",
        Paths.products.appendingPathComponent("Modules").path,
      ]
        + support + generated)
    #expect(result.status == 0, "\(result.errors)")
  }

  @Test(arguments: cases)
  func theSwiftIsAsSwiftFormatWouldLeaveIt(name: String) throws {
    let fixture = try Fixture(name)
    for file in try FileManager.default.contentsOfDirectory(atPath: fixture.expectedSwift.path) {
      let path = fixture.expectedSwift.appendingPathComponent(file)
      let formatted = try run(
        URL(fileURLWithPath: "/usr/bin/env"),
        ["swift", "format", "--configuration", Paths.root.appendingPathComponent(".swift-format").path, path.path])
      #expect(formatted.status == 0)
      #expect(formatted.output == (try String(contentsOf: path, encoding: .utf8)), "\(name)/\(file) is not formatted")
    }
  }

  @Test func outputIsDeterministic() throws {
    var timings = Pipeline.Timings()
    let first = try Pipeline.generate(
      headers: Paths.realHeaders, apiNotes: Paths.realNotes, templates: Paths.templates, timings: &timings)
    let second = try Pipeline.generate(
      headers: Paths.realHeaders, apiNotes: Paths.realNotes, templates: Paths.templates, timings: &timings)
    #expect(first == second)
    #expect(
      first.allSatisfy {
        $0.contents.hasPrefix(
          "// Generated by secgen from SecAccessControl.h, SecBase.h, SecCertificate.h, SecIdentity.h")
      })
  }

  @Test func addingAnAttributeGivesATypedSetterAndField() throws {
    let before = try String(
      contentsOf: Paths.fixtures.appendingPathComponent("generic-password/expected/ItemClasses.swift"), encoding: .utf8)
    let after = try String(
      contentsOf: Paths.fixtures.appendingPathComponent("added-attribute/expected/ItemClasses.swift"), encoding: .utf8)
    #expect(!before.contains("func label(_ value: String) -> Self"))
    #expect(after.contains("func label(_ value: String) -> Self"))
    #expect(after.contains("public var label: String?"))
    #expect(after.contains("label = result.string(ResultKeys.kSecAttrLabel)"))
    #expect(after.contains("static let kSecAttrLabel = Security.kSecAttrLabel.description"))
  }
}

import Foundation
import SecGen
import SecGenModel
import SecGenParse
import Testing

/// What documentation lacks is a warning, not an error: the declaration is modelled with what it
/// says itself (as ClangImporter imports an undocumented declaration), the API notes may type it,
/// and `--strict` turns the warnings into errors for headers that must have none.
@Suite struct DocumentationWarnings {
  static let fixture = Paths.fixtures.appendingPathComponent("undocumented")
  static let header = fixture.appendingPathComponent("Fixture.h")
  static let notes = fixture.appendingPathComponent("Fixture.apinotes")
  static let arguments = [
    "--header", header.path, "--header", Paths.fixtures.appendingPathComponent("FixturePriv.h").path,
    "--api-notes", notes.path,
  ]

  static func model() throws -> SecurityModel {
    var timings = Pipeline.Timings()
    return try Pipeline.model(
      headers: [header, Paths.fixtures.appendingPathComponent("FixturePriv.h")], apiNotes: notes, timings: &timings)
  }

  @Test func eachGapIsAWarningOfItsKindAtItsDeclaration() throws {
    let model = try Self.model()
    let places = model.warnings.map { "\($0.kind ?? "none") \($0.location.line)" }
    #expect(
      places.sorted()
        == [
          "undocumented attribute 37", "undocumented attribute 38", "undocumented enum case 45",
          "undocumented status code 54",
        ], "\(model.warnings)")
    #expect(model.warnings.allSatisfy { $0.severity == .warning && $0.location.file == Self.header.path })
    #expect(
      model.warnings.contains { $0.message.contains("kSecAttrLabel has no @constant entry; its value type (string)") })
  }

  @Test func anUndocumentedAttributeKeepsItsClassAndTakesItsTypeFromTheNotes() throws {
    let attributes = Dictionary(uniqueKeysWithValues: try Self.model().attributes.map { ($0.constant, $0) })
    #expect(attributes["kSecAttrLabel"]?.valueType == .string)
    #expect(attributes["kSecAttrLabel"]?.classes == ["kSecClassGenericPassword"])
    // Nothing says what kSecAttrAlias holds: it stays in its class, with no typed setter.
    #expect(attributes["kSecAttrAlias"]?.valueType == .unsupported)
    #expect(attributes["kSecAttrAlias"]?.classes == ["kSecClassGenericPassword"])
    let padding = try #require(try Self.model().typedEnums.first { $0.name == "SecFixturePadding" })
    #expect(padding.cases.map(\.constant) == ["kSecFixturePaddingNone", "kSecFixturePaddingPKCS1"])
  }

  @Test func theSummaryCountsThemByKindAndStrictFailsOnThem() throws {
    let secgen = Paths.products.appendingPathComponent("secgen")
    let summary = try run(secgen, ["dump", "--summary"] + Self.arguments)
    #expect(summary.status == 0, "\(summary.errors)")
    #expect(
      summary.output.contains(
        "warnings: 4 (undocumented enum case: 1, undocumented attribute: 2, undocumented status code: 1)"),
      "\(summary.output)")
    #expect(summary.errors.contains("Fixture.h:45:5: warning: kSecFixturePaddingNone of SecFixturePadding"))

    let strict = try run(secgen, ["dump", "--summary", "--strict"] + Self.arguments)
    #expect(strict.status != 0)
    #expect(strict.errors.contains("Fixture.h:37:"), "\(strict.errors)")
    #expect(strict.errors.split(separator: "\n").filter { $0.contains(": error: ") }.count == 4, "\(strict.errors)")
    #expect(strict.output.isEmpty)
  }

  @Test func theProjectsHeadersHaveNoWarnings() throws {
    var timings = Pipeline.Timings()
    let model = try Pipeline.model(headers: Paths.realHeaders, apiNotes: Paths.realNotes, timings: &timings)
    #expect(model.warnings.isEmpty, "\(model.warnings)")
  }
}

/// The stand-in SDK headers decide what is generated, so they are read only from a folder the run
/// made for itself.
@Suite struct StandInHeaders {
  @Test func aStandInFolderInTheTemporaryDirectoryIsNeverReadAgain() throws {
    var timings = Pipeline.Timings()
    let first = try Pipeline.model(headers: Paths.realHeaders, apiNotes: Paths.realNotes, timings: &timings)
    // secgen used to keep its stand-ins in secgen-sdk-<hash>-<uid>, a name anyone could predict
    // and create first. Every such folder is poisoned here, as another user could have; a run must
    // not read them (it did before: the second model failed on the planted #error).
    let temporary = FileManager.default.temporaryDirectory
    for name in try FileManager.default.contentsOfDirectory(atPath: temporary.path) where name.hasPrefix("secgen-sdk-")
    {
      let folder = temporary.appendingPathComponent(name)
      for path in FileManager.default.subpaths(atPath: folder.path) ?? [] where path.hasSuffix(".h") {
        try? Data("#error \"a planted stand-in was read\"\n".utf8).write(to: folder.appendingPathComponent(path))
      }
    }
    let second = try Pipeline.model(headers: Paths.realHeaders, apiNotes: Paths.realNotes, timings: &timings)
    #expect(second == first)
  }

  @Test func aMissingIncludeIsOneDiagnosticNamingHowItsHeaderWasReached() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let main = folder.appendingPathComponent("Main.h")
    try Data("#include <CoreFoundation/CoreFoundation.h>\n\n#include \"Nested.h\"\n".utf8).write(to: main)
    try Data("/* nested */\n#include <nowhere/missing.h>\n".utf8).write(to: folder.appendingPathComponent("Nested.h"))
    var timings = Pipeline.Timings()
    let error = #expect(throws: DiagnosticsError.self) {
      _ = try Pipeline.model(headers: [main], apiNotes: nil, timings: &timings)
    }
    let diagnostics = try #require(error?.diagnostics)
    #expect(diagnostics.count == 1, "\(diagnostics)")
    let diagnostic = try #require(diagnostics.first)
    #expect(diagnostic.location.file.hasSuffix("/Nested.h") && diagnostic.location.line == 2, "\(diagnostic)")
    #expect(diagnostic.message.contains("'nowhere/missing.h' file not found"), "\(diagnostic)")
    #expect(diagnostic.message.contains("Nested.h is included from \(main.path):3:10"), "\(diagnostic)")
  }
}

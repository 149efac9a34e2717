import Foundation
import Testing

/// SecGenBuildTool, what the build plugin runs: the built binary writes what `secgen generate`
/// writes for the same inputs, and refuses arguments it does not know.
@Suite struct BuildToolTests {
  static let tool = Paths.products.appendingPathComponent("SecGenBuildTool")
  static let secgen = Paths.products.appendingPathComponent("secgen")

  @Test func writesWhatSecgenGenerateWrites() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-tool-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let inputs =
      Paths.realHeaders.flatMap { ["--header", $0.path] }
      + ["--api-notes", Paths.realNotes.path, "--strict", "--templates", Paths.templates.path]
    let byTool = try run(Self.tool, inputs + ["--output", folder.appendingPathComponent("tool").path])
    #expect(byTool.status == 0, "\(byTool.errors)")
    let bySecgen = try run(
      Self.secgen, ["generate"] + inputs + ["--output", folder.appendingPathComponent("cli").path])
    #expect(bySecgen.status == 0, "\(bySecgen.errors)")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("cli").path).sorted()
    #expect(!names.isEmpty)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tool").path).sorted() == names)
    for name in names {
      let tool = try Data(contentsOf: folder.appendingPathComponent("tool/\(name)"))
      let cli = try Data(contentsOf: folder.appendingPathComponent("cli/\(name)"))
      #expect(tool == cli, "\(name) differs")
    }
  }

  @Test(arguments: [
    (["--header"], "--header needs a value"),
    (["--verbose"], "unknown argument --verbose"),
    (["--header", "A.h"], "give --header (at least one), --templates and --output"),
  ])
  func refusesWhatItDoesNotKnow(arguments: [String], reason: String) throws {
    let result = try run(Self.tool, arguments)
    #expect(result.status == 1)
    #expect(result.errors.contains(reason) && result.errors.contains("usage: SecGenBuildTool"), "\(result.errors)")
  }

  @Test func aHeaderErrorIsADiagnosticAndNoOutput() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-tool-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let header = folder.appendingPathComponent("Broken.h")
    try Data("extern const CFStringRef kSecStray;\n".utf8).write(to: header)
    let output = folder.appendingPathComponent("out")
    let result = try run(
      Self.tool, ["--header", header.path, "--templates", Paths.templates.path, "--output", output.path])
    #expect(result.status == 1)
    #expect(result.errors.contains("Broken.h:1:") && result.errors.contains("error:"), "\(result.errors)")
    #expect(!FileManager.default.fileExists(atPath: output.path))
  }
}

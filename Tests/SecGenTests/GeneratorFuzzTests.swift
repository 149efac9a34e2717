import Foundation
import SecGen
import SecGenModel
import SecGenParse
import Testing

/// Mutated headers (bytes flipped, lines dropped or duplicated, declarations truncated) fed to the
/// generator: no crash, and every failure a diagnostic with a file, line and column.
@Suite struct GeneratorFuzzTests {
  static let count = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_LONG"] == "1" ? 10_000 : 1_000

  static func mutate(_ lines: [String], _ generator: inout some RandomNumberGenerator) -> String {
    var lines = lines
    for _ in 0..<Int.random(in: 1...3, using: &generator) {
      let index = Int.random(in: 0..<lines.count, using: &generator)
      switch Int.random(in: 0..<4, using: &generator) {
      case 0:  // flip a byte
        var bytes = Array(lines[index].utf8)
        if !bytes.isEmpty {
          bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
        }
        lines[index] = String(decoding: bytes, as: UTF8.self)
      case 1: lines.remove(at: index)
      case 2: lines.insert(lines[index], at: index)
      default:  // truncate a declaration mid-line
        lines[index] = String(lines[index].prefix(Int.random(in: 0...max(0, lines[index].count), using: &generator)))
      }
      if lines.isEmpty { lines = [""] }
    }
    return lines.joined(separator: "\n")
  }

  @Test func mutatedHeadersGiveOutputOrPlacedDiagnosticsNeverACrash() throws {
    let source = try String(
      contentsOf: Paths.fixtures.appendingPathComponent("value-groups/Fixture.h"), encoding: .utf8)
    let lines = source.components(separatedBy: "\n")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-fuzz-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let header = folder.appendingPathComponent("Mutant.h")
    var generator = SystemRandomNumberGenerator()
    var generated = 0
    var diagnosed = 0
    var unplaced: [String] = []
    for _ in 0..<Self.count {
      try Data(Self.mutate(lines, &generator).utf8).write(to: header)
      var timings = Pipeline.Timings()
      do {
        // Malformed input breaks the parse or the model; a model that stands renders as any
        // model does. Every tenth of those is rendered too: rendering is most of a run's time
        // (the templates through Stencil) and repeats the same shapes.
        let model = try Pipeline.model(headers: [header], apiNotes: nil, timings: &timings)
        if generated % 10 == 0 { _ = try Pipeline.render(model, templates: Paths.templates, timings: &timings) }
        generated += 1
      } catch {
        diagnosed += 1
        for diagnostic in error.diagnostics
        where diagnostic.location.line < 1 || diagnostic.location.column < 1 || diagnostic.location.file.isEmpty {
          unplaced.append(diagnostic.description)
        }
      }
    }
    print(
      "secgen fuzz: \(Self.count) mutated headers, \(generated) generated, \(diagnosed) diagnosed, \(unplaced.count) diagnostics without a place, 0 crashes"
    )
    #expect(unplaced.isEmpty, "\(unplaced.prefix(5))")
    #expect(diagnosed > 0)
  }

  /// The project's whole header set, one of its headers mutated at a time, read with its notes as
  /// the plugin reads it: the same promise over every construct the fixture above lacks (system
  /// includes, SDK furniture, availability, the notes' exclusions). A run models all thirteen
  /// files, eight times the fixture's cost, so the default run is short (24, for CI's budget) and
  /// `KEYCHAIN_BRIDGE_LONG=1` runs 2,000.
  @Test func mutatedProjectHeadersGiveAModelOrPlacedDiagnosticsNeverACrash() throws {
    let count = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_LONG"] == "1" ? 2_000 : 24
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-fuzz-\(UUID().uuidString)")
    let headers = folder.appendingPathComponent("Security")
    try FileManager.default.createDirectory(at: headers, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    var sources: [URL: [String]] = [:]
    for original in Paths.realHeaders {
      let copy = headers.appendingPathComponent(original.lastPathComponent)
      let text = try String(contentsOf: original, encoding: .utf8)
      try Data(text.utf8).write(to: copy)
      sources[copy] = text.components(separatedBy: "\n")
    }
    let copies = Paths.realHeaders.map { headers.appendingPathComponent($0.lastPathComponent) }
    var generator = SystemRandomNumberGenerator()
    var modelled = 0
    var unplaced: [String] = []
    for _ in 0..<count {
      let target = copies[Int.random(in: 0..<copies.count, using: &generator)]
      try Data(Self.mutate(sources[target] ?? [], &generator).utf8).write(to: target)
      defer { try? Data((sources[target] ?? []).joined(separator: "\n").utf8).write(to: target) }
      var timings = Pipeline.Timings()
      do {
        _ = try Pipeline.model(headers: copies, apiNotes: Paths.realNotes, timings: &timings)
        modelled += 1
      } catch {
        for diagnostic in error.diagnostics
        where diagnostic.location.line < 1 || diagnostic.location.column < 1 || diagnostic.location.file.isEmpty {
          unplaced.append(diagnostic.description)
        }
      }
    }
    print("secgen fuzz: \(count) mutations of the project's headers, \(modelled) modelled, 0 crashes")
    #expect(unplaced.isEmpty, "\(unplaced.prefix(5))")
  }

  /// The API notes mutated the same way: every outcome is notes or diagnostics placed in the notes
  /// file, never a crash.
  @Test func mutatedAPINotesGiveNotesOrPlacedDiagnosticsNeverACrash() throws {
    let lines = try String(contentsOf: Paths.realNotes, encoding: .utf8).components(separatedBy: "\n")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("secgen-fuzz-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let notes = folder.appendingPathComponent("Mutant.apinotes")
    var generator = SystemRandomNumberGenerator()
    var read = 0
    var unplaced: [String] = []
    for _ in 0..<Self.count {
      try Data(Self.mutate(lines, &generator).utf8).write(to: notes)
      do {
        _ = try APINotes.load(notes)
        read += 1
      } catch {
        for diagnostic in error.diagnostics
        where diagnostic.location.line < 1 || diagnostic.location.column < 1 || diagnostic.location.file != notes.path {
          unplaced.append(diagnostic.description)
        }
      }
    }
    #expect(unplaced.isEmpty, "\(unplaced.prefix(5))")
    #expect(read < Self.count, "some mutations must break the notes")
  }
}

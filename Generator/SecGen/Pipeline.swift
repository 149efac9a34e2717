import Dispatch
import Foundation
import SecGenModel
import SecGenParse
import SecGenRender

/// The three stages tied together: parse, model, render.
public enum Pipeline {
  /// The libclang the parse stage uses and where it was found, or why none was.
  public static var libclangDescription: String { HeaderParser.libclangDescription }

  /// How long each stage took, in seconds.
  public struct Timings: Sendable {
    /// Seconds spent parsing with libclang.
    public var parse: Double = 0
    /// Seconds spent building the model.
    public var model: Double = 0
    /// Seconds spent rendering the templates.
    public var render: Double = 0
    /// The three stages together.
    public var total: Double { parse + model + render }

    /// Zero timings, filled in by a run.
    public init() {}
  }

  private static func measure<T>(_ seconds: inout Double, _ body: () throws(DiagnosticsError) -> T)
    throws(DiagnosticsError) -> T
  {
    let start = DispatchTime.now().uptimeNanoseconds
    defer { seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
    return try body()
  }

  /// Parses `headers` and builds their model, with the sidecar `apiNotes` when given, for
  /// `platform` (the iOS data-protection keychain by default), with `includeDirectories` searched
  /// for includes besides the headers' own folder. `definitions` are the runtime's definitions
  /// files, whose constant values and schema fill `model.definitions`.
  public static func model(
    headers: [URL], definitions: [URL] = [], apiNotes: URL?, platform: TargetPlatform = .ios,
    includeDirectories: [URL] = [], timings: inout Timings
  ) throws(DiagnosticsError) -> SecurityModel {
    let notes = try apiNotes.map { url throws(DiagnosticsError) in try APINotes.load(url) } ?? .empty
    let parsed = try measure(&timings.parse) { () throws(DiagnosticsError) in
      try HeaderParser.parse(
        headers, definitions: definitions, platform: platform, includeDirectories: includeDirectories)
    }
    var model = try measure(&timings.model) { () throws(DiagnosticsError) in
      try ModelBuilder.build(parsed, notes: notes, platform: platform)
    }
    if let apiNotes { model.inputs.append(apiNotes.lastPathComponent) }
    return model
  }

  /// Parses, models and renders: the generated files, in template order.
  public static func generate(
    headers: [URL], definitions: [URL] = [], apiNotes: URL?, templates: URL, platform: TargetPlatform = .ios,
    includeDirectories: [URL] = [], timings: inout Timings
  ) throws(DiagnosticsError) -> [Renderer.Output] {
    let model = try model(
      headers: headers, definitions: definitions, apiNotes: apiNotes, platform: platform,
      includeDirectories: includeDirectories, timings: &timings)
    return try render(model, templates: templates, timings: &timings)
  }

  /// Renders a model with the templates in `templates`.
  public static func render(_ model: SecurityModel, templates: URL, timings: inout Timings) throws(DiagnosticsError)
    -> [Renderer.Output]
  {
    try measure(&timings.render) { () throws(DiagnosticsError) in try Renderer.render(model, templates: templates) }
  }

  /// The model's warnings as errors, for a `--strict` run: nil when it has none.
  public static func warningsAsErrors(_ model: SecurityModel) -> DiagnosticsError? {
    guard !model.warnings.isEmpty else { return nil }
    return DiagnosticsError(
      model.warnings.map { Diagnostic(location: $0.location, severity: .error, message: $0.message, kind: $0.kind) })
  }

  /// Renders `model` with the templates in `templates` and writes one file per template into
  /// `folder` (created if missing). A file whose contents are unchanged is not written again, so
  /// that it keeps its timestamp and the compiler does not rebuild it.
  public static func write(
    _ model: SecurityModel, templates: URL, to folder: URL, timings: inout Timings
  ) throws(DiagnosticsError) {
    let outputs = try render(model, templates: templates, timings: &timings)
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      for file in outputs {
        let destination = folder.appendingPathComponent(file.fileName)
        if FileManager.default.contents(atPath: destination.path) == Data(file.contents.utf8) { continue }
        try Data(file.contents.utf8).write(to: destination, options: .atomic)
      }
    } catch {
      throw DiagnosticsError([
        Diagnostic(
          location: SourceLocation(file: folder.path, line: 1, column: 1), severity: .error,
          message: "cannot write the generated files: \(error.localizedDescription)")
      ])
    }
  }
}

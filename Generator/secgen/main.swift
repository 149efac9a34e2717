import ArgumentParser
import Foundation
import SecGen
import SecGenModel
import SecGenParse

@main
struct SecGenCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "secgen",
    abstract: "Generates typed Swift from C declarations of Apple's Security item API.",
    discussion: "Stages: libclang parses the headers, a model is built from their HeaderDoc, Stencil renders it.",
    subcommands: [Generate.self, Dump.self])
}

struct HeaderOptions: ParsableArguments {
  @Option(name: .customLong("header"), help: "A header to read (repeat for several, in order).")
  var headers: [String] = []

  @Option(help: "An API notes file (clang's YAML format, with secgen's additions under SecGen).")
  var apiNotes: String?

  @Option(
    name: .customLong("definitions"),
    help: "A runtime definitions file (C: constant values and the store schema) to read with the headers.")
  var definitions: [String] = []

  var definitionURLs: [URL] { definitions.map { URL(fileURLWithPath: $0).standardizedFileURL } }

  @Flag(help: "Print how long parsing, modelling and rendering took.")
  var timings = false

  @Flag(
    help:
      "Print which libclang is used, and the declarations skipped by kind or left out (for the platform, or by the API notes, with the reason)."
  )
  var verbose = false

  @Option(help: "The platform whose conditional branches and availability are read.")
  var platform: TargetPlatform = .ios

  @Option(name: .customLong("include-dir"), help: "A folder to search for includes (repeat for several).")
  var includeDirectories: [String] = []

  @Flag(help: "Treat warnings (documentation the headers lack) as errors.")
  var strict = false

  var includeURLs: [URL] { includeDirectories.map { URL(fileURLWithPath: $0).standardizedFileURL } }

  /// Prints the model's warnings (failing with them as errors when --strict is given), and what
  /// it left out when --verbose is given.
  func reportLeftOut(_ model: SecurityModel) throws {
    if strict, let errors = Pipeline.warningsAsErrors(model) { throw failure(errors) }
    for warning in model.warnings {
      FileHandle.standardError.write(Data((warning.description + "\n").utf8))
    }
    guard verbose else { return }
    var lines = model.skipped.map { "secgen: skipped \($0.kind) \($0.name) (not a modelled kind)" }
    lines += model.excluded.map { "secgen: left out \($0.name): \($0.reason)" }
    if !lines.isEmpty { FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8)) }
  }

  func validate() throws {
    guard !headers.isEmpty else { throw ValidationError("give at least one --header") }
  }

  var headerURLs: [URL] { headers.map { URL(fileURLWithPath: $0).standardizedFileURL } }
  var apiNotesURL: URL? { apiNotes.map { URL(fileURLWithPath: $0).standardizedFileURL } }

  /// Prints the libclang in use when --verbose is given.
  func reportLibrary() {
    guard verbose else { return }
    FileHandle.standardError.write(Data((Pipeline.libclangDescription + "\n").utf8))
  }

  func report(_ timings: Pipeline.Timings) {
    guard self.timings else { return }
    let line = String(
      format: "secgen timings: parse %.1f ms, model %.1f ms, render %.1f ms, total %.1f ms\n",
      timings.parse * 1000, timings.model * 1000, timings.render * 1000, timings.total * 1000)
    FileHandle.standardError.write(Data(line.utf8))
  }
}

/// Prints diagnostics in the compiler's format (file:line:column: error: message) and fails.
func failure(_ error: DiagnosticsError) -> ExitCode {
  for diagnostic in error.diagnostics {
    FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
  }
  return ExitCode.failure
}

struct Generate: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Writes one Swift file per template (X.swift.stencil gives X.swift) into the output folder.")

  @OptionGroup var options: HeaderOptions

  @Option(help: "The folder of *.swift.stencil templates.")
  var templates: String

  @Option(help: "The folder to write the generated Swift into (created if missing).")
  var output: String

  func run() throws {
    options.reportLibrary()
    var timings = Pipeline.Timings()
    let model: SecurityModel
    do throws(DiagnosticsError) {
      model = try Pipeline.model(
        headers: options.headerURLs, definitions: options.definitionURLs, apiNotes: options.apiNotesURL,
        platform: options.platform, includeDirectories: options.includeURLs, timings: &timings)
    } catch {
      throw failure(error)
    }
    try options.reportLeftOut(model)
    do throws(DiagnosticsError) {
      try Pipeline.write(
        model, templates: URL(fileURLWithPath: templates).standardizedFileURL,
        to: URL(fileURLWithPath: output, isDirectory: true), timings: &timings)
    } catch {
      throw failure(error)
    }
    options.report(timings)
  }
}

struct Dump: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Prints the model of the headers as JSON.")

  @OptionGroup var options: HeaderOptions

  @Flag(help: "Print counts of what the model holds instead of the JSON.")
  var summary = false

  func run() throws {
    options.reportLibrary()
    var timings = Pipeline.Timings()
    let model: SecurityModel
    do throws(DiagnosticsError) {
      model = try Pipeline.model(
        headers: options.headerURLs, definitions: options.definitionURLs, apiNotes: options.apiNotesURL,
        platform: options.platform, includeDirectories: options.includeURLs, timings: &timings)
    } catch {
      throw failure(error)
    }
    try options.reportLeftOut(model)
    if summary {
      print(Self.summary(of: model))
      options.report(timings)
      return
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    FileHandle.standardOutput.write(try encoder.encode(model) + Data("\n".utf8))
    options.report(timings)
  }
}

extension TargetPlatform: ExpressibleByArgument {}

extension Dump {
  /// " (undocumented enum case: 4, ...)", in WarningKind's order; empty without warnings.
  static func warningsByKind(_ model: SecurityModel) -> String {
    let counts = WarningKind.allCases.compactMap { kind -> String? in
      let count = model.warnings.filter { $0.kind == kind.rawValue }.count
      return count == 0 ? nil : "\(kind.rawValue): \(count)"
    }
    return counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")"
  }

  /// The counts that say how much of the headers the model holds.
  static func summary(of model: SecurityModel) -> String {
    let attributes = model.attributes.filter { $0.constant.hasPrefix("kSecAttr") }
    let typed = attributes.filter {
      $0.valueType != .unsupported && ($0.valueType != .valueConstant || $0.valueGroup != nil)
    }
    let assigned = attributes.filter { !$0.classes.isEmpty }
    let both = attributes.filter { attribute in
      typed.contains { $0.constant == attribute.constant } && !attribute.classes.isEmpty
    }
    let cases = model.valueGroups.reduce(0) { $0 + $1.cases.count }
    let wrapped = model.functions.filter { $0.wrapper?.unavailableReason == nil }
    func percent(_ part: Int, _ whole: Int) -> String {
      whole == 0 ? "-" : String(format: "%.1f%%", Double(part) * 100 / Double(whole))
    }
    return [
      "platform: \(model.platform.rawValue)",
      "kSecAttr constants: \(attributes.count); typed: \(typed.count); in a class: \(assigned.count); "
        + "typed and class-assigned: \(both.count) (\(percent(both.count, attributes.count)))",
      "public kSecAttr constants typed and class-assigned: \(both.filter { !$0.isPrivate }.count) of "
        + "\(attributes.filter { !$0.isPrivate }.count) "
        + "(\(percent(both.filter { !$0.isPrivate }.count, attributes.filter { !$0.isPrivate }.count)))",
      "value groups: \(model.valueGroups.count) with \(cases) value constants as enum cases",
      "item classes: \(model.itemClasses.count)",
      "errSec status codes: \(model.statusCodes.count)",
      "typed enums: \(model.typedEnums.count) (\(model.typedEnums.filter(\.isOptions).count) option sets) with "
        + "\(model.typedEnums.map(\.cases.count).reduce(0, +)) values",
      "functions: \(model.functions.count); with wrappers: \(wrapped.count) (\(wrapped.map(\.name).joined(separator: ", ")))",
      "typed references: \(model.typedReferences.count) with "
        + "\(model.typedReferences.map(\.members.count).reduce(0, +)) members imported from functions "
        + "(\(model.typedReferences.map(\.name).joined(separator: ", ")))",
      "skipped by kind: \(model.skipped.count); left out for the platform: "
        + "\(model.excluded.filter { $0.cause == .platform }.count); left out by the API notes: "
        + "\(model.excluded.filter { $0.cause == .apiNotes }.count)",
      "warnings: \(model.warnings.count)" + warningsByKind(model),
      "errors: 0",
    ].joined(separator: "\n")
  }
}

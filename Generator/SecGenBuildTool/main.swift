import Foundation
import SecGen
import SecGenModel
import SecGenParse

// The tool SecGenPlugin runs in the build of every package that depends on Keychain. It does what
// `secgen generate` does with the arguments the plugin passes, and no more, so that a dependent's
// build compiles no command-line parser for it (the `secgen` command keeps ArgumentParser, its
// help and its other options).
//
//   SecGenBuildTool --header H.h... [--api-notes N.apinotes] [--strict] --templates DIR --output DIR

/// Arguments the tool does not understand, and why.
struct UsageError: Error {
  var reason: String
}

/// What the plugin asks for.
struct Request {
  var headers: [URL] = []
  var apiNotes: URL?
  var strict = false
  var templates: URL?
  var output: URL?

  /// The request `arguments` spell, or the reason they spell none.
  static func parse(_ arguments: [String]) throws(UsageError) -> Request {
    var request = Request()
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      if argument == "--strict" {
        request.strict = true
        continue
      }
      guard ["--header", "--api-notes", "--templates", "--output"].contains(argument) else {
        throw UsageError(reason: "unknown argument \(argument)")
      }
      guard let value = remaining.popFirst() else { throw UsageError(reason: "\(argument) needs a value") }
      let url = URL(fileURLWithPath: value).standardizedFileURL
      switch argument {
      case "--header": request.headers.append(url)
      case "--api-notes": request.apiNotes = url
      case "--templates": request.templates = url
      default: request.output = url
      }
    }
    guard !request.headers.isEmpty, request.templates != nil, request.output != nil else {
      throw UsageError(reason: "give --header (at least one), --templates and --output")
    }
    return request
  }
}

func fail(_ lines: [String]) -> Never {
  FileHandle.standardError.write(Data(lines.map { $0 + "\n" }.joined().utf8))
  exit(1)
}

let request: Request
do throws(UsageError) {
  request = try Request.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  fail([
    "SecGenBuildTool: \(error.reason)",
    "usage: SecGenBuildTool --header H.h... [--api-notes N.apinotes] [--strict] --templates DIR --output DIR",
  ])
}
var timings = Pipeline.Timings()
do throws(DiagnosticsError) {
  let model = try Pipeline.model(headers: request.headers, apiNotes: request.apiNotes, timings: &timings)
  if request.strict, let errors = Pipeline.warningsAsErrors(model) { throw errors }
  for warning in model.warnings { FileHandle.standardError.write(Data((warning.description + "\n").utf8)) }
  try Pipeline.write(model, templates: request.templates!, to: request.output!, timings: &timings)
} catch {
  fail(error.diagnostics.map(\.description))
}

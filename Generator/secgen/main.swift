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
    subcommands: [Dump.self])
}

struct HeaderOptions: ParsableArguments {
  @Option(name: .customLong("header"), help: "A header to read (repeat for several).")
  var headers: [String] = []

  @Option(help: "An API notes file (JSON) with Swift names and value types to override.")
  var apiNotes: String?

  var headerURLs: [URL] { headers.map { URL(fileURLWithPath: $0).standardizedFileURL } }
  var apiNotesURL: URL? { apiNotes.map { URL(fileURLWithPath: $0).standardizedFileURL } }
}

/// Prints diagnostics in the compiler's format and fails.
func fail(_ error: DiagnosticsError) -> ExitCode {
  for diagnostic in error.diagnostics {
    FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
  }
  return ExitCode.failure
}

struct Dump: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Prints the model of the headers as JSON.")

  @OptionGroup var options: HeaderOptions

  func run() throws {
    guard !options.headers.isEmpty else { throw ValidationError("give at least one --header") }
    do {
      let model = try Pipeline.model(headers: options.headerURLs, apiNotes: options.apiNotesURL)
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      FileHandle.standardOutput.write(try encoder.encode(model) + Data("\n".utf8))
    } catch let error as DiagnosticsError {
      throw fail(error)
    }
  }
}

import Foundation

/// Paths the generator tests use.
enum Paths {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let fixtures = root.appendingPathComponent("Tests/SecGenTests/Fixtures")
  static let templates = root.appendingPathComponent("Templates")
  static let headers = root.appendingPathComponent("Sources/Keychain/Headers")
  /// The project's headers in the order the build plugin passes them (sorted by name).
  static let realHeaders = ((try? FileManager.default.contentsOfDirectory(atPath: headers.path)) ?? [])
    .filter { $0.hasSuffix(".h") }.sorted().map { headers.appendingPathComponent($0) }
  static let realNotes = headers.appendingPathComponent("Security.apinotes")
  /// The build's products folder (beside the test bundle): the secgen binary and the modules.
  static let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  /// The `-package-name` SwiftPM compiles this package's modules with: its identity (the root
  /// directory's name, lowercased) made a C99 identifier, as SwiftPM makes it. Code compiled with
  /// it sees Security's `package` declarations, as the Keychain module does in the build.
  static let packageName: String = {
    let identity = root.lastPathComponent.lowercased()
    var name = String(identity.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
    if let first = name.first, first.isNumber { name = "_" + name }
    return name
  }()
}

/// Runs a program; returns its exit status, standard output and standard error.
func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  let errorData = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (
    process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self)
  )
}

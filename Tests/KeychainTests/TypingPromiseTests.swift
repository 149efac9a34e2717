import Foundation
import Testing

/// The DSL's typing promises, checked by the compiler: code that breaks them must not compile.
@Suite struct TypingPromises {
  /// The folder of the built modules, beside the test bundle.
  static var modules: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("Modules")
  }

  /// Type-checks `source` against the built Keychain and Security modules; returns the compiler's output
  /// and whether it succeeded.
  static func typecheck(_ source: String) throws -> (succeeded: Bool, output: String) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("typing-\(UUID().uuidString).swift")
    try source.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path, file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus == 0, output)
  }

  @Test func correctlyTypedCodeCompiles() throws {
    let result = try Self.typecheck(
      """
      import Keychain
      let item = GenericPassword().service("s").account("a").accessibility(.afterFirstUnlock).label("l")
      let web = InternetPassword().server("example.com").port(443).protocol(.https).authenticationType(.htmlForm)
      """)
    #expect(result.succeeded, "\(result.output)")
  }

  @Test(arguments: [
    ("GenericPassword().server(\"example.com\")", "has no member 'server'"),
    ("InternetPassword().service(\"svc\")", "has no member 'service'"),
    ("InternetPassword().port(\"443\")", "cannot convert value of type 'String' to expected argument type 'Int'"),
    (
      "GenericPassword().accessibility(\"ak\")",
      "cannot convert value of type 'String' to expected argument type 'Accessibility'"
    ),
    ("InternetPassword().protocol(.afterFirstUnlock)", "has no member 'afterFirstUnlock'"),
    ("GenericPassword().creationDate(Date())", "has no member 'creationDate'"),
  ])
  func wronglyTypedCodeDoesNotCompile(code: String, expectedError: String) throws {
    let result = try Self.typecheck("import Foundation\nimport Keychain\nlet value = \(code)\n")
    #expect(!result.succeeded)
    #expect(result.output.contains(expectedError), "\(result.output)")
  }
}

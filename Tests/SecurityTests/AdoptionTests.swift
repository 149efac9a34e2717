import Foundation
import Testing

/// Apple code brought to Linux unchanged: what the compiler says about it, checked with swiftc
/// against the built Security module.
@Suite struct SourceCompatibility {
  /// The folder of the built modules, beside the test bundle.
  static var modules: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("Modules")
  }

  /// Type-checks `source` with `flags`; returns whether it succeeded and what the compiler said.
  static func typecheck(_ source: String, flags: [String] = []) throws -> (succeeded: Bool, output: String) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("adoption-\(UUID().uuidString).swift")
    try source.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path] + flags + [file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus == 0, output)
  }

  @Test func ignoringTheResultOfTheCFunctionsBuildsWithWarningsAsErrors() throws {
    let result = try Self.typecheck(
      """
      import Foundation
      import Security
      let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a"]
      SecItemAdd(query as CFDictionary, nil)
      SecItemCopyMatching(query as CFDictionary, nil)
      SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: "l"] as CFDictionary)
      SecItemDelete(query as CFDictionary)
      var bytes = [UInt8](repeating: 0, count: 16)
      SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes)
      """, flags: ["-warnings-as-errors"])
    #expect(result.succeeded, "\(result.output)")
  }

  /// On Apple's platforms `import Foundation` brings Security's names; here the documented
  /// `-import-module Security` setting does, with no change to the source.
  @Test func aFileThatImportsOnlyFoundationBuildsWithTheImplicitImportSetting() throws {
    let source = """
      import Foundation
      let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a"]
      let status: OSStatus = SecItemDelete(query as CFDictionary)
      print(status == errSecItemNotFound)
      """
    let without = try Self.typecheck(source)
    #expect(!without.succeeded)
    #expect(without.output.contains("cannot find 'kSecClass' in scope"))
    let with = try Self.typecheck(source, flags: ["-Xfrontend", "-import-module", "-Xfrontend", "Security"])
    #expect(with.succeeded, "\(with.output)")
  }
}

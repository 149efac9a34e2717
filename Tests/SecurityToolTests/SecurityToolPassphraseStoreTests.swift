import Foundation
import Testing

/// A passphrase store from the tool: each command is a new process and no agent keeps the store
/// unlocked, so every command that needs it unlocked asks for the passphrase on a terminal, takes
/// it from KEYCHAIN_BRIDGE_PASSPHRASE, or says how to give it.
@Suite struct SecurityToolPassphraseStores {
  typealias Harness = SecurityToolTests.Harness

  /// Runs the tool on a terminal (util-linux's `script` gives it one), typing `typed` into it.
  static func onTerminal(_ tool: Harness, _ arguments: [String], typing typed: String) throws -> (
    status: Int32, output: String
  ) {
    let command = ([SecurityToolTests.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    process.arguments = ["-qec", command, "/dev/null"]
    process.environment = [
      "KEYCHAIN_BRIDGE_HOME": tool.directory.path, "KEYCHAIN_BRIDGE_ACCESS_GROUPS": SecurityToolTests.groups,
      "PATH": "/usr/bin:/bin",
    ]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
    input.fileHandleForWriting.write(Data(typed.utf8))
    try? input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
  }

  @Test func withoutATerminalOrThePassphraseTheCommandSaysHowToGiveIt() throws {
    let tool = Harness()
    #expect(try tool.run("create-keychain", "-p", "open sesame", tool.directory.path).status == 0)
    for arguments in [["add-generic-password", "-a", "a", "-s", "s", "-w", "pw"], ["unlock-keychain"]] {
      let result = try tool.run(arguments)
      #expect(result.status == 36, "\(arguments)")
      #expect(result.errors.contains("protected by a passphrase and none was given"), "\(result.errors)")
      #expect(result.errors.contains("KEYCHAIN_BRIDGE_PASSPHRASE"))
    }
  }

  @Test func thePassphraseFromTheEnvironmentOpensTheStoreForEveryCommand() throws {
    let tool = Harness()
    #expect(try tool.run("create-keychain", "-p", "open sesame", tool.directory.path).status == 0)
    let environment = ["KEYCHAIN_BRIDGE_PASSPHRASE": "open sesame"]
    #expect(
      try tool.run(["add-generic-password", "-a", "a", "-s", "s", "-w", "pw"], environment: environment).status == 0)
    #expect(try tool.run(["find-generic-password", "-a", "a", "-w"], environment: environment).output == "pw\n")
    let wrong = try tool.run(
      ["find-generic-password", "-a", "a", "-w"], environment: ["KEYCHAIN_BRIDGE_PASSPHRASE": "no"])
    #expect(wrong.status != 0)
  }

  @Test func onATerminalEveryCommandAsksForThePassphrase() throws {
    let tool = Harness()
    #expect(try tool.run("create-keychain", "-p", "open sesame", tool.directory.path).status == 0)
    let added = try Self.onTerminal(
      tool, ["add-generic-password", "-a", "a", "-s", "s", "-w", "pw"], typing: "open sesame\n")
    #expect(added.status == 0, "\(added.output)")
    #expect(added.output.contains("password to unlock"))
    let found = try Self.onTerminal(tool, ["find-generic-password", "-a", "a", "-w"], typing: "open sesame\n")
    #expect(found.status == 0)
    #expect(found.output.hasSuffix("pw\r\n"), "\(found.output)")
    let refused = try Self.onTerminal(tool, ["find-generic-password", "-a", "a", "-w"], typing: "wrong\n")
    #expect(refused.status != 0)
    #expect(!refused.output.hasSuffix("pw\r\n"))
  }
}

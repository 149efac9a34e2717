import Foundation
import Testing

/// The options macOS's tool takes on add, find and delete beyond the account and service, and a
/// script written for macOS run unchanged.
@Suite struct SecurityToolMacOSOptions {
  typealias Harness = SecurityToolTests.Harness

  @Test func dashWPrintsAPasswordThatIsNotPrintableASCIIInHexadecimalAsMacOSDoes() throws {
    let tool = Harness()
    #expect(try tool.run("add-generic-password", "-a", "bin", "-s", "svc", "-X", "00ff10").status == 0)
    #expect(try tool.run("add-generic-password", "-a", "umlaut", "-s", "svc", "-w", "pä").status == 0)
    #expect(try tool.run("find-generic-password", "-a", "bin", "-w").output == "00ff10\n")
    #expect(try tool.run("find-generic-password", "-a", "umlaut", "-w").output == "70c3a4\n")
  }

  @Test func creatorTypeKindCommentAndGenericAreStoredPrintedAndMatched() throws {
    let tool = Harness()
    let added = try tool.run(
      "add-generic-password", "-a", "alice", "-s", "svc", "-c", "aapl", "-C", "note", "-D", "application password",
      "-j", "a note", "-G", "extra", "-X", "7077", "-T", "/usr/bin/true", "-A")
    #expect(added.status == 0, "\(added.errors)")
    #expect(added.errors.contains("application access lists"))
    let found = try tool.run(
      "find-generic-password", "-c", "aapl", "-C", "note", "-D", "application password", "-j", "a note", "-G", "extra")
    #expect(found.status == 0, "\(found.errors)")
    for line in [
      "    \"crtr\"<uint32>=\"aapl\"", "    \"type\"<uint32>=\"note\"", "    \"desc\"<blob>=\"application password\"",
      "    \"icmt\"<blob>=\"a note\"", "    \"gena\"<blob>=\"extra\"",
    ] {
      #expect(found.output.contains(line), "missing \(line) in \(found.output)")
    }
    // -X 7077 is the bytes "pw".
    #expect(try tool.run("find-generic-password", "-a", "alice", "-w").output == "pw\n")
    for (flag, value) in [("-c", "xxxx"), ("-C", "xxxx"), ("-D", "other"), ("-j", "other"), ("-G", "other")] {
      #expect(try tool.run("find-generic-password", "-a", "alice", flag, value).status == 44, "\(flag) \(value)")
    }
    #expect(try tool.run("delete-generic-password", "-j", "other").status == 44)
    #expect(try tool.run("delete-generic-password", "-D", "application password").status == 0)
    #expect(try tool.run("find-generic-password", "-a", "alice").status == 44)
  }

  @Test func internetPasswordsTakeTheSameAttributeOptions() throws {
    let tool = Harness()
    #expect(
      try tool.run("add-internet-password", "-a", "bob", "-s", "example.com", "-c", "aapl", "-D", "web", "-w", "pw")
        .status == 0)
    #expect(try tool.run("find-internet-password", "-s", "example.com", "-c", "aapl", "-D", "web").status == 0)
    #expect(try tool.run("find-internet-password", "-s", "example.com", "-D", "other").status == 44)
    #expect(try tool.run("delete-internet-password", "-s", "example.com", "-c", "aapl").status == 0)
  }

  @Test func accountAndServiceAreOptionalOnAddAsOnMacOS() throws {
    let tool = Harness()
    #expect(try tool.run("add-generic-password", "-l", "no names", "-w", "pw").status == 0)
    let found = try tool.run("find-generic-password", "-l", "no names", "-w")
    #expect(found.output == "pw\n")
    #expect(try tool.run("add-internet-password", "-l", "no server", "-w", "pw").status == 0)
    #expect(try tool.run("find-internet-password", "-l", "no server", "-w").output == "pw\n")
  }

  @Test(arguments: [
    ["add-generic-password", "-a", "a", "-c", "toolong"], ["add-generic-password", "-a", "a", "-C", "ab"],
    ["add-generic-password", "-a", "a", "-X", "7g"], ["add-generic-password", "-a", "a", "-X", "123"],
    ["add-generic-password", "-a", "a", "-w", "pw", "-X", "7077"], ["find-generic-password", "-c", "é"],
  ])
  func malformedOptionValuesAreUsageErrors(arguments: [String]) throws {
    let result = try Harness().run(arguments)
    #expect(result.status == 64, "\(arguments): \(result.errors)")
    #expect(!result.errors.isEmpty)
  }

  @Test func aScriptWrittenForMacOSRunsUnchanged() throws {
    let tool = Harness()
    let script = """
      set -e
      security add-generic-password -a alice -s build-cache -D "application password" -j "CI token" \\
        -c aapl -C note -T /usr/bin/codesign -w s3cret
      test "$(security find-generic-password -a alice -s build-cache -w)" = s3cret
      security find-generic-password -s build-cache -j "CI token" -D "application password" > /dev/null
      security add-generic-password -U -a alice -s build-cache -w rotated
      test "$(security find-generic-password -a alice -s build-cache -w)" = rotated
      security delete-generic-password -a alice -s build-cache > /dev/null
      if security find-generic-password -a alice -s build-cache > /dev/null 2>&1; then exit 1; fi
      echo done
      """
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = ["-c", script]
    shell.environment = [
      "PATH": SecurityToolTests.binary.deletingLastPathComponent().path + ":/usr/bin:/bin",
      "KEYCHAIN_BRIDGE_HOME": tool.directory.path, "KEYCHAIN_BRIDGE_ACCESS_GROUPS": SecurityToolTests.groups,
    ]
    let pipe = Pipe()
    shell.standardOutput = pipe
    try shell.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    shell.waitUntilExit()
    #expect(shell.terminationStatus == 0)
    #expect(output == "done\n")
  }
}

import Foundation
import Testing

/// Passwords and passphrases on the built tool's standard input (issue 27, defect 6): bytes that
/// are not UTF-8, empty input and unbounded input are refused with exit 64, never changed or
/// stored. Each test failed before the fix.
@Suite struct StandardInputTests {
  /// Runs `shell` (a /bin/sh command line in which "$0" is the tool) on a fresh store; returns the
  /// exit status, standard error and peak memory (KiB, from /usr/bin/time when it is installed).
  private func shell(_ command: String, _ tool: SecurityToolTests.Harness) throws -> (
    status: Int32, errors: String, peakKiB: Int?
  ) {
    let (status, message) = try SecurityToolTests.runCollectingErrors(
      "/bin/sh", ["-c", command, SecurityToolTests.binary.path],
      environment: [
        "KEYCHAIN_BRIDGE_HOME": tool.directory.path, "KEYCHAIN_BRIDGE_ACCESS_GROUPS": SecurityToolTests.groups,
        "PATH": "/usr/bin:/bin",
      ])
    let peak = message.split(separator: "\n").last(where: { $0.hasPrefix("peak ") }).flatMap { Int($0.dropFirst(5)) }
    return (status, message, peak)
  }

  @Test(arguments: ["x\\377", "x\\376"])
  func aPasswordThatIsNotUTF8IsRefusedNotChanged(password: String) throws {
    let tool = SecurityToolTests.Harness()
    let result = try shell("printf '\(password)\\n' | \"$0\" add-generic-password -a a -s s -w", tool)
    #expect(result.status == 64)
    #expect(result.errors.contains("not valid UTF-8"), "\(result.errors)")
    #expect(try tool.run("find-generic-password", "-s", "s").status == 44)
  }

  @Test func emptyStandardInputStoresNothing() throws {
    let tool = SecurityToolTests.Harness()
    let result = try shell("\"$0\" add-generic-password -a a -s s -w < /dev/null", tool)
    #expect(result.status == 64)
    #expect(result.errors.contains("is empty"), "\(result.errors)")
    #expect(try tool.run("find-generic-password", "-s", "s").status == 44)
  }

  @Test func unboundedStandardInputIsRefusedAfterTheLimit() throws {
    let tool = SecurityToolTests.Harness()
    // 256 MiB without a newline: read whole, it costs the tool hundreds of megabytes.
    let timed = FileManager.default.isExecutableFile(atPath: "/usr/bin/time") ? "/usr/bin/time -f 'peak %M' " : ""
    let result = try shell(
      "head -c 268435456 /dev/zero | tr '\\0' 'a' | \(timed)\"$0\" add-generic-password -a a -s s -w", tool)
    #expect(result.status == 64)
    #expect(result.errors.contains("longer than 65536 bytes"), "\(result.errors)")
    if let peak = result.peakKiB { #expect(peak < 128 * 1024, "peak \(peak) KiB") }
  }

  @Test func aBackupPassphraseThatIsNotUTF8IsRefused() throws {
    let tool = SecurityToolTests.Harness()
    #expect(try tool.run("add-generic-password", "-a", "a", "-s", "s", "-w", "pw").status == 0)
    let path = tool.directory.path + ".backup"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let result = try shell("printf 'p\\377\\n' | \"$0\" export-keychain -o '\(path)'", tool)
    #expect(result.status == 64)
    #expect(!FileManager.default.fileExists(atPath: path))
  }
}

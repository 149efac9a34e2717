import Foundation
import Testing

/// Random command lines for the built `security` binary: known and unknown flags, missing, empty,
/// huge, control-character and non-UTF-8 values. Every run must end in a normal exit, with a usage
/// error or an errSec status on standard error when it fails: never a crash or a stack trace.
/// 200 command lines per run; KEYCHAIN_BRIDGE_LONG=1 makes it 5,000.
@Suite struct SecurityToolArgumentFuzz {
  static let count = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_LONG"] == "1" ? 5_000 : 200

  static let commands = [
    "add-generic-password", "find-generic-password", "delete-generic-password", "add-internet-password",
    "find-internet-password", "delete-internet-password", "dump-keychain", "show-keychain-info", "lock-keychain",
    "unlock-keychain", "default-keychain", "create-keychain", "help", "no-such-command", "",
  ]
  static let flags = [
    "-a", "-s", "-w", "-l", "-j", "-D", "-c", "-C", "-G", "-X", "-T", "-A", "-U", "-g", "-k", "-r", "-P", "-p",
    "-d", "-t", "-x", "--", "--help", "--version", "-", "--no-such-option",
  ]

  /// A deterministic generator (SplitMix64), so a failure names a seed that reproduces it.
  struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  static func value(_ generator: inout SplitMix) -> String {
    switch Int.random(in: 0..<9, using: &generator) {
    case 0: ""
    case 1: String(repeating: "x", count: 100_000)
    case 2: "\u{1}\u{7F}\t\n\r"
    case 3: "éü漢字🔑"
    case 4: String(Int.random(in: -100_000...100_000, using: &generator))
    case 5: "aapl"
    case 6: "-w"
    case 7: "../../etc/passwd"
    default:
      String((0..<Int.random(in: 1...12, using: &generator)).map { _ in "ab0f-_ ".randomElement(using: &generator)! })
    }
  }

  @Test func randomCommandLinesEndInAStatusNeverACrash() throws {
    let tool = SecurityToolTests.Harness()
    var generator = SplitMix(state: 0x5EC0_12E5)
    var failures: [String] = []
    for run in 0..<Self.count {
      var arguments = [Self.commands.randomElement(using: &generator)!]
      for _ in 0..<Int.random(in: 0...6, using: &generator) {
        arguments.append(Self.flags.randomElement(using: &generator)!)
        if Bool.random(using: &generator) { arguments.append(Self.value(&generator)) }
      }
      // Bytes that are not UTF-8 cannot be put in a Swift string: the shell's printf makes them.
      let nonUTF8 = run % 25 == 0
      let result =
        try nonUTF8 ? Self.runThroughShell(tool, arguments + ["-a", "\\377\\376"]) : Self.run(tool, arguments)
      let crashed =
        result.signalled || result.errors.contains("Fatal error") || result.errors.contains("Stack dump")
        || result.errors.contains("Backtracing")
      if crashed || (result.status != 0 && result.errors.isEmpty) {
        failures.append(
          "run \(run): \(arguments.map { String($0.prefix(40)) }) -> \(result.status) \(result.errors.prefix(200))")
      }
    }
    #expect(failures.isEmpty, "\(failures.prefix(5))")
    print("security argument fuzz: \(Self.count) command lines, \(failures.count) crashes or silent failures")
  }

  static func run(_ tool: SecurityToolTests.Harness, _ arguments: [String]) throws -> (
    status: Int32, errors: String, signalled: Bool
  ) {
    try run(tool, executable: SecurityToolTests.binary, arguments)
  }

  static func runThroughShell(_ tool: SecurityToolTests.Harness, _ arguments: [String]) throws -> (
    status: Int32, errors: String, signalled: Bool
  ) {
    // The other arguments reach the tool as the shell's own ("$@"), each within the kernel's limit
    // for one argument; printf turns the last one's octal escapes into raw bytes.
    let command = "exec \"$0\" \"$@\" \"$(printf '\(arguments.last!)')\""
    return try run(
      tool, executable: URL(fileURLWithPath: "/bin/sh"),
      ["-c", command, SecurityToolTests.binary.path] + arguments.dropLast())
  }

  /// Runs `executable` with `arguments` on the tool's store; what it wrote to standard error, and
  /// whether a signal ended it.
  static func run(_ tool: SecurityToolTests.Harness, executable: URL, _ arguments: [String]) throws -> (
    status: Int32, errors: String, signalled: Bool
  ) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    // A relative -k (a random value) names a store under the working directory: the test's own.
    try FileManager.default.createDirectory(at: tool.workingDirectory, withIntermediateDirectories: true)
    process.currentDirectoryURL = tool.workingDirectory
    process.environment = [
      "KEYCHAIN_BRIDGE_HOME": tool.directory.path, "KEYCHAIN_BRIDGE_ACCESS_GROUPS": SecurityToolTests.groups,
    ]
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let data = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
      process.terminationStatus, String(decoding: data, as: UTF8.self), process.terminationReason == .uncaughtSignal
    )
  }
}

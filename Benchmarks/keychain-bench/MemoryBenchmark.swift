import Foundation

/// The peak resident memory of the configuration issue 34's first measure had (55 MB): the C, raw
/// and DSL stores of 100,000 items, each running every operation once, in a process of its own, so
/// that the other stores this run holds (the same-work baseline, the agent's client) do not count.
/// Nil when the child could not be run.
func peakMemoryOfThreeStores() -> Double? {
  let child = Process()
  child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  var environment = ProcessInfo.processInfo.environment
  environment["KEYCHAIN_BRIDGE_BENCH_PROFILE"] = "memory"
  child.environment = environment
  let output = Pipe()
  child.standardOutput = output
  do {
    try child.run()
  } catch {
    print("peak memory of the three 100,000-item stores: not measured (\(error))")
    return nil
  }
  let answer = output.fileHandleForReading.readDataToEndOfFile()
  child.waitUntilExit()
  let lastLine = String(decoding: answer, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
  guard child.terminationStatus == 0, let peak = Double(lastLine) else {
    print("peak memory of the three 100,000-item stores: not measured (the child answered \(lastLine))")
    return nil
  }
  return peak
}

/// The child of `peakMemoryOfThreeStores`: fills the three stores, runs each operation once per
/// implementation, and prints its peak resident MB.
func runMemoryChild() throws -> Never {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keychain-bench-memory-\(getpid())")
  defer { try? FileManager.default.removeItem(at: folder) }
  let size = 100_000
  let implementations: [any Implementation] = [
    try CBaseline(directory: folder.appendingPathComponent("c"), size: size),
    try RawSecurity(directory: folder.appendingPathComponent("raw"), size: size),
    try DSL(directory: folder.appendingPathComponent("dsl"), size: size),
  ]
  for operation in Operation.allCases {
    for implementation in implementations {
      implementation.batch {
        for index in 0..<operation.count {
          switch operation {
          case .add: _ = implementation.add("memory-\(index)")
          case .lookupData: _ = implementation.lookupData("acct-\(index * 37 % size)")
          case .lookupAttributes: _ = implementation.lookupAttributes("acct-\(index * 37 % size)")
          case .update: _ = implementation.update("acct-\(index * 37 % size)")
          case .delete: _ = implementation.delete("memory-\(index)")
          case .list: _ = implementation.list()
          }
        }
      }
    }
  }
  print(String(format: "%.1f", memory().peak))
  try? FileManager.default.removeItem(at: folder)
  exit(0)
}

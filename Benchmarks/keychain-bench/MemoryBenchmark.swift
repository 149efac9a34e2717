import Foundation

/// The peak resident memory of the configuration issue 34's first measure had (55 MB): the C, raw
/// and DSL stores of 100,000 items, each running every operation once, in a process of its own, so
/// that the other stores this run holds (the same-work baseline, the agent's client) do not count.
/// Nil when the child could not be run.
func peakMemoryOfThreeStores() -> Double? {
  let child = benchChild(profile: "memory")
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
          let account = operation == .add || operation == .delete ? "memory-\(index)" : "acct-\(index * 37 % size)"
          _ = implementation.run(operation, account)
        }
      }
    }
  }
  print(String(format: "%.1f", memory().peak))
  // exit(0) runs no defer, so the folder goes here.
  try? FileManager.default.removeItem(at: folder)
  exit(0)
}

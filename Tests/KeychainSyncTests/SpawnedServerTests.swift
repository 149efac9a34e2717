import Foundation
import LocalPostgres
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The programs the tests start with `spawn` (pg_ctl, which leaves the server running for the
/// whole run, and the tools under test) hold no descriptor of the test process but their three
/// standard ones. Tests run in parallel: a pipe another test has open at that moment, inherited by
/// the server, would never reach its end, and that test would wait for ever.
@Suite struct SpawnedServer {
  @Test func aSpawnedProgramHoldsOnlyItsStandardDescriptors() throws {
    // A pipe without close-on-exec, as another test's may be while it starts its child.
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    defer { ends.forEach { close($0) } }
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("spawned-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let pid = try spawn("/bin/sleep", ["60"], outputPath: output)
    defer {
      kill(pid, SIGKILL)
      waitForExit(pid)
    }
    // posix_spawn returns once the program runs, its descriptors already arranged; but the
    // program's dynamic loader may still hold a library open for a moment (descriptor 3 on a
    // loaded machine), so the question is the precise one: does any descriptor lead to the pipe?
    var status = stat()
    try #require(fstat(ends[1], &status) == 0)
    let pipe = "pipe:[\(status.st_ino)]"
    let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
    let targets = held.map { descriptor in
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")) ?? ""
    }
    #expect(!targets.contains(pipe), "the program holds the test's pipe: \(targets)")
    #expect(Set(held).isSuperset(of: ["0", "1", "2"]), "the program holds \(held.sorted())")
  }
}

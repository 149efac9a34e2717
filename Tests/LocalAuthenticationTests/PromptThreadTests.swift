import Foundation
import Security
import Synchronization
import Testing

/// Prompts hold no thread each (issue 64): however many askpass helpers wait for their users, the
/// process has one thread watching them all, and each answer still reaches its caller.
@Suite struct PromptThreads {
  static func threadCount() throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
  }

  @Test("Eight prompts waiting at once add no thread each, and each gets its own answer")
  func waitingPromptsHoldNoThreads() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("prompt-threads-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let gate = folder.appendingPathComponent("open").path
    let started = folder.appendingPathComponent("started").path
    // The helper says it started, waits until the test opens the gate, then answers its prompt
    // (the first prompt, "warm", at once).
    let helper = folder.appendingPathComponent("askpass").path
    try """
    #!/bin/sh
    if [ "$1" != warm ]; then
      echo x >> '\(started)'
      while [ ! -e '\(gate)' ]; do sleep 0.05; done
    fi
    printf '%s\\n' "$1"

    """.write(toFile: helper, atomically: true, encoding: .utf8)
    chmod(helper, 0o700)
    let prompt = PassphrasePrompt(helper: helper, timeout: .seconds(120))
    // The prompt thread exists once a first prompt ran.
    let warm = try prompt.answer("warm")
    #expect(warm == Array("warm".utf8))
    let before = try Self.threadCount()
    let answers = Mutex<[String: String]>([:])
    let count = 8
    for index in 0..<count {
      prompt.ask("prompt \(index)") { answer in
        guard case .answered(let bytes) = answer else { return }
        answers.withLock { $0["prompt \(index)"] = String(decoding: bytes, as: UTF8.self) }
      }
    }
    // Every helper runs and waits for its user.
    for _ in 0..<2000 {
      let lines = (try? String(contentsOfFile: started, encoding: .utf8))?.split(separator: "\n").count ?? 0
      if lines == count { break }
      usleep(10_000)
    }
    let during = try Self.threadCount()
    #expect(during - before < 3, "threads before \(before), while \(count) prompts wait \(during)")
    _ = FileManager.default.createFile(atPath: gate, contents: Data())
    for _ in 0..<2000 where answers.withLock({ $0.count }) < count { usleep(10_000) }
    let got = answers.withLock { $0 }
    #expect(got.count == count)
    #expect(got.allSatisfy { $0.key == $0.value })
  }
}

import Foundation
import KeychainAgentWire
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The agent connection's polling rule (issue 54): a poll that runs out turns polling off for a
/// while, one that is answered keeps it on.
@Suite struct AdaptivePollTests {
  /// A connected pair of Unix stream sockets.
  static func socketPair() throws -> (Int32, Int32) {
    var descriptors: [Int32] = [0, 0]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
    return (descriptors[0], descriptors[1])
  }

  @Test func aPollThatRunsOutRestsThenPollsAgain() throws {
    var polling = AdaptivePoll(microseconds: 200)
    #expect(polling.budget() == 200)
    polling.record(.gaveUp)
    for _ in 0..<AdaptivePoll.restingCalls { #expect(polling.budget() == 0) }
    #expect(polling.budget() == 200)
    polling.record(.answered)
    #expect(polling.budget() == 200)
  }

  @Test func aFrameThatComesWhilePollingIsAnsweredAndOneThatDoesNotRestsTheConnection() throws {
    let (client, agent) = try Self.socketPair()
    defer {
      close(client)
      close(agent)
    }
    // A frame already sent: the poll finds it, and the next call polls again.
    try FrameSocket.send([1, 2, 3], on: agent)
    var polling = AdaptivePoll(microseconds: 2_000)
    #expect(try FrameSocket.receive(on: client, polling: &polling) == [1, 2, 3])
    #expect(polling.budget() == 2_000)
    // A frame sent only once the receiving thread sleeps (its poll ran out): received by the
    // sleeping read, and the connection rests (the next calls sleep at once).
    let receiver = try #require(Self.currentThread())
    let sender = Thread {
      while !Self.isBlocked(receiver) { usleep(1_000) }
      try? FrameSocket.send([4], on: agent)
    }
    sender.start()
    #expect(try FrameSocket.receive(on: client, polling: &polling) == [4])
    #expect(polling.budget() == 0)
  }

  @Test func aPollWithNothingToReadGivesUpAtItsDeadline() {
    let (value, outcome) = AdaptivePoll.poll(forMicroseconds: 500) { () -> Int? in nil }
    #expect(value == nil)
    #expect(outcome == .gaveUp)
  }

  /// The calling thread's id, from /proc/thread-self (which names ".../task/TID").
  static func currentThread() -> pid_t? {
    guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else {
      return nil
    }
    return target.split(separator: "/").last.flatMap { pid_t($0) }
  }

  /// Whether `thread` sleeps now and still 20 ms later: blocked in a read (past a 2 ms poll), not
  /// waiting a moment on a lock.
  static func isBlocked(_ thread: pid_t) -> Bool {
    guard state(ofThread: thread) == "S" else { return false }
    usleep(20_000)
    return state(ofThread: thread) == "S"
  }

  /// A thread of this process's scheduler state (R running, S sleeping...), from /proc.
  static func state(ofThread thread: pid_t) -> String? {
    guard let stat = try? String(contentsOfFile: "/proc/self/task/\(thread)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return nil }
    return stat[stat.index(after: end)...].split(separator: " ").first.map(String.init)
  }
}

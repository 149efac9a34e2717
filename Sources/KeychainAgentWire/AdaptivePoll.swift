import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// How long one side of an agent connection polls for the other's next frame before its thread
/// sleeps, learned from how its recent polls ended (issue 54).
///
/// Polling hides a wake-up from another CPU (FrameSocket.receive), but only while a core is free
/// for it: on a busy machine the polling thread burns the time slice the other side needs, and the
/// agent's lookups fell to a tenth of the in-process ones (keychain-bench agent-load). So a poll
/// that ends without its frame turns polling off for the next `restingCalls` calls, which sleep at
/// once; a quiet machine answers within the poll and keeps it on.
///
/// Measured on the 2-core VM beside 5 busy processes (agent/DSL lookups): 0.06-0.11 polling
/// always, 0.22-0.25 with this rule, 0.15-0.17 never polling; quiet, 0.44-0.49 polling always and
/// 0.27 never. Also giving up when the thread was descheduled during a poll (two clock reads over
/// 30 µs apart) cost the quiet case a third: the hypervisor stalls a busy vCPU that long now and
/// then, and the poll then stopped where it would have succeeded.
package struct AdaptivePoll: Sendable {
  /// How a poll ended.
  package enum Outcome: Sendable {
    /// The frame came while polling.
    case answered
    /// The poll ran out: the thread goes to sleep.
    case gaveUp
  }

  /// The longest poll, in microseconds.
  package let longest: Int
  /// Calls that sleep at once after a poll that gave up (8 to 128 measured alike under load; 32
  /// lost least of the quiet case).
  package static let restingCalls = 32
  private var resting = 0

  package init(microseconds: Int) { longest = microseconds }

  /// How long the next wait may poll: 0 while resting.
  package mutating func budget() -> Int {
    guard resting == 0 else {
      resting -= 1
      return 0
    }
    return longest
  }

  /// Records how a poll of a non-zero budget ended.
  package mutating func record(_ outcome: Outcome) {
    if outcome == .gaveUp { resting = Self.restingCalls }
  }

  /// Polls `attempt` (a read that does not wait; nil while nothing came) until it returns a value
  /// or the budget runs out; the value and how it ended.
  package static func poll<T, E: Error>(forMicroseconds microseconds: Int, _ attempt: () throws(E) -> T?)
    throws(E) -> (value: T?, outcome: Outcome)
  {
    let deadline = monotonicMicroseconds() + microseconds
    while true {
      if let value = try attempt() { return (value, .answered) }
      if monotonicMicroseconds() >= deadline { return (nil, .gaveUp) }
    }
  }

  /// Microseconds on the monotonic clock.
  package static func monotonicMicroseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1_000_000 + now.tv_nsec / 1000
  }
}

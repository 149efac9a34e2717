/// Which of a run's repeated failures are worth a log line: the first, a new reason, and then one
/// a minute while the same one lasts. A server away for an hour is retried every few seconds, and
/// a line per attempt buried everything else in the log (issue 52).
struct SyncFailureLog {
  /// What to log for a failure.
  enum Verdict: Equatable {
    /// The first failure, or one for another reason than the last.
    case first
    /// The same failure goes on: `attempts` failed so far.
    case stillFailing(attempts: Int)
    /// Nothing: it was said less than `interval` ago.
    case quiet
  }

  /// How often a failure that goes on is said again.
  var interval: Duration = .seconds(60)
  private var reason: String?
  private var attempts = 0
  private var lastSaid: ContinuousClock.Instant?

  /// Records a failure for `reason` at `now`, and says what to log.
  mutating func failed(_ reason: String, at now: ContinuousClock.Instant) -> Verdict {
    attempts += 1
    guard reason == self.reason, let lastSaid else {
      self.reason = reason
      lastSaid = now
      return .first
    }
    guard now - lastSaid >= interval else { return .quiet }
    self.lastSaid = now
    return .stillFailing(attempts: attempts)
  }

  /// Records a success: how many attempts had failed in a row, or nil when none had.
  mutating func recovered() -> Int? {
    defer { self = SyncFailureLog(interval: interval) }
    return attempts > 0 ? attempts : nil
  }
}

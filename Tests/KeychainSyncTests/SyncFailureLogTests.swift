import Testing

@testable import KeychainSync

/// `run()` retries every few seconds while the server is away; its log says so once a minute, not
/// on every attempt (issue 52: `sync-group run` logged a retry every 1-2 s).
@Suite struct SyncFailureLogTests {
  @Test func aLastingFailureIsSaidOnceAMinuteAndANewOneAtOnce() {
    var log = SyncFailureLog()
    let start = ContinuousClock.now
    var said: [SyncFailureLog.Verdict] = []
    // Ten minutes of attempts every 2.5 s (the engine's longest delay is 5 s), one reason.
    for attempt in 0..<240 {
      let verdict = log.failed("Cannot reach the sync server", at: start + .milliseconds(2500 * attempt))
      if verdict != .quiet { said.append(verdict) }
    }
    #expect(said.first == .first)
    #expect(said.count == 10, "\(said)")
    #expect(said[1] == .stillFailing(attempts: 25))
    // Another reason is said at once, however soon.
    #expect(log.failed("The keychain is locked", at: start + .seconds(600)) == .first)
    #expect(log.failed("The keychain is locked", at: start + .seconds(601)) == .quiet)
    // A success says how many attempts failed, and starts afresh.
    #expect(log.recovered() == 242)
    #expect(log.recovered() == nil)
    #expect(log.failed("The keychain is locked", at: start + .seconds(602)) == .first)
  }
}

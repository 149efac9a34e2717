import Foundation
import Synchronization

/// The authenticator of a store this process (or the agent) opened: prompts through its prompt
/// service (`PassphrasePrompt`'s askpass helper, pinentry or terminal by default), checks the answer
/// by unlocking the store with it (a right passphrase unlocks, as a passcode does), and counts wrong
/// answers in a `FailedAttemptLedger`.
///
/// One prompt at a time, asynchronously (issue 64): callers waiting for the user wait in a list,
/// not on threads; each prompt's answer arrives through the prompt service's completion, and the
/// next waiting caller is asked then. A prompt that proves the user answers for every caller that
/// was already waiting for presence. The waiting forms (Apple's functions block their caller) wait
/// on their own thread for the same answer.
package final class PassphraseAuthenticator: UserAuthenticating {
  /// The keys and the lock: a right passphrase unlocks them, as a passcode does.
  private let storage: any KeyLockStorage
  private let ledger: FailedAttemptLedger
  private let prompt: any PromptService
  private let lastProof = Mutex<ContinuousClock.Instant?>(nil)

  /// What a waiting caller asked for.
  private enum Asked {
    /// The user's presence, asked at that moment.
    case presence(ContinuousClock.Instant, @Sendable (UserAuthenticationFailure?) -> Void)
    /// An item's application password, which the caller gets.
    case applicationPassword(@Sendable (Result<[UInt8], UserAuthenticationFailure>) -> Void)
  }

  /// The callers waiting for the user in order (the first one's prompt is shown), and whether a
  /// prompt is being shown.
  private let turns = Mutex<(waiting: [(text: String, asked: Asked)], showing: Bool)>(([], false))

  package init(storage: any KeyLockStorage, ledger: FailedAttemptLedger, prompt: any PromptService) {
    self.storage = storage
    self.ledger = ledger
    self.prompt = prompt
  }

  package var hasPassphrase: Bool { storage.hasPassphrase }

  private func provenWithin(_ reuse: TimeInterval) -> Bool {
    guard reuse.isFinite, reuse > 0, let last = lastProof.withLock({ $0 }) else { return false }
    return last.duration(to: .now) <= .milliseconds(Int64(min(reuse, maximumReuse) * 1000))
  }

  package func authenticateUser(
    reason: String, caller: String, reuse: TimeInterval,
    completion: @escaping @Sendable (UserAuthenticationFailure?) -> Void
  ) {
    guard storage.hasPassphrase else { return completion(.passcodeNotSet) }
    if provenWithin(reuse) { return completion(nil) }
    wait(Self.promptText(reason: reason, caller: caller), .presence(.now, completion))
  }

  package func askApplicationPassword(
    _ text: String, completion: @escaping @Sendable (Result<[UInt8], UserAuthenticationFailure>) -> Void
  ) {
    wait(text, .applicationPassword(completion))
  }

  package func authenticateUser(reason: String, caller: String, reuse: TimeInterval)
    throws(UserAuthenticationFailure)
  {
    let failure = Self.waitingFor { done in
      authenticateUser(reason: reason, caller: caller, reuse: reuse, completion: done)
    }
    if let failure { throw failure }
  }

  package func askApplicationPassword(_ text: String) throws(UserAuthenticationFailure) -> [UInt8] {
    try Self.waitingFor { done in askApplicationPassword(text, completion: done) }.get()
  }

  /// What `start` completes with, waited for on this thread.
  private static func waitingFor<T: Sendable>(_ start: (@escaping @Sendable (T) -> Void) -> Void) -> T {
    let result = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    start { value in
      result.withLock { $0 = value }
      done.signal()
    }
    done.wait()
    // The completion ran before the signal, so the value is there.
    return result.withLock { $0! }
  }

  /// Adds a caller to the waiting list, and shows its prompt when none is being shown.
  private func wait(_ text: String, _ asked: Asked) {
    let starts = turns.withLock { turns in
      turns.waiting.append((text, asked))
      guard !turns.showing else { return false }
      turns.showing = true
      return true
    }
    if starts { showNext() }
  }

  /// Shows the first waiting caller's prompt, or ends the turn when none waits.
  private func showNext() {
    let next = turns.withLock { turns in
      guard let first = turns.waiting.first else {
        turns.showing = false
        return nil as (text: String, asked: Asked)?
      }
      return first
    }
    guard let next else { return }
    if case .presence(let askedAt, _) = next.asked, let last = lastProof.withLock({ $0 }), last >= askedAt {
      // A prompt another call showed while this one waited answers for both.
      return answerFirst(presence: nil)
    }
    if let unavailable = prompt.unavailability() {
      return answerFirst(.failure(.notInteractive(unavailable.reason)))
    }
    if case .presence = next.asked {
      let locked = ledger.secondsLocked()
      guard locked == 0 else {
        return answerFirst(presence: .failed("Too many wrong passphrases: try again in \(locked) seconds."))
      }
    }
    prompt.ask(next.text) { [self] answer in
      // Checking a passphrase derives a key (scrypt): not on the prompt thread, which serves
      // every prompt's input.
      DispatchQueue.global(qos: .userInitiated).async { [self] in
        switch next.asked {
        case .presence: answerFirst(presence: check(answer))
        case .applicationPassword: answerFirst(Self.typed(answer))
        }
      }
    }
  }

  /// Gives the first waiting caller `result` (its typed bytes, or why there are none), then shows
  /// the next prompt.
  private func answerFirst(_ result: Result<[UInt8], UserAuthenticationFailure>) {
    let first = turns.withLock { $0.waiting.removeFirst() }
    switch first.asked {
    case .presence(_, let completion):
      switch result {
      case .success(var bytes):
        Secrets.wipe(&bytes)
        completion(nil)
      case .failure(let failure): completion(failure)
      }
    case .applicationPassword(let completion): completion(result)
    }
    showNext()
  }

  private func answerFirst(presence failure: UserAuthenticationFailure?) {
    answerFirst(failure.map { .failure($0) } ?? .success([]))
  }

  /// What a prompt's answer gives a caller: the typed bytes, or the failure Apple reports.
  private static func typed(_ answer: PromptAnswer) -> Result<[UInt8], UserAuthenticationFailure> {
    switch answer {
    case .answered(let bytes): .success(bytes)
    case .canceled: .failure(.canceled)
    case .timedOut: .failure(.systemCanceled("No answer came in time."))
    case .failed(let why): .failure(.systemCanceled(why))
    }
  }

  /// Whether `answer` is the store's passphrase: it unlocks the store, clears the count of wrong
  /// answers and is the proof later reuse windows count from; nil when it is.
  private func check(_ answer: PromptAnswer) -> UserAuthenticationFailure? {
    var bytes: [UInt8]
    switch Self.typed(answer) {
    case .success(let typed): bytes = typed
    case .failure(let failure): return failure
    }
    defer { Secrets.wipe(&bytes) }
    guard Self.isUTF8(bytes) else { return wrong() }
    do throws(SecStatus) {
      // As bytes, wiped above: never a String, whose storage cannot be wiped.
      try storage.unlock(passphraseBytes: bytes)
    } catch  where error.code == errSecAuthFailed {
      return wrong()
    } catch {
      return .failed("The passphrase could not be checked: \(error.detail ?? error.description)")
    }
    ledger.recordSuccess()
    lastProof.withLock { $0 = .now }
    return nil
  }

  /// Whether `bytes` are UTF-8, checked without making a String of them (a copy nobody wipes).
  static func isUTF8(_ bytes: [UInt8]) -> Bool {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue: continue
      case .emptyInput: return true
      case .error: return false
      }
    }
  }

  /// Counts a wrong answer and says how many more are free.
  private func wrong() -> UserAuthenticationFailure {
    let failures: Int
    do {
      failures = try ledger.recordFailure()
    } catch {
      return .failed("Wrong passphrase, and the failure could not be recorded: \(error.detail ?? "")")
    }
    let wait = FailedAttemptLedger.lockout(afterFailures: failures)
    return .failed(
      wait > 0
        ? "Wrong passphrase (\(failures) in a row): prompts are locked for \(wait) seconds."
        : "Wrong passphrase (\(failures) in a row).")
  }

  /// What the prompt shows: who asks, why, and what to type. The reason is the program's own
  /// words, shown quoted as such (`programWords`), so it cannot pass for the keychain's.
  package static func promptText(reason: String, caller: String) -> String {
    let why = programWords(reason)
    return why.isEmpty
      ? "\(caller) wants to use a protected keychain item. Keychain passphrase:"
      : "\(caller) wants to use a protected keychain item. It says: \u{201C}\(why)\u{201D}. Keychain passphrase:"
  }

  /// The longest reason a prompt shows, in characters.
  package static let maximumReasonLength = 160

  /// A program's reason as a prompt may show it (issue 49, case 11): on one line (every control
  /// character, line and paragraph separator becomes a space, so a reason cannot add a line that
  /// names another program), without the format characters that reorder or hide text (bidirectional
  /// overrides, zero-width characters), spaces collapsed, and cut at `maximumReasonLength`.
  package static func programWords(_ reason: String) -> String {
    var words = ""
    var lastWasSpace = true
    for scalar in reason.unicodeScalars {
      let category = scalar.properties.generalCategory
      switch category {
      case .format: continue
      case .control, .lineSeparator, .paragraphSeparator, .spaceSeparator:
        if !lastWasSpace { words.unicodeScalars.append(" ") }
        lastWasSpace = true
      default:
        words.unicodeScalars.append(scalar)
        lastWasSpace = false
      }
    }
    if lastWasSpace, !words.isEmpty { words.removeLast() }
    guard words.count > maximumReasonLength else { return words }
    return String(words.prefix(maximumReasonLength - 1)) + "\u{2026}"
  }
}

import Foundation
import Synchronization

/// Why the user could not be authenticated. Each case is one of `LAError`'s codes (the
/// LocalAuthentication module makes its errors from them) and one OSStatus for SecItem calls.
package enum UserAuthenticationFailure: Error, Sendable, Equatable {
  /// A wrong answer, or prompts locked after too many (LAError.authenticationFailed).
  case failed(String)
  /// The user declined (LAError.userCancel).
  case canceled
  /// The prompt went away without an answer: it timed out, or its helper crashed or could not
  /// run (LAError.systemCancel).
  case systemCanceled(String)
  /// The store has no passphrase, so there is nothing to prove (LAError.passcodeNotSet).
  case passcodeNotSet
  /// No prompt can be shown: no helper, no terminal, or the caller forbade it (LAError.notInteractive).
  case notInteractive(String)
  /// The context was invalidated (LAError.invalidContext).
  case invalidContext
  /// Biometry was asked for; Linux has none (LAError.biometryNotAvailable).
  case biometryNotAvailable

  /// LAError's code.
  package var laErrorCode: Int {
    switch self {
    case .failed: -1
    case .canceled: -2
    case .systemCanceled: -4
    case .passcodeNotSet: -5
    case .biometryNotAvailable: -6
    case .invalidContext: -10
    case .notInteractive: -1004
    }
  }

  /// The failure from LAError's code, with `message` where the case carries one.
  package init?(laErrorCode: Int, message: String) {
    switch laErrorCode {
    case -1: self = .failed(message)
    case -2: self = .canceled
    case -4: self = .systemCanceled(message)
    case -5: self = .passcodeNotSet
    case -6: self = .biometryNotAvailable
    case -10: self = .invalidContext
    case -1004: self = .notInteractive(message)
    default: return nil
    }
  }

  /// In words, for LAError's description and SecItem's failure detail.
  package var message: String {
    switch self {
    case .failed(let why), .systemCanceled(let why), .notInteractive(let why): why
    case .canceled: "The user canceled the prompt."
    case .passcodeNotSet: "The keychain store has no passphrase, so the user cannot be asked for it."
    case .invalidContext: "The authentication context was invalidated."
    case .biometryNotAvailable: "Biometry is not available on Linux."
    }
  }

  /// What a SecItem call answers (a decision, SpecificationDecisions "Authentication": a cancel
  /// is errSecUserCanceled, a prompt that cannot be shown or a proof Linux cannot give
  /// errSecInteractionNotAllowed, every other failure errSecAuthFailed).
  package var status: SecStatus {
    switch self {
    case .canceled: SecStatus(errSecUserCanceled, detail: message)
    // No passphrase is as final as no prompt: nothing the user could type would do.
    case .notInteractive(let why):
      // errSecInteractionNotAllowed's own words speak of a locked keychain: say that the user had
      // to be asked and why they could not be.
      SecStatus(errSecInteractionNotAllowed, detail: "The user must be asked, but cannot be: \(why)")
    case .biometryNotAvailable, .passcodeNotSet:
      SecStatus(errSecInteractionNotAllowed, detail: message)
    default: SecStatus(errSecAuthFailed, detail: message)
    }
  }
}

/// Proves that the user is present, as a device passcode prompt does: the Linux analogue of the
/// passcode is the store's passphrase.
package protocol UserAuthenticating: Sendable {
  /// Asks the user for the store's passphrase and checks it, unless the user proved it to this
  /// authenticator within `reuse` seconds (at most `maximumReuse`). `reason` says why, in the
  /// caller's words; `caller` names the program asking.
  func authenticateUser(reason: String, caller: String, reuse: TimeInterval) throws(UserAuthenticationFailure)

  /// Whether the store has a passphrase to ask for.
  var hasPassphrase: Bool { get }

  /// Asks the user for an item's application password, showing `text`; the answer is the
  /// application's secret, so it is returned to the calling process.
  func askApplicationPassword(_ text: String) throws(UserAuthenticationFailure) -> [UInt8]

  /// `authenticateUser` without waiting: returns at once, and `completion` runs later, on any
  /// thread, with nil on success or the failure. A server uses it so that callers waiting for the
  /// user hold no thread each.
  func authenticateUser(
    reason: String, caller: String, reuse: TimeInterval,
    completion: @escaping @Sendable (UserAuthenticationFailure?) -> Void)

  /// `askApplicationPassword` without waiting: `completion` runs later, on any thread, with the
  /// answer (whose bytes it wipes when done) or the failure.
  func askApplicationPassword(
    _ text: String, completion: @escaping @Sendable (Result<[UInt8], UserAuthenticationFailure>) -> Void)
}

extension UserAuthenticating {
  /// The default: the waiting form, on a thread of its own.
  package func authenticateUser(
    reason: String, caller: String, reuse: TimeInterval,
    completion: @escaping @Sendable (UserAuthenticationFailure?) -> Void
  ) {
    let thread = Thread {
      do throws(UserAuthenticationFailure) {
        try self.authenticateUser(reason: reason, caller: caller, reuse: reuse)
        completion(nil)
      } catch {
        completion(error)
      }
    }
    thread.name = "keychain authentication"
    thread.start()
  }

  /// The default: the waiting form, on a thread of its own.
  package func askApplicationPassword(
    _ text: String, completion: @escaping @Sendable (Result<[UInt8], UserAuthenticationFailure>) -> Void
  ) {
    let thread = Thread {
      completion(Result { () throws(UserAuthenticationFailure) in try self.askApplicationPassword(text) })
    }
    thread.name = "keychain authentication"
    thread.start()
  }
}

/// The longest reuse Apple allows (LATouchIDAuthenticationMaximumAllowableReuseDuration).
package let maximumReuse: TimeInterval = 300

/// The authenticator of a store this process (or the agent) opened: prompts through its prompt
/// service (`PassphrasePrompt`'s terminal or askpass helper by default), checks the answer by
/// unlocking the store with it (a right passphrase unlocks, as a passcode does), and counts wrong
/// answers in a `FailedAttemptLedger`.
package final class PassphraseAuthenticator: UserAuthenticating {
  /// The keys and the lock: a right passphrase unlocks them, as a passcode does.
  private let storage: any KeyLockStorage
  private let ledger: FailedAttemptLedger
  private let prompt: any PromptService
  /// Where the non-waiting form runs its prompts, one at a time: callers waiting for the user
  /// wait in this queue, not on threads of their own.
  private let prompts = DispatchQueue(label: "keychain-bridge.prompts")
  private let lastProof = Mutex<ContinuousClock.Instant?>(nil)
  /// One prompt at a time: two calls that need the user share the first one's answer.
  private let promptTurn = Mutex(())

  package init(storage: any KeyLockStorage, ledger: FailedAttemptLedger, prompt: any PromptService) {
    self.storage = storage
    self.ledger = ledger
    self.prompt = prompt
  }

  package var hasPassphrase: Bool { storage.hasPassphrase }

  package func askApplicationPassword(_ text: String) throws(UserAuthenticationFailure) -> [UInt8] {
    try promptTurn.withLock { _ throws(UserAuthenticationFailure) in try prompt.answer(text) }
  }

  private func provenWithin(_ reuse: TimeInterval) -> Bool {
    guard reuse.isFinite, reuse > 0, let last = lastProof.withLock({ $0 }) else { return false }
    return last.duration(to: .now) <= .milliseconds(Int64(min(reuse, maximumReuse) * 1000))
  }

  package func authenticateUser(
    reason: String, caller: String, reuse: TimeInterval,
    completion: @escaping @Sendable (UserAuthenticationFailure?) -> Void
  ) {
    prompts.async {
      do throws(UserAuthenticationFailure) {
        try self.authenticateUser(reason: reason, caller: caller, reuse: reuse)
        completion(nil)
      } catch {
        completion(error)
      }
    }
  }

  /// Asks on the store's prompt queue, one prompt at a time as for the user's presence.
  package func askApplicationPassword(
    _ text: String, completion: @escaping @Sendable (Result<[UInt8], UserAuthenticationFailure>) -> Void
  ) {
    prompts.async {
      completion(Result { () throws(UserAuthenticationFailure) in try self.askApplicationPassword(text) })
    }
  }

  package func authenticateUser(reason: String, caller: String, reuse: TimeInterval)
    throws(UserAuthenticationFailure)
  {
    guard storage.hasPassphrase else { throw .passcodeNotSet }
    if provenWithin(reuse) { return }
    let askedAt = ContinuousClock.now
    try promptTurn.withLock { _ throws(UserAuthenticationFailure) in
      // A prompt another call showed while this one waited for its turn answers for both.
      if let last = lastProof.withLock({ $0 }), last >= askedAt { return }
      let locked = ledger.secondsLocked()
      guard locked == 0 else {
        throw .failed("Too many wrong passphrases: try again in \(locked) seconds.")
      }
      var bytes = try prompt.answer(Self.promptText(reason: reason, caller: caller))
      defer { Secrets.wipe(&bytes) }
      guard Self.isUTF8(bytes) else { throw try wrong() }
      do throws(SecStatus) {
        // As bytes, wiped above: never a String, whose storage cannot be wiped.
        try storage.unlock(passphraseBytes: bytes)
      } catch  where error.code == errSecAuthFailed {
        throw try wrong()
      } catch {
        throw .failed("The passphrase could not be checked: \(error.detail ?? error.description)")
      }
      ledger.recordSuccess()
      lastProof.withLock { $0 = .now }
    }
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
  private func wrong() throws(UserAuthenticationFailure) -> UserAuthenticationFailure {
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

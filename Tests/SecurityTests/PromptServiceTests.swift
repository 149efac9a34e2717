import Foundation
import KeychainStorageMemory
import Synchronization
import Testing

@testable import Security

/// The prompt service is asynchronous (issue 50): a prompt that completes later, from another
/// thread, as a D-Bus prompt object does when its client has shown it, answers the authenticator
/// without the asking caller holding anything but a completion.
@Suite("An asynchronous prompt service")
struct PromptServiceTests {
  /// Prompts that wait until the test answers them.
  final class ScriptedPrompts: PromptService, @unchecked Sendable {
    // @unchecked: `waiting` is used under `lock` only.
    private let lock = NSLock()
    private var waiting: [(text: String, completion: @Sendable (PromptAnswer) -> Void)] = []

    func unavailability() -> PromptUnavailable? { nil }

    func ask(_ text: String, completion: @escaping @Sendable (PromptAnswer) -> Void) {
      lock.withLock { waiting.append((text, completion)) }
    }

    /// The texts of the prompts shown and not answered yet.
    var shown: [String] { lock.withLock { waiting.map(\.text) } }

    /// Answers the oldest prompt, from another thread.
    func answer(_ answer: PromptAnswer) {
      let prompt = lock.withLock { waiting.removeFirst() }
      Thread { prompt.completion(answer) }.start()
    }

    /// Waits (up to 30 s) until `count` prompts are shown.
    func waitUntilShown(_ count: Int) -> Bool {
      for _ in 0..<3000 where shown.count < count { usleep(10_000) }
      return shown.count >= count
    }
  }

  /// The outcome of one non-waiting authentication, when it came.
  final class Outcome: Sendable {
    let value = Mutex<UserAuthenticationFailure??>(nil)
    let done = DispatchSemaphore(value: 0)

    func record(_ failure: UserAuthenticationFailure?) {
      value.withLock { $0 = .some(failure) }
      done.signal()
    }

    func wait() -> UserAuthenticationFailure?? {
      guard done.wait(timeout: .now() + 30) == .success else { return nil }
      return value.withLock { $0 }
    }
  }

  static func authenticator(_ prompts: ScriptedPrompts) -> PassphraseAuthenticator {
    PassphraseAuthenticator(
      storage: InMemoryItemStorage(passphrase: "correct horse"), ledger: FailedAttemptLedger(directory: nil),
      prompt: prompts)
  }

  @Test("The caller returns at once; the answer completes the authentication later")
  func theAnswerComesLater() throws {
    let prompts = ScriptedPrompts()
    let authenticator = Self.authenticator(prompts)
    let outcome = Outcome()
    authenticator.authenticateUser(reason: "read the token", caller: "mail", reuse: 0) { outcome.record($0) }
    #expect(prompts.waitUntilShown(1))
    #expect(outcome.value.withLock { $0 } == nil, "completed before the user answered")
    #expect(prompts.shown.first?.contains("mail wants to use a protected keychain item") == true)
    prompts.answer(.answered(Array("correct horse".utf8)))
    #expect(outcome.wait() == .some(nil))
  }

  @Test("A wrong answer, a cancel and a timeout complete as failures")
  func failuresComplete() throws {
    let prompts = ScriptedPrompts()
    let authenticator = Self.authenticator(prompts)
    for (answer, expected) in [
      (PromptAnswer.answered(Array("wrong".utf8)), "failed"), (.canceled, "canceled"), (.timedOut, "systemCanceled"),
    ] {
      let outcome = Outcome()
      authenticator.authenticateUser(reason: "", caller: "mail", reuse: 0) { outcome.record($0) }
      #expect(prompts.waitUntilShown(1))
      prompts.answer(answer)
      let completed = try #require(outcome.wait())
      let failure = try #require(completed)
      #expect("\(failure)".hasPrefix(expected), "\(failure)")
    }
  }

  @Test("A waiting SecItem-style caller gets the same answer through the same service")
  func aWaitingCallerIsAnswered() throws {
    let prompts = ScriptedPrompts()
    let authenticator = Self.authenticator(prompts)
    let answered = Thread {
      #expect(prompts.waitUntilShown(1))
      prompts.answer(.answered(Array("correct horse".utf8)))
    }
    answered.start()
    try authenticator.authenticateUser(reason: "", caller: "mail", reuse: 0)
  }
}

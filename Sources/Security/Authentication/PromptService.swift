import Foundation
import Synchronization

/// Asks the user something and answers later (issue 50): the terminal and askpass helpers
/// (`PassphrasePrompt`) are implementations, and a desktop front end adds its own (the Secret
/// Service's D-Bus prompt objects, which complete when the client has shown them). Whoever waits
/// for the answer never knows which one gave it.
///
/// The service is asynchronous so that a server waiting for the user holds no thread per waiting
/// caller: `ask` returns at once, and the answer comes through the completion. A synchronous
/// caller (the SecItem functions, which block by Apple's contract) waits with `answer(_:)`.
package protocol PromptService: Sendable {
  /// Why no prompt can be shown now (no helper, no terminal, no client to show it), or nil when
  /// one can.
  func unavailability() -> PromptUnavailable?

  /// Starts asking the user, showing `text`; `completion` runs exactly once, later, on any thread,
  /// with the answer (whose bytes it wipes when done).
  func ask(_ text: String, completion: @escaping @Sendable (PromptAnswer) -> Void)

  /// Starts asking the user to allow or refuse what `text` says; `completion` runs exactly once,
  /// later, on any thread, with `true` only when the user allowed it.
  func confirm(_ text: String, completion: @escaping @Sendable (Bool) -> Void)
}

extension PromptService {
  /// A confirmation through a prompt that can only read text: the user allows by typing `yes`
  /// (or `y`); anything else, or no answer, refuses.
  package func confirm(_ text: String, completion: @escaping @Sendable (Bool) -> Void) {
    ask(text + " (type yes to allow)") { answer in
      guard case .answered(var bytes) = answer else { return completion(false) }
      let allowed = ["y", "yes"].contains(String(decoding: bytes, as: UTF8.self).lowercased())
      Secrets.wipe(&bytes)
      completion(allowed)
    }
  }

  /// The answer to a prompt showing `text`, awaited.
  package func ask(_ text: String) async -> PromptAnswer {
    await withCheckedContinuation { continuation in
      ask(text) { continuation.resume(returning: $0) }
    }
  }

  /// What the user typed at a prompt showing `text`, or why there is no answer; the calling thread
  /// waits. The prompt runs on a thread of its own (or in another process), never on the waiting
  /// one, so waiting cannot deadlock it.
  package func answer(_ text: String) throws(UserAuthenticationFailure) -> [UInt8] {
    if let unavailable = unavailability() { throw .notInteractive(unavailable.reason) }
    let answered = Mutex<PromptAnswer?>(nil)
    let done = DispatchSemaphore(value: 0)
    ask(text) { answer in
      answered.withLock { $0 = answer }
      done.signal()
    }
    done.wait()
    switch answered.withLock({ $0 }) {
    case .answered(let bytes)?: return bytes
    case .canceled?: throw .canceled
    case .timedOut?: throw .systemCanceled("No answer came in time.")
    case .failed(let why)?: throw .systemCanceled(why)
    case nil: throw .systemCanceled("The prompt ended without an answer.")
    }
  }
}

extension PassphrasePrompt: PromptService {
  package func unavailability() -> PromptUnavailable? {
    if case .failure(let unavailable) = channel() { return unavailable }
    return nil
  }
}

import Foundation
import Logging
import Synchronization
import Testing

@testable import KeychainAgent
@testable import Security

/// The consumers of a storage's keys and lock take that capability alone (issue 64): a storage
/// that has nothing else (a read-only token, a foreign keychain file) can be locked by the idle
/// lock and unlocked by the user's passphrase.
@Suite("Consumers of the lock take the lock alone")
struct NarrowCapabilityTests {
  /// A storage that is only keys and a lock: no rows, no change feed, no maintenance.
  final class LockOnly: KeyLockStorage, @unchecked Sendable {
    private let state = Mutex((locked: true, unlockedWith: [UInt8]?.none))
    let hasPassphrase = true
    var isLocked: Bool { state.withLock { $0.locked } }
    var unlockedWith: [UInt8]? { state.withLock { $0.unlockedWith } }
    func lock() { state.withLock { $0.locked = true } }
    func unlock(passphrase: String?) throws(SecStatus) {
      guard passphrase == "right" else { throw SecStatus(errSecAuthFailed) }
      state.withLock { $0 = (false, Array("right".utf8)) }
    }
  }

  /// A prompt that answers `answer` at once.
  struct Answering: PromptService {
    let answer: String
    func unavailability() -> PromptUnavailable? { nil }
    func ask(_ text: String, completion: @escaping @Sendable (PromptAnswer) -> Void) {
      completion(.answered(Array(answer.utf8)))
    }
    func confirm(_ text: String, completion: @escaping @Sendable (Bool) -> Void) { completion(false) }
  }

  @Test("The passphrase authenticator unlocks a storage that is only a lock")
  func theAuthenticatorNeedsOnlyTheLock() throws {
    let storage = LockOnly()
    let wrong = PassphraseAuthenticator(
      storage: storage, ledger: FailedAttemptLedger(directory: nil), prompt: Answering(answer: "wrong"))
    #expect(throws: UserAuthenticationFailure.self) {
      try wrong.authenticateUser(reason: "", caller: "test", reuse: 0)
    }
    #expect(storage.isLocked)
    let right = PassphraseAuthenticator(
      storage: storage, ledger: FailedAttemptLedger(directory: nil), prompt: Answering(answer: "right"))
    try right.authenticateUser(reason: "", caller: "test", reuse: 0)
    #expect(!storage.isLocked && storage.unlockedWith == Array("right".utf8))
  }

  @Test("The idle lock holds a storage that is only a lock")
  func theIdleLockNeedsOnlyTheLock() {
    let storage = LockOnly()
    let idle = IdleLock(timeout: 0, storage: storage, logger: Logger(label: "test"))
    idle.touch()
    #expect(idle.timeout == 0 && storage.isLocked)
  }
}

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

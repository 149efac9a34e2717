import Foundation

/// The error domain of LocalAuthentication's errors, as Apple names it.
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// The longest `touchIDAuthenticationAllowableReuseDuration` Apple accepts: 5 minutes.
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = 300

/// An error of LocalAuthentication, with Apple's codes (`LAError.Code`).
///
/// Catch it as Apple code does (`catch let error as LAError where error.code == .userCancel`); as an
/// `NSError` it is in `LAErrorDomain` with the code's raw value.
public struct LAError: CustomNSError, Hashable, Sendable {
  /// Apple's codes. Linux has neither biometry nor a paired watch, so their codes answer the
  /// policies that need them; `passcodeNotSet` answers for a store without a passphrase.
  public enum Code: Int, Sendable {
    /// The user gave a wrong passphrase, or prompts are locked after too many.
    case authenticationFailed = -1
    /// The user canceled the prompt.
    case userCancel = -2
    /// The user chose the fallback (never given here: there is no fallback button).
    case userFallback = -3
    /// The prompt ended without an answer: it timed out, or its helper crashed or could not run.
    case systemCancel = -4
    /// The store has no passphrase (a device without a passcode).
    case passcodeNotSet = -5
    /// Biometry is not available (always, on Linux).
    case biometryNotAvailable = -6
    /// No biometry is enrolled (never given here: biometry is not available at all).
    case biometryNotEnrolled = -7
    /// Biometry is locked out (never given here).
    case biometryLockout = -8
    /// The application canceled the evaluation (`invalidate()` while it ran).
    case appCancel = -9
    /// The context was invalidated.
    case invalidContext = -10
    /// No paired watch is available (always, on Linux).
    case watchNotAvailable = -11
    /// A prompt was needed and `interactionNotAllowed` is set, or no prompt can be shown.
    case notInteractive = -1004

    /// Apple's older name of `biometryNotAvailable`.
    public static var touchIDNotAvailable: Code { .biometryNotAvailable }
    /// Apple's older name of `biometryNotEnrolled`.
    public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
    /// Apple's older name of `biometryLockout`.
    public static var touchIDLockout: Code { .biometryLockout }
  }

  /// What went wrong.
  public let code: Code
  /// Why, in words.
  public let message: String

  /// An error with `code`, described by `message` (Apple's wording of the code when nil).
  public init(_ code: Code, message: String? = nil) {
    self.code = code
    self.message = message ?? Self.describe(code)
  }

  /// Two errors are equal when their codes are (the message is a description, not an identity):
  /// `#expect(throws: LAError(.userCancel))` and `catch LAError.userCancel`-style matching work.
  public static func == (lhs: LAError, rhs: LAError) -> Bool { lhs.code == rhs.code }

  /// Hashes the code.
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }

  /// `LAErrorDomain`.
  public static var errorDomain: String { LAErrorDomain }
  /// The code's raw value.
  public var errorCode: Int { code.rawValue }
  /// The description, under NSLocalizedDescriptionKey.
  public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
  /// The description.
  public var localizedDescription: String { message }

  /// The codes' descriptions when no reason is known.
  private static func describe(_ code: Code) -> String {
    switch code {
    case .authenticationFailed: "Authentication failed."
    case .userCancel: "Canceled by user."
    case .userFallback: "Fallback authentication mechanism selected."
    case .systemCancel: "Canceled by system."
    case .passcodeNotSet: "Passcode not set."
    case .biometryNotAvailable: "Biometry is not available on this device."
    case .biometryNotEnrolled: "No identities are enrolled."
    case .biometryLockout: "Biometry is locked out."
    case .appCancel: "Canceled by application."
    case .invalidContext: "The context was invalidated."
    case .watchNotAvailable: "No paired watch is available."
    case .notInteractive: "Authentication needs a prompt, which is not allowed."
    }
  }

  // Apple's static shorthands, so `LAError.userCancel` reads as in Apple code.
  /// `Code.authenticationFailed`.
  public static var authenticationFailed: Code { .authenticationFailed }
  /// `Code.userCancel`.
  public static var userCancel: Code { .userCancel }
  /// `Code.userFallback`.
  public static var userFallback: Code { .userFallback }
  /// `Code.systemCancel`.
  public static var systemCancel: Code { .systemCancel }
  /// `Code.passcodeNotSet`.
  public static var passcodeNotSet: Code { .passcodeNotSet }
  /// `Code.biometryNotAvailable`.
  public static var biometryNotAvailable: Code { .biometryNotAvailable }
  /// `Code.biometryNotEnrolled`.
  public static var biometryNotEnrolled: Code { .biometryNotEnrolled }
  /// `Code.biometryLockout`.
  public static var biometryLockout: Code { .biometryLockout }
  /// `Code.appCancel`.
  public static var appCancel: Code { .appCancel }
  /// `Code.invalidContext`.
  public static var invalidContext: Code { .invalidContext }
  /// `Code.watchNotAvailable`.
  public static var watchNotAvailable: Code { .watchNotAvailable }
  /// `Code.touchIDNotAvailable` (Apple's older name of `biometryNotAvailable`).
  public static var touchIDNotAvailable: Code { .biometryNotAvailable }
  /// `Code.notInteractive`.
  public static var notInteractive: Code { .notInteractive }
}

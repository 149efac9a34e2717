import Foundation
import Security

/// Apple's `LAContext`, for what Linux can do: the device owner proves their presence with the
/// keychain store's passphrase (the Linux analogue of the device passcode), asked on the terminal,
/// through the `KEYCHAIN_BRIDGE_ASKPASS` helper, or by the agent for a store it serves.
///
/// Pass an evaluated context in `kSecUseAuthenticationContext` and the keychain reads the items
/// it protects (access control `.userPresence`, `.devicePasscode`) without asking again, until
/// `invalidate()`. A context that was not evaluated is evaluated by the first SecItem call that
/// needs it, which prompts. The context acts on the store SecItem calls use where it is made to
/// act: the default store, or the one `withKeychainContext` names.
open class LAContext: NSObject, @unchecked Sendable {
  // @unchecked: every mutable state is in `session`, behind its lock; the text properties below
  // are only read by this class when a prompt is shown.
  package let session = AuthenticationSession()
  private let texts = NSLock()
  private var reasonText = ""
  private var fallbackTitle: String?
  private var cancelTitle: String?

  /// A new context, which has proven nothing.
  public override init() {
    super.init()
  }

  /// The reason shown when a SecItem call prompts with this context (Apple's `localizedReason`).
  open var localizedReason: String {
    get { texts.withLock { reasonText } }
    set { texts.withLock { reasonText = newValue } }
  }

  /// Apple's fallback button title: kept, never shown (a passphrase prompt has no fallback).
  open var localizedFallbackTitle: String? {
    get { texts.withLock { fallbackTitle } }
    set { texts.withLock { fallbackTitle = newValue } }
  }

  /// Apple's cancel button title: kept, never shown (an askpass helper draws its own buttons).
  open var localizedCancelTitle: String? {
    get { texts.withLock { cancelTitle } }
    set { texts.withLock { cancelTitle = newValue } }
  }

  /// How recent a proof of the user (through any context on the same store, or a SecItem prompt)
  /// lets `evaluatePolicy` succeed without asking again; 0 (the default) always asks, and values
  /// above `LATouchIDAuthenticationMaximumAllowableReuseDuration` count as that maximum.
  open var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
    get { session.reuseDuration }
    // A value that is no number of seconds (NaN, infinite) counts as 0: it must not reach the
    // arithmetic that turns it into a duration.
    set {
      session.reuseDuration =
        newValue.isFinite ? max(0, min(newValue, LATouchIDAuthenticationMaximumAllowableReuseDuration)) : 0
    }
  }

  /// When true, an evaluation or SecItem call that would prompt fails instead
  /// (`LAError.notInteractive`, errSecInteractionNotAllowed).
  open var interactionNotAllowed: Bool {
    get { session.interactionNotAllowed }
    set { session.interactionNotAllowed = newValue }
  }

  /// The device's biometry: none.
  open var biometryType: LABiometryType { .none }

  /// Apple's fingerprint of the enrolled biometry: nil, as on a device without biometry.
  open var evaluatedPolicyDomainState: Data? { nil }

  /// Whether `policy` can be evaluated: `.deviceOwnerAuthentication` when the store has a
  /// passphrase; the biometric and watch policies never. `error` (Apple code passes `&error` of an
  /// `NSError?`; Linux Foundation has no NSErrorPointer) receives the `LAError` as an NSError.
  open func canEvaluatePolicy(_ policy: LAPolicy, error: UnsafeMutablePointer<NSError?>?) -> Bool {
    do throws(LAError) {
      _ = try authenticator(for: policy)
      return true
    } catch let failure {
      error?.pointee = failure as NSError
      return false
    }
  }

  /// Asks the user to prove `policy`, then calls `reply` (on another thread) with true, or false
  /// and an `LAError`. `localizedReason` is shown in the prompt, after the program's name.
  open func evaluatePolicy(
    _ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    // The store is the one of the caller's task (withKeychainContext), read before leaving it.
    let chosen = Result { () throws(LAError) in try authenticator(for: policy) }
    let session = session
    let reuse = touchIDAuthenticationAllowableReuseDuration
    Thread.detachNewThread {
      do throws(LAError) {
        let authenticator = try chosen.get()
        try Self.evaluate(session, authenticator, reason: localizedReason, reuse: reuse)
        reply(true, nil)
      } catch {
        reply(false, error)
      }
    }
  }

  /// The async form of `evaluatePolicy(_:localizedReason:reply:)`: true, or throws an `LAError`.
  open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
    try await withCheckedThrowingContinuation { continuation in
      evaluatePolicy(policy, localizedReason: localizedReason) { success, error in
        if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
      }
    }
  }

  /// Ends the context: its proof no longer reads any item, and it can neither prompt nor be
  /// evaluated again (`LAError.invalidContext`).
  open func invalidate() { session.invalidate() }

  /// Sets (or with nil clears) the application password of items whose access control has
  /// `.applicationPassword`: such an item's secret is sealed under it when the item is added,
  /// and read with it. False once the context is invalidated.
  @discardableResult
  open func setCredential(_ credential: Data?, type: LACredentialType) -> Bool {
    guard !session.isInvalidated else { return false }
    session.setApplicationPassword(credential.map { [UInt8]($0) })
    return true
  }

  /// Whether a credential of `type` is set.
  open func isCredentialSet(_ type: LACredentialType) -> Bool { session.applicationPassword != nil }

  /// The authenticator of the caller's store for `policy`, or the error that policy answers.
  private func authenticator(for policy: LAPolicy) throws(LAError) -> any UserAuthenticating {
    if session.isInvalidated { throw LAError(.invalidContext) }
    switch policy {
    case .deviceOwnerAuthenticationWithBiometrics, .deviceOwnerAuthenticationWithBiometricsOrWatch:
      throw LAError(.biometryNotAvailable, message: "Biometry is not available on Linux.")
    case .deviceOwnerAuthenticationWithWatch:
      throw LAError(.watchNotAvailable, message: "No paired watch is available on Linux.")
    case .deviceOwnerAuthentication:
      break
    }
    let store: KeychainStore
    do {
      store = try KeychainStore.forCurrentCall()
    } catch {
      throw LAError(.passcodeNotSet, message: "No keychain store could be opened: \(error.message)")
    }
    guard store.authenticator.hasPassphrase else {
      throw LAError(
        .passcodeNotSet,
        message:
          "The keychain store has no passphrase, so the device owner cannot prove it (as a device without a passcode).")
    }
    return store.authenticator
  }

  private static func evaluate(
    _ session: AuthenticationSession, _ authenticator: any UserAuthenticating, reason: String, reuse: TimeInterval
  ) throws(LAError) {
    if session.interactionNotAllowed {
      throw LAError(.notInteractive, message: "interactionNotAllowed is set and the user must be asked.")
    }
    do {
      try authenticator.authenticateUser(reason: reason, caller: ProcessInfo.processInfo.processName, reuse: reuse)
    } catch {
      throw LAError(LAError.Code(rawValue: error.laErrorCode) ?? .authenticationFailed, message: error.message)
    }
    // Invalidated while the prompt was up: Apple's appCancel.
    if session.isInvalidated { throw LAError(.appCancel, message: "The context was invalidated during the prompt.") }
    session.recordProof()
  }
}

extension LAContext: AuthenticationContextCarrier {
  /// The state SecItem calls read from this context.
  package var authenticationSession: AuthenticationSession { session }
}

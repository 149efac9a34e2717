import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What an `LAContext` (the LocalAuthentication module) is to the SecItem engine: whether the
/// user proved their presence through it, whether it was invalidated, whether it may prompt, and
/// the application password given to it. LocalAuthentication imports Security, not the other way
/// round (as Apple's Security knows an LAContext only by its externalized form), so a context
/// reaches the engine in `kSecUseAuthenticationContext` as a value of this protocol.
package protocol AuthenticationContextCarrier: AnyObject {
  /// The context's state, shared with the engine.
  var authenticationSession: AuthenticationSession { get }
}

/// The state of one authentication context, safe to share between the caller's threads and a
/// SecItem call.
package final class AuthenticationSession: Sendable {
  private struct State {
    var proven = false
    var invalidated = false
    var interactionNotAllowed = false
    var reuseDuration: TimeInterval = 0
    var applicationPassword: [UInt8]?
  }

  private let state = Mutex(State())

  /// A context that has proven nothing yet.
  package init() {}

  deinit {
    state.withLock { if $0.applicationPassword != nil { Secrets.wipe(&$0.applicationPassword!) } }
  }

  /// Whether the user proved their presence through this context and it was not invalidated since:
  /// Apple's keychain then reads the items it protects without asking again.
  package var hasProvenPresence: Bool { state.withLock { $0.proven && !$0.invalidated } }

  /// Records a successful proof (an evaluated policy, or a prompt a SecItem call showed for it).
  package func recordProof() { state.withLock { if !$0.invalidated { $0.proven = true } } }

  /// Whether `invalidate()` was called: the context can neither prompt nor authorize again.
  package var isInvalidated: Bool { state.withLock { $0.invalidated } }

  /// Ends the context for good, wiping its application password.
  package func invalidate() {
    state.withLock {
      $0.invalidated = true
      $0.proven = false
      if $0.applicationPassword != nil { Secrets.wipe(&$0.applicationPassword!) }
      $0.applicationPassword = nil
    }
  }

  /// `LAContext.interactionNotAllowed`: a call with this context fails rather than prompt.
  package var interactionNotAllowed: Bool {
    get { state.withLock { $0.interactionNotAllowed } }
    set { state.withLock { $0.interactionNotAllowed = newValue } }
  }

  /// `LAContext.touchIDAuthenticationAllowableReuseDuration`, in seconds: a proof of the user this
  /// recent (by any context of the same authenticator) satisfies `evaluatePolicy` without a prompt.
  package var reuseDuration: TimeInterval {
    get { state.withLock { $0.reuseDuration } }
    set { state.withLock { $0.reuseDuration = newValue } }
  }

  /// Sets or clears the application password (`LAContext.setCredential(_:type:)`).
  package func setApplicationPassword(_ password: [UInt8]?) {
    state.withLock {
      if $0.applicationPassword != nil { Secrets.wipe(&$0.applicationPassword!) }
      $0.applicationPassword = $0.invalidated ? nil : password
    }
  }

  /// The application password, when one is set.
  package var applicationPassword: [UInt8]? { state.withLock { $0.applicationPassword } }
}

/// Wiping of secrets Security holds in arrays (passphrases typed at a prompt, application
/// passwords). `explicit_bzero` because a plain store to memory that is not read again may be
/// removed by the optimizer; Security imports no crypto module (KeychainCrypto's SecureBytes).
package enum Secrets {
  /// Overwrites `bytes` with zeros, then empties it.
  package static func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
      if let base = buffer.baseAddress { explicit_bzero(base, buffer.count) }
    }
    bytes.removeAll()
  }
}

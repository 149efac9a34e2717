import Foundation
import KeychainAgentWire
import Security
import Synchronization

/// What the user proved on one connection (issue 32). The agent asks the user itself, with its
/// own prompt, naming the executable behind the connection; a connection on which the user proved
/// their presence receives the secrets of items that ask for it, and no other does, whatever the
/// client's own engine decided. The proof lasts as long as the connection: the client's LAContext
/// rules (invalidate) are applied by its engine on top of it, and a reuse window
/// (`touchIDAuthenticationAllowableReuseDuration`) counts only proofs given on this connection.
package final class ConnectionAuthentication: Sendable {
  /// Who proves the user: the store's authenticator (its prompt, its failure count).
  let authenticator: (any UserAuthenticating)?
  /// The calling program, as the prompt names it.
  let executable: String
  /// When the user last proved their presence on this connection (nil: never).
  private let provenAt = Mutex<ContinuousClock.Instant?>(nil)

  init(authenticator: (any UserAuthenticating)?, executable: String) {
    self.authenticator = authenticator
    self.executable = executable
  }

  /// Whether the user proved their presence on this connection.
  var hasProven: Bool { provenAt.withLock { $0 != nil } }

  /// Asks the user; nil on success, else the failure.
  func authenticate(reason: String, reuse: TimeInterval) -> UserAuthenticationFailure? {
    guard let authenticator else {
      return .notInteractive("This keychain agent cannot ask the user.")
    }
    // A reuse window covers proofs given on this connection only: a proof the user gave another
    // program must not let this one through without a prompt that names it.
    if reuse > 0, let last = provenAt.withLock({ $0 }),
      last.duration(to: .now) <= .milliseconds(Int64(min(reuse, maximumReuse) * 1000))
    {
      return nil
    }
    do {
      try authenticator.authenticateUser(reason: reason, caller: executable, reuse: 0)
    } catch {
      return error
    }
    provenAt.withLock { $0 = .now }
    return nil
  }

  /// The fetch to run for a client's `fetch`: one that reads secrets also reads the access
  /// control, which decides whether they may leave.
  func storageFetch(_ fetch: ItemFetch) -> ItemFetch {
    guard fetch.data, withholds else { return fetch }
    var widened = fetch
    widened.accessControl = true
    return widened
  }

  /// Whether secrets are withheld at all: only from a store with a passphrase. Without one there
  /// is nothing the user could prove, and the store's own files give every secret to whoever can
  /// read them, so withholding would stop backups without protecting anything; SecItem reads of
  /// such items still answer errSecInteractionNotAllowed, by the client's engine (passcodeNotSet).
  var withholds: Bool { !hasProven && authenticator?.hasPassphrase == true }

  /// `items` as this connection may receive them: without the secret of any item that asks for
  /// the user, unless the user proved their presence here (or the store has no passphrase).
  func withheld(_ items: [StoredItem]) -> [StoredItem] {
    guard withholds else { return items }
    return items.map { item in
      guard item.data != nil, item.accessControl?.asksForUserProof == true else { return item }
      var kept = item
      kept.data = nil
      return kept
    }
  }
}

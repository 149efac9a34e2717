import Foundation
import KeychainAgentWire
import Security
import Synchronization

/// What the user proved to the agent for one caller (issue 32): the session of a connection, or
/// of a D-Bus client. The agent asks the user itself, with its own prompt, naming the caller's
/// executable, and it is the authenticator of the engine the agent runs for this caller: a caller
/// whose user proved their presence receives the secrets of items that ask for it, and no other
/// does. An LAContext the caller sends counts as evaluated only where the user proved their
/// presence in this session; the proof lasts as long as the session, and a reuse window
/// (`touchIDAuthenticationAllowableReuseDuration`) counts only proofs given in it.
package final class CallerSession: UserAuthenticating {
  /// Who proves the user: the store's authenticator (its prompt, its failure count).
  let authenticator: (any UserAuthenticating)?
  /// The calling program, as the prompt names it.
  package let executable: String
  /// When the user last proved their presence in this session (nil: never).
  private let provenAt = Mutex<ContinuousClock.Instant?>(nil)
  /// A proof asked for a call that waits to be run again (`authenticateForRetry`): the next
  /// synchronous ask takes it instead of prompting, once.
  private let heldProof = Mutex<ContinuousClock.Instant?>(nil)
  /// An application password asked for a call that waits to be run again
  /// (`askApplicationPasswordForRetry`): the call's ask takes it, once; wiped when taken or replaced.
  private let heldApplicationPassword = Mutex<(bytes: [UInt8], at: ContinuousClock.Instant)?>(nil)

  /// A session for `executable`, whose user proves their presence to `authenticator`.
  package init(authenticator: (any UserAuthenticating)?, executable: String) {
    self.authenticator = authenticator
    self.executable = executable
  }

  /// Whether the user proved their presence in this session.
  var hasProven: Bool { provenAt.withLock { $0 != nil } }

  // MARK: UserAuthenticating, for the engine the agent runs for this caller

  /// Whether the store has a passphrase to ask for.
  package var hasPassphrase: Bool { authenticator?.hasPassphrase ?? false }

  /// Asks the user, naming this session's executable whatever `caller` says.
  package func authenticateUser(reason: String, caller: String, reuse: TimeInterval)
    throws(UserAuthenticationFailure)
  {
    if let failure = authenticate(reason: reason, reuse: reuse) { throw failure }
  }

  /// Asks the user for an item's application password through the store's prompt.
  package func askApplicationPassword(_ text: String) throws(UserAuthenticationFailure) -> [UInt8] {
    guard let authenticator else { throw .notInteractive("This keychain agent cannot ask the user.") }
    return try authenticator.askApplicationPassword(text)
  }

  /// Asks the user for an application password without waiting, for a call that stopped at its
  /// ask (`DeferringAuthenticator`): `completion` runs later with nil once the answer is held for
  /// the call run again, which takes it instead of asking; an answer not taken within a minute
  /// lapses, and a newer one replaces it (both wiped).
  func askApplicationPasswordForRetry(
    _ text: String, completion: @escaping @Sendable (UserAuthenticationFailure?) -> Void
  ) {
    guard let authenticator else { return completion(.notInteractive("This keychain agent cannot ask the user.")) }
    authenticator.askApplicationPassword(text) { [self] result in
      switch result {
      case .success(let bytes):
        heldApplicationPassword.withLock { held in
          if var earlier = held?.bytes { Secrets.wipe(&earlier) }
          held = (bytes, .now)
        }
        completion(nil)
      case .failure(let failure):
        completion(failure)
      }
    }
  }

  /// The application password `askApplicationPasswordForRetry` held, taken once.
  func takeHeldApplicationPassword() -> [UInt8]? {
    heldApplicationPassword.withLock { held in
      defer { held = nil }
      guard var taken = held else { return nil }
      guard taken.at.duration(to: .now) <= .seconds(60) else {
        Secrets.wipe(&taken.bytes)
        return nil
      }
      return taken.bytes
    }
  }

  /// Asks the user; nil on success, else the failure. The calling thread waits.
  func authenticate(reason: String, reuse: TimeInterval) -> UserAuthenticationFailure? {
    guard let authenticator else {
      return .notInteractive("This keychain agent cannot ask the user.")
    }
    if isProven(within: reuse) || takeHeldProof() { return nil }
    do {
      try authenticator.authenticateUser(reason: reason, caller: executable, reuse: 0)
    } catch {
      return error
    }
    provenAt.withLock { $0 = .now }
    return nil
  }

  /// Asks the user without waiting: `completion` runs later, on any thread, with nil on success
  /// or the failure. The agent's socket answers a client's `authenticateUser` this way, so a
  /// client waiting for the user holds none of the agent's threads.
  package func authenticate(
    reason: String, reuse: TimeInterval, completion: @escaping @Sendable (UserAuthenticationFailure?) -> Void
  ) {
    guard let authenticator else { return completion(.notInteractive("This keychain agent cannot ask the user.")) }
    if isProven(within: reuse) { return completion(nil) }
    authenticator.authenticateUser(reason: reason, caller: executable, reuse: 0) { [self] failure in
      if failure == nil { provenAt.withLock { $0 = .now } }
      completion(failure)
    }
  }

  /// Asks the user for a call that could not ask on its own thread (the Secret Service's bus
  /// serves every client on one): `completion` runs later with nil on success, and then the
  /// call, run again, takes the proof at its one synchronous ask instead of prompting a second
  /// time. A proof not taken within a minute lapses.
  package func authenticateForRetry(
    reason: String, completion: @escaping @Sendable (UserAuthenticationFailure?) -> Void
  ) {
    authenticate(reason: reason, reuse: 0) { [self] failure in
      if failure == nil { heldProof.withLock { $0 = .now } }
      completion(failure)
    }
  }

  /// Whether a proof this session holds passes without a prompt: one within `reuse` seconds, or
  /// the one `authenticateForRetry` held for the call now run again (taken).
  func proveWithoutPrompt(reuse: TimeInterval) -> Bool { isProven(within: reuse) || takeHeldProof() }

  /// The proof `authenticateForRetry` held, taken once.
  private func takeHeldProof() -> Bool {
    heldProof.withLock { held in
      defer { held = nil }
      guard let at = held else { return false }
      return at.duration(to: .now) <= .seconds(60)
    }
  }

  /// Whether the user proved their presence in this session within `reuse` seconds. A reuse
  /// window covers proofs given in this session only: a proof the user gave another program must
  /// not let this one through without a prompt that names it.
  private func isProven(within reuse: TimeInterval) -> Bool {
    guard reuse > 0, let last = provenAt.withLock({ $0 }) else { return false }
    return last.duration(to: .now) <= .milliseconds(Int64(min(reuse, maximumReuse) * 1000))
  }

  /// The fetch to run for a client's `fetch`: one that reads secrets also reads the access
  /// control, which decides whether they may leave.
  func storageFetch(_ fetch: ItemFetch) -> ItemFetch {
    guard fetch.data, withholds else { return fetch }
    var widened = fetch
    widened.accessControl = true
    return widened
  }

  /// Whether a replicator's reads withhold secrets at all: only from a store with a passphrase.
  /// Without one there is nothing the user could prove, and the store's own files give every
  /// secret to whoever can read them. (SecItem calls run the engine, which asks by its own rules.)
  var withholds: Bool { !hasProven && authenticator?.hasPassphrase == true }

  /// `items` as a replicator's read hands them to this connection: without the secret of any item
  /// that asks for the user, unless the user proved their presence here (or the store has no
  /// passphrase).
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

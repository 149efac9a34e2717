import Foundation
import KeychainAgentWire
import KeychainBackend
import Security

/// The SecItem calls of the agent's protocol: each is read by the keychain's grammar here and run
/// by the agent's engine for the caller (its groups within what the policy grants, its session as
/// the authenticator, the agent's clock), exactly as the Secret Service runs it. What the store
/// keeps was computed here: a client's bytes are requests, never rows, so one path decides every
/// rule (groups, dates, the user's proof).
///
/// A call that needs the user does not hold a worker thread while the user answers: its first run
/// stops where it would prompt (`DeferringAuthenticator`), the caller's session asks without
/// waiting, and the call runs again once the user answered, taking that proof instead of asking.
enum AgentRequests {
  /// One SecItem call read from its arguments: run by an engine, its result written after.
  private struct Call {
    let run: (SecItemEngine) throws(SecStatus) -> (inout WireWriter) -> Void
  }

  /// The answer to the SecItem call `operation` from `caller` (arguments in `reader`), or nil when
  /// it comes later through `later`, after the user answered a prompt. Throws when the request is
  /// malformed.
  static func answer(
    _ operation: AgentFrame.Operation, _ reader: inout WireReader, service: AgentService, caller: AgentCaller,
    later: @escaping @Sendable (inout [UInt8]) -> Void
  ) throws(SecStatus) -> [UInt8]? {
    let requested = try reader.list { reader throws(SecStatus) in try reader.string() }
    var contexts: [RelayedAuthenticationContext] = []
    let call = try read(operation, &reader, backend: service.backend, contexts: &contexts)
    guard reader.isAtEnd else { throw SecStatus(errSecDecode, detail: "bytes after the request's arguments") }
    let groups = granted(requested, caller.grant)
    for context in contexts { context.acceptClaim(provenToAgent: caller.session.hasProven) }
    let attempt = Attempt(call: call, groups: groups, contexts: contexts, service: service, caller: caller)
    let retry: @Sendable (UserAuthenticationFailure?) -> Void = { failure in
      var answer: [UInt8]
      if let failure {
        answer = AgentFrame.failure(failure.status)
      } else if case .answered(let second) = attempt.run() {
        answer = second
      } else {
        // The user answered once; a call that asks a second time is not asked again.
        answer = AgentFrame.failure(SecStatus(errSecInteractionNotAllowed, detail: "the call asked for the user twice"))
      }
      later(&answer)
    }
    switch attempt.run() {
    case .answered(let answer): return answer
    case .needsUser(let reason):
      caller.session.authenticateForRetry(reason: reason, completion: retry)
      return nil
    case .needsApplicationPassword(let text):
      caller.session.askApplicationPasswordForRetry(text, completion: retry)
      return nil
    }
  }

  /// The groups a caller's engine runs with: those it asked for that the policy grants, in its
  /// order (its first is its default group). The client narrowed them already; a client that did
  /// not gets no more than its grant.
  static func granted(_ requested: [String], _ grant: AccessGrant) -> [String] {
    guard grant.groups != nil else { return requested }
    return requested.filter { $0 != "*" && grant.allows($0) }
  }

  /// One run of a call: its answer, or the reason it stopped to ask the user.
  private enum Outcome {
    case answered([UInt8])
    case needsUser(String)
    /// An item's application password, asked with this text.
    case needsApplicationPassword(String)
  }

  /// A call ready to run, and to run again after the user answered.
  private struct Attempt: @unchecked Sendable {
    // @unchecked: the call's closure holds the request's values, read once and never changed; the
    // contexts are thread-safe sessions.
    let call: Call
    let groups: [String]
    let contexts: [RelayedAuthenticationContext]
    let service: AgentService
    let caller: AgentCaller

    func run() -> Outcome {
      guard !groups.isEmpty else { return .answered(AgentFrame.failure(.missingEntitlement)) }  // rule 11
      let deferring = DeferringAuthenticator(session: caller.session)
      let engine = service.engine(groups: groups, authenticator: deferring, programName: caller.programName)
      do throws(SecStatus) {
        let write = try call.run(engine)
        return .answered(
          AgentFrame.result { writer in
            // Which of the caller's contexts this call proved the user through: its client
            // records the proof in its own LAContext.
            writer.list(contexts) { $0.flag($1.authenticationSession.hasProvenPresence) }
            write(&writer)
          })
      } catch {
        if let reason = deferring.deferredReason { return .needsUser(reason) }
        if let text = deferring.deferredPasswordText { return .needsApplicationPassword(text) }
        return .answered(AgentFrame.failure(error))
      }
    }
  }

  /// Reads the arguments of `operation` into the call that runs it.
  private static func read(
    _ operation: AgentFrame.Operation, _ reader: inout WireReader, backend: any SecurityBackend,
    contexts: inout [RelayedAuthenticationContext]
  ) throws(SecStatus) -> Call {
    func entries(_ reader: inout WireReader) throws(SecStatus) -> RequestEntries {
      try reader.entries(backend: backend, contexts: &contexts)
    }
    switch operation {
    case .add:
      let request = try entries(&reader)
      return Call { engine throws(SecStatus) in
        let stored = try engine.add(try ItemRequest.reading(entries: request))
        return { $0.storedItem(stored) }
      }
    case .addIdentity:
      let query = try entries(&reader)
      let returning = try reader.flag()
      return Call { engine throws(SecStatus) in
        let pair = try engine.addIdentity(query, returningPair: returning)
        return { $0.optional(pair) { $0.identityPair($1) } }
      }
    case .copyMatching:
      let request = try entries(&reader)
      return Call { engine throws(SecStatus) in
        let items = try engine.matchingItems(try ItemRequest.reading(entries: request))
        return { $0.list(items) { $0.storedItem($1) } }
      }
    case .copyIdentities:
      let query = try entries(&reader)
      return Call { engine throws(SecStatus) in
        let pairs = try engine.matchingIdentities(query)
        return { $0.list(pairs) { $0.identityPair($1) } }
      }
    case .update:
      let request = try entries(&reader)
      let changes = try entries(&reader)
      return Call { engine throws(SecStatus) in
        try engine.update(try ItemRequest.reading(entries: request), changes: changes)
        return { _ in }
      }
    case .updateIdentities:
      let query = try entries(&reader)
      let changes = try entries(&reader)
      return Call { engine throws(SecStatus) in
        try engine.updateIdentities(query, changes: changes)
        return { _ in }
      }
    case .delete:
      let request = try entries(&reader)
      return Call { engine throws(SecStatus) in
        try engine.delete(try ItemRequest.reading(entries: request))
        return { _ in }
      }
    case .deleteIdentities:
      let query = try entries(&reader)
      return Call { engine throws(SecStatus) in
        try engine.deleteIdentities(query)
        return { _ in }
      }
    case .upsert:
      let request = try entries(&reader)
      let changes = try entries(&reader)
      let addition = try entries(&reader)
      return Call { engine throws(SecStatus) in
        try engine.upsert(
          try ItemRequest.reading(entries: request), changes: changes,
          addition: try ItemRequest.reading(entries: addition))
        return { _ in }
      }
    case .importItems:
      let requests = try reader.list { reader throws(SecStatus) in try entries(&reader) }
      return Call { engine throws(SecStatus) in
        let count = try engine.importItems(count: requests.count) { index throws(SecStatus) in
          try ItemRequest.reading(entries: requests[index])
        }
        return { $0.int(count) }
      }
    case .exportBackup:
      let passphrase = try reader.string()
      return Call { engine throws(SecStatus) in
        let backup = try engine.exportBackup(passphrase: passphrase)
        return { writer in
          writer.data(backup.file)
          writer.int(backup.exportedItems)
          writer.int(backup.skippedThisDeviceOnlyItems)
        }
      }
    case .importBackup:
      let file = try reader.data()
      let passphrase = try reader.string()
      return Call { engine throws(SecStatus) in
        let report = try engine.importBackup(file, passphrase: passphrase)
        return { writer in
          writer.int(report.addedItems)
          writer.int(report.duplicateItems)
          writer.list(report.rejections) { $0.string($1) }
        }
      }
    case .importGnomeKeyring:
      let contents = Array(try reader.data())
      let password = SecretBytes(try reader.optional { reader throws(SecStatus) in try reader.secretBytes() })
      return Call { engine throws(SecStatus) in
        let keyring = try GnomeKeyringImporter.read(contents, password: password.bytes)
        let outcome = try GnomeKeyringImporter.importItems(keyring, into: engine)
        return { writer in
          writer.string(outcome.label)
          writer.int(outcome.added)
          writer.int(outcome.duplicates)
        }
      }
    default:
      throw SecStatus(errSecDecode, detail: "not a SecItem call")
    }
  }
}

/// A password a request carries, wiped when the request is done with (a call may run twice).
private final class SecretBytes: @unchecked Sendable {
  // @unchecked: written once, read by the call's runs, wiped at deinit.
  private(set) var bytes: [UInt8]?

  init(_ bytes: [UInt8]?) { self.bytes = bytes }

  deinit { if bytes != nil { Secrets.wipe(&bytes!) } }
}

/// The authenticator of an engine the agent runs for a socket's caller: a proof the caller's
/// session already holds (a reuse window, or the answer to the prompt this call stopped for)
/// passes; any other stops the call, remembering why, so the socket asks the user without holding
/// a worker thread and runs the call again.
final class DeferringAuthenticator: UserAuthenticating, @unchecked Sendable {
  // @unchecked: one engine run, on one thread, sets and then reads `deferredReason`.
  private let session: CallerSession
  /// Why the call stopped to ask the user, or nil when it did not.
  private(set) var deferredReason: String?
  /// What the prompt for an application password the call stopped at shows, or nil.
  private(set) var deferredPasswordText: String?

  init(session: CallerSession) { self.session = session }

  var hasPassphrase: Bool { session.hasPassphrase }

  func authenticateUser(reason: String, caller: String, reuse: TimeInterval) throws(UserAuthenticationFailure) {
    if session.proveWithoutPrompt(reuse: reuse) { return }
    deferredReason = reason
    throw .notInteractive("The keychain agent asks the user first.")
  }

  /// The password the session holds for this call run again, else the call stops here and the
  /// session asks without holding the worker (`askApplicationPasswordForRetry`).
  func askApplicationPassword(_ text: String) throws(UserAuthenticationFailure) -> [UInt8] {
    if let held = session.takeHeldApplicationPassword() { return held }
    deferredPasswordText = text
    throw .notInteractive("The keychain agent asks the user first.")
  }
}

import Foundation
import KeychainAgentWire
import Security

/// The access groups the policy grants a connection's program (nil: every group), and what that
/// makes of its requests: its engine's groups, and who may lock, unlock and replicate.
package struct AccessGrant: Sendable {
  let groups: [String]?
  /// Whether a rule of the policy names the program: only such a program may lock or unlock the
  /// store for every program (issue 49, case 9); one no rule names has its own group only.
  let namedByRule: Bool

  /// What a program no rule names gets (or one a rule names but that is not itself: altered, or in
  /// another namespace): one group of its own, `executable`, as every app on Apple's systems has.
  static func ownGroup(of executable: String) -> AccessGrant { AccessGrant(groups: [executable], namedByRule: false) }

  func allows(_ group: String) -> Bool { groups?.contains(group) ?? true }

  /// Locking and unlocking act for every program: only a program the policy names may.
  func requireNamedByRule() throws(SecStatus) {
    guard namedByRule else {
      throw SecStatus(
        errSecMissingEntitlement,
        detail: "only a program the agent's policy names may lock or unlock the keychain for every program")
    }
  }

  /// The change feed and the replicator's state concern every group: only a program granted
  /// every group (a sync engine, the security tool) reads or writes them.
  func requireEverything() throws(SecStatus) {
    guard groups == nil else {
      throw SecStatus(errSecMissingEntitlement, detail: "the agent's policy grants this program only some groups")
    }
  }
}

/// One request of the agent's protocol, run against the store the agent holds.
package enum AgentDispatch {
  /// The answer to `body` from `caller`: the operation's result, or the status it failed with;
  /// nil when it comes later, through `later` (a request that waits for the user, who answers a
  /// prompt), which wipes it when sent. Throws when the request itself is malformed (another version, an unknown
  /// operation, arguments that do not parse or bytes left over): the connection then ends, with
  /// the reason logged.
  static func answer(
    _ body: [UInt8], service: AgentService, caller: AgentCaller,
    later: @escaping @Sendable (inout [UInt8]) -> Void
  ) throws(SecStatus) -> [UInt8]? {
    let storage = service.storage
    let grant = caller.grant
    let authentication = caller.session
    let backend = service.backend
    let (operation, arguments) = try AgentFrame.readRequest(body)
    var reader = arguments
    switch operation {
    case .add, .addIdentity, .copyMatching, .copyIdentities, .update, .updateIdentities, .delete, .deleteIdentities,
      .upsert, .importItems, .exportBackup, .importBackup, .importGnomeKeyring:
      return try AgentRequests.answer(operation, &reader, service: service, caller: caller, later: later)
    case .find:
      let filter = try reader.filter()
      let limit = try reader.optional { reader throws(SecStatus) in try reader.nonNegativeInt() }
      let fetch = try reader.fetch()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try grant.requireEverything()
        return authentication.withheld(
          try storage.find(filter, limit: limit, fetch: authentication.storageFetch(fetch)))
      } write: {
        $0.list($1) { $0.storedItem($1) }
      }
    case .findEach:
      let filters = try reader.list { reader throws(SecStatus) in try reader.filter() }
      let limit = try reader.optional { reader throws(SecStatus) in try reader.nonNegativeInt() }
      let fetch = try reader.fetch()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try grant.requireEverything()
        return try storage.find(each: filters, limit: limit, fetch: authentication.storageFetch(fetch)).map {
          authentication.withheld($0)
        }
      } write: {
        $0.list($1) { writer, items in writer.list(items) { $0.storedItem($1) } }
      }
    case .lock:
      try finished(reader)
      return perform { () throws(SecStatus) in
        try grant.requireNamedByRule()
        storage.lock()
      } write: { _, _ in
      }
    case .unlock:
      var passphrase = try reader.optional { reader throws(SecStatus) in try reader.secretBytes() }
      defer { if passphrase != nil { Secrets.wipe(&passphrase!) } }
      try finished(reader)
      return perform { () throws(SecStatus) in
        try grant.requireNamedByRule()
        try unlock(storage, passphrase: passphrase, ledger: service.ledger)
      } write: { _, _ in
      }
    case .state:
      try finished(reader)
      return AgentFrame.result { writer in
        writer.flag(storage.isLocked)
        writer.flag(storage.hasPassphrase)
        writer.flag(storage.isReadOnly)
        writer.optional(grant.groups) { writer, groups in writer.list(groups) { $0.string($1) } }
        // The seconds after which an idle agent locks the store; 0 when it never does.
        writer.int(storage.hasPassphrase ? service.idleLock.timeout : 0)
      }
    case .authenticateUser:
      let reason = try reader.string()
      let reuseMilliseconds = try reader.nonNegativeInt()
      try finished(reader)
      authentication.authenticate(reason: reason, reuse: TimeInterval(reuseMilliseconds) / 1000) { failure in
        var answer = AgentFrame.result { writer in
          writer.flag(failure != nil)
          if let failure {
            writer.int(failure.laErrorCode)
            writer.string(failure.message)
          }
        }
        later(&answer)
      }
      return nil
    case .checkIntegrity:
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.checkIntegrity()
      } write: { writer, report in
        writer.int(report.checkedItems)
        writer.int(report.damagedItems)
        writer.int(report.skippedSinceOpen)
      }
    case .changesAfter:
      let sequence = try reader.int64()
      let limit = try reader.nonNegativeInt()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try grant.requireEverything()
        return try storage.changes(after: sequence, limit: limit)
      } write: {
        $0.list($1) { $0.feedEntry($1) }
      }
    case .changesOf:
      let identities = try reader.list { reader throws(SecStatus) in try reader.identity() }
      try finished(reader)
      return perform { () throws(SecStatus) in
        try grant.requireEverything()
        return try storage.changes(of: identities)
      } write: {
        $0.list($1) { writer, entry in writer.optional(entry) { $0.feedEntry($1) } }
      }
    case .hasChanges:
      let sequence = try reader.int64()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try grant.requireEverything()
        return try storage.hasChanges(after: sequence)
      } write: {
        $0.flag($1)
      }
    case .applyReplication:
      let batch = try reader.batch { itemClass, attributes, accessControl, data throws(SecStatus) in
        try ItemRows.replicated(
          itemClass, attributes: attributes, accessControl: accessControl, data: data, backend: backend)
      }
      try finished(reader)
      return perform { () throws(SecStatus) in
        try grant.requireEverything()
        return try storage.applyReplication(batch)
      } write: { writer, outcome in
        writer.byte(outcome == ReplicationOutcome.applied ? 0 : 1)
      }
    case .purgeDeletions:
      let before = try reader.int64()
      let through = try reader.int64()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try grant.requireEverything()
        return try storage.purgeDeletions(changedBefore: before, through: through)
      } write: {
        $0.int($1)
      }
    case .replicationValue:
      let name = try reader.string()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try grant.requireEverything()
        return try storage.replicationValue(name)
      } write: { writer, value in
        writer.optional(value) { $0.data($1) }
      }
    }
  }

  /// Unlocks with a passphrase a client sent, counting wrong ones in the same ledger as the
  /// agent's prompts (`FailedAttemptLedger`): after four, each guess waits out the lockout first.
  private static func unlock(_ storage: any KeyLockStorage, passphrase: [UInt8]?, ledger: FailedAttemptLedger)
    throws(SecStatus)
  {
    guard let passphrase, storage.hasPassphrase else {
      return try storage.unlock(passphraseBytes: passphrase)
    }
    let locked = ledger.secondsLocked()
    guard locked == 0 else {
      throw SecStatus(errSecAuthFailed, detail: "Too many wrong passphrases: try again in \(locked) seconds.")
    }
    do throws(SecStatus) {
      // The bytes go to the key derivation as they are, never through a String (issue 49, case 8).
      try storage.unlock(passphraseBytes: passphrase)
    } catch  where error.code == errSecAuthFailed {
      let failures = try ledger.recordFailure()
      let wait = FailedAttemptLedger.lockout(afterFailures: failures)
      throw SecStatus(
        errSecAuthFailed,
        detail: wait > 0
          ? "The passphrase is wrong (\(failures) in a row): unlocking waits \(wait) seconds."
          : "The passphrase is wrong (\(failures) in a row).")
    }
    ledger.recordSuccess()
  }

  /// Whether `body` uses the store, which keeps an idle lock from coming: asking for the state
  /// (which a program may do every second) or locking does not (issue 49, case 9).
  static func isUseOfTheStore(_ body: [UInt8]) -> Bool {
    guard body.count > 1, let operation = AgentFrame.Operation(rawValue: body[1]) else { return false }
    return operation != .state && operation != .lock
  }

  /// A request with bytes after its arguments is malformed: they would mean something to a peer
  /// that this agent does not know.
  private static func finished(_ reader: WireReader) throws(SecStatus) {
    guard reader.isAtEnd else { throw SecStatus(errSecDecode, detail: "bytes after the request's arguments") }
  }

  /// The result of `operation`, or the status it failed with, as an answer.
  private static func perform<Value>(
    _ operation: () throws(SecStatus) -> Value, write: (inout WireWriter, Value) -> Void
  ) -> [UInt8] {
    do {
      let value = try operation()
      return AgentFrame.result { write(&$0, value) }
    } catch {
      return AgentFrame.failure(error)
    }
  }
}

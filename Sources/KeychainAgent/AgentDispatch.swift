import Foundation
import KeychainAgentWire
import Security

/// The access groups the policy grants a connection's program (nil: every group), and what that
/// makes of its requests: the agent enforces them, whatever the client's own engine sent.
package struct AccessGrant: Sendable {
  let groups: [String]?
  /// Whether a rule of the policy names the program: only such a program may lock or unlock the
  /// store for every program (issue 49, case 9); one no rule names has its own group only.
  let namedByRule: Bool

  /// What a program no rule names gets (or one a rule names but that is not itself: altered, or in
  /// another namespace): one group of its own, `executable`, as every app on Apple's systems has.
  static func ownGroup(of executable: String) -> AccessGrant { AccessGrant(groups: [executable], namedByRule: false) }

  func allows(_ group: String) -> Bool { groups?.contains(group) ?? true }

  /// `filter` searching only granted groups; nil when none of the groups it asks for is granted.
  func narrowed(_ filter: ItemFilter) -> ItemFilter? {
    guard let groups else { return filter }
    var narrowed = filter
    narrowed.accessGroups = filter.accessGroups.map { $0.filter(groups.contains) } ?? groups
    return narrowed.accessGroups?.isEmpty == true ? nil : narrowed
  }

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
    case .insert:
      let item = try reader.newItem()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try checkNewItem(item, grant: grant, backend: backend)
        return try storage.insert(item)
      } write: {
        $0.storedItem($1)
      }
    case .insertBatch:
      let items = try reader.list { reader throws(SecStatus) in try reader.newItem() }
      let skipping = try reader.flag()
      try finished(reader)
      return perform { () throws(SecStatus) in
        for item in items { try checkNewItem(item, grant: grant, backend: backend) }
        return try storage.insertBatch(items, skippingDuplicates: skipping)
      } write: {
        $0.int($1)
      }
    case .find:
      let filter = try reader.filter()
      let limit = try reader.optional { reader throws(SecStatus) in try reader.nonNegativeInt() }
      let fetch = try reader.fetch()
      try finished(reader)
      return perform { () throws(SecStatus) in
        guard let narrowed = grant.narrowed(filter) else { return [] }
        return authentication.withheld(
          try storage.find(narrowed, limit: limit, fetch: authentication.storageFetch(fetch)))
      } write: {
        $0.list($1) { $0.storedItem($1) }
      }
    case .findEach:
      let filters = try reader.list { reader throws(SecStatus) in try reader.filter() }
      let limit = try reader.optional { reader throws(SecStatus) in try reader.nonNegativeInt() }
      let fetch = try reader.fetch()
      try finished(reader)
      return perform { () throws(SecStatus) in
        // A filter that reaches no granted group answers nothing, in its place.
        let narrowed = filters.map { grant.narrowed($0) }
        var answers = try storage.find(
          each: narrowed.compactMap { $0 }, limit: limit, fetch: authentication.storageFetch(fetch)
        ).makeIterator()
        return narrowed.map { $0 == nil ? [] : authentication.withheld(answers.next() ?? []) }
      } write: {
        $0.list($1) { writer, items in writer.list(items) { $0.storedItem($1) } }
      }
    case .replace:
      let replacements = try reader.list { reader throws(SecStatus) in try reader.replacement() }
      try finished(reader)
      return perform { () throws(SecStatus) in
        guard
          try Self.checkReplacements(
            replacements, storage: storage, grant: grant, authentication: authentication, backend: backend)
        else { return ReplacementOutcome.changedSinceRead }
        return try storage.replace(replacements)
      } write: { writer, outcome in
        switch outcome {
        case .replaced(let count):
          writer.byte(0)
          writer.int(count)
        case .changedSinceRead: writer.byte(1)
        }
      }
    case .delete:
      let filter = try reader.filter()
      try finished(reader)
      return perform { () throws(SecStatus) in
        guard let narrowed = grant.narrowed(filter) else { throw .itemNotFound }
        return try storage.delete(narrowed)
      } write: {
        $0.int($1)
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
      let batch = try reader.batch()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try grant.requireEverything()
        for case (.store(let item, _), _) in batch.steps {
          try ItemRows.checkConsistency(
            item.itemClass, SortedAttributes(item.attributes), accessControl: item.accessControl, index: item.index,
            backend: backend)
        }
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

  /// A new item must agree with itself (its index is the one its attributes give: the agent
  /// stores nothing it has not computed, issue 50) and belong to a granted group.
  private static func checkNewItem(_ item: NewItem, grant: AccessGrant, backend: any SecurityBackend)
    throws(SecStatus)
  {
    try ItemRows.checkConsistency(
      item.itemClass, SortedAttributes(item.attributes), accessControl: item.accessControl, index: item.index,
      backend: backend)
    guard grant.allows(item.index.accessGroup) else { throw .missingEntitlement }
  }

  /// A replacement must agree with itself as a new item must, and may change only rows of granted
  /// groups, into rows of granted groups: the row it names is looked up within the granted groups
  /// before anything is written. One that keeps the row's attributes (a new secret only, which
  /// the storage writes without deriving the row's index again) must carry them unchanged but for
  /// the modification date. And it may replace the secret or the access control of a row that
  /// asks for the user only on a connection whose user proved their presence to the agent
  /// (`CallerSession`): the secret a `find` withholds must not be had by stripping the
  /// access control first. False when a row is gone since it was read.
  private static func checkReplacements(
    _ replacements: [ItemReplacement], storage: any ItemRowStorage, grant: AccessGrant,
    authentication: CallerSession, backend: any SecurityBackend
  ) throws(SecStatus) -> Bool {
    let guardsSecrets = authentication.withholds
    for replacement in replacements {
      let revision = replacement.revision
      try ItemRows.checkConsistency(
        replacement.itemClass, revision.attributes, accessControl: revision.accessControl, index: revision.index,
        backend: backend)
      guard grant.allows(revision.index.accessGroup) else { throw .missingEntitlement }
      var filter = ItemFilter(itemClass: replacement.itemClass)
      filter.reference = .uuid(replacement.itemClass, replacement.persistentID)
      filter.accessGroups = grant.groups
      filter.synchronizable = nil
      let current = try storage.find(
        filter, limit: 1,
        fetch: ItemFetch(attributes: revision.keepsAttributes, data: false, accessControl: true))
      guard let stored = current.first else {
        // Gone since the client read it (another program deleted it): the client reads again,
        // as the storage would have told it. A row of another group is not for this program.
        filter.accessGroups = nil
        let anywhere = try storage.find(filter, limit: 1, fetch: ItemFetch(attributes: false, data: false))
        if anywhere.isEmpty { return false }
        throw .missingEntitlement
      }
      if revision.keepsAttributes,
        Self.withoutModificationDate(stored.attributes) != Self.withoutModificationDate(revision.attributes)
          || stored.accessControl != revision.accessControl
      {
        throw SecStatus(errSecParam, detail: "a change of the secret alone carries other attributes than the item's")
      }
      if guardsSecrets, stored.accessControl?.asksForUserProof == true,
        replacement.revision.data != nil || replacement.revision.accessControl != stored.accessControl
      {
        throw SecStatus(
          errSecInteractionNotAllowed,
          detail:
            "changing the secret or access control of an item that asks for the user needs the user's proof to the keychain agent first"
        )
      }
    }
    return true
  }

  private static func withoutModificationDate(_ attributes: SortedAttributes) -> SortedAttributes {
    var kept = attributes
    kept[SecConstantValue.attrModificationDate] = nil
    return kept
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

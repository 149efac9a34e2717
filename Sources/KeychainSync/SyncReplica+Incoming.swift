import Foundation
import Security

extension SyncReplica {
  /// Opens, checks and applies records the server holds after the store's position, and moves the
  /// position to `cursor`, in one batch. A record that needs a key the lock state withholds stops
  /// the batch there (the position stays before it).
  func applyIncoming(_ records: [(position: Int64, record: SyncRecord)], through cursor: Int64) throws(SecStatus)
    -> SyncApplyReport
  {
    let (_, keys, origin) = try requireCurrent()
    do {
      return try apply(records, through: cursor, keys, origin)
    } catch .interactionNotAllowed {
      // One at a time, to find the first record the lock state holds back.
      var report = SyncApplyReport()
      for (position, record) in records {
        do throws(SecStatus) {
          let one = try apply([(position, record)], through: position, keys, origin)
          report.applied += one.applied
          report.stale += one.stale
          report.rejected += one.rejected
          report.rejections += one.rejections
        } catch .interactionNotAllowed {
          report.stoppedLocked = true
          break
        }
      }
      return report
    }
  }

  private func apply(
    _ records: [(position: Int64, record: SyncRecord)], through cursor: Int64, _ keys: SyncKeys, _ origin: Data
  ) throws(SecStatus) -> SyncApplyReport {
    for _ in 0..<Self.attempts {
      var report = SyncApplyReport()
      var batch = ReplicationBatch()
      var seen: Set<ItemIdentity> = []
      let opened = records.map { Self.open($0.record, keys, backend: backend) }
      // The entries of the page's items, read at once.
      let identities = opened.compactMap { try? $0.get().identity }
      var entries = try storage.changes(of: identities).makeIterator()
      for ((position, record), contents) in zip(records, opened) {
        let planned: Plan
        switch contents {
        case .success(let contents):
          planned = Self.plan(record, contents, current: entries.next() ?? nil, origin)
        case .failure(let refusal):
          planned = .refuse(refusal.detail ?? refusal.description, replay: nil)
        }
        switch planned {
        case .apply(let identity, let step):
          // A server that sends one record twice in a page gets the second ignored.
          guard seen.insert(identity).inserted, let step else {
            report.stale += 1
            continue
          }
          batch.steps.append(step)
          report.applied += 1
        case .refuse(let reason, let replay):
          if let replay { batch.steps.append(replay) }
          report.rejected += 1
          report.rejections.append("record at server position \(position): \(reason)")
        }
      }
      batch.values[SyncStateNames.serverCursor] = Self.counterValue(
        max(try counter(SyncStateNames.serverCursor), cursor))
      if report.rejected > 0 {
        batch.values[SyncStateNames.rejected] = Self.counterValue(
          Self.saturatingSum(try counter(SyncStateNames.rejected), report.rejected))
      }
      if try storage.applyReplication(batch) == .applied { return report }
    }
    throw Self.contended
  }

  /// What one record makes: a step (nil for a record no newer than the store's version), or a
  /// refusal with its reason and, for a replay, the step that pushes the store's newer version.
  private enum Plan {
    case apply(ItemIdentity, (step: ReplicationStep, expecting: ChangeExpectation)?)
    case refuse(String, replay: (step: ReplicationStep, expecting: ChangeExpectation)?)
  }

  /// What a record holds once opened and checked: the item it names and, unless it is a
  /// tombstone, the item itself.
  private struct Contents {
    var identity: ItemIdentity
    var item: NewItem?
  }

  /// Opens `record` and checks that it is what its identifier names; the failure says why not.
  private static func open(_ record: SyncRecord, _ keys: SyncKeys, backend: any SecurityBackend) -> Result<
    Contents, SecStatus
  > {
    do throws(SecStatus) {
      guard SyncVersion.isPlausible(record.version) else {
        throw SecStatus(errSecDecode, detail: "its version is outside the range any store makes")
      }
      let plaintext = try keys.open(record)
      var contents: Contents
      if record.deleted {
        contents = Contents(identity: try ItemIdentity.decoded(plaintext))
      } else {
        let decoded = try SyncPayload.decode(Data(plaintext), backend: backend)
        contents = Contents(identity: ItemIdentity(decoded.itemClass, decoded.index), item: decoded)
      }
      // The contents must be the item the identifier names: a server that moved a record to
      // another item's identifier (or of another group) is caught here even when the seal holds.
      guard try keys.recordID(contents.identity) == record.recordID else {
        throw SecStatus(errSecDecode, detail: "its contents are another item's")
      }
      guard contents.identity.synchronizable == 1 else {
        throw SecStatus(errSecDecode, detail: "it names an item that is not synchronizable")
      }
      return .success(contents)
    } catch {
      return .failure(error)
    }
  }

  /// The plan for one opened record, given its item's entry in this store.
  private static func plan(_ record: SyncRecord, _ contents: Contents, current: ChangeFeedEntry?, _ origin: Data)
    -> Plan
  {
    let identity = contents.identity
    let expecting: ChangeExpectation = current.map { .sequence($0.sequence) } ?? .absent
    // An entry that fails authentication is as good as none: the group's authenticated record
    // replaces it.
    if case .change(let change)? = current, let held = Self.heldVersion(change, origin),
      !record.supersedes(version: held.version, origin: held.origin)
    {
      let sameVersion = record.version == held.version && record.origin == held.origin
      // The server keeps the newest version of each item, so once it has given or acknowledged a
      // version it can never hand out an older one: such a record is a replay (a server restored
      // from a backup, or one that lies). An older record while this store's newer version is
      // still unpushed is an ordinary lost conflict.
      if !sameVersion && !held.pending {
        // The newer version goes to the server again, so that stores which took the replay
        // converge on it instead of keeping the stale one.
        return .refuse(
          "it is older than a version the server already gave (a replay)", replay: (.refeed(identity), expecting))
      }
      return .apply(identity, nil)
    }
    let mark = ReplicaMark(
      version: record.version, origin: record.origin, deleted: record.deleted, versionedSequence: nil, settled: true)
    if let item = contents.item { return .apply(identity, (.store(item, mark: mark), expecting)) }
    return .apply(identity, (.remove(identity, mark: mark), expecting))
  }

  /// The version the store holds of an item: its pending change's, or the last one settled with
  /// the group; nil when it holds none the group ordered.
  private static func heldVersion(_ change: FeedChange, _ origin: Data) -> (
    version: Int64, origin: Data, pending: Bool
  )? {
    if isPending(change), push(for: change) != nil { return (version(of: change), origin, true) }
    guard let mark = change.mark else { return nil }
    return (mark.version, mark.origin, false)
  }
}

import Foundation
import KeychainAgentWire
import Security

/// One request of the agent's protocol, run against the store the agent holds.
enum AgentDispatch {
  /// The answer to `body`: the operation's result, or the status it failed with. Throws when the
  /// request itself is malformed (another version, an unknown operation, arguments that do not
  /// parse or bytes left over): the connection then ends, with the reason logged.
  static func answer(_ body: [UInt8], storage: any ItemStorage) throws(SecStatus) -> [UInt8] {
    let (operation, arguments) = try AgentFrame.readRequest(body)
    var reader = arguments
    switch operation {
    case .insert:
      let item = try reader.newItem()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.insert(item)
      } write: {
        $0.storedItem($1)
      }
    case .insertBatch:
      let items = try reader.list { reader throws(SecStatus) in try reader.newItem() }
      let skipping = try reader.flag()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.insertBatch(items, skippingDuplicates: skipping)
      } write: {
        $0.int($1)
      }
    case .find:
      let filter = try reader.filter()
      let limit = try reader.optional { reader throws(SecStatus) in try reader.nonNegativeInt() }
      let fetch = try reader.fetch()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.find(filter, limit: limit, fetch: fetch)
      } write: {
        $0.list($1) { $0.storedItem($1) }
      }
    case .findEach:
      let filters = try reader.list { reader throws(SecStatus) in try reader.filter() }
      let limit = try reader.optional { reader throws(SecStatus) in try reader.nonNegativeInt() }
      let fetch = try reader.fetch()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.find(each: filters, limit: limit, fetch: fetch)
      } write: {
        $0.list($1) { writer, items in writer.list(items) { $0.storedItem($1) } }
      }
    case .replace:
      let replacements = try reader.list { reader throws(SecStatus) in try reader.replacement() }
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.replace(replacements)
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
        try storage.delete(filter)
      } write: {
        $0.int($1)
      }
    case .lock:
      try finished(reader)
      storage.lock()
      return AgentFrame.result()
    case .unlock:
      let passphrase = try reader.optional { reader throws(SecStatus) in try reader.string() }
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.unlock(passphrase: passphrase)
      } write: { _, _ in
      }
    case .state:
      try finished(reader)
      return AgentFrame.result { writer in
        writer.flag(storage.isLocked)
        writer.flag(storage.hasPassphrase)
        writer.flag(storage.isReadOnly)
      }
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
        try storage.changes(after: sequence, limit: limit)
      } write: {
        $0.list($1) { $0.feedEntry($1) }
      }
    case .changesOf:
      let identities = try reader.list { reader throws(SecStatus) in try reader.identity() }
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.changes(of: identities)
      } write: {
        $0.list($1) { writer, entry in writer.optional(entry) { $0.feedEntry($1) } }
      }
    case .hasChanges:
      let sequence = try reader.int64()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.hasChanges(after: sequence)
      } write: {
        $0.flag($1)
      }
    case .applyReplication:
      let batch = try reader.batch()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.applyReplication(batch)
      } write: { writer, outcome in
        writer.byte(outcome == .applied ? 0 : 1)
      }
    case .purgeDeletions:
      let before = try reader.int64()
      let through = try reader.int64()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.purgeDeletions(changedBefore: before, through: through)
      } write: {
        $0.int($1)
      }
    case .replicationValue:
      let name = try reader.string()
      try finished(reader)
      return perform { () throws(SecStatus) in
        try storage.replicationValue(name)
      } write: { writer, value in
        writer.optional(value) { $0.data($1) }
      }
    }
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

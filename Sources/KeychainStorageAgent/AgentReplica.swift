import Foundation
import KeychainAgentWire
import Security

/// The rows and the change feed of the agent's store, as a replicator (sync) reads them and
/// applies its batches: the agent answers only a program its policy grants every group, and hands
/// no secret of an item that asks for the user before the user proved their presence to it. The
/// batches a replicator applies are the one write a client computes; the agent checks each row
/// agrees with itself before storing it (the KeychainAgent article's residual).
final class AgentReplica: ItemRowReader, ChangeFeedStorage {
  let client: AgentClient

  init(client: AgentClient) { self.client = client }

  func find(_ filter: ItemFilter, limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [StoredItem] {
    var reader = try client.call(.find) { writer in
      writer.filter(filter)
      writer.optional(limit) { $0.int($1) }
      writer.fetch(fetch)
    }
    return try reader.list { reader throws(SecStatus) in try reader.storedItem() }
  }

  func find(each filters: [ItemFilter], limit: Int?, fetch: ItemFetch) throws(SecStatus) -> [[StoredItem]] {
    var reader = try client.call(.findEach) { writer in
      writer.list(filters) { $0.filter($1) }
      writer.optional(limit) { $0.int($1) }
      writer.fetch(fetch)
    }
    return try reader.list { reader throws(SecStatus) in
      try reader.list { reader throws(SecStatus) in try reader.storedItem() }
    }
  }

  var writeGeneration: UInt64 { client.writeGeneration }

  func changes(after sequence: Int64, limit: Int) throws(SecStatus) -> [ChangeFeedEntry] {
    var reader = try client.call(.changesAfter) { writer in
      writer.int64(sequence)
      writer.int(limit)
    }
    return try reader.list { reader throws(SecStatus) in try reader.feedEntry() }
  }

  func changes(of identities: [ItemIdentity]) throws(SecStatus) -> [ChangeFeedEntry?] {
    var reader = try client.call(.changesOf) { writer in writer.list(identities) { $0.identity($1) } }
    return try reader.list { reader throws(SecStatus) in
      try reader.optional { reader throws(SecStatus) in try reader.feedEntry() }
    }
  }

  func hasChanges(after sequence: Int64) throws(SecStatus) -> Bool {
    var reader = try client.call(.hasChanges) { $0.int64(sequence) }
    return try reader.flag()
  }

  func applyReplication(_ batch: ReplicationBatch) throws(SecStatus) -> ReplicationOutcome {
    var reader = try client.write(.applyReplication) { $0.batch(batch) }
    switch try reader.byte() {
    case 0: return .applied
    case 1: return .changedSinceRead
    default: throw .decode
    }
  }

  func purgeDeletions(changedBefore: Int64, through sequence: Int64) throws(SecStatus) -> Int {
    var reader = try client.write(.purgeDeletions) { writer in
      writer.int64(changedBefore)
      writer.int64(sequence)
    }
    return try reader.nonNegativeInt()
  }

  func replicationValue(_ name: String) throws(SecStatus) -> Data? {
    var reader = try client.call(.replicationValue) { $0.string(name) }
    return try reader.optional { reader throws(SecStatus) in try reader.data() }
  }
}

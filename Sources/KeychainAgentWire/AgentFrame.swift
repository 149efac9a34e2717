import Foundation
import Security

/// The agent's protocol: one request, then its answer, at a time on a connection.
///
/// A frame is a little-endian 32-bit length and that many bytes: the protocol version, a kind, and
/// the payload (`WireWriter`'s form). A request's kind is its operation: a SecItem call, handed
/// over whole for the agent's engine to run for the caller (its entries, never rows); the store's
/// lock, state and integrity; the user's proof; and, for a replicator the policy grants every
/// group, the rows and feed sync reads and the batches it applies. An answer's kind says whether
/// the payload is the operation's result or a status (`SecStatus`: the code and its detail, never
/// a value). A frame longer than `maximumFrameLength`, of another version or of an unknown kind
/// ends the connection.
package enum AgentFrame {
  /// The protocol version every frame starts with.
  /// 2: the agent greets each connection before the client may send (`AgentHandshake`).
  /// 3: SecItem calls are requests the agent's engine runs; no client-built row is stored.
  /// 4: a replicator's received items carry no index or fingerprint; the agent computes them.
  package static let version: UInt8 = 4

  /// The longest frame either side accepts: an item's secret may be 16 MiB and its attributes
  /// 4 MiB (SecItemLimits), and a batch (an import, a restore) holds several.
  package static let maximumFrameLength = 64 << 20

  /// The operations.
  package enum Operation: UInt8, CaseIterable, Sendable {
    /// SecItemAdd for every class but identities: the item as stored.
    case add = 1
    /// SecItemAdd of an identity: the pair as a search by its ref finds it, when asked for.
    case addIdentity
    /// SecItemCopyMatching for every class but identities: the items handed out.
    case copyMatching
    /// SecItemCopyMatching of identities: the pairs handed out.
    case copyIdentities
    /// SecItemUpdate for every class but identities.
    case update
    /// SecItemUpdate of identities.
    case updateIdentities
    /// SecItemDelete for every class but identities.
    case delete
    /// SecItemDelete of identities.
    case deleteIdentities
    /// The typed API's atomic set.
    case upsert
    /// Many adds in one transaction.
    case importItems
    /// A sealed backup of the caller's items.
    case exportBackup
    /// A backup restored into the caller's groups.
    case importBackup
    /// A GNOME Keyring file's items, read by the agent, added to the caller's default collection.
    case importGnomeKeyring
    case lock
    case unlock
    case state
    case checkIntegrity
    /// The agent asks the user to prove their presence (LAContext.evaluatePolicy), so the answer
    /// never passes through the client.
    case authenticateUser
    /// A replicator's reads and writes (`ItemRowReader`, `ChangeFeedStorage`): only for a program
    /// the policy grants every group.
    case find
    case findEach
    case changesAfter
    case changesOf
    case hasChanges
    case applyReplication
    case purgeDeletions
    case replicationValue
  }

  /// What an answer's payload holds.
  package enum Answer: UInt8, Sendable {
    /// The operation's result.
    case result = 0
    /// The status the operation failed with.
    case failure = 1
    /// Not an answer: the agent's greeting, sent once it has identified the caller.
    case greeting = 2
  }

  /// The greeting the agent sends on each connection once it has identified its caller.
  package static let greeting: [UInt8] = [version, Answer.greeting.rawValue]

  /// A request: the version, the operation and its arguments.
  package static func request(_ operation: Operation, _ arguments: (inout WireWriter) -> Void = { _ in }) -> [UInt8] {
    var writer = WireWriter()
    writer.byte(version)
    writer.byte(operation.rawValue)
    arguments(&writer)
    return writer.bytes
  }

  /// A successful answer and its result.
  package static func result(_ write: (inout WireWriter) -> Void = { _ in }) -> [UInt8] {
    var writer = WireWriter()
    writer.byte(version)
    writer.byte(Answer.result.rawValue)
    write(&writer)
    return writer.bytes
  }

  /// A failed answer.
  package static func failure(_ status: SecStatus) -> [UInt8] {
    var writer = WireWriter()
    writer.byte(version)
    writer.byte(Answer.failure.rawValue)
    writer.status(status)
    return writer.bytes
  }

  /// The operation of a request and a reader over its arguments; errSecDecode for another version
  /// or an unknown operation.
  package static func readRequest(_ body: [UInt8]) throws(SecStatus) -> (Operation, WireReader) {
    var reader = WireReader(body)
    guard try reader.byte() == version else { throw SecStatus(errSecDecode, detail: "another protocol version") }
    guard let operation = Operation(rawValue: try reader.byte()) else {
      throw SecStatus(errSecDecode, detail: "an unknown operation")
    }
    return (operation, reader)
  }

  /// A reader over an answer's result, or the status it failed with, thrown.
  package static func readAnswer(_ body: [UInt8]) throws(SecStatus) -> WireReader {
    var reader = WireReader(body)
    guard try reader.byte() == version else { throw SecStatus(errSecDecode, detail: "another protocol version") }
    switch Answer(rawValue: try reader.byte()) {
    case .result: return reader
    case .failure: throw try reader.status()
    case .greeting?, nil: throw SecStatus(errSecDecode, detail: "an unknown answer")
    }
  }
}

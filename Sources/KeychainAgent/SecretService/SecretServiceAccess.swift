import Foundation
import Security

/// Which collections and items a program may use through the Secret Service: the collections a
/// policy rule gives it or, for a program no rule names, every collection no rule confines; and,
/// for the groups the policy asks confirmation for, whether the user has allowed it an item yet.
///
/// Kept apart from the objects that answer calls so that every access decision is in one place;
/// used on the bus's thread only, as they are.
final class SecretServiceAccess: @unchecked Sendable {
  // @unchecked: the bus's thread alone reads and refreshes the collections.
  private let service: AgentService
  private let registry: SecretCollections
  private let approvals: SecretApprovals
  /// The collections the store holds (read once, then kept current by the front end's changes).
  private var collections: [SecretCollection] = []
  /// The groups the policy's rules name: a collection among them is confined. Read once, as the
  /// policy does not change while the agent runs (every call asks).
  private let confinedGroups: Set<String>

  init(service: AgentService, registry: SecretCollections, approvals: SecretApprovals) {
    self.service = service
    self.registry = registry
    self.approvals = approvals
    confinedGroups = service.policy.namedGroups
  }

  /// The collections, read again when `refresh` or never read.
  ///
  /// A passphrase store the agent opened locked is sealed until its first unlock: not even the
  /// registry's attributes can be read. Its collections are then the default one alone, not kept,
  /// so that the first call after the unlock reads them all: what only lists collections (opening
  /// a session, reading an alias, a collection's properties, the caller's groups) never needs the
  /// store's keys, and `Unlock` can prompt.
  func allCollections(refresh: Bool = false) throws(BusError) -> [SecretCollection] {
    if refresh || collections.isEmpty {
      do throws(BusError) {
        collections = try registry.all()
      } catch  where error.isLocked && service.store.isLocked {
        collections = []
        return [.login, .session]
      }
    }
    return collections
  }

  /// The groups the Secret Service gives a program: a program a rule names gets its rule's groups
  /// (as on the agent's socket); any other gets the default collection and every collection no
  /// rule names, as GNOME Keyring gives every program every collection.
  func groups(for grant: AccessGrant) throws(BusError) -> [String] {
    if grant.namedByRule { return grant.groups ?? ["*"] }
    return try allCollections().filter(isEveryProgramsCollection).map(\.group)
  }

  /// Whether every program no rule names sees `collection`: the default one, and any no rule
  /// confines.
  private func isEveryProgramsCollection(_ collection: SecretCollection) -> Bool {
    collection.group == SecretCollection.login.group || !confinedGroups.contains(collection.group)
  }

  /// The collections `caller` may see: as `groups(for:)` gives them, for the collections as they
  /// are now (one made during this call included).
  func visibleCollections(_ caller: SecretCaller) throws(BusError) -> [SecretCollection] {
    let groups = caller.engine.accessGroups
    return try allCollections().filter {
      caller.namedByRule ? groups.contains("*") || groups.contains($0.group) : isEveryProgramsCollection($0)
    }
  }

  /// The collection at `path` (a collection's or one of its items'), if `caller` may see it.
  func collection(at path: String, for caller: SecretCaller) throws(BusError) -> SecretCollection {
    guard let id = SecretCollection.id(in: path) else { throw .noSuchObject("No collection at \(path).") }
    var found = try visibleCollections(caller).first { $0.id == id }
    if found == nil, try allCollections(refresh: true).contains(where: { $0.id == id }) {
      found = try visibleCollections(caller).first { $0.id == id }
    }
    guard let found else { throw .noSuchObject("No collection at \(path).") }
    return found
  }

  /// The collection `alias` names, if any: answered while the store is sealed too (the default and
  /// session aliases).
  func collection(alias: String) throws(BusError) -> SecretCollection? {
    let all = try allCollections()
    return alias == "default" ? all[0] : all.first { $0.aliases.contains(alias) }
  }

  /// Whether `collection` is locked: the session collection never is; the others are while the
  /// store is.
  func isLocked(_ collection: SecretCollection) -> Bool { !collection.isSession && service.store.isLocked }

  /// Whether `caller` must have the user's confirmation for what touches `collection` as a whole
  /// (deleting it, moving its aliases): a program no rule names, on a collection whose first
  /// accesses the policy confirms.
  func needsConfirmation(of collection: SecretCollection, for caller: SecretCaller) -> Bool {
    !caller.namedByRule && service.policy.confirmedGroups.contains(collection.group)
  }

  /// Whether `caller` must have the user's confirmation before it reads `path`, an item of
  /// `collection`.
  func needsConfirmation(_ path: String, in collection: SecretCollection, for caller: SecretCaller) -> Bool {
    !caller.namedByRule && service.policy.confirmedGroups.contains(collection.group)
      && !approvals.allows(caller.executable, path)
  }

  /// Whether the item at `path` is locked for `caller`: the store is, or the user has not yet
  /// allowed this program to read it.
  func isLocked(_ path: String, in collection: SecretCollection, for caller: SecretCaller) -> Bool {
    isLocked(collection) || needsConfirmation(path, in: collection, for: caller)
  }
}

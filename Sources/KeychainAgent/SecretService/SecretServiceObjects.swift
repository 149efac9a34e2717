import Foundation
import KeychainStorageMemory
import Security

/// Who is calling the Secret Service, as its objects need it.
struct SecretCaller {
  /// The caller's engine: the agent's store, with the groups the Secret Service gives this program.
  let engine: SecItemEngine
  /// Its executable, as the policy and the prompts name it.
  let executable: String
  /// Whether a policy rule names the program: it then gets its rule's groups, and the user is not
  /// asked to confirm its first accesses (the rule is the user's leave).
  let namedByRule: Bool
  /// Its unique bus name (its sessions and prompts are its own).
  let sender: String
  /// Whether this call may ask the user on the bus's thread (no: the bus asks without waiting,
  /// then runs the call again with this set, and the proof it got answers the call's ask).
  var interactive = false
}

/// One method call as the Secret Service front end receives it: where, what, from whom.
struct BusCall {
  let path: String
  let interface: String
  let member: String
  let arguments: BusMessageReader
  let caller: SecretCaller
}

/// A signal a call's changes emit, sent by the bus after the reply.
struct BusSignal {
  let path: String
  let interface: String
  let member: String
  let values: [BusValue]
}

/// The Secret Service's objects (freedesktop Secret Service 0.2): the service, the collections,
/// their items, the sessions and the prompts, answering each call with its reply values or a
/// D-Bus error. The Service interface is here; collections and items are in
/// SecretServiceObjects+Collections, prompts in SecretServicePrompts, and who may use what in
/// SecretServiceAccess.
final class SecretServiceObjects: @unchecked Sendable {
  // @unchecked: used on the bus's thread only (a prompt's completion comes back to it through
  // `onBusThread`), so its state needs no lock.
  static let servicePath = "/org/freedesktop/secrets"
  static let aliasPrefix = "/org/freedesktop/secrets/aliases/"
  let service: AgentService
  /// Runs work on the bus's thread (set by the bus).
  var onBusThread: (@escaping @Sendable () -> Void) -> Void = { $0() }
  /// Emits a signal at once (set by the bus): for a prompt's completion, which no reply carries.
  var emit: (BusSignal) -> Void = { _ in }
  /// The signals the calls answered so far emit, handed to the bus after each reply.
  var pendingSignals: [BusSignal] = []
  /// Open sessions, each its client's.
  var sessions = SecretSessions()
  /// Prompts not completed yet, by path.
  var prompts: [String: PendingPrompt] = [:]
  var nextPrompt = 1
  let registry: SecretCollections
  let approvals: SecretApprovals
  /// Asks the user to confirm a program's first access to an item.
  let prompter: any PromptService
  /// Which collections and items each program may use.
  let access: SecretServiceAccess
  /// The session collection's items: in the agent's memory, never written to the store.
  let sessionStorage = InMemoryItemStorage()

  init(service: AgentService, prompter: any PromptService = PassphrasePrompt.fromEnvironment()) {
    self.service = service
    registry = SecretCollections(agent: service)
    approvals = SecretApprovals(agent: service)
    self.prompter = prompter
    access = SecretServiceAccess(service: service, registry: registry, approvals: approvals)
  }

  /// The items of `collection` as `caller` reaches them: through its own engine, or for the
  /// session collection through an engine over the memory that holds it.
  func items(in collection: SecretCollection, for caller: SecretCaller) -> SecretItems {
    guard collection.isSession else {
      return SecretItems(engine: caller.engine, collection: collection, interactive: caller.interactive)
    }
    return SecretItems(
      engine: SecItemEngine(
        storage: sessionStorage, accessGroups: [collection.group], authenticator: caller.engine.authenticator,
        backend: service.backend, programName: caller.engine.programName),
      collection: collection, interactive: caller.interactive)
  }

  /// The reply to `call`: its values, or the error.
  func answer(_ call: BusCall) throws(BusError) -> [BusValue] {
    if call.path.hasPrefix(Self.aliasPrefix) {
      let rest = call.path.dropFirst(Self.aliasPrefix.count)
      let alias = String(rest.prefix { $0 != "/" })
      guard let collection = try access.collection(alias: alias) else {
        throw .noSuchObject("No collection has the alias \(alias).")
      }
      return try answer(
        BusCall(
          path: collection.path + rest.dropFirst(alias.count), interface: call.interface, member: call.member,
          arguments: call.arguments, caller: call.caller))
    }
    switch call.interface {
    case "org.freedesktop.DBus.Introspectable" where call.member == "Introspect":
      return [.string(SecretServiceIntrospection.xml(for: call.path))]
    case "org.freedesktop.DBus.Properties":
      return try properties(call)
    default: break
    }
    if call.path == Self.servicePath { return try serviceMethod(call) }
    if SecretCollection.id(in: call.path) != nil {
      let collection = try access.collection(at: call.path, for: call.caller)
      return call.path == collection.path
        ? try collectionMethod(call, collection) : try itemMethod(call, collection)
    }
    if call.path.hasPrefix(Self.promptPrefix) { return try promptMethod(call) }
    if call.path.hasPrefix(SecretSessions.prefix) {
      guard call.interface == "org.freedesktop.Secret.Session", call.member == "Close" else {
        throw .unknownMethod("A session has one method, Close.")
      }
      try sessions.close(call.path, sender: call.caller.sender)
      return []
    }
    throw .noSuchObject("No object at \(call.path).")
  }

  /// The signals to emit for the calls answered so far, handed over once.
  func takeSignals() -> [BusSignal] {
    defer { pendingSignals = [] }
    return pendingSignals
  }

  /// Forgets the sessions and prompts of a client that left the bus (a prompt being shown is
  /// answered into nothing: its completion finds it gone).
  func clientLeft(_ name: String) {
    sessions.clientLeft(name)
    prompts = prompts.filter { $0.value.sender != name }
  }

  /// The item paths `caller` may see that match `attributes`, in every collection it sees, with
  /// whether each is locked for it.
  private func search(_ attributes: [String: String], for caller: SecretCaller) throws(BusError) -> (
    unlocked: [String], locked: [String]
  ) {
    var unlocked: [String] = []
    var locked: [String] = []
    for collection in try access.visibleCollections(caller) {
      for item in try items(in: collection, for: caller).search(attributes) {
        // Locked items are listed as locked: the search reads attributes, which the store keeps
        // readable while locked.
        if access.isLocked(item.path, in: collection, for: caller) {
          locked.append(item.path)
        } else {
          unlocked.append(item.path)
        }
      }
    }
    return (unlocked, locked)
  }

  private func serviceMethod(_ call: BusCall) throws(BusError) -> [BusValue] {
    let arguments = call.arguments
    let caller = call.caller
    switch (call.interface, call.member) {
    case ("org.freedesktop.Secret.Service", "OpenSession"):
      return try sessions.open(
        algorithm: try arguments.string(), arguments: arguments, sender: caller.sender, program: caller.executable)
    case ("org.freedesktop.Secret.Service", "SearchItems"):
      let found = try search(try arguments.stringMap(), for: caller)
      return [.objectPaths(found.unlocked), .objectPaths(found.locked)]
    case ("org.freedesktop.Secret.Service", "GetSecrets"):
      let paths = try arguments.objectPaths()
      let session = try arguments.objectPath()
      try sessions.check(session, of: caller.sender)
      var secrets: [(String, BusValue)] = []
      // Items that are gone, not this caller's, or locked for it are left out, as GNOME Keyring does.
      for path in paths.prefix(BusMessageReader.maximumElements) {
        guard let collection = try? access.collection(at: path, for: caller),
          !access.isLocked(path, in: collection, for: caller)
        else { continue }
        let items = items(in: collection, for: caller)
        var found: (item: SecretItems.Item, secret: [UInt8])
        do throws(BusError) {
          found = try items.itemAndSecret(at: path)
        } catch  where error == .needsUser && !caller.interactive {
          // The bus asks the user, then answers the whole call.
          throw error
        } catch {
          continue
        }
        defer { Secrets.wipe(&found.secret) }
        secrets.append(
          (
            path,
            try sessions.secret(
              found.secret, contentType: found.item.contentType, session: session, sender: caller.sender)
          ))
      }
      return [.secretsByItem(secrets)]
    case ("org.freedesktop.Secret.Service", "CreateCollection"):
      var label = ""
      try arguments.properties { (name) throws(BusError) in
        if name == "org.freedesktop.Secret.Collection.Label" {
          label = try arguments.within("v", "s") { () throws(BusError) in try arguments.string() }
        } else {
          try arguments.skip()
        }
      }
      let alias = try arguments.string()
      guard !service.store.isLocked else { throw .isLocked("The keychain is locked.") }
      let (collection, made) = try registry.create(label: label, alias: alias, by: caller.executable)
      _ = try access.allCollections(refresh: true)
      guard (try? access.collection(at: collection.path, for: caller)) != nil else {
        // A program a rule names sees its rule's groups only: a collection it could not use is not made.
        if made {
          try registry.delete(collection)
          _ = try access.allCollections(refresh: true)
        }
        throw .accessDenied(
          "The agent's policy does not give this program the collection's group \(collection.group); add it to the program's rule."
        )
      }
      if made {
        pendingSignals.append(
          BusSignal(
            path: Self.servicePath, interface: "org.freedesktop.Secret.Service", member: "CollectionCreated",
            values: [.objectPath(collection.path)]))
      }
      return [.objectPath(collection.path), .objectPath("/")]
    case ("org.freedesktop.Secret.Service", "ReadAlias"):
      let alias = try arguments.string()
      guard let collection = try access.collection(alias: alias),
        (try? access.collection(at: collection.path, for: caller)) != nil
      else { return [.objectPath("/")] }
      return [.objectPath(collection.path)]
    case ("org.freedesktop.Secret.Service", "SetAlias"):
      let alias = try arguments.string()
      let path = try arguments.objectPath()
      let target = path == "/" ? nil : try access.collection(at: path, for: caller)
      // An alias is taken from the collection it names: not from one this program may not see (a
      // collection a rule confines), nor, for a program no rule names, from one whose accesses the
      // user confirms (issue 63). SetAlias has no prompt to ask with.
      if let holder = try access.allCollections().first(where: { $0.aliases.contains(alias) }),
        holder.id != target?.id
      {
        guard (try? access.collection(at: holder.path, for: caller)) != nil,
          !access.needsConfirmation(of: holder, for: caller)
        else {
          throw .accessDenied("The alias \(alias) names a collection this program may not change.")
        }
      }
      try registry.setAlias(alias, to: target)
      _ = try access.allCollections(refresh: true)
      return []
    case ("org.freedesktop.Secret.Service", "Unlock"):
      return try unlock(try arguments.objectPaths(), for: caller)
    case ("org.freedesktop.Secret.Service", "Lock"):
      let objects = try arguments.objectPaths()
      // The agent's one lock: Apple-API programs are locked out too.
      service.storage.lock()
      return [.objectPaths(objects), .objectPath("/")]
    default:
      throw .unknownMethod("The service has no method \(call.interface).\(call.member).")
    }
  }

  static func seconds(_ date: Date?) -> UInt64 {
    guard let date, date.timeIntervalSince1970 > 0 else { return 0 }
    return UInt64(date.timeIntervalSince1970)
  }
}

import Foundation
import Security

/// One method call as the Secret Service front end receives it: where, what, from whom.
struct BusCall {
  let path: String
  let interface: String
  let member: String
  let arguments: BusMessageReader
  /// The caller's engine: the agent's store, with the groups the Secret Service gives this program.
  let engine: SecItemEngine
  /// The caller's unique bus name (its sessions are its own).
  let sender: String
}

/// The Secret Service's objects (freedesktop Secret Service 0.2): the service, the default
/// collection, its items, the sessions and the prompts, answering each call with its reply values
/// or a D-Bus error.
final class SecretServiceObjects: @unchecked Sendable {
  // @unchecked: used on the bus's thread only (a prompt's completion comes back to it through
  // `onBusThread`), so its state needs no lock.
  static let servicePath = "/org/freedesktop/secrets"
  static let promptPrefix = "/org/freedesktop/secrets/prompt/"
  let service: AgentService
  /// Runs work on the bus's thread (set by the bus).
  var onBusThread: (@escaping @Sendable () -> Void) -> Void = { $0() }
  /// Emits a signal: path, interface, member, arguments (set by the bus).
  var emit: (String, String, String, [BusValue]) -> Void = { _, _, _, _ in }
  /// Prompts not completed yet, by path.
  private var prompts: [String: PendingPrompt] = [:]
  private var nextPrompt = 1

  /// A prompt an Unlock returned: who may show it, what it unlocks, who proves the user.
  private struct PendingPrompt {
    let sender: String
    let objects: [String]
    let authenticator: any UserAuthenticating
    var shown = false
  }
  /// The signals a call's changes emit, `(member, item path)` on the collection, sent by the bus
  /// after the reply (ItemCreated, ItemDeleted, ItemChanged).
  private(set) var pendingSignals: [(member: String, item: String)] = []
  /// Open sessions, each its client's.
  private var sessions = SecretSessions()

  init(service: AgentService) { self.service = service }

  /// The path GNOME Keyring gives the default collection by its alias, which libsecret uses.
  static let defaultAliasPath = "/org/freedesktop/secrets/aliases/default"

  /// The reply to `call`: its values, or the error.
  func answer(_ call: BusCall) throws(BusError) -> [BusValue] {
    if call.path == Self.defaultAliasPath || call.path.hasPrefix(Self.defaultAliasPath + "/") {
      let path = SecretItems.collectionPath + call.path.dropFirst(Self.defaultAliasPath.count)
      return try answer(
        BusCall(
          path: path, interface: call.interface, member: call.member, arguments: call.arguments,
          engine: call.engine, sender: call.sender))
    }
    switch call.interface {
    case "org.freedesktop.DBus.Introspectable" where call.member == "Introspect":
      return [.string(SecretServiceIntrospection.xml(for: call.path))]
    case "org.freedesktop.DBus.Properties":
      return try properties(call)
    default: break
    }
    if call.path == Self.servicePath { return try serviceMethod(call) }
    if call.path == SecretItems.collectionPath { return try collectionMethod(call) }
    if call.path.hasPrefix(SecretItems.collectionPath + "/") { return try itemMethod(call) }
    if call.path.hasPrefix(Self.promptPrefix) { return try promptMethod(call) }
    if call.path.hasPrefix(SecretSessions.prefix) {
      guard call.interface == "org.freedesktop.Secret.Session", call.member == "Close" else {
        throw .unknownMethod("A session has one method, Close.")
      }
      try sessions.close(call.path, sender: call.sender)
      return []
    }
    throw .noSuchObject("No object at \(call.path).")
  }

  /// Prompt.Prompt asks the user through the prompt service, which answers later: the prompt
  /// completes then, with the Completed signal. Prompt.Dismiss completes it dismissed.
  private func promptMethod(_ call: BusCall) throws(BusError) -> [BusValue] {
    guard var prompt = prompts[call.path], prompt.sender == call.sender else {
      throw .noSuchObject("No prompt at \(call.path) for this client.")
    }
    switch (call.interface, call.member) {
    case ("org.freedesktop.Secret.Prompt", "Prompt"):
      _ = try call.arguments.string()  // the window to show it over: no window here
      guard !prompt.shown else { return [] }
      prompt.shown = true
      prompts[call.path] = prompt
      let path = call.path
      prompt.authenticator.authenticateUser(reason: "unlock the keyring", caller: "", reuse: 0) { [self] failure in
        onBusThread { self.complete(path, dismissed: failure != nil) }
      }
      return []
    case ("org.freedesktop.Secret.Prompt", "Dismiss"):
      complete(call.path, dismissed: true)
      return []
    default:
      throw .unknownMethod("A prompt has the methods Prompt and Dismiss.")
    }
  }

  /// Ends a prompt with its Completed signal: what it unlocked, or dismissed.
  private func complete(_ path: String, dismissed: Bool) {
    guard let prompt = prompts.removeValue(forKey: path) else { return }
    let unlocked = dismissed || service.store.isLocked ? [] : prompt.objects
    emit(
      path, "org.freedesktop.Secret.Prompt", "Completed",
      [.boolean(dismissed || service.store.isLocked), .variant(.objectPaths(unlocked))])
  }

  /// The signals to emit for the calls answered so far, handed over once.
  func takeSignals() -> [(member: String, item: String)] {
    defer { pendingSignals = [] }
    return pendingSignals
  }

  /// Forgets the sessions of a client that left the bus.
  func clientLeft(_ name: String) { sessions.clientLeft(name) }

  private func serviceMethod(_ call: BusCall) throws(BusError) -> [BusValue] {
    let items = SecretItems(engine: call.engine)
    let arguments = call.arguments
    switch (call.interface, call.member) {
    case ("org.freedesktop.Secret.Service", "OpenSession"):
      return try sessions.open(algorithm: try arguments.string(), arguments: arguments, sender: call.sender)
    case ("org.freedesktop.Secret.Service", "SearchItems"):
      let found = try items.search(try arguments.stringMap()).map(\.path)
      // Locked items are listed as locked: the search reads attributes, which the store keeps
      // readable while locked.
      return service.store.isLocked
        ? [.objectPaths([]), .objectPaths(found)] : [.objectPaths(found), .objectPaths([])]
    case ("org.freedesktop.Secret.Service", "GetSecrets"):
      let paths = try arguments.objectPaths()
      let session = try arguments.objectPath()
      try sessions.check(session, of: call.sender)
      var secrets: [(String, BusValue)] = []
      for path in paths {
        guard let item = try? items.item(at: path) else { continue }
        secrets.append((path, try sessions.secret(try items.secret(of: item), session: session, sender: call.sender)))
      }
      return [.secretsByItem(secrets)]
    case ("org.freedesktop.Secret.Service", "CreateCollection"):
      try arguments.skip()
      let alias = try arguments.string()
      // One collection, the keychain: asking for the default one (libsecret does when it first
      // stores) gives it; another is not made.
      guard alias == "default" || alias.isEmpty else {
        throw .notSupported("This keyring has one collection, the default one; it makes no other.")
      }
      return [.objectPath(SecretItems.collectionPath), .objectPath("/")]
    case ("org.freedesktop.Secret.Service", "ReadAlias"):
      return [.objectPath(try arguments.string() == "default" ? SecretItems.collectionPath : "/")]
    case ("org.freedesktop.Secret.Service", "Unlock"):
      let objects = try arguments.objectPaths()
      guard service.store.isLocked else { return [.objectPaths(objects), .objectPath("/")] }
      guard service.store.hasPassphrase else {
        // A key-file store's lock asks nothing of the user: its key file gives the keys back.
        do throws(SecStatus) {
          try service.storage.unlock(passphrase: nil)
        } catch {
          throw SecretItems.busError(error)
        }
        return [.objectPaths(objects), .objectPath("/")]
      }
      // The user types the store's passphrase when the client shows the prompt (Prompt.Prompt).
      guard prompts.count < 64 else { throw .failed("Too many prompts are waiting.") }
      let path = Self.promptPrefix + "u\(nextPrompt)"
      nextPrompt += 1
      prompts[path] = PendingPrompt(sender: call.sender, objects: objects, authenticator: call.engine.authenticator)
      return [.objectPaths([]), .objectPath(path)]
    case ("org.freedesktop.Secret.Service", "Lock"):
      let objects = try arguments.objectPaths()
      // The agent's one lock: Apple-API programs are locked out too.
      service.storage.lock()
      return [.objectPaths(objects), .objectPath("/")]
    default:
      throw .unknownMethod("The service has no method \(call.interface).\(call.member).")
    }
  }

  private func collectionMethod(_ call: BusCall) throws(BusError) -> [BusValue] {
    let items = SecretItems(engine: call.engine)
    let arguments = call.arguments
    switch (call.interface, call.member) {
    case ("org.freedesktop.Secret.Collection", "SearchItems"):
      return [.objectPaths(try items.search(try arguments.stringMap()).map(\.path))]
    case ("org.freedesktop.Secret.Collection", "CreateItem"):
      var label = ""
      var attributes: [String: String] = [:]
      try arguments.properties { (name) throws(BusError) in
        switch name {
        case "org.freedesktop.Secret.Item.Label":
          label = try arguments.within("v", "s") { () throws(BusError) in try arguments.string() }
        case "org.freedesktop.Secret.Item.Attributes":
          attributes = try arguments.within("v", "a{ss}") { () throws(BusError) in try arguments.stringMap() }
        default:
          try arguments.skip()
        }
      }
      let secret = try arguments.secret()
      let replace = try arguments.boolean()
      let value = try sessions.value(of: secret, sender: call.sender)
      guard !service.store.isLocked else { throw .isLocked("The keychain is locked.") }
      let (item, replaced) = try items.create(label: label, attributes: attributes, secret: value, replace: replace)
      pendingSignals.append((replaced ? "ItemChanged" : "ItemCreated", item.path))
      return [.objectPath(item.path), .objectPath("/")]
    case ("org.freedesktop.Secret.Collection", "Delete"):
      throw .notSupported("The default collection is the keychain itself and cannot be deleted.")
    default:
      throw .unknownMethod("The collection has no method \(call.interface).\(call.member).")
    }
  }

  private func itemMethod(_ call: BusCall) throws(BusError) -> [BusValue] {
    let items = SecretItems(engine: call.engine)
    let item = try items.item(at: call.path)
    let arguments = call.arguments
    switch (call.interface, call.member) {
    case ("org.freedesktop.Secret.Item", "GetSecret"):
      let session = try arguments.objectPath()
      return [try sessions.secret(try items.secret(of: item), session: session, sender: call.sender)]
    case ("org.freedesktop.Secret.Item", "SetSecret"):
      let value = try sessions.value(of: try arguments.secret(), sender: call.sender)
      try items.update(item, label: nil, attributes: nil, secret: value)
      pendingSignals.append(("ItemChanged", item.path))
      return []
    case ("org.freedesktop.Secret.Item", "Delete"):
      try items.delete(item)
      pendingSignals.append(("ItemDeleted", item.path))
      return [.objectPath("/")]
    default:
      throw .unknownMethod("An item has no method \(call.interface).\(call.member).")
    }
  }

  /// org.freedesktop.DBus.Properties: Get, GetAll and Set.
  private func properties(_ call: BusCall) throws(BusError) -> [BusValue] {
    let arguments = call.arguments
    let interface = try arguments.string()
    let all = try values(of: call.path, interface: interface, call.engine)
    switch call.member {
    case "Get":
      let name = try arguments.string()
      guard let value = all.first(where: { $0.0 == name })?.1 else {
        throw .invalidArguments("\(interface) has no property \(name).")
      }
      return [.variant(value)]
    case "GetAll":
      return [.properties(all)]
    case "Set":
      let name = try arguments.string()
      guard call.path.hasPrefix(SecretItems.collectionPath + "/") else {
        throw .accessDenied("Only an item's label and attributes can be set.")
      }
      let items = SecretItems(engine: call.engine)
      let item = try items.item(at: call.path)
      switch name {
      case "Label":
        let label = try arguments.within("v", "s") { () throws(BusError) in try arguments.string() }
        try items.update(item, label: label, attributes: nil, secret: nil)
      case "Attributes":
        let attributes = try arguments.within("v", "a{ss}") { () throws(BusError) in try arguments.stringMap() }
        try items.update(item, label: nil, attributes: attributes, secret: nil)
      default:
        throw .accessDenied("The property \(name) cannot be set.")
      }
      pendingSignals.append(("ItemChanged", item.path))
      return []
    default:
      throw .unknownMethod("Properties has no method \(call.member).")
    }
  }

  /// The properties of the object at `path` for `interface`.
  private func values(of path: String, interface: String, _ engine: SecItemEngine) throws(BusError)
    -> [(String, BusValue)]
  {
    let locked = BusValue.boolean(service.store.isLocked)
    switch (path, interface) {
    case (Self.servicePath, "org.freedesktop.Secret.Service"):
      return [("Collections", .objectPaths([SecretItems.collectionPath]))]
    case (SecretItems.collectionPath, "org.freedesktop.Secret.Collection"):
      return [
        ("Items", .objectPaths(try SecretItems(engine: engine).search([:]).map(\.path))),
        ("Label", .string("Login")), ("Locked", locked), ("Created", .uint64(0)), ("Modified", .uint64(0)),
      ]
    case (_, "org.freedesktop.Secret.Item") where path.hasPrefix(SecretItems.collectionPath + "/"):
      let item = try SecretItems(engine: engine).item(at: path)
      return [
        ("Locked", locked), ("Attributes", .stringMap(item.attributes)), ("Label", .string(item.label)),
        ("Type", .string(item.attributes["xdg:schema"] ?? "org.freedesktop.Secret.Generic")),
        ("Created", .uint64(Self.seconds(item.created))), ("Modified", .uint64(Self.seconds(item.modified))),
      ]
    default:
      throw .invalidArguments("The object at \(path) has no interface \(interface).")
    }
  }

  private static func seconds(_ date: Date?) -> UInt64 {
    guard let date, date.timeIntervalSince1970 > 0 else { return 0 }
    return UInt64(date.timeIntervalSince1970)
  }
}

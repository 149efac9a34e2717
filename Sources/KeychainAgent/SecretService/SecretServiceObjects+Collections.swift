import Foundation
import Security

/// Collections, items and properties.
extension SecretServiceObjects {
  private static let collectionInterface = "org.freedesktop.Secret.Collection"

  /// Queues one of a collection's signals.
  private func signal(_ member: String, on collection: SecretCollection, _ item: String? = nil) {
    let onService = item == nil
    pendingSignals.append(
      BusSignal(
        path: onService ? Self.servicePath : collection.path,
        interface: onService ? "org.freedesktop.Secret.Service" : Self.collectionInterface, member: member,
        values: [.objectPath(item ?? collection.path)]))
  }

  func collectionMethod(_ call: BusCall, _ collection: SecretCollection) throws(BusError) -> [BusValue] {
    let caller = call.caller
    let items = items(in: collection, for: caller)
    let arguments = call.arguments
    switch (call.interface, call.member) {
    case (Self.collectionInterface, "SearchItems"):
      return [.objectPaths(try items.search(try arguments.stringMap()).map(\.path))]
    case (Self.collectionInterface, "CreateItem"):
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
      let value = PendingSecret(try sessions.value(of: secret, sender: caller.sender))
      let contentType = secret.contentType
      let create = { [self] () throws(BusError) -> String in
        try createItem(
          in: collection, for: caller, label: label, attributes: attributes, secret: value.bytes,
          contentType: contentType, replace: replace)
      }
      if access.isLocked(collection) && !service.store.hasPassphrase {
        // A key-file store's lock asks nothing of the user (as Unlock): its key file gives the keys back.
        do throws(SecStatus) {
          try service.storage.unlock(passphrase: nil)
        } catch {
          throw SecretItems.busError(error)
        }
      }
      guard access.isLocked(collection) else { return [.objectPath(try create()), .objectPath("/")] }
      // A passphrase store asks for its passphrase first: the item is made when the prompt
      // completes, and Completed carries its path.
      let prompt = try promptToUnlock(for: caller) { () throws(BusError) -> BusValue in .objectPath(try create()) }
      return [.objectPath("/"), .objectPath(prompt)]
    case (Self.collectionInterface, "Delete"):
      guard !access.isLocked(collection) else { throw .isLocked("The keychain is locked.") }
      let delete = { [self] () throws(BusError) -> BusValue in
        try registry.delete(collection)
        _ = try access.allCollections(refresh: true)
        signal("CollectionDeleted", on: collection)
        return .objectPath("/")
      }
      // Deleting a collection whose first accesses the policy confirms destroys items the program
      // could not even read unasked: the user confirms it, as a read (issue 63).
      guard access.needsConfirmation(of: collection, for: caller) else { return [try delete()] }
      let question =
        "\(PassphraseAuthenticator.programWords(caller.executable)) wants to delete the keyring collection "
        + "“\(PassphraseAuthenticator.programWords(collection.label))” and every item in it. Allow it?"
      return [.objectPath(try promptToConfirm(question, for: caller, then: delete))]
    default:
      throw .unknownMethod("A collection has no method \(call.interface).\(call.member).")
    }
  }

  /// At most this many items in the session collection: they are held in the agent's memory, at
  /// most 1 MiB of secret each.
  static let maximumSessionItems = 256

  /// CreateItem's work once the collection is unlocked: the item's path.
  private func createItem(
    in collection: SecretCollection, for caller: SecretCaller, label: String, attributes: [String: String],
    secret: [UInt8], contentType: String, replace: Bool
  ) throws(BusError) -> String {
    if collection.isSession, try items(in: collection, for: caller).search([:]).count >= Self.maximumSessionItems {
      throw .failed("The session collection holds no more items: delete some first.")
    }
    let (path, replaced) = try items(in: collection, for: caller).create(
      label: label, attributes: attributes, secret: secret, contentType: contentType, replace: replace
    ) { [self] existing throws(BusError) in
      // Replacing an item overwrites its secret: a program must be allowed to read it first.
      guard !access.needsConfirmation(existing, in: collection, for: caller) else {
        throw .isLocked("This program has not been allowed to use the item it would replace; unlock it first.")
      }
    }
    if !caller.namedByRule && service.policy.confirmedGroups.contains(collection.group) {
      // The program that stores an item may read it back, as the app that adds an item does on macOS.
      try approvals.allow(caller.executable, [path])
    }
    signal(replaced ? "ItemChanged" : "ItemCreated", on: collection, path)
    return path
  }

  func itemMethod(_ call: BusCall, _ collection: SecretCollection) throws(BusError) -> [BusValue] {
    let caller = call.caller
    let items = items(in: collection, for: caller)
    let arguments = call.arguments
    let member = (call.interface, call.member)
    guard member.0 == "org.freedesktop.Secret.Item", ["GetSecret", "SetSecret", "Delete"].contains(member.1) else {
      throw .unknownMethod("An item has no method \(call.interface).\(call.member).")
    }
    guard !access.isLocked(call.path, in: collection, for: caller) else {
      throw .isLocked(
        access.isLocked(collection)
          ? "The keychain is locked." : "This program has not been allowed to use this item yet; unlock it first.")
    }
    switch member.1 {
    case "GetSecret":
      let session = try arguments.objectPath()
      var found = try items.itemAndSecret(at: call.path)
      defer { Secrets.wipe(&found.secret) }
      return [
        try sessions.secret(found.secret, contentType: found.item.contentType, session: session, sender: caller.sender)
      ]
    case "SetSecret":
      let item = try items.item(at: call.path)
      let secret = try arguments.secret()
      let value = try sessions.value(of: secret, sender: caller.sender)
      try items.update(item, label: nil, attributes: nil, secret: value, contentType: secret.contentType)
      signal("ItemChanged", on: collection, item.path)
      return []
    default:
      try items.delete(at: call.path)
      signal("ItemDeleted", on: collection, call.path)
      return [.objectPath("/")]
    }
  }

  /// org.freedesktop.DBus.Properties: Get, GetAll and Set.
  func properties(_ call: BusCall) throws(BusError) -> [BusValue] {
    let arguments = call.arguments
    let interface = try arguments.string()
    let all = try values(of: call.path, interface: interface, call.caller)
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
      try setProperty(call, interface: interface, name: try arguments.string())
      return []
    default:
      throw .unknownMethod("Properties has no method \(call.member).")
    }
  }

  private func setProperty(_ call: BusCall, interface: String, name: String) throws(BusError) {
    let arguments = call.arguments
    let caller = call.caller
    let collection = try access.collection(at: call.path, for: caller)
    if call.path == collection.path {
      guard interface == Self.collectionInterface, name == "Label" else {
        throw .accessDenied("Only a collection's label can be set.")
      }
      let label = try arguments.within("v", "s") { () throws(BusError) in try arguments.string() }
      try registry.setLabel(label, of: collection)
      _ = try access.allCollections(refresh: true)
      signal("CollectionChanged", on: collection)
      return
    }
    let items = items(in: collection, for: caller)
    let item = try items.item(at: call.path)
    guard !access.isLocked(call.path, in: collection, for: caller) else {
      throw .isLocked("The item is locked for this program.")
    }
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
    signal("ItemChanged", on: collection, item.path)
  }

  /// The properties of the object at `path` for `interface`.
  private func values(of path: String, interface: String, _ caller: SecretCaller) throws(BusError)
    -> [(String, BusValue)]
  {
    if path == Self.servicePath, interface == "org.freedesktop.Secret.Service" {
      return [("Collections", .objectPaths(try access.visibleCollections(caller).map(\.path)))]
    }
    let collection = try access.collection(at: path, for: caller)
    let items = items(in: collection, for: caller)
    switch interface {
    case Self.collectionInterface where path == collection.path:
      return [
        ("Items", .objectPaths(try items.search([:]).map(\.path))), ("Label", .string(collection.label)),
        ("Locked", .boolean(access.isLocked(collection))), ("Created", .uint64(Self.seconds(collection.created))),
        ("Modified", .uint64(Self.seconds(collection.modified))),
      ]
    case "org.freedesktop.Secret.Item" where path != collection.path:
      let item = try items.item(at: path)
      return [
        ("Locked", .boolean(access.isLocked(path, in: collection, for: caller))),
        ("Attributes", .stringMap(item.attributes)), ("Label", .string(item.label)),
        ("Type", .string(item.attributes["xdg:schema"] ?? "org.freedesktop.Secret.Generic")),
        ("Created", .uint64(Self.seconds(item.created))), ("Modified", .uint64(Self.seconds(item.modified))),
      ]
    default:
      throw .invalidArguments("The object at \(path) has no interface \(interface).")
    }
  }
}

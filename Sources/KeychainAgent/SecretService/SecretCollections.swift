import Foundation
@_spi(KeychainBridge) import Security

/// A collection of the Secret Service: one access group of the store. The default collection
/// (alias `default`, path `.../collection/login`) is the store's default group, the one Apple-API
/// programs use without a policy; a collection a client makes is the group
/// `org.freedesktop.secrets.collection.ID`, so a policy rule naming that group confines it.
struct SecretCollection: Sendable, Equatable {
  static let prefix = "/org/freedesktop/secrets/collection/"
  static let groupPrefix = "org.freedesktop.secrets.collection."
  /// The identifier in the collection's path.
  let id: String
  var label: String
  /// The access group its items are kept in.
  let group: String
  /// Its aliases besides `default` (which only the default collection has).
  var aliases: [String]
  var created: Date?
  var modified: Date?
  /// The executable of the program that made it (nil for the default and session collections,
  /// and for collections made before programs were recorded).
  var creator: String? = nil

  var path: String { Self.prefix + id }

  /// The default collection: the user's keychain.
  static let login = SecretCollection(
    id: "login", label: "Login", group: KeychainAccessGroups.defaultAccessGroup, aliases: [], created: nil,
    modified: nil)

  /// The session collection, as GNOME Keyring has it (alias `session`): its items are kept in the
  /// agent's memory, never in the store, and are gone when the agent stops. It is never locked.
  static let session = SecretCollection(
    id: "session", label: "Session", group: "org.freedesktop.secrets.session", aliases: ["session"], created: nil,
    modified: nil)

  /// Whether this is the session collection, whose items are in memory.
  var isSession: Bool { id == Self.session.id }

  /// The identifier in `path`, when it is a collection's or one of its items'.
  static func id(in path: String) -> Substring? {
    guard path.hasPrefix(prefix) else { return nil }
    return path.dropFirst(prefix.count).prefix { $0 != "/" }
  }
}

/// The collections the Secret Service has made, kept in the store as generic passwords of the
/// Secret Service's own group (`registryGroup`; service `collection`, account the identifier,
/// label the collection's, aliases as JSON in the generic attribute), so that they are sealed,
/// authenticated and synchronised like any item, and readable while the store is locked (only
/// attributes are read). No policy grants that group but `*`.
struct SecretCollections {
  static let registryGroup = "org.freedesktop.secrets"
  /// At most this many collections: each is a group every unnamed program's engine lists.
  static let maximumCount = 256
  /// At most this many made by one program, so that one program cannot use up every other's
  /// (issue 63): a program's junk is bounded, and any program the policy lets delete it can.
  static let maximumPerProgram = 16
  /// The agent whose store keeps them.
  let agent: AgentService

  /// An engine over the store for `groups` (the agent's own, for the registry and a deletion).
  func engine(groups: [String]) -> SecItemEngine { agent.engine(groups: groups) }

  private var registry: SecItemEngine { engine(groups: [Self.registryGroup]) }

  private static func query(id: String? = nil) -> [String: Any] {
    var query: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword, SecConstantValue.attrAccessGroup: registryGroup,
      SecConstantValue.attrService: "collection",
    ]
    if let id { query[SecConstantValue.attrAccount] = id }
    return query
  }

  /// Every collection, the default one first and the session collection last.
  func all() throws(BusError) -> [SecretCollection] {
    var query = Self.query()
    query[SecConstantValue.matchLimit] = SecConstantValue.matchLimitAll
    query[SecConstantValue.returnAttributes] = true
    let rows: [SearchedItem]
    do {
      rows = try registry.searchedItems(try ItemRequest.reading(query as NSDictionary))
    } catch {
      throw SecretItems.busError(error)
    }
    var login = SecretCollection.login
    var made: [SecretCollection] = []
    for row in rows {
      guard let id = row.string(SecConstantValue.attrAccount), Self.isIdentifier(id) else { continue }
      let aliases =
        row.data(SecConstantValue.attrGeneric).flatMap { try? JSONDecoder().decode([String].self, from: $0) } ?? []
      let collection = SecretCollection(
        id: id, label: row.string(SecConstantValue.attrLabel) ?? "",
        group: id == login.id ? login.group : SecretCollection.groupPrefix + id,
        aliases: aliases.filter { $0 != "default" },
        created: row.date(SecConstantValue.attrCreationDate),
        modified: row.date(SecConstantValue.attrModificationDate),
        creator: row.string(SecConstantValue.attrDescription))
      if id == login.id { login = collection } else { made.append(collection) }
    }
    return [login] + made.sorted { $0.id < $1.id } + [.session]
  }

  /// The collection `alias` names, if any.
  func collection(alias: String) throws(BusError) -> SecretCollection? {
    let all = try all()
    return alias == "default" ? all[0] : all.first { $0.aliases.contains(alias) }
  }

  /// Makes a collection labelled `label` (with `alias`, unless empty) for the program whose
  /// executable is `creator`, or gives the one that already has that alias (the specification's
  /// CreateCollection). Says whether it made one.
  func create(label: String, alias: String, by creator: String) throws(BusError) -> (
    collection: SecretCollection, made: Bool
  ) {
    if !alias.isEmpty, let existing = try collection(alias: alias) { return (existing, false) }
    let all = try all()
    guard all.count < Self.maximumCount else { throw .failed("This keyring holds no more collections.") }
    guard all.lazy.filter({ $0.creator == creator }).count < Self.maximumPerProgram else {
      throw .failed(
        "This program has made \(Self.maximumPerProgram) collections, as many as one program may: delete some first.")
    }
    let stem = Self.identifier(from: label)
    var id = stem
    var suffix = 1
    while all.contains(where: { $0.id == id }) {
      suffix += 1
      id = "\(stem)_\(suffix)"
    }
    try write(id: id, label: label, aliases: alias.isEmpty ? [] : [alias], adding: true, creator: creator)
    guard let made = try self.all().first(where: { $0.id == id }) else {
      throw .failed("The new collection could not be read back.")
    }
    return (made, true)
  }

  /// Changes a collection's label.
  func setLabel(_ label: String, of collection: SecretCollection) throws(BusError) {
    guard !collection.isSession else { throw .notSupported("The session collection's label cannot be changed.") }
    try write(id: collection.id, label: label, aliases: collection.aliases, adding: !(try exists(collection.id)))
  }

  /// Points `alias` at `collection`, or at nothing (nil). The default alias stays the keychain's.
  func setAlias(_ alias: String, to collection: SecretCollection?) throws(BusError) {
    guard alias != "default" else {
      throw .notSupported("The default alias names the keychain itself and cannot be moved.")
    }
    guard alias != "session", collection?.isSession != true else {
      throw .notSupported("The session alias names the session collection, which takes no other.")
    }
    guard !alias.isEmpty, alias.count <= 128 else { throw .invalidArguments("An alias is 1 to 128 characters.") }
    for holder in try all() where holder.aliases.contains(alias) && holder.id != collection?.id && !holder.isSession {
      try write(
        id: holder.id, label: holder.label, aliases: holder.aliases.filter { $0 != alias },
        adding: !(try exists(holder.id)))
    }
    if let collection, !collection.aliases.contains(alias) {
      try write(
        id: collection.id, label: collection.label, aliases: collection.aliases + [alias],
        adding: !(try exists(collection.id)))
    }
  }

  /// Deletes a collection the Secret Service made, with every item in it.
  func delete(_ collection: SecretCollection) throws(BusError) {
    guard collection.id != SecretCollection.login.id else {
      throw .notSupported("The default collection is the keychain itself and cannot be deleted.")
    }
    guard !collection.isSession else { throw .notSupported("The session collection cannot be deleted.") }
    let items: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword,
      SecConstantValue.attrAccessGroup: collection.group,
    ]
    do {
      do {
        try engine(groups: [collection.group]).delete(try ItemRequest.reading(items as NSDictionary))
      } catch  where error.code == errSecItemNotFound {}
      try registry.delete(try ItemRequest.reading(Self.query(id: collection.id) as NSDictionary))
    } catch {
      throw SecretItems.busError(error)
    }
  }

  private func exists(_ id: String) throws(BusError) -> Bool {
    do {
      _ = try registry.matchingItems(try ItemRequest.reading(Self.query(id: id) as NSDictionary))
      return true
    } catch  where error.code == errSecItemNotFound {
      return false
    } catch {
      throw SecretItems.busError(error)
    }
  }

  private func write(id: String, label: String, aliases: [String], adding: Bool, creator: String? = nil)
    throws(BusError)
  {
    let encoded = (try? JSONEncoder().encode(aliases)) ?? Data("[]".utf8)
    do {
      if adding {
        var add = Self.query(id: id)
        add[SecConstantValue.attrLabel] = label
        add[SecConstantValue.attrGeneric] = encoded
        if let creator { add[SecConstantValue.attrDescription] = creator }
        add[SecConstantValue.valueData] = Data()
        _ = try registry.add(try ItemRequest.reading(add as NSDictionary))
      } else {
        try registry.update(
          try ItemRequest.reading(Self.query(id: id) as NSDictionary),
          changes: [(SecConstantValue.attrLabel, .string(label)), (SecConstantValue.attrGeneric, .data(encoded))])
      }
    } catch {
      throw SecretItems.busError(error)
    }
  }

  /// A path-safe identifier from a label: letters and digits kept (lowercased), the rest `_`, at
  /// most 32 characters; `collection` for a label with none.
  static func identifier(from label: String) -> String {
    let kept = label.lowercased().unicodeScalars.prefix(32).map {
      ($0.isASCII && (CharacterSet.alphanumerics.contains($0))) ? Character($0) : "_"
    }
    let id = String(kept)
    return id.contains(where: { $0 != "_" }) && id != SecretCollection.login.id && id != SecretCollection.session.id
      ? id : "collection"
  }

  static func isIdentifier(_ id: String) -> Bool {
    !id.isEmpty && id.count <= 40 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
  }
}

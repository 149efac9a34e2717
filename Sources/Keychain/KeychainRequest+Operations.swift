import Foundation
@_spi(KeychainBridge) import Security

extension KeychainRequest {
  // MARK: Adding

  /// Adds the described item, with `data` as its secret when given.
  public func add(_ data: Data? = nil) -> Result<Void, KeychainError> {
    KeychainFunctions.itemAddEntries(dictionary.setting(kSecValueData, data.map { .data($0) }).runtimeEntries)
  }

  /// Adds the described item with a UTF-8 string as its secret.
  public func add(_ string: String) -> Result<Void, KeychainError> { add(Data(string.utf8)) }

  /// Adds the described item with `value`, encoded as JSON, as its secret.
  public func add<Value: Encodable>(json value: Value) -> Result<Void, KeychainError> {
    Self.encodeJSON(value).flatMap { add($0) }
  }

  /// Adds the described item and returns its persistent reference.
  public func addReturningReference(_ data: Data? = nil) -> Result<PersistentReference, KeychainError> {
    var dictionary = dictionary.setting(kSecValueData, data.map { .data($0) })
    dictionary[kSecReturnPersistentRef] = .boolean(true)
    // A result is shaped from a CFDictionary: the add goes through SecItemAdd's own wrapper.
    return KeychainFunctions.itemAdd(dictionary.cfDictionary).flatMap { result in
      guard let reference = result as? Data else { return .failure(KeychainError(status: errSecDecode)) }
      return .success(PersistentReference(reference))
    }
  }

  /// Stores `data` as the secret of the described item, updating it or adding it, in one
  /// transaction: unlike delete-then-add, a failure leaves the old item as it was.
  ///
  /// The item is found by its identity, the attributes that make two items the same item on Apple's
  /// keychain: the class's primary key (for generic passwords the account and service, for internet
  /// passwords the account, security domain, server, protocol, authentication type, port and path),
  /// with the value an add would give the ones this description leaves out, plus the access group
  /// and the synchronizable flag. Every other attribute of the description (label, accessibility,
  /// comment...) is applied as a change, so `token.label("x").set("new")` relabels the existing
  /// item instead of failing as a duplicate. A description made from a persistent reference
  /// finds exactly that item.
  public func set(_ data: Data) -> Result<Void, KeychainError> {
    let (query, descriptive) = identityAndDescription
    return KeychainFunctions.itemUpsert(
      query.cfDictionary, descriptive.setting(kSecValueData, .data(data)).cfDictionary)
  }

  /// `set(_:)` that also applies `changes`, to the item found or to the one added.
  public func set(_ data: Data, changing changes: Changes) -> Result<Void, KeychainError> {
    let (query, descriptive) = identityAndDescription
    var attributesToUpdate = descriptive
    for (key, value) in changes.attributes.entries { attributesToUpdate[key] = value }
    attributesToUpdate[kSecValueData] = .data(data)
    return KeychainFunctions.itemUpsert(query.cfDictionary, attributesToUpdate.cfDictionary)
  }

  /// The description split into the query that identifies one item and the attributes that only
  /// describe it (see `set(_:)`).
  var identityAndDescription: (identity: KeychainDictionary, description: KeychainDictionary) {
    let entries = dictionary.entries
    guard case .string(let className)? = entries[kSecClass as String],
      let schema = SecItemClassSchema(itemClass: className)
    else { return (KeychainDictionary(entries), KeychainDictionary()) }
    if entries[kSecValuePersistentRef as String] != nil {
      // A reference identifies the item alone: every attribute becomes a change (rule 6.8).
      return (
        KeychainDictionary(entries.filter { !schema.attributes.contains($0.key) }),
        KeychainDictionary(entries.filter { schema.attributes.contains($0.key) })
      )
    }
    let describesOnly = { (key: String) in
      schema.attributes.contains(key) && key != kSecAttrAccessGroup as String
        && key != kSecAttrSynchronizable as String && !schema.primaryKey.contains(key)
    }
    var identity = entries.filter { !describesOnly($0.key) }
    for (key, value) in schema.primaryKeyDefaults where identity[key] == nil {
      switch value {
      case let text as String: identity[key] = .string(text)
      case let number as Int: identity[key] = .integer(number)
      case let bytes as Data: identity[key] = .data(bytes)
      default: break
      }
    }
    return (KeychainDictionary(identity), KeychainDictionary(entries.filter { describesOnly($0.key) }))
  }

  /// `set(_:)` with a UTF-8 string.
  public func set(_ string: String) -> Result<Void, KeychainError> { set(Data(string.utf8)) }

  /// `set(_:)` with `value` encoded as JSON.
  public func set<Value: Encodable>(json value: Value) -> Result<Void, KeychainError> {
    Self.encodeJSON(value).flatMap { set($0) }
  }

  // MARK: Reading

  /// The secret of the first matching item, or nil when nothing matches.
  public func data() -> Result<Data?, KeychainError> {
    // An item without a secret answers empty data, as SecItemCopyMatching does (decision 2).
    first(search([kSecReturnData], limit: .string(kSecMatchLimitOne.description))) { $0.data(at: $1) }
  }

  /// The secret of the first matching item as UTF-8 text, or nil when nothing matches.
  public func string() -> Result<String?, KeychainError> {
    data().flatMap { data in
      guard let data else { return .success(nil) }
      guard let string = String(data: data, encoding: .utf8) else {
        return .failure(KeychainError(status: errSecDecode))
      }
      return .success(string)
    }
  }

  /// The secret of the first matching item decoded from JSON, or nil when nothing matches.
  public func decode<Value: Decodable>(_ type: Value.Type) -> Result<Value?, KeychainError> {
    data().flatMap { data in
      guard let data else { return .success(nil) }
      do {
        return .success(try JSONDecoder().decode(type, from: data))
      } catch {
        return .failure(.decodingFailed(KeychainCodingFailure(error, valueType: type)))
      }
    }
  }

  /// The first matching item with its attributes and reference (and data when asked), or nil.
  public func item(includingData: Bool = false) -> Result<Item?, KeychainError> {
    var returning = [kSecReturnAttributes, kSecReturnPersistentRef]
    if includingData { returning.append(kSecReturnData) }
    if Self.returnsReferences { returning.append(kSecReturnRef) }
    return copyMatching(search(returning, limit: .string(kSecMatchLimitOne.description))).flatMap { found in
      switch found {
      case nil: return .success(nil)
      case .items(let items)?:
        return .success(items.count > 0 ? Item(result: ItemAttributes(items.item(at: 0))) : nil)
      case .identities(let result)?:
        guard let result else { return .success(nil) }
        return Self.item(from: result).map { .success($0) } ?? .failure(KeychainError(status: errSecDecode))
      }
    }
  }

  /// One element of an identity search's result as a typed item: what SecItemCopyMatching hands out
  /// (an NSDictionary, or an array element swift-corelibs-foundation already bridged to a Swift
  /// dictionary); nil for anything else.
  private static func item(from element: Any) -> Item? {
    switch element {
    case let dictionary as [AnyHashable: Any]: Item(result: ItemAttributes(dictionary))
    case let dictionary as NSDictionary: Item(result: ItemAttributes(dictionary))
    default: nil
    }
  }

  /// Every matching item in insertion order (at most `limit`), with data when asked.
  public func all(includingData: Bool = false, limit: Int? = nil) -> Result<[Item], KeychainError> {
    var returning = [kSecReturnAttributes, kSecReturnPersistentRef]
    if includingData { returning.append(kSecReturnData) }
    if Self.returnsReferences { returning.append(kSecReturnRef) }
    let matchLimit: KeychainValue = limit.map { .integer($0) } ?? .string(kSecMatchLimitAll.description)
    return copyMatching(search(returning, limit: matchLimit)).flatMap { found in
      let result: CFTypeRef
      switch found {
      case nil, .identities(nil)?: return .success([])
      case .items(let items)?:
        return .success((0..<items.count).map { Item(result: ItemAttributes(items.item(at: $0))) })
      case .identities(let identities?)?: result = identities
      }
      // An identity search's NSArray. `result as? [NSDictionary]` would bridge each element to a
      // Swift dictionary and back.
      guard let array = result as? NSArray else { return .failure(KeychainError(status: errSecDecode)) }
      let elements = (0..<array.count).map { array.object(at: $0) }
      var items: [Item] = []
      items.reserveCapacity(elements.count)
      for element in elements {
        guard let item = Self.item(from: element) else { return .failure(KeychainError(status: errSecDecode)) }
        items.append(item)
      }
      return .success(items)
    }
  }

  /// The persistent reference of the first matching item, or nil.
  public func reference() -> Result<PersistentReference?, KeychainError> {
    first(search([kSecReturnPersistentRef], limit: .string(kSecMatchLimitOne.description))) {
      $0.persistentReference(at: $1)
    }.map { $0.map(PersistentReference.init) }
  }

  /// Whether any item matches.
  public func exists() -> Result<Bool, KeychainError> {
    KeychainFunctions.itemCopyMatchingEntriesExists(search([], limit: nil).runtimeEntries)
  }

  // MARK: Changing

  /// Changes every matching item: the attributes `changes` sets, and the secret when `data` is
  /// given. Returns false when nothing matched.
  public func update(_ changes: Changes? = nil, data: Data? = nil) -> Result<Bool, KeychainError> {
    var attributesToUpdate = changes?.attributes ?? KeychainDictionary()
    attributesToUpdate[kSecValueData] = data.map { .data($0) }
    return Self.changedAny(
      KeychainFunctions.itemUpdateEntries(dictionary.runtimeEntries, attributesToUpdate.runtimeEntries))
  }

  /// Deletes every matching item. Returns false when nothing matched.
  public func delete() -> Result<Bool, KeychainError> {
    Self.changedAny(KeychainFunctions.itemDeleteEntries(dictionary.runtimeEntries))
  }
}

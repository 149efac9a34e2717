import Foundation
@_spi(KeychainBridge) import Security

/// A typed description of keychain items of one class: what to add, or what to find, change or
/// delete. The generated builders (`GenericPassword`, `InternetPassword`...) conform.
///
/// Every operation lowers to exactly one dictionary (two for an update) and one SecItem call.
public protocol KeychainRequest: Sendable, Hashable {
  /// The typed result item of this class.
  associatedtype Item: KeychainItem

  /// The dictionary this description lowers to, `kSecClass` included.
  var attributes: KeychainDictionary { get }

  /// Wraps a lowered dictionary (the generated setters build on it).
  init(lowered attributes: KeychainDictionary)

  /// Whether `item()` and `all()` ask for each item's ref (kSecReturnRef): true for the classes
  /// whose items have one (keys, certificates, identities), so their typed items carry it.
  static var returnsReferences: Bool { get }
}

extension KeychainRequest {
  /// Password items have no ref type.
  public static var returnsReferences: Bool { false }
}

/// A typed item as a search returns it.
public protocol KeychainItem: Sendable, Hashable {
  /// Reads the item from a search result.
  init(result: ItemAttributes)

  /// The item's secret, when the search asked for it.
  var data: Data? { get }

  /// The item's persistent reference.
  var persistentReference: PersistentReference? { get }
}

/// The attributes of one search result, read with their Swift types.
public struct ItemAttributes: @unchecked Sendable {
  // The values are immutable Foundation objects or Swift values; the @unchecked is for their type.
  private let values: [String: Any]
  /// A result of the typed search, read without casts; when set, `values` is empty.
  private let searched: SearchedItem?

  /// Copies a single result into a Swift dictionary once: Foundation's NSDictionary on Linux compares
  /// keys through NSString bridging on every lookup, which made reading a typed item's 33 fields slow.
  init(_ dictionary: NSDictionary) {
    var values: [String: Any] = [:]
    values.reserveCapacity(dictionary.count)
    for (key, value) in dictionary.stringKeyedEntries() { values[key] = value }
    self.values = values
    searched = nil
  }

  /// Reads an element of a result array, which swift-corelibs-foundation hands out already bridged
  /// to a Swift dictionary (its values as String, Data, Date, Bool or NSNumber).
  init(_ dictionary: [AnyHashable: Any]) {
    var values: [String: Any] = [:]
    values.reserveCapacity(dictionary.count)
    for (key, value) in dictionary {
      if let key = key.base as? String { values[key] = value }
    }
    self.values = values
    searched = nil
  }

  /// Reads a result of the runtime's typed search.
  init(_ searched: SearchedItem) {
    values = [:]
    self.searched = searched
  }

  /// The value for a key constant; a constant's `description` is its stored String, so no bridging.
  private func value(_ key: CFString) -> Any? {
    guard let searched else { return values[key.description] }
    return searched.value(key.description)
  }

  /// The object for `key` (kSecValueRef) when it is a `Reference` (SecKey, SecCertificate...).
  public func reference<Reference>(_ key: CFString, as type: Reference.Type) -> Reference? {
    value(key) as? Reference
  }

  // Each accessor tries the type the attribute is normally stored with first: a failed cast
  // between bridged types costs a temporary Foundation object.

  /// A text attribute; one stored as UTF-8 data reads as text too (the keychain keeps the caller's type).
  public func string(_ key: CFString) -> String? {
    if let searched { return searched.string(key.description) }
    return switch value(key) {
    case let value as String: value
    case let value as Data: String(data: value, encoding: .utf8)
    case let value as NSNumber: value.stringValue
    default: nil
    }
  }

  /// A number attribute.
  public func integer(_ key: CFString) -> Int? {
    if let searched { return searched.integer(key.description) }
    return switch value(key) {
    case let value as NSNumber: value.intValue
    case let value as String: Int(value)
    default: nil
    }
  }

  /// A boolean attribute (stored as 0 or 1).
  public func boolean(_ key: CFString) -> Bool? { integer(key).map { $0 != 0 } }

  /// A date attribute.
  public func date(_ key: CFString) -> Date? {
    if let searched { return searched.date(key.description) }
    return value(key) as? Date
  }

  /// A data attribute; text reads as its UTF-8 bytes.
  public func data(_ key: CFString) -> Data? {
    if let searched { return searched.data(key.description) }
    return switch value(key) {
    case let value as Data: value
    case let value as String: Data(value.utf8)
    default: nil
    }
  }

  /// An access control attribute.
  public func accessControl(_ key: CFString) -> SecAccessControl? {
    value(key) as? SecAccessControl
  }

  /// The raw constant value of an attribute whose values are constants.
  public func constant(_ key: CFString) -> String? {
    if let searched { return searched.constant(key.description) }
    // Numeric constants (a key's type, "73") come back as numbers, as Apple returns them.
    if let number = value(key) as? NSNumber, !(value(key) is String) { return number.stringValue }
    return value(key) as? String
  }
}

/// Which SecItem function a call goes to.
public enum KeychainFunction: String, Sendable {
  case add = "SecItemAdd"
  case copyMatching = "SecItemCopyMatching"
  case update = "SecItemUpdate"
  case delete = "SecItemDelete"
  /// The runtime's one-transaction update-or-add (`SecItemUpsert`).
  case upsert = "SecItemUpsert"
  /// The runtime's one-transaction import (`SecItemImport`).
  case importItems = "SecItemImport"
}

/// One SecItem call as the DSL made it: the function and its dictionaries.
public struct KeychainCall: Hashable, Sendable, CustomStringConvertible {
  /// The SecItem function called.
  public var function: KeychainFunction
  /// The first dictionary: attributes (add) or query (the others).
  public var dictionary: KeychainDictionary
  /// attributesToUpdate, for update and upsert.
  public var changes: KeychainDictionary?
  /// The status the call returned.
  public var status: OSStatus

  /// Describes a call.
  public init(
    function: KeychainFunction, dictionary: KeychainDictionary, changes: KeychainDictionary?, status: OSStatus
  ) {
    self.function = function
    self.dictionary = dictionary
    self.changes = changes
    self.status = status
  }

  /// The call as it reads in code: `SecItemAdd([kSecClass: kSecClassGenericPassword, ...]) -> 0`.
  public var description: String {
    "\(function.rawValue)(\(dictionary)" + (changes.map { ", \($0)" } ?? "") + ") -> \(status)"
  }
}

extension KeychainCall {
  /// A call the runtime recorded, its dictionaries typed (a value the DSL never produces shows
  /// as "<untyped>").
  init(_ record: SecItemCallRecord) {
    func typed(_ dictionary: NSDictionary) -> KeychainDictionary {
      KeychainDictionary(dictionary) ?? KeychainDictionary(["<untyped>": .string(dictionary.description)])
    }
    let function: KeychainFunction
    switch record.function {
    case .add: function = .add
    case .copyMatching: function = .copyMatching
    case .update: function = .update
    case .delete: function = .delete
    case .upsert: function = .upsert
    case .importItems: function = .importItems
    }
    self.init(
      function: function, dictionary: typed(record.dictionary), changes: record.changes.map(typed),
      status: record.status)
  }
}

/// Records every SecItem call made inside `body` on this task, by the DSL or by raw code: what the
/// equivalence tests compare. The runtime's recorder observes both at the same boundary.
public func recordingKeychainCalls<T>(_ body: () throws -> T) rethrows -> (result: T, calls: [KeychainCall]) {
  let (result, records) = try withSecItemCallRecording(body)
  return (result, records.map(KeychainCall.init))
}

/// Performs one call through the wrappers secgen generates from the headers (KeychainFunctions),
/// as the status the callers here decide on.
///
/// A search's wrapper folds errSecItemNotFound into `.success(nil)`, which cannot tell "nothing
/// found" from "found, and nothing asked to be returned": `exists()` needs that difference, so
/// searches without a return key call SecItemCopyMatching itself. The upsert is the runtime's own
/// SPI, which no header declares.
func perform(
  _ function: KeychainFunction, _ dictionary: KeychainDictionary, changes: KeychainDictionary? = nil,
  result: UnsafeMutablePointer<CFTypeRef?>? = nil
) -> OSStatus {
  func status<Value>(_ outcome: Result<Value, KeychainError>, _ deliver: (Value) -> Void = { _ in }) -> OSStatus {
    switch outcome {
    case .success(let value):
      deliver(value)
      return errSecSuccess
    case .failure(let error): return error.status
    }
  }
  switch function {
  case .add where result == nil:
    // The typed entry point: the same rules without building an NSDictionary (unless recording).
    return SecItemCallEntries(.add, dictionary.swiftEntries, foundationDictionary: { dictionary.cfDictionary })
  case .add:
    return status(KeychainFunctions.itemAdd(dictionary.cfDictionary)) { value in result?.pointee = value }
  case .copyMatching where result != nil:
    return status(KeychainFunctions.itemCopyMatching(dictionary.cfDictionary)) { value in
      result?.pointee = value
    }
  case .copyMatching: return SecItemCopyMatching(dictionary.cfDictionary, nil)
  case .update:
    return SecItemCallEntries(
      .update, dictionary.swiftEntries, changes: changes!.swiftEntries,
      foundationDictionary: { dictionary.cfDictionary }, foundationChanges: { changes!.cfDictionary })
  case .delete:
    return SecItemCallEntries(.delete, dictionary.swiftEntries, foundationDictionary: { dictionary.cfDictionary })
  case .upsert: return SecItemUpsert(dictionary.cfDictionary, changes!.cfDictionary)
  case .importItems: return errSecUnimplemented  // the DSL never imports; the case names recorded imports
  }
}

/// The keys that say what a search returns; they never belong in an add or in attributesToUpdate.
/// Built once: every operation removes them.
private let searchOnlyKeys: Set<String> = Set(
  [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef, kSecMatchLimit].map { $0 as String })

/// searchOnlyKeys plus the keys that identify rather than describe an item.
private let identityAndSearchKeys: Set<String> = searchOnlyKeys.union([
  kSecClass as String, kSecValuePersistentRef as String,
])

extension KeychainRequest {
  /// This description with another entry.
  func with(_ key: CFString, _ value: KeychainValue?) -> Self {
    Self(lowered: attributes.setting(key, value))
  }

  func search(_ returning: [CFString], limit: KeychainValue?) -> KeychainDictionary {
    var query = attributes.removingKeys(searchOnlyKeys)
    for key in returning { query[key] = .boolean(true) }
    query[kSecMatchLimit] = limit
    return query
  }

  /// A search through the runtime's typed entry point: the query's entries and the results stay
  /// Swift values (no Foundation dictionary on either side, the largest cost of a lookup on Linux),
  /// while the runtime applies SecItemCopyMatching's rules and records the same dictionary.
  func copyMatching(_ query: KeychainDictionary) -> Result<Any?, KeychainError> {
    let (status, result) = SecItemCopyMatchingEntries(query.swiftEntries) { query.cfDictionary }
    switch status {
    case errSecSuccess: return .success(result)
    case errSecItemNotFound: return .success(nil)
    default: return .failure(KeychainError(status: status))
    }
  }

  /// Adds the item `reference` (kSecValueRef) stands for; the class comes from the ref.
  func addReference(_ reference: KeychainValue) -> Result<Void, KeychainError> {
    var dictionary = attributes.removingKeys([kSecClass as String])
    dictionary[kSecValueRef] = reference
    return Self.status(perform(.add, dictionary))
  }

  /// The first match's ref as a `Reference` (SecKey, SecCertificate, SecIdentity), or nil when
  /// nothing matches.
  func firstReference<Reference>(as type: Reference.Type) -> Result<Reference?, KeychainError> {
    copyMatching(search([kSecReturnRef], limit: .string(kSecMatchLimitOne.description))).flatMap { result in
      guard let result else { return .success(nil) }
      guard let reference = result as? Reference else { return .failure(KeychainError(status: errSecDecode)) }
      return .success(reference)
    }
  }

  static func status(_ status: OSStatus) -> Result<Void, KeychainError> {
    status == errSecSuccess ? .success(()) : .failure(KeychainError(status: status))
  }

  private static func encodeJSON<T: Encodable>(_ value: T) -> Result<Data, KeychainError> {
    // Sorted keys: the same value always gives the same bytes (Foundation's order is not stable).
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    do {
      return .success(try encoder.encode(value))
    } catch {
      return .failure(.encodingFailed(KeychainCodingFailure(error, valueType: T.self)))
    }
  }

  // MARK: Adding

  /// Adds the described item, with `data` as its secret when given.
  public func add(_ data: Data? = nil) -> Result<Void, KeychainError> {
    let dictionary = attributes.removingKeys(searchOnlyKeys).setting(kSecValueData, data.map { .data($0) })
    return Self.status(perform(.add, dictionary))
  }

  /// Adds the described item with a UTF-8 string as its secret.
  public func add(_ string: String) -> Result<Void, KeychainError> { add(Data(string.utf8)) }

  /// Adds the described item with `value`, encoded as JSON, as its secret.
  public func add<Value: Encodable>(json value: Value) -> Result<Void, KeychainError> {
    Self.encodeJSON(value).flatMap { add($0) }
  }

  /// Adds the described item and returns its persistent reference.
  public func addReturningReference(_ data: Data? = nil) -> Result<PersistentReference, KeychainError> {
    var dictionary = attributes.removingKeys(searchOnlyKeys).setting(kSecValueData, data.map { .data($0) })
    dictionary[kSecReturnPersistentRef] = .boolean(true)
    var result: CFTypeRef?
    let status = perform(.add, dictionary, result: &result)
    guard status == errSecSuccess else { return .failure(KeychainError(status: status)) }
    guard let reference = result as? Data else { return .failure(KeychainError(status: errSecDecode)) }
    return .success(PersistentReference(reference))
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
    return Self.status(perform(.upsert, query, changes: descriptive.setting(kSecValueData, .data(data))))
  }

  /// `set(_:)` that also applies the attributes `changes` sets (its class and primary key aside).
  public func set(_ data: Data, changing changes: Self) -> Result<Void, KeychainError> {
    let (query, descriptive) = identityAndDescription
    var attributesToUpdate = descriptive
    for (key, value) in changes.attributes.removingKeys(identityAndSearchKeys).entries {
      attributesToUpdate[key] = value
    }
    attributesToUpdate[kSecValueData] = .data(data)
    return Self.status(perform(.upsert, query, changes: attributesToUpdate))
  }

  /// The description split into the query that identifies one item and the attributes that only
  /// describe it (see `set(_:)`).
  var identityAndDescription: (identity: KeychainDictionary, description: KeychainDictionary) {
    let entries = attributes.removingKeys(searchOnlyKeys).entries
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
    copyMatching(search([kSecReturnData], limit: .string(kSecMatchLimitOne.description))).flatMap { result in
      guard let result else { return .success(nil) }
      guard let data = result as? Data else { return .failure(KeychainError(status: errSecDecode)) }
      return .success(data)
    }
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
    return copyMatching(search(returning, limit: .string(kSecMatchLimitOne.description))).flatMap { result in
      guard let result else { return .success(nil) }
      return Self.item(from: result).map { .success($0) } ?? .failure(KeychainError(status: errSecDecode))
    }
  }

  /// One result element as a typed item: a typed search's `SearchedItem`, or what SecItemCopyMatching
  /// hands out (an NSDictionary, or an array element swift-corelibs-foundation already bridged to a
  /// Swift dictionary); nil for anything else.
  private static func item(from element: Any) -> Item? {
    switch element {
    case let searched as SearchedItem: Item(result: ItemAttributes(searched))
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
    return copyMatching(search(returning, limit: matchLimit)).flatMap { result in
      guard let result else { return .success([]) }
      // The typed search's Swift array; a query by ref or persistent reference answers through
      // SecItemCopyMatching, with an NSArray (which casts to [Any] too, and a Swift array to
      // NSArray, so the dynamic type decides).
      // `result as? [NSDictionary]` would bridge each element to a Swift dictionary and back.
      let elements: [Any]
      if type(of: result) == [Any].self, let values = result as? [Any] {
        elements = values
      } else if let array = result as? NSArray {
        elements = (0..<array.count).map { array.object(at: $0) }
      } else {
        return .failure(KeychainError(status: errSecDecode))
      }
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
    copyMatching(search([kSecReturnPersistentRef], limit: .string(kSecMatchLimitOne.description))).flatMap { result in
      guard let result else { return .success(nil) }
      guard let data = result as? Data else { return .failure(KeychainError(status: errSecDecode)) }
      return .success(PersistentReference(data))
    }
  }

  /// Whether any item matches.
  public func exists() -> Result<Bool, KeychainError> {
    let status = perform(.copyMatching, search([], limit: nil))
    switch status {
    case errSecSuccess: return .success(true)
    case errSecItemNotFound: return .success(false)
    default: return .failure(KeychainError(status: status))
    }
  }

  // MARK: Changing

  /// Changes every matching item: the attributes `changes` sets, and the secret when `data` is
  /// given. Returns false when nothing matched.
  public func update(_ changes: Self? = nil, data: Data? = nil) -> Result<Bool, KeychainError> {
    var attributesToUpdate = (changes?.attributes ?? KeychainDictionary())
      .removingKeys(identityAndSearchKeys)
    attributesToUpdate[kSecValueData] = data.map { .data($0) }
    let status = perform(.update, attributes.removingKeys(searchOnlyKeys), changes: attributesToUpdate)
    switch status {
    case errSecSuccess: return .success(true)
    case errSecItemNotFound: return .success(false)
    default: return .failure(KeychainError(status: status))
    }
  }

  /// Deletes every matching item. Returns false when nothing matched.
  public func delete() -> Result<Bool, KeychainError> {
    let status = perform(.delete, attributes.removingKeys(searchOnlyKeys))
    switch status {
    case errSecSuccess: return .success(true)
    case errSecItemNotFound: return .success(false)
    default: return .failure(KeychainError(status: status))
    }
  }
}

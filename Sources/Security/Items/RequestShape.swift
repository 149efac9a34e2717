/// What the key grammar of rule 1 makes of one key of a request, before its value is read.
///
/// Every check that depends on the key alone (is it a key SecItem calls accept, an attribute of
/// the class, a return or use key Apple defines) is made when the role is decided; the checks of
/// the value (types, nulls, the kSecUseAuthenticationUI values, the access control) are made by
/// `ItemRequest.apply` on every call.
enum KeyRole: Sendable {
  /// kSecClass, read before the other keys.
  case itemClass
  /// kSecValueRef or kSecValuePersistentRef, read before the other keys.
  case reference
  /// A key that has no effect: the callback keys (rule 1.3), kSecUseDataProtectionKeychain (1.5).
  case ignored
  /// An attribute of the request's class.
  case attribute(AttributeDefinition)
  /// A kSecMatch key.
  case match
  /// A kSecReturn key.
  case returnFlag(ReturnFlags)
  /// A kSecUse key Apple defines.
  case use
  /// kSecValueData.
  case valueData

  /// The use keys Apple defines, as the headers declare them (Generated/SecItemSchema.swift).
  private static let knownUseKeys = ItemSchemaDefinitions.useKeys

  /// The role of `key` in a request of `itemClass`, or the error the key alone earns.
  init(of key: String, itemClass: ItemClass?) throws(SecStatus) {
    if key.utf8.count == 4 {
      // kSecUseDataProtectionKeychain is always true here (rule 1.5).
      if key == SecConstantValue.useDataProtectionKeychain {
        self = .ignored
        return
      }
      guard let itemClass else {
        throw SecStatus.param.naming(SecConstantValue.`class`, "is missing, so attributes have no meaning")
      }
      guard let definition = ItemSchema.attribute(key, of: itemClass) else {
        throw SecStatus.noSuchAttribute.naming(
          key, "is not an attribute of \(SecConstantNames.name(for: itemClass.rawValue) ?? itemClass.rawValue)")
      }
      self = .attribute(definition)
      return
    }
    switch key.first {
    case "c" where key == SecConstantValue.`class`:
      self = .itemClass
    case "m":
      self = .match
    case "r":
      switch key {
      case SecConstantValue.returnData: self = .returnFlag(.data)
      case SecConstantValue.returnAttributes: self = .returnFlag(.attributes)
      case SecConstantValue.returnRef: self = .returnFlag(.ref)
      case SecConstantValue.returnPersistentRef: self = .returnFlag(.persistentRef)
      default: throw SecStatus.param.naming(key, "is not a return key")
      }
    case "u":
      guard Self.knownUseKeys.contains(key) else { throw SecStatus.param.naming(key, "is not a use key") }
      self = .use
    case "v":
      switch key {
      case SecConstantValue.valueData: self = .valueData
      case SecConstantValue.valueRef, SecConstantValue.valuePersistentRef: self = .reference
      default: throw SecStatus.param.naming(key, "is not a value key")
      }
    case "f":
      self = .ignored
    default:
      throw SecStatus.param.naming(key, "is not a key SecItem calls accept")
    }
  }
}

/// The roles of one key set in requests of one class: rule 1's verdict on the keys, decided once
/// per shape of request (issue 34's compiled queries).
///
/// A builder or a CF caller sends the same few key sets over and over with different values, so
/// the lookups in the schema tables a key's role takes are made once per shape. A shape is a key
/// set, not a key sequence: a dictionary's entries come in an order that depends on where its
/// storage lies, so two equal key sets are matched whatever their order.
struct RequestShape: Sendable {
  let itemClass: ItemClass?
  let keys: [String]
  let roles: [KeyRole]
  /// How many of the keys are attributes.
  let attributeCount: Int

  /// The shape of `entries` in a request of `itemClass`, or nil when a key is not valid there
  /// (such requests are parsed key by key, so their error is the one the first bad key earns).
  init?(itemClass: ItemClass?, _ entries: RequestEntries) {
    var keys: [String] = []
    var roles: [KeyRole] = []
    keys.reserveCapacity(entries.count)
    roles.reserveCapacity(entries.count)
    for (key, _) in entries {
      guard let role = try? KeyRole(of: key, itemClass: itemClass) else { return nil }
      keys.append(key)
      roles.append(role)
    }
    self.itemClass = itemClass
    self.keys = keys
    self.roles = roles
    attributeCount = roles.count { if case .attribute = $0 { true } else { false } }
  }

  /// Whether `entries` have exactly this shape's keys, in any order.
  ///
  /// A dictionary holds each key once, so the same count and every key found means the same set.
  /// The keys are short and compared without hashing: a few comparisons of inline strings cost
  /// less than hashing each key once.
  func matches(itemClass: ItemClass?, _ entries: RequestEntries) -> Bool {
    guard self.itemClass == itemClass, keys.count == entries.count else { return false }
    return !entries.containsKey { !keys.contains($0) }
  }

  /// The role of `key` in this shape, or nil when it is not one of its keys.
  func role(of key: String) -> KeyRole? {
    for index in keys.indices where keys[index] == key { return roles[index] }
    return nil
  }
}

/// The request shapes each thread has seen, newest first (the grammar depends on the headers only,
/// so every store shares them).
///
/// Per thread (`ThreadLocalValue`): every lookup reads this cache, and behind one lock it cost two
/// reading threads a tenth of their throughput. A thread decides each shape it uses once. Bounded:
/// a thread that builds more than `capacity` shapes (a fuzzer, say) keeps the latest ones, and a
/// request of any other shape is parsed key by key, as it would be without the cache.
final class RequestShapes: Sendable {
  static let shared = RequestShapes()
  static let capacity = 32

  private let shapes = ThreadLocalValue<[RequestShape]> { [] }

  /// The shape of `entries` in a request of `itemClass`, decided now if this thread has not seen
  /// it yet; nil when one of its keys is not valid there.
  func shape(itemClass: ItemClass?, _ entries: RequestEntries) -> RequestShape? {
    shapes.withValue { shapes in
      if let shape = shapes.first(where: { $0.matches(itemClass: itemClass, entries) }) { return shape }
      guard let shape = RequestShape(itemClass: itemClass, entries) else { return nil }
      shapes.insert(shape, at: 0)
      if shapes.count > Self.capacity { shapes.removeLast() }
      return shape
    }
  }

  /// How many shapes the calling thread keeps, for tests of the bound.
  var count: Int { shapes.withValue { $0.count } }
}

import Foundation
@_spi(KeychainBridge) import Security

/// The attributes of one search result, read with their Swift types.
public struct ItemAttributes: @unchecked Sendable {
  // The values are immutable Foundation objects or Swift values; the @unchecked is for their type.
  private let values: [String: Any]
  /// A result of the typed search, read without casts; when set, `values` is empty.
  private let searched: SearchedItem?

  /// Copies a single result into a Swift dictionary once: Foundation's NSDictionary on Linux compares
  /// keys through NSString bridging on every lookup, which made reading a typed item's 33 fields slow.
  init(_ dictionary: NSDictionary) {
    var values = [String: Any](minimumCapacity: dictionary.count)
    for (key, value) in dictionary.stringKeyedEntries() { values[key] = value }
    self.values = values
    searched = nil
  }

  /// Reads an element of a result array, which swift-corelibs-foundation hands out already bridged
  /// to a Swift dictionary (its values as String, Data, Date, Bool or NSNumber).
  init(_ dictionary: [AnyHashable: Any]) {
    var values = [String: Any](minimumCapacity: dictionary.count)
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

  // Each reader has two forms: the public one takes a key constant, whose `description` is its
  // stored String (no bridging); the generated items' `init(result:)` passes that String itself
  // (`ResultKeys`), which costs no call into Security and no reference count per field.

  private func value(_ key: String) -> Any? {
    guard let searched else { return values[key] }
    return searched.value(key)
  }

  /// The object for `key` (kSecValueRef) when it is a `Reference` (SecKey, SecCertificate...).
  public func reference<Reference>(_ key: CFString, as type: Reference.Type) -> Reference? {
    reference(key.description, as: type)
  }

  func reference<Reference>(_ key: String, as type: Reference.Type) -> Reference? {
    value(key) as? Reference
  }

  // Each accessor tries the type the attribute is normally stored with first: a failed cast
  // between bridged types costs a temporary Foundation object.

  /// A text attribute; one stored as UTF-8 data reads as text too (the keychain keeps the caller's type).
  public func string(_ key: CFString) -> String? { string(key.description) }

  func string(_ key: String) -> String? {
    if let searched { return searched.string(key) }
    return switch value(key) {
    case let value as String: value
    case let value as Data: String(data: value, encoding: .utf8)
    case let value as NSNumber: value.stringValue
    default: nil
    }
  }

  /// A number attribute.
  public func integer(_ key: CFString) -> Int? { integer(key.description) }

  func integer(_ key: String) -> Int? {
    if let searched { return searched.integer(key) }
    return switch value(key) {
    case let value as NSNumber: value.intValue
    case let value as String: Int(value)
    default: nil
    }
  }

  /// A boolean attribute (stored as 0 or 1).
  public func boolean(_ key: CFString) -> Bool? { boolean(key.description) }

  func boolean(_ key: String) -> Bool? { integer(key).map { $0 != 0 } }

  /// A date attribute.
  public func date(_ key: CFString) -> Date? { date(key.description) }

  func date(_ key: String) -> Date? {
    if let searched { return searched.date(key) }
    return value(key) as? Date
  }

  /// A data attribute; text reads as its UTF-8 bytes.
  public func data(_ key: CFString) -> Data? { data(key.description) }

  func data(_ key: String) -> Data? {
    if let searched { return searched.data(key) }
    return switch value(key) {
    case let value as Data: value
    case let value as String: Data(value.utf8)
    default: nil
    }
  }

  /// An access control attribute.
  public func accessControl(_ key: CFString) -> SecAccessControl? { accessControl(key.description) }

  func accessControl(_ key: String) -> SecAccessControl? {
    value(key) as? SecAccessControl
  }

  /// The raw constant value of an attribute whose values are constants.
  public func constant(_ key: CFString) -> String? { constant(key.description) }

  func constant(_ key: String) -> String? {
    if let searched { return searched.constant(key) }
    // Numeric constants (a key's type, "73") come back as numbers, as Apple returns them.
    if let number = value(key) as? NSNumber, !(value(key) is String) { return number.stringValue }
    return value(key) as? String
  }
}

import Foundation
import Security

/// One typed value of a keychain dictionary.
public enum KeychainValue: Hashable, Sendable, CustomStringConvertible {
  case string(String)
  case data(Data)
  case integer(Int)
  case boolean(Bool)
  case date(Date)
  case accessControl(SecAccessControl)
  /// A key given as `kSecValueRef` (or returned as one).
  case key(SecKey)
  /// A certificate given as `kSecValueRef`.
  case certificate(SecCertificate)
  /// An identity given as `kSecValueRef`.
  case identity(SecIdentity)

  /// The value as the runtime's request takes it: already typed, so the engine reads it by case
  /// rather than casting an `Any` (what `RequestValue(_:)` would make of `object`).
  var requestValue: RequestValue {
    switch self {
    case .string(let value): .string(value)
    case .data(let value): .data(value)
    case .integer(let value): .number(.integer(Int64(value)), isBoolean: false)
    case .boolean(let value): .number(.integer(value ? 1 : 0), isBoolean: true)
    case .date(let value): .date(value)
    case .accessControl(let value): .object(value)
    case .key(let value): .object(value)
    case .certificate(let value): .object(value)
    case .identity(let value): .object(value)
    }
  }

  /// The Core Foundation object the raw API receives.
  public var object: AnyObject {
    switch self {
    case .string(let value): value as NSString
    case .data(let value): value as NSData
    case .integer(let value): NSNumber(value: value)
    case .boolean(let value): NSNumber(value: value)
    case .date(let value): value as NSDate
    case .accessControl(let value): value
    case .key(let value): value
    case .certificate(let value): value
    case .identity(let value): value
    }
  }

  /// Classifies a value of a raw dictionary, or nil for a type the DSL never produces.
  public init?(object: Any) {
    switch object {
    case let value as SecAccessControl: self = .accessControl(value)
    case let value as SecKey: self = .key(value)
    case let value as SecCertificate: self = .certificate(value)
    case let value as SecIdentity: self = .identity(value)
    case let value as NSNumber:
      // Foundation marks booleans with the "c" type code, so true and 1 stay distinguishable.
      self = String(cString: value.objCType) == "c" ? .boolean(value.boolValue) : .integer(value.intValue)
    case let value as String: self = .string(value)
    case let value as Data: self = .data(value)
    case let value as Date: self = .date(value)
    default: return nil
    }
  }

  /// The value as Swift code would write it: `"alice"`, `443`, `true`, `<5 bytes>`, a date in
  /// ISO 8601, or the access control.
  public var description: String {
    switch self {
    case .string(let value): "\"\(value)\""
    case .data(let value): "<\(value.count) bytes>"
    case .integer(let value): "\(value)"
    case .boolean(let value): "\(value)"
    case .date(let value): value.ISO8601Format()
    case .accessControl(let value): "\(value)"
    case .key(let value): "\(value)"
    case .certificate(let value): "\(value)"
    case .identity(let value): "\(value)"
    }
  }

  /// The description, with a constant's name where the value is one of Apple's constants of `key`
  /// (`kSecAttrAccessibleWhenUnlocked` rather than "ak").
  func description(forKey key: String) -> String {
    if case .string(let code) = self, KeychainDictionary.constantValuedKeys.contains(key),
      let name = SecConstantNames.name(for: code)
    {
      return name
    }
    return description
  }
}

/// The dictionary a DSL value lowers to: exactly what is passed to one SecItem call.
///
/// Builders expose it (`attributes`) so that a person can see what a call will do and a test can
/// compare it, key by key and value by value with types, with what hand-written code passes.
public struct KeychainDictionary: Hashable, Sendable, CustomStringConvertible {
  /// The entries, by key (`"acct"`, `"r_Data"`...).
  public private(set) var entries: [String: KeychainValue]

  /// An empty dictionary.
  public init() { entries = [:] }

  /// An empty dictionary with room for `capacity` entries. A builder's attributes are copied on
  /// every method call; one that starts with room grows without rehashing what it holds.
  init(minimumCapacity capacity: Int) { entries = Dictionary(minimumCapacity: capacity) }

  /// Makes room for `count` more entries, so that the insertions that follow do not rehash.
  mutating func reserveCapacity(adding count: Int) {
    let needed = entries.count + count
    // Builders start with room for eight; reserveCapacity itself is an unspecialized call on this
    // toolchain (a generic metadata lookup each time), so it is made only when room is short.
    if entries.capacity < needed { entries.reserveCapacity(needed) }
  }

  /// A dictionary with these entries.
  public init(_ entries: [String: KeychainValue]) { self.entries = entries }

  /// The typed form of a raw dictionary, or nil when it holds a value the DSL cannot express
  /// (used to compare raw code with the DSL).
  public init?(_ raw: NSDictionary) {
    var entries: [String: KeychainValue] = [:]
    for (key, value) in raw {
      guard let key = key as? String, let typed = KeychainValue(object: value) else { return nil }
      entries[key] = typed
    }
    self.entries = entries
  }

  /// The value for a key.
  public subscript(key: String) -> KeychainValue? {
    get { entries[key] }
    set { entries[key] = newValue }
  }

  /// The value for a key constant.
  public subscript(key: CFString) -> KeychainValue? {
    // A constant's `description` is its stored Swift string; `as String` would copy its UTF-16
    // units one by one on Linux's Foundation, on every setter call.
    get { entries[key.description] }
    set { entries[key.description] = newValue }
  }

  /// A copy with `value` set for `key`.
  public func setting(_ key: CFString, _ value: KeychainValue?) -> KeychainDictionary {
    var copy = self
    copy[key] = value
    return copy
  }

  /// The entries as the runtime's typed request: no dictionary, no `Any` between the builder and
  /// the engine.
  var requestEntries: RequestEntries {
    entries.map { key, value in (key, value.requestValue) }
  }

  /// The Core Foundation dictionary handed to the SecItem call.
  public var cfDictionary: CFDictionary {
    let dictionary = NSMutableDictionary(capacity: entries.count)
    for (key, value) in entries { dictionary[key] = value.object }
    return dictionary
  }

  /// Keys whose string values are Apple's constants rather than the caller's text.
  static let constantValuedKeys: Set<String> = Set(
    [
      kSecClass, kSecAttrAccessible, kSecAttrProtocol, kSecAttrAuthenticationType, kSecMatchLimit,
      kSecAttrSynchronizable,
    ]
    .map { $0 as String })

  /// The entries as `kSecAttrAccount: "alice"`, with Apple's constant names for keys and constant
  /// values, `kSecClass` first and the rest by name.
  public var lines: [String] {
    let named = entries.map { key, value in
      (name: SecConstantNames.name(for: key) ?? key, value: value.description(forKey: key), key: key)
    }
    let classKey = kSecClass as String
    return named.sorted { ($0.key == classKey ? 0 : 1, $0.name) < ($1.key == classKey ? 0 : 1, $1.name) }
      .map { "\($0.name): \($0.value)" }
  }

  /// The entries on one line in brackets, or one per line when that line would be long.
  public var description: String {
    let lines = lines
    let single = "[" + lines.joined(separator: ", ") + "]"
    return single.count <= 160 ? single : "[\n" + lines.map { "  \($0)," }.joined(separator: "\n") + "\n]"
  }
}

/// A persistent reference: an opaque handle that finds one item again, stable across updates.
public struct PersistentReference: Hashable, Sendable, Codable {
  /// The reference's bytes, as `kSecValuePersistentRef` holds them.
  public let data: Data

  /// Wraps bytes returned by the keychain.
  public init(_ data: Data) { self.data = data }
}

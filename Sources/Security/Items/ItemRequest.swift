import Foundation

/// The return keys of a dictionary (rule 4).
struct ReturnFlags: OptionSet, Sendable {
  let rawValue: UInt8
  static let data = ReturnFlags(rawValue: 1)
  static let attributes = ReturnFlags(rawValue: 2)
  static let ref = ReturnFlags(rawValue: 4)
  static let persistentRef = ReturnFlags(rawValue: 8)
}

/// kSecMatchLimit (rules 1.9, 6.1).
enum MatchLimit: Sendable, Equatable {
  case one
  case all
  case count(Int)

  /// "One" shapes a single result; anything else an array (rule 4).
  var isOne: Bool { self == .one || self == .count(1) }

  var rowLimit: Int? {
    switch self {
    case .one: 1
    case .all: nil
    case .count(let count): count
    }
  }
}

/// A caller's dictionary after the key grammar of rule 1: every key classified, every value typed.
/// The one typed request `SecItemEngine` runs; each front end makes it once, at its boundary.
package struct ItemRequest {
  var itemClass: ItemClass?
  var attributes: [String: AttributeValue] = [:]
  var accessControl: SecAccessControl?
  var synchronizableAny = false
  var returnFlags: ReturnFlags = []
  var limit: MatchLimit?
  /// The kSecMatch keys the dictionary holds (an array: a dictionary has each key once, and there are few).
  var matchKeys: [String] = []
  var hostOrSubdomain: String?
  /// kSecMatchIssuers, each DN as the caller gave it; the engine normalizes them as certificate
  /// items store their issuer (7.18, `SecItemCall.issuers`).
  var issuers: Set<Data>?
  var valueData: Data?
  var reference: ItemReference?
  /// kSecValueRef when it is a SecKey: the key an add stores or a query names (rules 6.3, 6.8).
  var keyReference: SecKey?
  /// kSecValueRef when it is a SecCertificate (keys rule 7.13, 7.19).
  var certificateReference: SecCertificate?
  var useKeys: [String: RequestValue] = [:]
  /// The entries it was read from, in the caller's order: what a request handed to the agent
  /// carries, for the agent to read by the same grammar.
  package private(set) var entries: RequestEntries = []

  /// Apple's QUERY_KEY_LIMIT (rule 1.7).
  private static let keyLimit = 128

  /// Parses `dictionary`. `classHint` supplies the class for attributesToUpdate, which has none.
  init(_ dictionary: NSDictionary, classHint: ItemClass? = nil) throws(SecStatus) {
    guard dictionary.count <= Self.keyLimit else { throw .param }
    try self.init(entries: try dictionary.keychainEntries(), classHint: classHint)
  }

  /// Parses a dictionary's entries, typed where they entered (the typed module's values, or what a
  /// Foundation dictionary holds, classified as it was read). `shapes` holds the key sets seen
  /// before (nil: every key is classified again, as tests compare).
  init(entries: RequestEntries, classHint: ItemClass? = nil, shapes: RequestShapes? = .shared) throws(SecStatus) {
    guard entries.count <= Self.keyLimit else { throw .param }

    self.entries = entries
    itemClass = classHint
    if let value = entries.value(ofKey: SecConstantValue.`class`) {
      guard let name = value.string else {
        throw SecStatus.param.naming(SecConstantValue.`class`, "must be a string")
      }
      guard let parsed = ItemClass(rawValue: name) else {
        throw SecStatus.noSuchClass.naming(SecConstantValue.`class`, "is not a class this keychain has")
      }
      itemClass = parsed
    }
    if let value = entries.value(ofKey: SecConstantValue.valuePersistentRef) {
      guard let data = value.data else {
        throw SecStatus.param.naming(SecConstantValue.valuePersistentRef, "must be Data")
      }
      let parsed = try ItemReference(parsing: data)
      if let itemClass, itemClass != parsed.itemClass { throw .noSuchClass }
      itemClass = parsed.itemClass
      reference = parsed
    }
    if let value = entries.value(ofKey: SecConstantValue.valueRef) {
      switch value.object {
      case let key as SecKey:
        // The class may be left out: the ref says it (keys rule 6.3).
        if let itemClass, itemClass != .key {
          throw SecStatus.param.naming(SecConstantValue.valueRef, "is a SecKey but kSecClass is not kSecClassKey")
        }
        itemClass = .key
        keyReference = key
      case let certificate as SecCertificate:
        if let itemClass, itemClass != .certificate {
          throw SecStatus.param.naming(
            SecConstantValue.valueRef, "is a SecCertificate but kSecClass is not kSecClassCertificate")
        }
        itemClass = .certificate
        certificateReference = certificate
      default:
        throw SecStatus.param.naming(
          SecConstantValue.valueRef, "must be a SecKey, SecCertificate or SecIdentity, not \(value.typeDescription)")
      }
    }
    if let itemClass, !itemClass.isImplemented { throw .unimplemented }

    // The keys' roles come from the shape seen before when there is one; either way each entry is
    // applied in the caller's order, so the first invalid value earns the error it always did.
    if let shape = shapes?.shape(itemClass: itemClass, entries) {
      // Room for every attribute at once: growing one entry at a time reallocates twice for two.
      if shape.attributeCount > 0 { attributes = Dictionary(minimumCapacity: shape.attributeCount) }
      for (key, value) in entries {
        // Every key of a matched shape has its role; the fallback only keeps this total.
        guard let role = shape.role(of: key) else {
          try apply(try KeyRole(of: key, itemClass: itemClass), key, value)
          continue
        }
        try apply(role, key, value)
      }
    } else {
      for (key, value) in entries { try apply(try KeyRole(of: key, itemClass: itemClass), key, value) }
    }
    if useKeys[SecConstantValue.useAuthenticationContext] != nil
      && useKeys[SecConstantValue.useCredentialReference] != nil
    {
      throw .param
    }
    try checkItemSize(data: valueData, attributes: attributes)
  }

  /// Applies one entry whose key has `role`: the checks of its value, and what it sets.
  private mutating func apply(_ role: KeyRole, _ key: String, _ value: RequestValue) throws(SecStatus) {
    switch role {
    case .itemClass, .reference, .ignored:
      break  // parsed before the other keys, or without effect
    case .attribute(let definition):
      try parseAttribute(key, definition, value)
    case .match:
      try parseMatch(key, value)
    case .returnFlag(let flag):
      guard let enabled = value.boolean else { throw SecStatus.param.naming(key, "must be a boolean") }
      if enabled { returnFlags.insert(flag) } else { returnFlags.remove(flag) }
    case .use:
      if value.isNull { throw SecStatus.param.naming(key, "must not be null") }
      if key == SecConstantValue.useAuthenticationUI {
        guard let mode = value.string,
          [
            SecConstantValue.useAuthenticationUIAllow, SecConstantValue.useAuthenticationUIFail,
            SecConstantValue.useAuthenticationUISkip,
          ].contains(mode)
        else {
          throw SecStatus.param.naming(key, "must be one of the kSecUseAuthenticationUI values")
        }
      }
      useKeys[key] = value
    case .valueData:
      guard let data = value.data else {
        throw SecStatus.param.naming(key, "must be Data, not \(value.typeDescription)")
      }
      valueData = data
    }
  }

  private mutating func parseAttribute(_ key: String, _ definition: AttributeDefinition, _ value: RequestValue)
    throws(SecStatus)
  {
    if value.isNull { throw SecStatus.param.naming(key, "must not be null") }
    switch definition.ownership {
    case .unsupported:
      if key == SecConstantValue.attrAccess {
        // macOS's SecAccessRef (file keychains' access lists): typed in the generated API as an
        // opaque reference, with no counterpart here.
        throw SecStatus.unimplemented.naming(key, "is macOS's SecAccessRef, which this keychain has no counterpart for")
      }
      throw SecStatus.param.naming(key, "is not supported on the data-protection keychain")
    case .caller, .storeDates, .system:
      break
    }
    if definition.kind == .accessControl {
      guard let accessControl = value.object as? SecAccessControl else {
        throw SecStatus.param.naming(key, "must be a SecAccessControl, not \(value.typeDescription)")
      }
      self.accessControl = accessControl
      return
    }
    if definition.kind == .synchronizable, let text = value.string,
      text == SecConstantValue.attrSynchronizableAny
    {
      synchronizableAny = true
      return
    }
    if key == SecConstantValue.attrIssuer && itemClass == .certificate {
      // keys rule 7.17: a whole DN (a SEQUENCE) stands for its normalized content, which
      // is what certificate items store; the engine normalizes it (`SecItemCall.normalizingIssuer`).
      guard let data = value.data else {
        throw SecStatus.param.naming(key, "Unexpected type: must be Data")
      }
      attributes[key] = .data(data)
      return
    }
    guard let converted = ValueConversion.attributeValue(value, kind: definition.kind) else {
      throw SecStatus.param.naming(key, "does not accept \(value.typeDescription)")
    }
    attributes[key] = converted
  }

  private mutating func parseMatch(_ key: String, _ value: RequestValue) throws(SecStatus) {
    matchKeys.append(key)
    switch key {
    case SecConstantValue.matchLimit:
      // A CFBoolean is no CFNumber on Apple's platforms (rule 1.9), though Foundation keeps both in
      // NSNumber here.
      var invalid: SecStatus {
        SecStatus.param.naming(key, "must be a number of 1 or more, kSecMatchLimitOne or kSecMatchLimitAll")
      }
      if value.isBoolean { throw invalid }
      if let text = value.string {
        switch text {
        case SecConstantValue.matchLimitOne: limit = .one
        case SecConstantValue.matchLimitAll: limit = .all
        default: throw invalid
        }
      } else if case .integer(let count)? = value.number, count >= 1, count <= Int64(Int.max) {
        limit = count == 1 ? .one : .count(Int(count))
      } else {
        throw invalid
      }
    case SecConstantValue.matchHostOrSubdomainOfHost:
      guard let host = value.string else { throw SecStatus.param.naming(key, "must be a string") }
      hostOrSubdomain = host
    case SecConstantValue.matchIssuers:
      guard let names = value.object as? [Any] else {
        throw SecStatus.param.naming(key, "must be an array of DER names")
      }
      // Entries that are not data are ignored, as on Apple; the engine normalizes the others.
      issuers = Set(names.compactMap { $0 as? Data })
    case SecConstantValue.matchValidOnDate:
      break  // kCFNull means "now"; certificates only
    default:
      if value.isNull { throw SecStatus.param.naming(key, "must not be null") }
    }
  }

  /// The class, required by every call (rule 2).
  func requiredClass() throws(SecStatus) -> ItemClass {
    guard let itemClass else { throw SecStatus.param.naming(SecConstantValue.`class`, "is missing") }
    return itemClass
  }

  /// The protection the item asks for: kSecAttrAccessible, or the access control's, which must agree
  /// (rule 12).
  func protection() throws(SecStatus) -> String? {
    let accessible: String?
    if case .string(let value)? = attributes[SecConstantValue.attrAccessible] {
      accessible = value
    } else {
      accessible = nil
    }
    if let accessControl {
      if let accessible, accessible != accessControl.protection {
        throw SecStatus.param.naming(
          SecConstantValue.attrAccessible, "differs from the protection of kSecAttrAccessControl")
      }
      return accessControl.protection
    }
    return accessible
  }
}

extension NSDictionary {
  /// The entries of a caller's dictionary with string keys: errSecNoSuchAttribute for a number key,
  /// errSecParam for any other key that is not a string.
  package func keychainEntries() throws(SecStatus) -> RequestEntries {
    var entries: RequestEntries = []
    entries.reserveCapacity(count)
    var invalidKey: SecStatus?
    forEachEntry { key, value in
      guard let name = ValueConversion.string(key) else {
        invalidKey = SecStatus(
          key is NSNumber ? errSecNoSuchAttr : errSecParam,
          detail: "a dictionary key is \(describeType(key)), not a string")
        return false
      }
      entries.append((name, RequestValue(value)))
      return true
    }
    if let invalidKey { throw invalidKey }
    return entries
  }

  /// The entries with string keys (others are left out), for readers of SecItem results.
  package func stringKeyedEntries() -> [(key: String, value: Any)] {
    var entries: [(key: String, value: Any)] = []
    entries.reserveCapacity(count)
    forEachEntry { key, value in
      if let name = ValueConversion.string(key) { entries.append((name, value)) }
      return true
    }
    return entries
  }

  /// Calls `body` with each key and value until it returns false.
  ///
  /// Reading dictionaries is a large part of every SecItem call on swift-corelibs-foundation,
  /// where `for (key, value) in` bridges each entry to Swift values on its own. For NSDictionary
  /// and NSMutableDictionary themselves (what `[String: Any] as CFDictionary` makes), allKeys and
  /// allValues are both copies of one Swift dictionary's keys and values, which come in the same
  /// order; that costs a third of the iterator. Subclasses, whose two arrays need not agree, are
  /// enumerated pair by pair.
  private func forEachEntry(_ body: (Any, Any) -> Bool) {
    if type(of: self) == NSDictionary.self || type(of: self) == NSMutableDictionary.self {
      let keys = allKeys
      let values = allValues
      if keys.count == values.count {
        for (key, value) in zip(keys, values) {
          // allValues hands out Foundation's wrapper of a Swift object (a SecAccessControl, say)
          // as it is stored; object(forKey:) unwraps it, as the iterator would.
          let isWrapped = ObjectIdentifier(type(of: value as AnyObject)) == swiftValueWrapperClass
          if !body(key, isWrapped ? object(forKey: key) ?? value : value) { return }
        }
        return
      }
    }
    enumerateKeysAndObjects { key, value, stop in
      if !body(key, value) { stop.pointee = true }
    }
  }
}

/// The class NSDictionary wraps a value in when it is no Foundation object (`__SwiftValue` on
/// swift-corelibs-foundation), found once by storing such a value.
private let swiftValueWrapperClass: ObjectIdentifier = {
  final class Probe {}
  let stored = NSDictionary(object: Probe(), forKey: NSString(string: "probe")).allValues[0]
  return ObjectIdentifier(type(of: stored as AnyObject))
}()

/// A value's type in words for a message: "a String", "a number", never the value itself.
func describeType(_ value: Any) -> String {
  switch value {
  case _ where ValueConversion.isBoolean(value): "a boolean"
  case is NSNumber: "a number"
  case is String, is NSString: "a String"
  case is Data, is NSData: "Data"
  case is Date, is NSDate: "a Date"
  case is NSNull: "null"
  case is NSArray: "an array"
  case is NSDictionary: "a dictionary"
  case let unsupported as UnsupportedRequestObject: unsupported.typeDescription
  default: "a value of type \(type(of: value))"
  }
}

extension ItemRequest {
  /// A CF dictionary read by rule 1's grammar, for a front end outside this module.
  package static func reading(_ dictionary: NSDictionary) throws(SecStatus) -> ItemRequest {
    try ItemRequest(dictionary)
  }

  /// A dictionary's entries as Swift values, read by rule 1's grammar without a Foundation
  /// dictionary.
  package static func reading(entries: RequestEntries) throws(SecStatus) -> ItemRequest {
    try ItemRequest(entries: entries)
  }
}

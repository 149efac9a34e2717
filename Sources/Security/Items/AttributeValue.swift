import Foundation

/// One stored attribute value, keeping the type the caller stored it with (decision 10).
package enum AttributeValue: Hashable, Sendable {
  case string(String)
  case data(Data)
  case integer(Int64)
  case double(Double)
  case date(Date)

  /// The Swift value handed to the typed module (`String`, `Data`, `Int`, `Double`, `Date`).
  package var swiftValue: Any {
    switch self {
    case .string(let value): value
    case .data(let value): value
    case .integer(let value): Int(value)
    case .double(let value): value
    case .date(let value): value
    }
  }

  /// The Core Foundation object handed back to callers.
  package var object: AnyObject {
    switch self {
    case .string(let value): value as NSString
    case .data(let value): value as NSData
    case .integer(let value): NSNumber(value: value)
    case .double(let value): NSNumber(value: value)
    case .date(let value): value as NSDate
    }
  }

  /// What the value compares by as an attribute of `kind` (rules 9.2, 9.4, 9.5): values Apple
  /// treats as equal give equal comparable values.
  package func comparable(as kind: AttributeKind) -> ComparableValue {
    switch (kind, self) {
    case (.blob, .string(let value)), (.data, .string(let value)), (.string, .string(let value)),
      (.accessibility, .string(let value)):
      return .bytes(Array(value.utf8))
    case (_, .data(let value)):
      return .bytes(Array(value))
    case (.blob, .integer(let value)), (.data, .integer(let value)), (.string, .integer(let value)):
      // Stored as the caller gave it, compared as text: 42 matches "42" (rule 9.4).
      return .bytes(Array(String(value).utf8))
    case (_, .integer(let value)):
      return .integer(value)
    case (_, .double(let value)):
      if let exact = Int64(exactly: value) { return AttributeValue.integer(exact).comparable(as: kind) }
      return .double(value)
    case (_, .string(let value)):
      return .text(value)
    case (_, .date(let value)):
      return .date(value.timeIntervalSinceReferenceDate)
    }
  }
}

/// An attribute value reduced to what equality compares. How a store encodes one (for a digest, a
/// column) is the store's business; which values are equal is Apple's rule, decided here.
package enum ComparableValue: Hashable, Sendable {
  /// String or Data contents, byte for byte: a String and Data with the same bytes match.
  case bytes([UInt8])
  /// A whole number (booleans are 0 and 1).
  case integer(Int64)
  /// A number with a fraction.
  case double(Double)
  /// A string given for a number attribute that is no number.
  case text(String)
  /// A date, as seconds since 2001-01-01.
  case date(Double)
}

/// Converts the loosely typed values of a caller's dictionary into attribute values.
package enum ValueConversion {
  /// A number from any of the forms Foundation may hand over (NSNumber, Bool, Int, Double...).
  package static func number(_ value: Any) -> AttributeValue? {
    // The typed module passes Swift Ints and Bools: read them by their exact type first, since
    // casting one to NSNumber makes swift-corelibs-foundation box it in a new object.
    if type(of: value) == Int.self { return .integer(Int64(value as! Int)) }
    if type(of: value) == Bool.self { return .integer(value as! Bool ? 1 : 0) }
    if type(of: value) == String.self || type(of: value) == Data.self { return nil }
    if let number = value as? NSNumber {
      return number.isIntegral ? .integer(number.int64Value) : .double(number.doubleValue)
    }
    switch value {
    case let value as Bool: return .integer(value ? 1 : 0)
    case let value as Int: return .integer(Int64(value))
    case let value as Int64: return .integer(value)
    case let value as Int32: return .integer(Int64(value))
    case let value as UInt32: return .integer(Int64(value))
    case let value as UInt: return Int64(exactly: value).map { .integer($0) }
    case let value as Double: return Int64(exactly: value).map { .integer($0) } ?? .double(value)
    case let value as Float: return AttributeValue.double(Double(value))
    default: return nil
    }
  }

  /// A string from a String, an NSString or a kSec constant.
  package static func string(_ value: Any) -> String? {
    // A Swift String (what the typed module passes) is taken as it is: casting it to a class first
    // would bridge it to an NSString. The constants are an NSString subclass, which
    // swift-corelibs-foundation bridges by copying UTF-16 units one by one (about 1 µs each); their
    // Swift value is at hand.
    if type(of: value) == String.self { return value as? String }
    if isSwiftValue(value) { return nil }
    if let constant = value as? SecConstantString { return constant.value }
    return value as? String
  }

  package static func data(_ value: Any) -> Data? {
    if type(of: value) == Data.self { return value as? Data }
    if isSwiftValue(value) { return nil }
    // Bridging an NSData to Data copies it byte by byte through NSData's iterator here.
    if let object = value as? NSData { return Data(bytes: object.bytes, count: object.length) }
    return value as? Data
  }

  /// Whether `value` is NSNull (kCFNull).
  package static func isNull(_ value: Any) -> Bool {
    !isSwiftValue(value) && value is NSNull
  }

  /// Whether `value` is one of the Swift values the typed module passes (String, Data, Bool, Int).
  ///
  /// Asking whether such a value is a Foundation class (`value is NSNull`, `as? NSNumber`) makes
  /// swift-corelibs-foundation bridge it to a new object first: 140 ns against 24 for a check of
  /// its type, and the checks ran several times per key of every call (a fifth of parsing a typed
  /// lookup's request). None of these types is, or bridges to, the classes asked about, other than its own.
  private static func isSwiftValue(_ value: Any) -> Bool {
    let type = type(of: value)
    return type == String.self || type == Data.self || type == Bool.self || type == Int.self
  }

  /// Converts `value` for an attribute of `kind`, or nil when the type is not accepted (rule 1.1).
  package static func attributeValue(_ value: Any, kind: AttributeKind) -> AttributeValue? {
    attributeValue(RequestValue(value), kind: kind)
  }

  /// Converts a typed request value for an attribute of `kind`, or nil when its type is not
  /// accepted (rule 1.1).
  package static func attributeValue(_ value: RequestValue, kind: AttributeKind) -> AttributeValue? {
    switch kind {
    case .blob:
      if let string = value.string { return .string(string) }
      if let data = value.data { return .data(data) }
      return value.number
    case .data:
      if let data = value.data { return .data(data) }
      if let string = value.string { return .data(Data(string.utf8)) }
      if case .integer(let integer)? = value.number {
        return .data(withUnsafeBytes(of: Int32(truncatingIfNeeded: integer).bigEndian) { Data($0) })
      }
      return nil
    case .string:
      if let string = value.string { return .string(string) }
      if let data = value.data { return String(data: data, encoding: .utf8).map { .string($0) } }
      return nil
    case .number:
      if let string = value.string {
        if let integer = Int64(string) { return .integer(integer) }
        return .string(string)
      }
      return value.number
    case .synchronizable:
      if let string = value.string {
        switch string {
        case "1", "true", "yes": return .integer(1)
        case "0", "false", "no": return .integer(0)
        default: return nil
        }
      }
      if case .integer(let integer)? = value.number { return .integer(integer == 0 ? 0 : 1) }
      return nil
    case .date:
      return value.date.map { .date($0) }
    case .accessibility:
      guard let string = value.string, ItemIndex.protectionClasses[string] != nil else { return nil }
      return .string(string)
    case .accessControl:
      return nil
    }
  }

  /// Whether `value` is a boolean (Swift's Bool, or Foundation's boolean NSNumber, which
  /// kCFBooleanTrue and `true as NSNumber` both are) rather than a number.
  package static func isBoolean(_ value: Any) -> Bool {
    if type(of: value) == Bool.self { return true }
    if type(of: value) == Int.self || type(of: value) == String.self || type(of: value) == Data.self { return false }
    if value is NSNumber { return ObjectIdentifier(type(of: value as AnyObject)) == booleanNumberClass }
    return value is Bool
  }

  /// The class swift-corelibs-foundation gives boolean NSNumbers.
  private static let booleanNumberClass = ObjectIdentifier(type(of: NSNumber(value: true)))

  /// Reads a CFBoolean-like value (rule 1.8): true, false, or nil when it is not a boolean.
  package static func boolean(_ value: Any) -> Bool? {
    guard case .integer(let integer)? = number(value) else { return nil }
    return integer != 0
  }
}

extension NSNumber {
  /// Whether the number holds an integer (booleans included), rather than a fraction.
  fileprivate var isIntegral: Bool {
    // objCType is a one-character C string; reading it avoids building a String per number.
    let type = UInt8(bitPattern: objCType.pointee)
    if type == UInt8(ascii: "d") || type == UInt8(ascii: "f") {
      return doubleValue.rounded() == doubleValue && abs(doubleValue) < 9.2e18
    }
    return true
  }
}

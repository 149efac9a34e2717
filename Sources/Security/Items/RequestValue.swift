import Foundation

/// One value of a SecItem request, typed once where it enters the runtime (issue 54).
///
/// Apple's CF functions classify each value of the caller's dictionary as they read it
/// (`NSDictionary.keychainEntries`), the typed `Keychain` module hands its values over already
/// typed, and rule 1's grammar then reads them by case. Before, every check of a value was a dynamic
/// cast of an `Any` (is it a String? Data? NSNull? a boolean?), made again by each reader.
package enum RequestValue {
  /// Text: a String, an NSString or one of Apple's constants.
  case string(String)
  /// Bytes: Data or NSData.
  case data(Data)
  /// A number, `.integer` or `.double`; `isBoolean` for Swift's Bool and Foundation's boolean
  /// NSNumber (kCFBooleanTrue), which rule 1.9 tells apart from numbers.
  case number(AttributeValue, isBoolean: Bool)
  /// A Date or an NSDate.
  case date(Date)
  /// kCFNull.
  case null
  /// Any other value as the caller gave it: refs, access controls, contexts, arrays.
  case object(Any)

  /// Classifies a value of a caller's dictionary. Each case is what `ValueConversion`'s readers
  /// accept, and they accept disjoint types, so reading the case answers as they would.
  package init(_ value: Any) {
    if let string = ValueConversion.string(value) {
      self = .string(string)
    } else if let data = ValueConversion.data(value) {
      self = .data(data)
    } else if let number = ValueConversion.number(value) {
      self = .number(number, isBoolean: ValueConversion.isBoolean(value))
    } else if ValueConversion.isNull(value) {
      self = .null
    } else if let date = value as? Date {
      self = .date(date)
    } else {
      self = .object(value)
    }
  }

  /// The text, or nil for any other value.
  package var string: String? {
    if case .string(let value) = self { value } else { nil }
  }

  /// The bytes, or nil for any other value.
  package var data: Data? {
    if case .data(let value) = self { value } else { nil }
  }

  /// The number (booleans are 0 and 1), or nil for any other value.
  package var number: AttributeValue? {
    if case .number(let value, _) = self { value } else { nil }
  }

  /// Whether the value is a boolean rather than a number.
  package var isBoolean: Bool {
    if case .number(_, isBoolean: true) = self { true } else { false }
  }

  /// A CFBoolean-like value (rule 1.8): any whole number, 0 being false; nil for anything else.
  package var boolean: Bool? {
    guard case .integer(let integer)? = number else { return nil }
    return integer != 0
  }

  /// The date, or nil for any other value.
  package var date: Date? {
    if case .date(let value) = self { value } else { nil }
  }

  /// Whether the value is kCFNull.
  package var isNull: Bool {
    if case .null = self { true } else { false }
  }

  /// The value as an object of the runtime's own kinds (a ref, an access control, a context, an
  /// array), or nil for text, bytes, numbers, dates and null.
  package var object: Any? {
    if case .object(let value) = self { value } else { nil }
  }

  /// The value as the object a Foundation dictionary holds: the inverse of `init(_:)`.
  package var foundationObject: AnyObject {
    switch self {
    case .string(let value): value as NSString
    case .data(let value): value as NSData
    case .number(.integer(let value), isBoolean: true): NSNumber(value: value != 0)
    case .number(.double(let value), _): NSNumber(value: value)
    case .number(let value, _): value.object
    case .date(let value): value as NSDate
    case .null: NSNull()
    case .object(let value): value as AnyObject
    }
  }

  /// The value's type in words for a message ("a String", "a number"), never the value itself.
  var typeDescription: String {
    switch self {
    case .string: "a String"
    case .data: "Data"
    case .number(_, let isBoolean): isBoolean ? "a boolean" : "a number"
    case .date: "a Date"
    case .null: "null"
    case .object(let value): describeType(value)
    }
  }
}

/// A request's entries: its keys, in the caller's order, with their typed values.
package typealias RequestEntries = [(String, RequestValue)]

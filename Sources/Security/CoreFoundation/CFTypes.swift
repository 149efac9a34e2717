// Core Foundation names mapped onto Foundation, so that code written against Apple's Security
// framework (`query as CFDictionary`, `result as? Data`, `kCFBooleanTrue`) compiles unchanged.
//
// Linux's own CoreFoundation module is deliberately not used: its CF types do not bridge to Swift
// values, so `[String: Any] as CFDictionary` would not compile against it.

@_exported import Foundation

/// Apple's `CFTypeRef`: any Core Foundation object.
public typealias CFTypeRef = AnyObject
/// Apple's `CFDictionary`, here Foundation's `NSDictionary` (a `[String: Any]` bridges to it).
public typealias CFDictionary = NSDictionary
/// Apple's `CFMutableDictionary`.
public typealias CFMutableDictionary = NSMutableDictionary
/// Apple's `CFString`, here Foundation's `NSString`.
public typealias CFString = NSString
/// Apple's `CFData`, here Foundation's `NSData`.
public typealias CFData = NSData
/// Apple's `CFNumber`, here Foundation's `NSNumber`.
public typealias CFNumber = NSNumber
/// Apple's `CFBoolean`; Foundation keeps booleans in `NSNumber` too.
public typealias CFBoolean = NSNumber
/// Apple's `CFDate`, here Foundation's `NSDate`.
public typealias CFDate = NSDate
/// Apple's `CFArray`, here Foundation's `NSArray`.
public typealias CFArray = NSArray
/// Apple's `CFError`, here Foundation's `NSError` (a class, so `Unmanaged<CFError>` works).
public typealias CFError = NSError
/// Apple's `CFIndex`.
public typealias CFIndex = Int
/// Apple's `CFOptionFlags`.
public typealias CFOptionFlags = UInt
/// Apple's `CFTypeID`.
public typealias CFTypeID = UInt
/// Apple's `CFAbsoluteTime`: seconds since 1 January 2001, as `Date.timeIntervalSinceReferenceDate`.
public typealias CFAbsoluteTime = Double
/// Apple's `OSStatus`: the result code of every Security call (`errSecSuccess` is 0).
public typealias OSStatus = Int32

/// Apple's `CFAllocator`. Allocators have no meaning here; the type exists so that calls passing
/// `nil` or `kCFAllocatorDefault` compile.
public final class CFAllocator: Sendable {
  private init() {}
}

/// The default allocator: `nil`, exactly as Apple's functions treat it.
public let kCFAllocatorDefault: CFAllocator! = nil

/// The `true` boolean object, typed as on Apple.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// The `false` boolean object, typed as on Apple.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)
/// The Info.plist key of a bundle's identifier.
nonisolated(unsafe) public let kCFBundleIdentifierKey: CFString! = SecConstantString("CFBundleIdentifier")
/// The success code shared by all Security calls.
public let noErr: OSStatus = 0

/// Returns the domain of an error, as Apple's `CFErrorGetDomain` does.
@discardableResult
public func CFErrorGetDomain(_ error: CFError!) -> CFString! {
  error.map { $0.domain as NSString }
}

/// Returns the code of an error, as Apple's `CFErrorGetCode` does.
@discardableResult
public func CFErrorGetCode(_ error: CFError!) -> CFIndex {
  error?.code ?? 0
}

/// Returns a copy of an error's user info dictionary, as Apple's `CFErrorCopyUserInfo` does.
@discardableResult
public func CFErrorCopyUserInfo(_ error: CFError!) -> CFDictionary! {
  error.map { $0.userInfo as NSDictionary }
}

/// The class of every kSec* constant: a string that also hashes and compares like a Swift `String`.
///
/// On Linux `AnyHashable(NSString("acct")) != AnyHashable("acct")`, so client code that reads an
/// `[AnyHashable: Any]` result with `kSecAttrAccount` (or a `[String: Any]` result with the plain
/// string) would miss. Giving the constants a `String` hashing identity makes both spellings work.
public final class SecConstantString: NSString, _HasCustomAnyHashableRepresentation {
  // Immutable after init, so sharing the global constants across threads is safe.
  let value: String
  private let utf16Units: [unichar]

  /// Creates a constant string with the given value.
  public init(_ value: String) {
    self.value = value
    self.utf16Units = Array(value.utf16)
    super.init(characters: utf16Units, length: utf16Units.count)
  }

  /// Creates a constant string from UTF-16 code units.
  public required convenience override init(characters: UnsafePointer<unichar>, length: Int) {
    self.init(String(utf16CodeUnits: characters, count: length))
  }

  /// Creates a constant string from a Swift string.
  public required convenience init(string aString: String) { self.init(aString) }

  /// Constant strings are never archived.
  public required init?(coder aDecoder: NSCoder) { return nil }

  /// Creates a constant string from a literal.
  public required convenience init(stringLiteral value: StaticString) { self.init("\(value)") }

  /// Creates a constant string from a literal.
  public required convenience init(unicodeScalarLiteral value: StaticString) { self.init("\(value)") }

  /// Creates a constant string from a literal.
  public required convenience init(extendedGraphemeClusterLiteral value: StaticString) {
    self.init("\(value)")
  }

  /// The number of UTF-16 code units.
  public override var length: Int { utf16Units.count }

  /// The UTF-16 code unit at `index`.
  public override func character(at index: Int) -> unichar { utf16Units[index] }

  // `hash` is deliberately NSString's own (content-based), so NSDictionary lookups keyed by a
  // constant find entries keyed by an equal NSString; AnyHashable uses the String representation.

  /// The string's value as a Swift `String`.
  public override var description: String { value }

  /// The representation `AnyHashable` uses: the plain Swift `String`.
  public func _toCustomAnyHashable() -> AnyHashable? { AnyHashable(value) }
}

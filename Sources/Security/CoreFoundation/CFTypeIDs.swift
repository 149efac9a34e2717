import Foundation

// Apple code tells the objects a search returns apart by type ID:
// `CFGetTypeID(result) == SecKeyGetTypeID()`. The values here are this runtime's own; only their
// distinctness matters, as on Apple, where they differ between releases too.

/// The type ID of a key object.
@discardableResult
public func SecKeyGetTypeID() -> CFTypeID { CFTypeIDs.key }
/// The type ID of a certificate object.
@discardableResult
public func SecCertificateGetTypeID() -> CFTypeID { CFTypeIDs.certificate }
/// The type ID of an identity object.
@discardableResult
public func SecIdentityGetTypeID() -> CFTypeID { CFTypeIDs.identity }
/// The type ID of an access control object.
@discardableResult
public func SecAccessControlGetTypeID() -> CFTypeID { CFTypeIDs.accessControl }
/// The type ID of a trust object.
@discardableResult
public func SecTrustGetTypeID() -> CFTypeID { CFTypeIDs.trust }
/// The type ID of a policy object.
@discardableResult
public func SecPolicyGetTypeID() -> CFTypeID { CFTypeIDs.policy }
/// The type ID of a data object.
@discardableResult
public func CFDataGetTypeID() -> CFTypeID { CFTypeIDs.data }
/// The type ID of a string object.
@discardableResult
public func CFStringGetTypeID() -> CFTypeID { CFTypeIDs.string }
/// The type ID of a dictionary object.
@discardableResult
public func CFDictionaryGetTypeID() -> CFTypeID { CFTypeIDs.dictionary }
/// The type ID of an array object.
@discardableResult
public func CFArrayGetTypeID() -> CFTypeID { CFTypeIDs.array }
/// The type ID of a number object.
@discardableResult
public func CFNumberGetTypeID() -> CFTypeID { CFTypeIDs.number }
/// The type ID of a boolean object.
@discardableResult
public func CFBooleanGetTypeID() -> CFTypeID { CFTypeIDs.boolean }
/// The type ID of a date object.
@discardableResult
public func CFDateGetTypeID() -> CFTypeID { CFTypeIDs.date }
/// The type ID of an error object.
@discardableResult
public func CFErrorGetTypeID() -> CFTypeID { CFTypeIDs.error }

/// The type ID of `cf`, one of the values above; 0 for an object of another type.
@discardableResult
public func CFGetTypeID(_ cf: CFTypeRef?) -> CFTypeID {
  switch cf {
  case is SecKey: CFTypeIDs.key
  case is SecCertificate: CFTypeIDs.certificate
  case is SecIdentity: CFTypeIDs.identity
  case is SecAccessControl: CFTypeIDs.accessControl
  case is SecTrust: CFTypeIDs.trust
  case is SecPolicy: CFTypeIDs.policy
  case is NSData: CFTypeIDs.data
  case is NSString: CFTypeIDs.string
  case is NSDictionary: CFTypeIDs.dictionary
  case is NSArray: CFTypeIDs.array
  // Foundation marks booleans with the "c" type code: CFBoolean and CFNumber stay apart.
  case let number as NSNumber: String(cString: number.objCType) == "c" ? CFTypeIDs.boolean : CFTypeIDs.number
  case is NSDate: CFTypeIDs.date
  case is NSError: CFTypeIDs.error
  default: 0
  }
}

enum CFTypeIDs {
  static let string: CFTypeID = 7
  static let dictionary: CFTypeID = 18
  static let array: CFTypeID = 19
  static let data: CFTypeID = 20
  static let boolean: CFTypeID = 21
  static let number: CFTypeID = 22
  static let date: CFTypeID = 42
  static let error: CFTypeID = 43
  static let accessControl: CFTypeID = 300
  static let certificate: CFTypeID = 301
  static let identity: CFTypeID = 302
  static let key: CFTypeID = 303
  static let trust: CFTypeID = 304
  static let policy: CFTypeID = 305
}

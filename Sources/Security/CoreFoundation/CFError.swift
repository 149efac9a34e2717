import Foundation

/// The user-info key of an error's description, as Apple's `kCFErrorDescriptionKey` names it.
nonisolated(unsafe) public let kCFErrorDescriptionKey: CFString! = SecConstantString("NSDescription")
/// The user-info key of an error's localized description (`kCFErrorLocalizedDescriptionKey`).
nonisolated(unsafe) public let kCFErrorLocalizedDescriptionKey: CFString! = SecConstantString(NSLocalizedDescriptionKey)

/// Returns a human-readable description of an error, as Apple's `CFErrorCopyDescription` does:
/// the localized description when the error has one, else CoreFoundation's frame around the
/// domain, code and `kCFErrorDescriptionKey`.
@discardableResult
public func CFErrorCopyDescription(_ error: CFError!) -> CFString! {
  guard let error else { return nil }
  if let localized = error.userInfo[NSLocalizedDescriptionKey] as? String { return localized as NSString }
  return SecurityErrors.framed(
    domain: error.domain, code: error.code, reason: error.userInfo["NSDescription"] as? String)
    as NSString
}

/// The CFErrors Security functions report.
enum SecurityErrors {
  /// An error in NSOSStatusErrorDomain with `status` as its code, framed as Apple frames it: the
  /// reason under `kCFErrorDescriptionKey`, and "The operation couldn't be completed. (OSStatus
  /// error -50 - reason)" as its description. The framed text is also the localized description,
  /// because swift-corelibs-foundation's `NSError` does not build it from the description key.
  static func error(_ status: OSStatus, _ reason: String) -> NSError {
    NSError(
      domain: NSOSStatusErrorDomain, code: Int(status),
      userInfo: [
        "NSDescription": reason,
        NSLocalizedDescriptionKey: framed(domain: NSOSStatusErrorDomain, code: Int(status), reason: reason),
      ])
  }

  /// CoreFoundation's description of an error without a localized description.
  static func framed(domain: String, code: Int, reason: String?) -> String {
    let name = domain == NSOSStatusErrorDomain ? "OSStatus" : domain
    guard let reason else { return "The operation couldn’t be completed. (\(name) error \(code).)" }
    return "The operation couldn’t be completed. (\(name) error \(code) - \(reason))"
  }
}

/// An OSStatus carried through `throws`: the internal currency between the layers.
///
/// Every failure inside the runtime ends as one of Apple's errSec codes at the API boundary.
struct SecStatus: Error, Equatable, CustomStringConvertible {
  let code: OSStatus

  init(_ code: OSStatus) { self.code = code }

  static let param = SecStatus(errSecParam)
  static let unimplemented = SecStatus(errSecUnimplemented)
  static let duplicateItem = SecStatus(errSecDuplicateItem)
  static let itemNotFound = SecStatus(errSecItemNotFound)
  static let noSuchAttribute = SecStatus(errSecNoSuchAttr)
  static let noSuchClass = SecStatus(errSecNoSuchClass)
  static let interactionNotAllowed = SecStatus(errSecInteractionNotAllowed)
  static let decode = SecStatus(errSecDecode)
  static let authFailed = SecStatus(errSecAuthFailed)
  static let missingEntitlement = SecStatus(errSecMissingEntitlement)
  static let notAvailable = SecStatus(errSecNotAvailable)
  static let io = SecStatus(errSecIO)

  var description: String { "\(code): \(secMessage(for: code))" }
}

/// The message for a status code: ours for known codes, "OSStatus <n>" otherwise (rule 14).
func secMessage(for status: OSStatus) -> String {
  secStatusMessages[status] ?? "OSStatus \(status)"
}

/// Returns a sentence describing `status`, or "OSStatus <n>" for a code this runtime does not know.
///
/// The texts are this project's own; only the codes match Apple's. `reserved` must be nil and is
/// ignored, as on Apple.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
  secMessage(for: status) as NSString
}

/// An OSStatus carried through `throws`: the internal currency between the layers.
///
/// Every failure inside the runtime ends as one of Apple's errSec codes at the API boundary.
package struct SecStatus: Error, Equatable, CustomStringConvertible {
  package let code: OSStatus

  package init(_ code: OSStatus) { self.code = code }

  package static let param = SecStatus(errSecParam)
  package static let unimplemented = SecStatus(errSecUnimplemented)
  package static let duplicateItem = SecStatus(errSecDuplicateItem)
  package static let itemNotFound = SecStatus(errSecItemNotFound)
  package static let noSuchAttribute = SecStatus(errSecNoSuchAttr)
  package static let noSuchClass = SecStatus(errSecNoSuchClass)
  package static let interactionNotAllowed = SecStatus(errSecInteractionNotAllowed)
  package static let decode = SecStatus(errSecDecode)
  package static let authFailed = SecStatus(errSecAuthFailed)
  package static let missingEntitlement = SecStatus(errSecMissingEntitlement)
  package static let notAvailable = SecStatus(errSecNotAvailable)
  package static let io = SecStatus(errSecIO)

  package var description: String { "\(code): \(secMessage(for: code))" }
}

/// The message for a status code: ours for known codes, "OSStatus <n>" otherwise (rule 14).
package func secMessage(for status: OSStatus) -> String {
  secStatusMessages[status] ?? "OSStatus \(status)"
}

/// Returns a sentence describing `status`, or "OSStatus <n>" for a code this runtime does not know.
///
/// The texts are this project's own; only the codes match Apple's. When the process's default store
/// could not be opened, its status is explained by the reason (a directory others can read, a
/// missing key file...), since that is what every call of Apple-style code then answers.
/// `reserved` must be nil and is ignored, as on Apple.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
  if let failure = KeychainStore.defaultStoreFailure, failure.status == status {
    return "\(secMessage(for: status)) \(failure.message)" as NSString
  }
  return secMessage(for: status) as NSString
}

/// The name of a status code (`errSecDuplicateItem`), or nil for a code this runtime does not know.
@_spi(KeychainBridge)
public func SecStatusCodeName(_ status: OSStatus) -> String? {
  secStatusCodeTable.first { $0.code == status }?.name
}

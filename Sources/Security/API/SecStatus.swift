import Foundation

/// An OSStatus carried through `throws`: the internal currency between the layers.
///
/// Every failure inside the runtime ends as one of Apple's errSec codes at the API boundary.
package struct SecStatus: Error, Equatable, CustomStringConvertible {
  package let code: OSStatus
  /// What was wrong, naming the dictionary key where one is known; never a value.
  package let detail: String?

  package init(_ code: OSStatus, detail: String? = nil) {
    self.code = code
    self.detail = detail
  }

  /// This status with the reason, naming `key` by its constant: `kSecValueData: must be Data`.
  package func naming(_ key: String, _ problem: String) -> SecStatus {
    SecStatus(code, detail: "\(SecConstantNames.name(for: key) ?? key): \(problem)")
  }

  /// Statuses are equal when their codes are: the detail only explains.
  package static func == (lhs: SecStatus, rhs: SecStatus) -> Bool { lhs.code == rhs.code }

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
@discardableResult
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
  if let failure = KeychainStore.defaultStoreFailure, failure.status == status {
    return "\(secMessage(for: status)) \(failure.message)" as NSString
  }
  if let detail = SecItemFailureDetail.last(for: status) {
    return secMessage(for: status, detail: detail) as NSString
  }
  return secMessage(for: status) as NSString
}

/// The message for `status` followed by `detail` as a sentence of its own: its first word
/// capitalized when it is a plain lowercase word (a constant's name such as kSecValueData is kept
/// as written), and one period at its end.
package func secMessage(for status: OSStatus, detail: String) -> String {
  var sentence = detail.trimmingCharacters(in: .whitespaces)
  while sentence.hasSuffix(".") { sentence.removeLast() }
  let firstWord = sentence.prefix { !$0.isWhitespace && $0 != ":" }
  if let first = firstWord.first, first.isLowercase, firstWord.allSatisfy({ $0.isLowercase || $0 == "'" }) {
    sentence = first.uppercased() + sentence.dropFirst()
  }
  guard !sentence.isEmpty else { return secMessage(for: status) }
  return "\(secMessage(for: status)) \(sentence)."
}

/// The reason for the failure of this thread's latest SecItem call, as errno keeps the last error:
/// Apple's API returns only a status, so `SecCopyErrorMessageString` for that same status adds the
/// reason ("kSecMatchLimit: must be a number, kSecMatchLimitOne or kSecMatchLimitAll"). Every
/// SecItem call starts by clearing it, so a reason never outlives the call that caused it.
enum SecItemFailureDetail {
  private final class Box {
    let status: OSStatus
    let detail: String?
    init(_ status: OSStatus, _ detail: String?) {
      self.status = status
      self.detail = detail
    }
  }

  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { pointer in if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() } }
    return key
  }()

  /// Forgets the reason of an earlier call (at the start of every call).
  static func clear() {
    guard let previous = pthread_getspecific(key) else { return }
    Unmanaged<AnyObject>.fromOpaque(previous).release()
    pthread_setspecific(key, nil)
  }

  /// Records a failed call's status and reason for this thread.
  static func record(_ status: SecStatus) {
    if let previous = pthread_getspecific(key) { Unmanaged<AnyObject>.fromOpaque(previous).release() }
    pthread_setspecific(key, Unmanaged.passRetained(Box(status.code, status.detail) as AnyObject).toOpaque())
  }

  /// The reason of this thread's last failed call, when it failed with `status`.
  static func last(for status: OSStatus) -> String? {
    guard let pointer = pthread_getspecific(key) else { return nil }
    let box = Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as! Box
    return box.status == status ? box.detail : nil
  }
}

/// The name of a status code (`errSecDuplicateItem`), or nil for a code this runtime does not know.
package func SecStatusCodeName(_ status: OSStatus) -> String? {
  secStatusCodeTable.first { $0.code == status }?.name
}

import Foundation
import Security
import Testing

/// Section 14: SecCopyErrorMessageString.
@Suite struct ErrorMessageRules {
  @Test("Rule 14: known codes have a sentence and unknown ones the OS status fallback")
  func knownCodesHaveASentenceAndUnknownOnesTheOSStatusFallback() {
    for code in [
      errSecSuccess, errSecParam, errSecDuplicateItem, errSecItemNotFound, errSecInteractionNotAllowed,
      errSecMissingEntitlement,
    ] {
      let message = SecCopyErrorMessageString(code, nil) as String?
      #expect(message?.hasSuffix(".") == true, "code \(code)")
      #expect(message?.contains("OSStatus") == false)
    }
    #expect(SecCopyErrorMessageString(-12345, nil) as String? == "OSStatus -12345")
    #expect(
      SecCopyErrorMessageString(errSecDuplicateItem, nil) as String? == "The item already exists in the keychain.")
  }
}

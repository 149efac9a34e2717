import Foundation
import Security
import Testing

/// SecCopyErrorMessageString explains the last failed call's status on this thread, naming the
/// offending key by its constant, and never showing a value.
@Suite struct FailureMessages {
  private func message(_ status: OSStatus) -> String { SecCopyErrorMessageString(status, nil) as String? ?? "" }

  @Test func aParamErrorNamesTheKeyAndTheProblemButNotTheValue() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: "secret-text-3f9a"])) == errSecParam)
      let text = message(errSecParam)
      #expect(text.contains("kSecValueData: must be Data, not a String"), "\(text)")
      #expect(!text.contains("secret-text-3f9a"))

      #expect(copy(genp([kSecMatchLimit as String: "five"])).0 == errSecParam)
      #expect(message(errSecParam).contains("kSecMatchLimit: must be a number of 1 or more"))

      #expect(add(genp([kSecAttrServer as String: "example.com"])) == errSecNoSuchAttr)
      #expect(message(errSecNoSuchAttr).contains("kSecAttrServer: is not an attribute of kSecClassGenericPassword"))

      #expect(add(genp([kSecMatchLimit as String: kSecMatchLimitAll])) == errSecParam)
      #expect(message(errSecParam).contains("kSecMatchLimit: match keys have no meaning in SecItemAdd"))
    }
  }

  @Test func theReasonDoesNotOutliveTheNextCall() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: "text"])) == errSecParam)
      #expect(message(errSecParam).contains("kSecValueData"))
      #expect(add(genp([kSecValueData as String: Data(utf8: "ok")])) == errSecSuccess)
      #expect(message(errSecParam) == "A parameter passed to the function was not valid.")
    }
  }

  @Test func aMessageForAnotherStatusIsThePlainSentence() throws {
    try withFreshStore { _ in
      #expect(add(genp([kSecValueData as String: 42])) == errSecParam)
      #expect(message(errSecDuplicateItem) == "The item already exists in the keychain.")
      #expect(message(errSecParam).contains("kSecValueData: must be Data, not a number"))
    }
  }
}

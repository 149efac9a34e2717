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
      #expect(message(errSecParam).contains("kSecMatchLimit: is a search key, which SecItemAdd does not take"))
    }
  }

  @Test("Messages are sentences: one period, a capital letter, no internal numbers (issue 52)")
  func messagesArePlainSentences() {
    // Each detail as the layers write it: ending with a period or not, starting lowercase or with
    // a constant's name.
    #expect(
      secMessage(for: errSecAuthFailed, detail: "Wrong passphrase (1 in a row).")
        == "Authentication failed: the key or passphrase is wrong. Wrong passphrase (1 in a row).")
    #expect(
      secMessage(for: errSecInteractionNotAllowed, detail: "no terminal to ask on")
        .hasSuffix(" No terminal to ask on."))
    #expect(
      secMessage(for: errSecParam, detail: "kSecValueData: must be Data")
        == "A parameter passed to the function was not valid. kSecValueData: must be Data.")
    // A prompt that cannot be shown says so, not only that the keychain is locked.
    let unshown = UserAuthenticationFailure.notInteractive("no terminal to ask on").status
    #expect(
      secMessage(for: unshown.code, detail: unshown.detail ?? "").contains("The user must be asked, but cannot be"))
    for text in [
      secMessage(for: errSecAuthFailed, detail: "Wrong passphrase (1 in a row)."),
      secMessage(for: errSecUserCanceled, detail: "The user canceled the prompt."),
    ] {
      #expect(!text.contains(".."), "\(text)")
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

  @Test("No message in the sources cites a rule, decision or issue number (issues 52 and 67)")
  func noInternalNumbersInMessages() throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources")
      .standardizedFileURL
    // A rule or decision cited in parentheses, a decision by its letter, or an issue's number.
    let citation = try Regex(
      #""[^"\n]*(\((decision|rule|keys rule) [0-9]|decision D[0-9]|\(D[0-9]+\)|[Ii]ssue [0-9])[^"\n]*""#)
    var found: [String] = []
    for case let file as URL in FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
    where file.pathExtension == "swift" {
      let text = try String(contentsOf: file, encoding: .utf8)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
      where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && line.contains(citation) {
        found.append("\(file.lastPathComponent):\(number + 1)")
      }
    }
    #expect(found.isEmpty, "\(found)")
  }

  @Test("A store's error reads as its message through localizedDescription (issue 52)")
  func storeErrorsAreLocalized() {
    let error: any Error = KeychainStoreError(status: errSecIO, message: "Cannot open the store /tmp/x: it is a file.")
    #expect(error.localizedDescription == "Cannot open the store /tmp/x: it is a file.")
  }
}

import Foundation
import Testing

@testable import Security

/// Issue 49, case 11: the reason a program gives is shown as its words, on one line, so it cannot
/// add a line of its own that names another program or pose as the keychain's text.
@Suite struct PromptText {
  @Test("A reason's newlines, tabs and escape codes become spaces: one line")
  func aReasonStaysOnOneLine() {
    let spoof = "Sign in\n\n/usr/bin/firefox wants to use a protected keychain item.\r\n\u{1B}[2J\tThen"
    let words = PassphraseAuthenticator.programWords(spoof)
    #expect(!words.contains { $0.isNewline })
    #expect(!words.unicodeScalars.contains { $0.properties.generalCategory == .control })
    #expect(words == "Sign in /usr/bin/firefox wants to use a protected keychain item. [2J Then")
    let text = PassphraseAuthenticator.promptText(reason: spoof, caller: "/usr/bin/evil")
    #expect(text.hasPrefix("/usr/bin/evil wants to use a protected keychain item. It says: \u{201C}Sign in "))
    #expect(text.split(whereSeparator: \.isNewline).count == 1)
  }

  @Test("Characters that reorder or hide text are dropped, and a long reason is cut")
  func formatCharactersAreDroppedAndLengthIsBounded() {
    let reordered = "pay \u{202E}regnarts\u{202C} now\u{200B}\u{2028}next"
    #expect(PassphraseAuthenticator.programWords(reordered) == "pay regnarts now next")
    let long = String(repeating: "a", count: 10_000)
    let cut = PassphraseAuthenticator.programWords(long)
    #expect(cut.count == PassphraseAuthenticator.maximumReasonLength)
    #expect(cut.hasSuffix("\u{2026}"))
    #expect(PassphraseAuthenticator.programWords(" \n ") == "")
    #expect(
      PassphraseAuthenticator.promptText(reason: "\n", caller: "tool")
        == "tool wants to use a protected keychain item. Keychain passphrase:")
  }
}

import Foundation
import LocalAuthentication
import Security
import Testing

/// A passphrase store this process holds, found locked by a SecItem call (issue 67): the call asks
/// the user to unlock it through the store's prompt, as macOS asks for a locked keychain's password
/// and keychaind for its store, and goes on; a call that may not prompt, a cancelled prompt or a
/// store with no prompt answers errSecInteractionNotAllowed as before.
@Suite struct LockedStoreRules {
  @Test("A call on a locked passphrase store asks once to unlock it, then goes on")
  func aLockedStoreAsksToUnlock() throws {
    let fixture = try AuthenticationFixture()
    fixture.store.lock()
    fixture.run {
      #expect(addToken("first", []) == errSecSuccess)
      #expect(fixture.prompts.count == 1)
      #expect(!fixture.store.isLocked)
      // Unlocked now: the next call asks nothing.
      #expect(readToken("first") == (errSecSuccess, "secret-first"))
      #expect(fixture.prompts.count == 1)
    }
  }

  @Test("A call that may not prompt, or whose prompt is cancelled, answers errSecInteractionNotAllowed")
  func noUnlockWithoutThePrompt() throws {
    let fixture = try AuthenticationFixture()
    fixture.run { #expect(addToken("kept", []) == errSecSuccess) }
    fixture.store.lock()
    fixture.run {
      #expect(readToken("kept", [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]).0 == -25308)
      let context = LAContext()
      context.interactionNotAllowed = true
      #expect(readToken("kept", [kSecUseAuthenticationContext as String: context]).0 == -25308)
      #expect(fixture.prompts.isEmpty)
    }
    try fixture.use(.cancels)
    fixture.run {
      #expect(readToken("kept").0 == errSecInteractionNotAllowed)
      #expect(fixture.prompts.count == 1)
      #expect(fixture.store.isLocked)
    }
  }

  @Test("A wrong passphrase leaves the store locked and the call refused")
  func aWrongPassphraseUnlocksNothing() throws {
    let fixture = try AuthenticationFixture()
    fixture.store.lock()
    try fixture.use(.answers("not the passphrase"))
    fixture.run {
      #expect(addToken("never", []) == errSecInteractionNotAllowed)
      #expect(fixture.store.isLocked)
    }
  }
}

import Foundation
import LocalAuthentication
import Security
import Testing

/// The SecItem rules of issue 32: an item whose access control asks for the user is read after
/// the user proves their presence (the store passphrase), through an LAContext or a prompt.
@Suite struct SecItemAuthenticationRules {
  @Test("Without a context, reading a protected item prompts once, naming the program and the reason")
  func withoutAContextReadingPrompts() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      #expect(addToken() == errSecSuccess)
      #expect(fixture.prompts.isEmpty)  // adding asks nothing
      let (status, value) = readToken("token", [kSecUseOperationPrompt as String: "Show the token"])
      #expect(status == errSecSuccess && value == "secret-token")
      let prompts = fixture.prompts
      #expect(prompts.count == 1)
      #expect(prompts.first?.contains(ProcessInfo.processInfo.processName) == true)
      #expect(prompts.first?.contains("Show the token") == true)
      // Without a context nothing is remembered: the next read asks again, as Apple's does.
      #expect(readToken().0 == errSecSuccess)
      #expect(fixture.prompts.count == 2)
      // Attributes need no proof.
      var result: CFTypeRef?
      #expect(
        SecItemCopyMatching(tokenQuery("token", [kSecReturnAttributes as String: true]) as CFDictionary, &result)
          == errSecSuccess)
      #expect(fixture.prompts.count == 2)
    }
  }

  @Test("An evaluated LAContext reads without asking again, and an invalidated one reads nothing")
  func anEvaluatedContextReadsWithoutAskingAgain() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      addToken()
      let context = LAContext()
      #expect(evaluate(context) == nil)
      #expect(fixture.prompts.count == 1)
      for _ in 0..<3 {
        #expect(
          readToken("token", [kSecUseAuthenticationContext as String: context]) == (errSecSuccess, "secret-token"))
      }
      #expect(fixture.prompts.count == 1)
      context.invalidate()
      let (status, value) = readToken("token", [kSecUseAuthenticationContext as String: context])
      #expect(status == errSecAuthFailed && value == nil)
      #expect(fixture.prompts.count == 1)  // an invalidated context does not prompt
      #expect(evaluate(context)?.code == .invalidContext)
    }
  }

  @Test("A context that was not evaluated is evaluated by the read that prompts for it")
  func anUnevaluatedContextIsEvaluatedByTheReadThatPrompts() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      addToken("first")
      addToken("second")
      let context = LAContext()
      #expect(readToken("first", [kSecUseAuthenticationContext as String: context]).0 == errSecSuccess)
      #expect(readToken("second", [kSecUseAuthenticationContext as String: context]).0 == errSecSuccess)
      #expect(fixture.prompts.count == 1)
    }
  }

  @Test("kSecUseAuthenticationUIFail and interactionNotAllowed refuse instead of prompting")
  func failAndInteractionNotAllowedRefuseInsteadOfPrompting() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      addToken()
      let fail: [String: Any] = [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]
      #expect(readToken("token", fail).0 == errSecInteractionNotAllowed)
      let quiet = LAContext()
      quiet.interactionNotAllowed = true
      #expect(readToken("token", [kSecUseAuthenticationContext as String: quiet]).0 == errSecInteractionNotAllowed)
      #expect(evaluate(quiet)?.code == .notInteractive)
      #expect(fixture.prompts.isEmpty)
      // A context the user already proved needs no interaction.
      let proven = LAContext()
      #expect(evaluate(proven) == nil)
      proven.interactionNotAllowed = true
      #expect(
        readToken("token", fail.merging([kSecUseAuthenticationContext as String: proven]) { $1 }) == (
          errSecSuccess, "secret-token"
        ))
      #expect(fixture.prompts.count == 1)
    }
  }

  @Test("kSecUseAuthenticationUISkip leaves out what would prompt, but not what a proven context reads")
  func skipLeavesOutWhatWouldPrompt() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      addToken("guarded")
      SecItemAdd(tokenQuery("open", [kSecValueData as String: Data("free".utf8)]) as CFDictionary, nil)
      let all: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
        kSecReturnData as String: true, kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
      ]
      var result: CFTypeRef?
      #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
      #expect((result as? [Data]) == [Data("free".utf8)])
      let context = LAContext()
      #expect(evaluate(context) == nil)
      var withContext = all
      withContext[kSecUseAuthenticationContext as String] = context
      #expect(SecItemCopyMatching(withContext as CFDictionary, &result) == errSecSuccess)
      #expect(Set(result as? [Data] ?? []) == [Data("free".utf8), Data("secret-guarded".utf8)])
      #expect(fixture.prompts.count == 1)
    }
  }

  @Test("kSecUseAuthenticationContext must be an LAContext")
  func theContextMustBeAnLAContext() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      addToken()
      #expect(readToken("token", [kSecUseAuthenticationContext as String: "not a context"]).0 == errSecParam)
      #expect(
        readToken(
          "token", [kSecUseAuthenticationContext as String: LAContext(), kSecUseCredentialReference as String: Data()]
        )
        .0 == errSecParam)  // rule 1.12
    }
  }

  @Test("Or is satisfied by the passphrase alone; And with biometry never is, on Linux")
  func orAndAndCombinators() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      addToken("either", [.or, .devicePasscode, .biometryAny])
      addToken("both", [.and, .devicePasscode, .biometryAny])
      addToken("usage", [.privateKeyUsage])
      let context = LAContext()
      #expect(evaluate(context) == nil)
      let using = [kSecUseAuthenticationContext as String: context]
      #expect(readToken("either", using) == (errSecSuccess, "secret-either"))
      #expect(readToken("both", using).0 == errSecInteractionNotAllowed)
      #expect(readToken("usage") == (errSecSuccess, "secret-usage"))  // no proof of the user
      #expect(fixture.prompts.count == 1)
    }
  }
}

/// What the user's answers give: Apple's errors, and never a read.
@Suite struct PromptOutcomes {
  @Test("A wrong answer, a cancel, a crashed helper and no answer each give Apple's error and no data")
  func failuresGiveApplesErrors() throws {
    let fixture = try AuthenticationFixture(user: .answers("wrong"))
    try fixture.run {
      addToken()
      let cases: [(AuthenticationFixture.User, OSStatus, LAError.Code)] = [
        (.answers("wrong"), errSecAuthFailed, .authenticationFailed),
        (.cancels, errSecUserCanceled, .userCancel),
        (.crashes, errSecAuthFailed, .systemCancel),
        (.hangs, errSecAuthFailed, .systemCancel),
      ]
      for (user, status, code) in cases {
        try fixture.use(user, timeout: .seconds(1))
        let (read, value) = readToken()
        #expect(read == status, "\(user)")
        #expect(value == nil)
        let context = LAContext()
        #expect(evaluate(context)?.code == code, "\(user)")
        #expect(
          readToken(
            "token",
            [
              kSecUseAuthenticationContext as String: context,
              kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
            ]
          ).0 == errSecInteractionNotAllowed)
      }
    }
  }

  @Test("The askpass helper inherits none of the process's open files")
  func theHelperInheritsNoFiles() throws {
    let fixture = try AuthenticationFixture()
    let path = fixture.directory.appendingPathComponent("open-file").path
    #expect(FileManager.default.createFile(atPath: path, contents: Data()))
    // Opened without O_CLOEXEC, as a C library might: a child would inherit it.
    let descriptor = open(path, O_RDONLY)
    #expect(descriptor > 2)
    defer { close(descriptor) }
    let report = fixture.directory.appendingPathComponent("inherited").path
    try fixture.use(
      .runs(
        "if [ -e /proc/$$/fd/\(descriptor) ]; then echo inherited > '\(report)'; fi\n"
          + "printf '%s\\n' '\(AuthenticationFixture.passphrase)'"))
    fixture.run {
      addToken()
      #expect(readToken() == (errSecSuccess, "secret-token"))
    }
    #expect(fixture.prompts.count == 1)
    #expect(!FileManager.default.fileExists(atPath: report))
  }

  @Test("No helper and no terminal: errSecInteractionNotAllowed, LAError.notInteractive")
  func noPromptIsNotInteractive() throws {
    let fixture = try AuthenticationFixture()
    fixture.store.authenticator = PassphraseAuthenticator(
      storage: fixture.store.storage!, ledger: FailedAttemptLedger(directory: fixture.store.directory),
      prompt: PassphrasePrompt(helper: fixture.directory.appendingPathComponent("missing").path))
    fixture.run {
      addToken()
      #expect(readToken().0 == errSecInteractionNotAllowed)
      #expect(evaluate(LAContext())?.code == .notInteractive)
    }
  }

  @Test("Wrong answers are counted across restarts and lock prompts for a growing time")
  func wrongAnswersAreCountedAndLockPrompts() throws {
    let fixture = try AuthenticationFixture(user: .answers("wrong"))
    try fixture.run {
      addToken()
      for _ in 0..<5 { #expect(readToken().0 == errSecAuthFailed) }
      #expect(fixture.prompts.count == 5)
      // The fifth locked prompts for a minute: the next read fails without asking, even with the
      // right answer ready, and even for a store opened again (the count is on disk).
      try fixture.use(.answers(AuthenticationFixture.passphrase))
      #expect(readToken().0 == errSecAuthFailed)
      #expect(evaluate(LAContext())?.message.contains("try again in") == true)
      #expect(fixture.prompts.count == 5)
    }
    let reopened = try KeychainStore(directory: fixture.store.directory, passphrase: AuthenticationFixture.passphrase)
    let ledger = FailedAttemptLedger(directory: reopened.directory)
    #expect(ledger.read().failures == 5)
    #expect((55...60).contains(ledger.secondsLocked()))
    // A minute later the user may try again, and a right answer clears the count.
    try fixture.use(.answers(AuthenticationFixture.passphrase), now: { Date().addingTimeInterval(61) })
    fixture.run { #expect(readToken() == (errSecSuccess, "secret-token")) }
    #expect(ledger.read().failures == 0)
  }

  @Test("The lockout grows as Apple's passcode lockout does")
  func theLockoutGrows() throws {
    #expect((1...4).map(FailedAttemptLedger.lockout(afterFailures:)) == [0, 0, 0, 0])
    #expect((5...9).map(FailedAttemptLedger.lockout(afterFailures:)) == [60, 300, 900, 3600, 3600])
    let fixture = try AuthenticationFixture()
    let file = fixture.store.directory.appendingPathComponent("authentication-failures")
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    try "KBAF1 6 1800000000\n".write(to: file, atomically: true, encoding: .utf8)
    #expect(FailedAttemptLedger(directory: fixture.store.directory, now: { start }).secondsLocked() == 300)
    #expect(
      FailedAttemptLedger(directory: fixture.store.directory, now: { start.addingTimeInterval(301) }).secondsLocked()
        == 0)
    // A damaged count is not a way to clear it.
    try "garbage".write(to: file, atomically: true, encoding: .utf8)
    #expect(FailedAttemptLedger(directory: fixture.store.directory).secondsLocked() == 60)
  }
}

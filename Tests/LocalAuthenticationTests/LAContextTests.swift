import Foundation
import LocalAuthentication
import Security
import Testing

/// LAContext, LAPolicy and LAError as Apple code uses them.
@Suite struct LAContextBehaviour {
  @Test("canEvaluatePolicy: the passphrase is the passcode; biometry and watches are not available")
  func canEvaluatePolicy() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      var error: NSError?
      #expect(LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
      #expect(error == nil)
      #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
      #expect(error?.domain == LAErrorDomain && error?.code == LAError.Code.biometryNotAvailable.rawValue)
      #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithWatch, error: &error))
      #expect(error?.code == LAError.watchNotAvailable.rawValue)
      #expect(LAContext().biometryType == .none)
    }
    #expect(fixture.prompts.isEmpty)
  }

  @Test("A store without a passphrase is a device without a passcode; a protected add there is warned of")
  func aStoreWithoutAPassphraseHasNoPasscode() throws {
    let fixture = try AuthenticationFixture(passphrase: nil)
    let warnings = KeychainWarnings.Recorder()
    KeychainWarnings.$recorder.withValue(warnings) {
      fixture.run {
        var error: NSError?
        #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
        #expect(error?.code == LAError.Code.passcodeNotSet.rawValue)
        #expect(evaluate(LAContext())?.code == .passcodeNotSet)
        #expect(warnings.recorded.isEmpty)
        // Stored, as Apple's keychain stores it on a device without a passcode, and warned of:
        // nothing can ever prove the user's presence to this store.
        #expect(addToken() == errSecSuccess)
        #expect(warnings.recorded.count == 1)
        #expect(warnings.recorded.first?.contains("security create-keychain -p") == true)
        #expect(readToken().0 == errSecInteractionNotAllowed)
        // An item with no such constraint is no cause for one.
        #expect(addToken("plain", []) == errSecSuccess)
        #expect(warnings.recorded.count == 1)
      }
    }
    #expect(fixture.prompts.isEmpty)
  }

  @Test("The async form answers true or throws LAError")
  func theAsyncForm() async throws {
    let fixture = try AuthenticationFixture()
    try await fixture.run {
      #expect(try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "sign in"))
      try fixture.use(.cancels)
      await #expect(throws: LAError(.userCancel)) {
        try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "sign in")
      }
      do {
        _ = try await LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "x")
        Issue.record("biometry evaluated")
      } catch let error as LAError where error.code == .biometryNotAvailable {
      }
    }
  }

  @Test("touchIDAuthenticationAllowableReuseDuration lets a recent proof stand for a new context")
  func reuseDurationLetsARecentProofStand() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      #expect(evaluate(LAContext()) == nil)
      let reusing = LAContext()
      reusing.touchIDAuthenticationAllowableReuseDuration = 60
      #expect(evaluate(reusing) == nil)
      #expect(fixture.prompts.count == 1)
      // The default, 0, always asks; values above Apple's maximum count as the maximum.
      #expect(evaluate(LAContext()) == nil)
      #expect(fixture.prompts.count == 2)
      reusing.touchIDAuthenticationAllowableReuseDuration = 10_000
      #expect(
        reusing.touchIDAuthenticationAllowableReuseDuration == LATouchIDAuthenticationMaximumAllowableReuseDuration)
      // No number of seconds is no reuse, never a trap (the agent's client multiplies it).
      for odd in [Double.nan, .infinity, -.infinity, -5] {
        reusing.touchIDAuthenticationAllowableReuseDuration = odd
        #expect(reusing.touchIDAuthenticationAllowableReuseDuration == 0)
        #expect(evaluate(reusing) == nil)
      }
    }
  }

  @Test("LAError bridges to NSError in Apple's domain with Apple's codes")
  func laErrorBridges() {
    let error = LAError(.userCancel) as NSError
    #expect(error.domain == "com.apple.LocalAuthentication" && error.code == -2)
    #expect(LAError.Code.notInteractive.rawValue == -1004 && LAError.Code.passcodeNotSet.rawValue == -5)
    #expect(LAError.touchIDNotAvailable == LAError.Code.biometryNotAvailable)
  }
}

/// `.applicationPassword`: the item's secret is sealed under a key derived from the password.
@Suite struct ApplicationPasswordItems {
  @Test("The password given with setCredential seals the secret; a wrong one cannot open it")
  func thePasswordSealsTheSecret() throws {
    let fixture = try AuthenticationFixture(passphrase: nil)
    try fixture.run {
      let adding = LAContext()
      #expect(adding.setCredential(Data("app pw".utf8), type: .applicationPassword))
      #expect(adding.isCredentialSet(.applicationPassword))
      #expect(
        addToken("sealed", .applicationPassword, [kSecUseAuthenticationContext as String: adding]) == errSecSuccess)
      // On disk (through the storage contract) the secret is sealed, not the plaintext.
      var filter = ItemFilter(itemClass: .genericPassword)
      filter.accessGroups = ["la-tests"]
      let stored = try fixture.store.storage!.find(filter, limit: nil, fetch: ItemFetch(attributes: false, data: true))
      let sealed = try #require(stored.first?.data)
      #expect(sealed.prefix(4) == Data("KBAP".utf8))
      #expect(sealed.range(of: Data("secret-sealed".utf8)) == nil)

      let right = expectOnlyItsPasswordOpens("sealed", password: "app pw")
      // Without a credential, the password is asked for at the prompt.
      try fixture.use(.answers("app pw"))
      #expect(readToken("sealed") == (errSecSuccess, "secret-sealed"))
      #expect(fixture.prompts.last?.contains("application password") == true)
      // invalidate() wipes the credential.
      right.invalidate()
      #expect(!right.isCredentialSet(.applicationPassword))
    }
  }

  @Test("Updating a sealed item's data seals it again; changing the password protection needs the data")
  func updatesKeepTheSecretSealed() throws {
    let fixture = try AuthenticationFixture(passphrase: nil)
    fixture.run {
      let context = LAContext()
      context.setCredential(Data("app pw".utf8), type: .applicationPassword)
      let using = [kSecUseAuthenticationContext as String: context]
      addToken("sealed", .applicationPassword, using)
      let update = SecItemUpdate(
        tokenQuery("sealed", using) as CFDictionary, [kSecValueData as String: Data("rotated".utf8)] as CFDictionary)
      #expect(update == errSecSuccess)
      #expect(readToken("sealed", using) == (errSecSuccess, "rotated"))
      let open = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], nil)!
      #expect(
        SecItemUpdate(tokenQuery("sealed") as CFDictionary, [kSecAttrAccessControl as String: open] as CFDictionary)
          == errSecParam)
      #expect(
        SecItemUpdate(
          tokenQuery("sealed") as CFDictionary,
          [kSecAttrAccessControl as String: open, kSecValueData as String: Data("plain".utf8)] as CFDictionary)
          == errSecSuccess)
      #expect(readToken("sealed") == (errSecSuccess, "plain"))
    }
  }

  @Test("A private key protected by an application password is a ref only with the password")
  func aKeyRefNeedsThePassword() throws {
    let fixture = try AuthenticationFixture(passphrase: nil)
    fixture.run {
      let context = LAContext()
      context.setCredential(Data("key pw".utf8), type: .applicationPassword)
      let control = SecAccessControlCreateWithFlags(
        nil, kSecAttrAccessibleWhenUnlocked, [.privateKeyUsage, .applicationPassword], nil)!
      let tag = Data("com.example.la.key".utf8)
      var error: Unmanaged<CFError>?
      let key = SecKeyCreateRandomKey(
        [
          kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
          kSecUseAuthenticationContext as String: context,
          kSecPrivateKeyAttrs as String: [
            kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
            kSecAttrAccessControl as String: control,
          ],
        ] as CFDictionary, &error)
      #expect(key != nil, "\(String(describing: error?.takeRetainedValue()))")
      func reference(_ extra: [String: Any]) -> OSStatus {
        var result: CFTypeRef?
        return SecItemCopyMatching(
          [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
          ].merging(extra) { $1 } as CFDictionary, &result)
      }
      #expect(reference([kSecUseAuthenticationContext as String: context]) == errSecSuccess)
      #expect(
        reference([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]) == errSecInteractionNotAllowed)
      // The generation took the password from the context: nobody was asked.
      #expect(fixture.prompts.isEmpty)
    }
  }
}

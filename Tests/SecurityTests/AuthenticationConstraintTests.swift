import Foundation
import Security
import Testing

/// keys rule 10.4 (second half) and keys rule 6.7 in a store without a passphrase (a device without
/// a passcode): an item whose access control asks for the user keeps its secret, since there is
/// nothing the user could prove. LocalAuthenticationTests cover passphrase stores, where the user
/// proves their presence and the secret is read.
@Suite struct AuthenticationConstraintRules {
  static func constraint(_ flags: SecAccessControlCreateFlags) throws -> SecAccessControl {
    try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, flags, nil))
  }

  @Test("Keys rule 10.4: a constrained item is stored and listed, but its data is errSecInteractionNotAllowed")
  func aConstrainedItemIsStoredAndListedButItsDataIsInteractionNotAllowed() throws {
    try withFreshStore { _ in
      let control = try Self.constraint(.userPresence)
      #expect(
        add(genp("guarded", [kSecAttrAccessControl as String: control, kSecValueData as String: Data(utf8: "pw")]))
          == errSecSuccess)
      let attributes = try #require(readAttributes(genp("guarded")))
      #expect(attributes[kSecAttrAccessControl as String] as? SecAccessControl == control)
      #expect(copy(genp("guarded", [kSecReturnPersistentRef as String: true])).0 == errSecSuccess)
      // A password item has no ref, so asking for one reads nothing secret.
      #expect(copy(genp("guarded", [kSecReturnRef as String: true])).0 == errSecSuccess)
      #expect(copy(genp("guarded", [kSecReturnData as String: true])).0 == errSecInteractionNotAllowed)
      #expect(
        copy(genp("guarded", [kSecReturnData as String: true, kSecReturnAttributes as String: true])).0
          == errSecInteractionNotAllowed)
      // One constrained item among the matches refuses the whole data listing, as the prompt would.
      add(genp("open", [kSecValueData as String: Data(utf8: "free")]))
      let listing: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
        kSecReturnData as String: true,
      ]
      #expect(copy(listing).0 == errSecInteractionNotAllowed)
      #expect(readData(genp("open")) == Data(utf8: "free"))
      // The item can still be updated and deleted without reading it.
      #expect(update(genp("guarded"), [kSecAttrLabel as String: "renamed"]) == errSecSuccess)
      #expect(delete(genp("guarded")) == errSecSuccess)
    }
  }

  @Test("Keys rule 10.4: key usage and combinators alone are no constraint")
  func keyUsageAndCombinatorsAloneAreNoConstraint() throws {
    try withFreshStore { _ in
      let control = try Self.constraint([.privateKeyUsage])
      add(genp([kSecAttrAccessControl as String: control, kSecValueData as String: Data(utf8: "pw")]))
      #expect(readData(genp()) == Data(utf8: "pw"))
    }
  }

  @Test("Keys rule 10.4: a stored private key with a biometry constraint is no ref, while its public key is")
  func aStoredPrivateKeyWithABiometryConstraintIsNoRef() throws {
    try withFreshStore { _ in
      let control = try Self.constraint([.privateKeyUsage, .biometryAny])
      let tag = Data(utf8: "com.example.guarded")
      _ = try makeKey(
        kSecAttrKeyTypeECSECPrimeRandom, bits: 256,
        [
          kSecPrivateKeyAttrs as String: [
            kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
            kSecAttrAccessControl as String: control,
          ],
          kSecPublicKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag],
        ])
      func reference(_ keyClass: CFString) -> (OSStatus, AnyObject?) {
        copy([
          kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
          kSecAttrKeyClass as String: keyClass, kSecReturnRef as String: true,
        ])
      }
      #expect(reference(kSecAttrKeyClassPrivate).0 == errSecInteractionNotAllowed)
      let (status, publicKey) = reference(kSecAttrKeyClassPublic)
      #expect(status == errSecSuccess && publicKey is SecKey)
    }
  }

  @Test("Keys rule 6.7: authentication UI skip leaves constrained items out and does not count them")
  func authenticationUISkipLeavesConstrainedItemsOutAndDoesNotCountThem() throws {
    try withFreshStore { _ in
      let control = try Self.constraint(.devicePasscode)
      add(genp("first", [kSecAttrAccessControl as String: control, kSecValueData as String: Data(utf8: "hidden")]))
      add(genp("second", [kSecValueData as String: Data(utf8: "shown")]))
      let skip: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword,
        kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
      ]
      // With a limit of one the constrained first item is passed over, not returned as nothing.
      #expect(readData(skip) == Data(utf8: "shown"))
      var all = skip
      all[kSecMatchLimit as String] = kSecMatchLimitAll
      all[kSecReturnData as String] = true
      let (status, found) = copy(all)
      #expect(status == errSecSuccess)
      #expect((found as? [Data]) == [Data(utf8: "shown")])
      #expect(
        copy(
          genp(
            "first", [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip, kSecReturnData as String: true])
        ).0
          == errSecItemNotFound)
      // Attributes need no authentication, so an attribute listing still shows both.
      all[kSecReturnData as String] = nil
      all[kSecReturnAttributes as String] = true
      #expect((copy(all).1 as? [NSDictionary])?.count == 2)
    }
  }
}

/// 10.4 for identities: the private key's access control decides whether the identity's ref, which
/// holds the key, is handed out.
@Suite struct IdentityAuthenticationConstraint {
  @Test("Keys rule 10.4: an identity whose key needs authentication is listed but is no ref")
  func anIdentityWhoseKeyNeedsAuthenticationIsListedButIsNoRef() throws {
    let scratch = try ScratchDirectory()
    let file = try IdentityRules.pkcs12(passphrase: "p", name: "guarded", in: scratch)
    let (status, items) = IdentityRules.importItems(file, [kSecImportExportPassphrase as String: "p"])
    #expect(status == errSecSuccess)
    let identity = try #require(items.first?[kSecImportItemIdentity as String] as! SecIdentity?)
    try withFreshStore { _ in
      let control = try AuthenticationConstraintRules.constraint(.userPresence)
      // 8.5: the rest of the dictionary (the access control) goes to the certificate and the key.
      #expect(
        add([kSecValueRef as String: identity, kSecAttrAccessControl as String: control]) == errSecSuccess)
      let query: [String: Any] = [kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "guarded"]
      #expect(copy(query.merging([kSecReturnAttributes as String: true]) { $1 }).0 == errSecSuccess)
      #expect(copy(query.merging([kSecReturnRef as String: true]) { $1 }).0 == errSecInteractionNotAllowed)
      let skipping = query.merging([
        kSecReturnRef as String: true, kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
      ]) { $1 }
      #expect(copy(skipping).0 == errSecItemNotFound)
    }
  }
}

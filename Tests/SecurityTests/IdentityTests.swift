import Foundation
import Security
import Testing

/// KeysSemantics sections 8 and 9: identities and PKCS#12 import, on files the openssl
/// command line makes.
@Suite struct IdentityRules {
  /// A P-256 key and a self-signed certificate for it, exported as PKCS#12 with `passphrase`.
  static func pkcs12(
    passphrase: String, legacy: Bool = false, name: String = "identity", iterations: Int? = nil,
    in scratch: ScratchDirectory
  ) throws -> Data {
    let file = UUID().uuidString
    try openssl(
      [
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
        "\(file).key", "-subj", "/CN=\(name)", "-days", "1", "-out", "\(file).pem",
      ], in: scratch.url)
    var arguments = [
      "pkcs12", "-export", "-inkey", "\(file).key", "-in", "\(file).pem", "-name", name, "-passout",
      "pass:\(passphrase)", "-out", "\(file).p12",
    ]
    if legacy { arguments.append("-legacy") }
    if let iterations { arguments += ["-iter", String(iterations)] }
    try openssl(arguments, in: scratch.url)
    return try scratch.read("\(file).p12")
  }

  static func importItems(_ data: Data, _ options: [String: Any]) -> (OSStatus, [[String: Any]]) {
    var items: CFArray?
    let status = SecPKCS12Import(data as CFData, options as CFDictionary, &items)
    return (status, (items as? [[String: Any]]) ?? [])
  }

  @Test("Keys rules 9.1, 9.4 and 8.9: a PKCS#12 file gives its identity, chain, label and key ID")
  func aPKCS12FileGivesItsIdentity() throws {
    let scratch = try ScratchDirectory()
    let file = try Self.pkcs12(passphrase: "user-one", name: "user one", in: scratch)
    let (status, items) = Self.importItems(file, [kSecImportExportPassphrase as String: "user-one"])
    #expect(status == errSecSuccess)
    #expect(items.count == 1)
    let item = try #require(items.first)
    let identity = try #require(item[kSecImportItemIdentity as String] as! SecIdentity?)
    var certificate: SecCertificate?
    var key: SecKey?
    #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
    #expect(SecIdentityCopyPrivateKey(identity, &key) == errSecSuccess)
    #expect(SecCertificateCopySubjectSummary(certificate!) as String? == "user one")
    #expect((item[kSecImportItemCertChain as String] as? [SecCertificate])?.first == certificate)
    #expect(item[kSecImportItemLabel as String] as? String == "user one")
    #expect((item[kSecImportItemKeyID as String] as? Data)?.isEmpty == false)
    // A trust over the identity's chain, with the basic policy (keys rule 9.4): a self-signed
    // certificate no anchor trusts.
    let trust = try #require(item[kSecImportItemTrust as String] as! SecTrust?)
    #expect((SecTrustCopyCertificateChain(trust) as? [SecCertificate])?.first == certificate)
    var policies: CFArray?
    #expect(SecTrustCopyPolicies(trust, &policies) == errSecSuccess)
    #expect((policies as? [SecPolicy]) == [SecPolicyCreateBasicX509()])
    #expect(!SecTrustEvaluateWithError(trust, nil))
    #expect(SecTrustSetAnchorCertificates(trust, [certificate!] as NSArray) == errSecSuccess)
    #expect(SecTrustEvaluateWithError(trust, nil))
    // The key signs what the certificate's key verifies.
    let message = Data("pkcs12".utf8)
    let signature = try sign(key!, .ecdsaSignatureMessageX962SHA256, message)
    #expect(verify(SecCertificateCopyKey(certificate!)!, .ecdsaSignatureMessageX962SHA256, message, signature))
  }

  @Test("Keys rules 9.1 and 9.2: a wrong or missing passphrase is errSecAuthFailed; junk is errSecDecode")
  func passphraseAndDecodeErrors() throws {
    let scratch = try ScratchDirectory()
    let file = try Self.pkcs12(passphrase: "secret", in: scratch)
    #expect(Self.importItems(file, [kSecImportExportPassphrase as String: "wrong"]).0 == errSecAuthFailed)
    #expect(Self.importItems(file, [:]).0 == errSecAuthFailed)
    #expect(
      Self.importItems(Data("not pkcs12".utf8), [kSecImportExportPassphrase as String: "secret"]).0 == errSecDecode)
    var truncated = file
    truncated.removeLast(40)
    #expect(Self.importItems(truncated, [kSecImportExportPassphrase as String: "secret"]).0 == errSecDecode)
  }

  @Test("A file asking for millions of key-derivation iterations is refused before any is run (issue 63)")
  func absurdIterationCountsAreRefused() throws {
    let scratch = try ScratchDirectory()
    // 65,535 iterations (encoded 02 03 00 FF FF) for the MAC, the key and the certificates: a
    // file exporters could write, imported as any other.
    let file = try Self.pkcs12(passphrase: "many", iterations: 65_535, in: scratch)
    #expect(Self.importItems(file, [kSecImportExportPassphrase as String: "many"]).0 == errSecSuccess)
    // The same counts raised to 8,388,607 in place (02 03 7F FF FF, the same length): refused as
    // undecodable before a single derivation, not worked through (a MAC check would take seconds,
    // and 2^31-1 iterations minutes) to a wrong MAC.
    let low = Data([0x02, 0x03, 0x00, 0xFF, 0xFF])
    let high = Data([0x02, 0x03, 0x7F, 0xFF, 0xFF])
    var raised = file
    var found = 0
    while let range = raised.range(of: low) {
      raised.replaceSubrange(range, with: high)
      found += 1
    }
    #expect(found == 3, "the MAC's, the key bag's and the certificates' counts")
    #expect(Self.importItems(raised, [kSecImportExportPassphrase as String: "many"]).0 == errSecDecode)
    // Only the MAC's count raised: refused the same way.
    var macOnly = file
    if let last = macOnly.range(of: low, options: .backwards) { macOnly.replaceSubrange(last, with: high) }
    #expect(Self.importItems(macOnly, [kSecImportExportPassphrase as String: "many"]).0 == errSecDecode)
  }

  @Test("Keys rule 9.3: legacy RC2/3DES files import as modern ones do")
  func legacyFilesImport() throws {
    let scratch = try ScratchDirectory()
    let file = try Self.pkcs12(passphrase: "old", legacy: true, in: scratch)
    let (status, items) = Self.importItems(file, [kSecImportExportPassphrase as String: "old"])
    #expect(status == errSecSuccess && items.count == 1)
  }

  @Test("Keys rules 8.10 and 8.11: an identity needs the certificate's own key; equal parts make equal identities")
  func anIdentityNeedsTheCertificatesKey() throws {
    let scratch = try ScratchDirectory()
    let items = Self.importItems(
      try Self.pkcs12(passphrase: "p", in: scratch), [kSecImportExportPassphrase as String: "p"]
    ).1
    let identity = try #require(items.first?[kSecImportItemIdentity as String] as! SecIdentity?)
    var certificate: SecCertificate?
    var key: SecKey?
    _ = SecIdentityCopyCertificate(identity, &certificate)
    _ = SecIdentityCopyPrivateKey(identity, &key)
    #expect(SecIdentityCreate(nil, certificate!, key!) == identity)
    #expect(SecIdentityCreate(nil, certificate!, try makeKey()) == nil)
    #expect(SecIdentityCreate(nil, certificate!, SecKeyCopyPublicKey(key!)!) == nil)
  }

  @Test("Keys rules 8.1 to 8.6 and 9.7: identities are stored as a certificate and a key, found joined, deleted")
  func identitiesAreStoredFoundAndDeleted() throws {
    let scratch = try ScratchDirectory()
    let file = try Self.pkcs12(passphrase: "p", name: "stored", in: scratch)
    try withFreshStore { _ in
      let (status, items) = Self.importItems(
        file, [kSecImportExportPassphrase as String: "p", kSecUseDataProtectionKeychain as String: true])
      #expect(status == errSecSuccess)
      let identity = try #require(items.first?[kSecImportItemIdentity as String] as! SecIdentity?)
      #expect(copy([kSecClass as String: kSecClassCertificate]).0 == errSecSuccess)
      #expect(copy([kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]).0 == 0)
      let (found, result) = copy([
        kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "stored", kSecReturnRef as String: true,
      ])
      #expect(found == errSecSuccess && result as? SecIdentity == identity)
      let attributes = try #require(
        copy([kSecClass as String: kSecClassIdentity, kSecReturnAttributes as String: true]).1 as? [String: Any])
      #expect(attributes[kSecAttrCertificateType as String] as? Int == 3)
      #expect(attributes[kSecAttrKeyClass as String] as? Int == 1)
      // 8.2: a key attribute filters the key; a shared one (the label) the certificate.
      let keyQuery: [String: Any] = [
        kSecClass as String: kSecClassIdentity, kSecAttrKeySizeInBits as String: 256, kSecReturnRef as String: true,
      ]
      #expect(copy(keyQuery).1 as? SecIdentity == identity)
      #expect(
        copy([kSecClass as String: kSecClassIdentity, kSecAttrKeySizeInBits as String: 384]).0 == errSecItemNotFound)
      // 8.5, 8.6: an identity's persistent reference is "idnt" and the certificate's UUID.
      let persistent = try #require(
        copy([kSecClass as String: kSecClassIdentity, kSecReturnPersistentRef as String: true]).1 as? Data)
      #expect(persistent.count == 20 && persistent.prefix(4) == Data("idnt".utf8))
      #expect(
        copy([kSecValuePersistentRef as String: persistent, kSecReturnRef as String: true]).1 as? SecIdentity
          == identity)
      // 8.8: an update changes the certificate and the key alike.
      #expect(update([kSecValueRef as String: identity], [kSecAttrLabel as String: "renamed"]) == errSecSuccess)
      #expect(copy([kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "renamed"]).0 == 0)
      #expect(copy([kSecClass as String: kSecClassKey, kSecAttrLabel as String: "renamed"]).0 == 0)
      #expect(update([kSecValueRef as String: identity], [kSecAttrApplicationTag as String: "x"]) == errSecNoSuchAttr)
      // Adding it again: both halves are there (8.5).
      #expect(add([kSecValueRef as String: identity]) == errSecDuplicateItem)
      #expect(delete([kSecValueRef as String: identity]) == errSecSuccess)
      #expect(copy([kSecClass as String: kSecClassIdentity]).0 == errSecItemNotFound)
      #expect(copy([kSecClass as String: kSecClassKey]).0 == errSecItemNotFound)
      let (added, reference) = addReturning([
        kSecValueRef as String: identity, kSecAttrLabel as String: "again", kSecReturnPersistentRef as String: true,
      ])
      #expect(added == errSecSuccess && (reference as? Data)?.prefix(4) == Data("idnt".utf8))
      #expect(delete([kSecValuePersistentRef as String: reference!]) == errSecSuccess)
      #expect(add([kSecValueRef as String: identity, kSecAttrLabel as String: "again"]) == errSecSuccess)
      #expect(copy([kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "again"]).0 == errSecSuccess)
    }
  }

  @Test("Decision D11: SecIdentityCreateWithCertificate finds the stored private key of a certificate")
  func createWithCertificateFindsTheStoredKey() throws {
    let scratch = try ScratchDirectory()
    let items = Self.importItems(
      try Self.pkcs12(passphrase: "p", in: scratch), [kSecImportExportPassphrase as String: "p"]
    ).1
    let identity = try #require(items.first?[kSecImportItemIdentity as String].map { $0 as AnyObject } as? SecIdentity)
    var certificate: SecCertificate?
    var key: SecKey?
    _ = SecIdentityCopyCertificate(identity, &certificate)
    _ = SecIdentityCopyPrivateKey(identity, &key)
    try withFreshStore { _ in
      var found: SecIdentity?
      #expect(SecIdentityCreateWithCertificate(nil, certificate!, &found) == errSecItemNotFound)
      #expect(add([kSecValueRef as String: key!]) == errSecSuccess)
      #expect(SecIdentityCreateWithCertificate(nil, certificate!, &found) == errSecSuccess)
      #expect(found == identity)
      #expect(SecIdentityCreateWithCertificate([] as NSArray, certificate!, &found) == errSecParam)
    }
  }

  @Test("Keys rule 9.7 and decision D9: without kSecUseDataProtectionKeychain an import stores nothing")
  func anImportStoresNothingByDefault() throws {
    let scratch = try ScratchDirectory()
    let file = try Self.pkcs12(passphrase: "p", in: scratch)
    try withFreshStore { _ in
      #expect(Self.importItems(file, [kSecImportExportPassphrase as String: "p"]).0 == errSecSuccess)
      #expect(copy([kSecClass as String: kSecClassCertificate]).0 == errSecItemNotFound)
    }
  }
}

/// Keys rule 9.4: every key of a PKCS#12 file is paired with its certificate.
@Suite struct PKCS12Pairing {
  @Test("Keys rule 9.4: two keys stored out of order are each paired with their own certificate")
  func everyKeyIsPairedWithItsCertificate() throws {
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/pkcs12/two-identities.p12")
    let (status, items) = IdentityRules.importItems(
      try Data(contentsOf: fixture), [kSecImportExportPassphrase as String: "two"])
    #expect(status == errSecSuccess)
    #expect(items.count == 2)
    var labels: [String: String] = [:]
    for item in items {
      let identity = try #require(item[kSecImportItemIdentity as String].map { $0 as AnyObject } as? SecIdentity)
      var certificate: SecCertificate?
      _ = SecIdentityCopyCertificate(identity, &certificate)
      let label = try #require(item[kSecImportItemLabel as String] as? String)
      labels[label] = SecCertificateCopySubjectSummary(certificate!) as String?
      #expect((item[kSecImportItemKeyID as String] as? Data)?.count == 4)
      // The chain: the identity's certificate, then the one certificate no key goes with.
      let chain = try #require(item[kSecImportItemCertChain as String] as? [SecCertificate])
      #expect(chain.count == 2 && chain.first == certificate)
      #expect(chain.last.flatMap { SecCertificateCopySubjectSummary($0) as String? } == "identity 3")
    }
    #expect(labels == ["first": "identity 1", "second": "identity 2"])
  }
}

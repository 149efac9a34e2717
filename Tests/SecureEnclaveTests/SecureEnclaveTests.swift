import Foundation
import KeychainTPM
import Security
import SoftwareTPM
import Testing

/// kSecAttrTokenIDSecureEnclave on a TPM 2.0 (issue 33), against swtpm started for each test.
/// Each test's calls reach its own TPM through `TPMConnections.$chosenTCTI` (a task-local, so tests
/// elsewhere in the process that expect no TPM are not affected).
@Suite(.serialized) struct SecureEnclaveKeys {
  /// A new store and a new TPM that this process's enclave keys use.
  final class Machine {
    let tpm: SoftwareTPM
    let directory: URL
    let store: KeychainStore

    init() throws {
      tpm = try SoftwareTPM()
      directory = tpm.state.deletingLastPathComponent().appendingPathComponent("kbse-\(UUID().uuidString.prefix(8))")
      store = try KeychainStore(directory: directory)
    }

    deinit {
      tpm.stop()
      try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `body` with SecItem calls on this store and enclave keys on `tcti` (this machine's TPM
    /// unless another is named).
    func run<T>(tcti: String? = nil, _ body: () throws -> T) rethrows -> T {
      try TPMConnections.$chosenTCTI.withValue(tcti ?? tpm.tcti) {
        try withKeychainContext(store: store, accessGroups: ["enclave-tests"], body)
      }
    }
  }

  static let tag = Data("com.example.enclave.tests".utf8)

  /// Makes a permanent enclave key tagged `tag`; the private key.
  static func makeKey() throws -> SecKey {
    var error: Unmanaged<CFError>?
    let access = SecAccessControlCreateWithFlags(
      nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .privateKeyUsage, nil)!
    let key = SecKeyCreateRandomKey(
      [
        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
        kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
        kSecPrivateKeyAttrs as String: [
          kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
          kSecAttrAccessControl as String: access,
        ],
      ] as CFDictionary, &error)
    return try #require(key, "\(String(describing: error?.takeRetainedValue()))")
  }

  /// The stored enclave key, found by its tag.
  static func storedKey() -> (OSStatus, SecKey?) {
    var item: CFTypeRef?
    let status = SecItemCopyMatching(
      [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true]
        as CFDictionary, &item)
    return (status, item.map { $0 as! SecKey })
  }

  static func sign(_ key: SecKey, _ message: Data = Data("message".utf8)) -> (Data?, OSStatus?) {
    var error: Unmanaged<CFError>?
    let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error)
    return (signature as Data?, error.map { OSStatus(CFErrorGetCode($0.takeRetainedValue())) })
  }

  @Test("The key is made in the TPM, signs there, verifies with its public key, and never exports")
  func signsInTheTPM() throws {
    let machine = try Machine()
    try machine.run {
      let key = try Self.makeKey()
      let (status, found) = Self.storedKey()
      #expect(status == errSecSuccess)
      let stored = try #require(found)
      #expect(stored == key)
      let (signature, failure) = Self.sign(stored)
      #expect(failure == nil)
      let publicKey = try #require(SecKeyCopyPublicKey(stored))
      var error: Unmanaged<CFError>?
      #expect(
        SecKeyVerifySignature(
          publicKey, .ecdsaSignatureMessageX962SHA256, Data("message".utf8) as CFData,
          try #require(signature) as CFData,
          &error))
      #expect(SecKeyCopyExternalRepresentation(stored, &error) == nil)
      #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecUnimplemented))
      let attributes = try #require(SecKeyCopyAttributes(stored) as? [String: Any])
      #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
      #expect((attributes[kSecAttrIsExtractable as String] as? NSNumber)?.boolValue == false)
      #expect(attributes[kSecValueData as String] == nil)
      // The item holds the TPM's wrapped blob, not a private key OpenSSL could read.
      var filter = ItemFilter(itemClass: .key)
      filter.accessGroups = ["enclave-tests"]
      let data = try #require(
        try machine.store.storage!.find(filter, limit: nil, fetch: ItemFetch(attributes: false, data: true)).first?.data
      )
      #expect(data.prefix(4) == Data("KBT1".utf8))
    }
  }

  @Test("A stored public half of an enclave key is a software key of no token, and its ref is made again")
  func theStoredPublicHalfIsNoTokens() throws {
    let machine = try Machine()
    try machine.run {
      var error: Unmanaged<CFError>?
      let key = try #require(
        SecKeyCreateRandomKey(
          [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave, kSecAttrLabel as String: "pair",
            kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true],
            kSecPublicKeyAttrs as String: [kSecAttrIsPermanent as String: true],
          ] as CFDictionary, &error), "\(String(describing: error?.takeRetainedValue()))")
      var found: CFTypeRef?
      let status = SecItemCopyMatching(
        [
          kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
          kSecAttrLabel as String: "pair", kSecReturnRef as String: true, kSecReturnAttributes as String: true,
        ] as CFDictionary, &found)
      #expect(status == errSecSuccess)
      let attributes = try #require(found as? [String: Any])
      // Before: the public item carried the enclave's token ID, and no ref could be made of it.
      #expect(attributes[kSecAttrTokenID as String] == nil)
      let publicKey = try #require(attributes[kSecValueRef as String].map { $0 as! SecKey })
      #expect(
        SecKeyCopyExternalRepresentation(publicKey, nil) as Data? == SecKeyCopyExternalRepresentation(
          SecKeyCopyPublicKey(key)!, nil) as Data?)
    }
  }

  @Test("Key agreement runs in the TPM and matches the peer's")
  func keyAgreementRunsInTheTPM() throws {
    let machine = try Machine()
    try machine.run {
      let key = try Self.makeKey()
      var error: Unmanaged<CFError>?
      let peer = try #require(
        SecKeyCreateRandomKey(
          [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
            as CFDictionary, &error))
      let ours = SecKeyCopyKeyExchangeResult(
        key, .ecdhKeyExchangeStandard, try #require(SecKeyCopyPublicKey(peer)), [:] as CFDictionary, &error)
      let theirs = SecKeyCopyKeyExchangeResult(
        peer, .ecdhKeyExchangeStandard, try #require(SecKeyCopyPublicKey(key)), [:] as CFDictionary, &error)
      #expect(ours != nil && (ours as Data?) == (theirs as Data?))
      #expect((ours as Data?)?.count == 32)
    }
  }

  @Test("Only P-256 keys go in the enclave, and other tokens are not available")
  func onlyP256() throws {
    let machine = try Machine()
    machine.run {
      var error: Unmanaged<CFError>?
      for (type, bits) in [(kSecAttrKeyTypeECSECPrimeRandom, 384), (kSecAttrKeyTypeRSA, 2048)] {
        let key = SecKeyCreateRandomKey(
          [
            kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
          ] as CFDictionary, &error)
        #expect(key == nil)
        #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecParam))
      }
      let other = SecKeyCreateRandomKey(
        [
          kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
          kSecAttrTokenID as String: "com.example.token",
        ] as CFDictionary, &error)
      #expect(other == nil)
      #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecUnimplemented))
    }
  }

  @Test("Another machine's TPM cannot use the key; the item survives and works on its own TPM again")
  func anotherMachineCannotUseTheKey() throws {
    let machine = try Machine()
    let other = try SoftwareTPM()
    defer { other.stop() }
    try machine.run { _ = try Self.makeKey() }
    try machine.run(tcti: other.tcti) {
      let (status, found) = Self.storedKey()
      #expect(status == errSecSuccess)
      let (signature, failure) = Self.sign(try #require(found))
      #expect(signature == nil)
      #expect(failure == errSecDecode)
    }
    try machine.run { () throws in
      let back = try #require(Self.storedKey().1)
      #expect(Self.sign(back).0 != nil)
    }
  }

  @Test("A TPM that vanishes mid-use gives an error, never a crash or a lost item")
  func aVanishingTPMGivesAnError() throws {
    let machine = try Machine()
    try machine.run {
      let key = try Self.makeKey()
      machine.tpm.kill()
      let (signature, failure) = Self.sign(key)
      #expect(signature == nil)
      #expect(failure == errSecNotAvailable)
      #expect(Self.storedKey().0 == errSecSuccess)  // the item is still there
      try machine.tpm.start()  // the same chip again (same state)
      #expect(Self.sign(try #require(Self.storedKey().1)).0 != nil)
    }
  }

  @Test("The iOS-style enclave program runs unchanged, and openssl verifies its signature")
  func theProgramRunsUnchanged() throws {
    let tpm = try SoftwareTPM()
    defer { tpm.stop() }
    let home = tpm.state.appendingPathComponent("store")
    let program = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("enclave-key-demo")
    let process = Process()
    process.executableURL = program
    process.arguments = ["signed by the TPM"]
    var environment = ProcessInfo.processInfo.environment
    environment["KEYCHAIN_BRIDGE_HOME"] = home.path
    environment["KEYCHAIN_BRIDGE_TCTI"] = tpm.tcti
    environment["KEYCHAIN_BRIDGE_AGENT"] = nil
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "\(text)")
    #expect(text.contains("the private key cannot be exported"))
    func value(_ label: String) -> Data? {
      guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(label) }) else { return nil }
      let hex = Array(line.dropFirst(label.count).utf8)
      return Data(
        stride(from: 0, to: hex.count - 1, by: 2).compactMap {
          UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)
        })
    }
    let publicKey = try #require(value("public key: "))
    let signature = try #require(value("signature: "))
    // The public key as SubjectPublicKeyInfo (the fixed P-256 prefix, then the point), in PEM.
    let spkiPrefix: [UInt8] = [
      0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce,
      0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]
    let pem =
      "-----BEGIN PUBLIC KEY-----\n\((Data(spkiPrefix) + publicKey).base64EncodedString(options: .lineLength64Characters))\n-----END PUBLIC KEY-----\n"
    let folder = tpm.state
    try pem.write(to: folder.appendingPathComponent("public.pem"), atomically: true, encoding: .utf8)
    try signature.write(to: folder.appendingPathComponent("signature.der"))
    try Data("signed by the TPM".utf8).write(to: folder.appendingPathComponent("message"))
    let openssl = Process()
    openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    openssl.arguments = [
      "dgst", "-sha256", "-verify", folder.appendingPathComponent("public.pem").path, "-signature",
      folder.appendingPathComponent("signature.der").path, folder.appendingPathComponent("message").path,
    ]
    let verdict = Pipe()
    openssl.standardOutput = verdict
    try openssl.run()
    let said = String(decoding: verdict.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    openssl.waitUntilExit()
    #expect(openssl.terminationStatus == 0 && said.contains("Verified OK"), "\(said)")
  }
}

/// Issue 49, case 10: with swtpm reached directly (no resource manager), each process left its
/// storage primary loaded, and after two of them a good sealed store failed to open and enclave
/// keys could not be made. Five connections alive at once stand for five processes here: each
/// left a primary behind before; now none is loaded between commands, and every connection works.
@Suite(.serialized) struct TPMPrimaryFlushing {
  @Test("Connections that never close leave no primary loaded: a later one seals, creates and signs")
  func openConnectionsLeaveNoObjectLoaded() throws {
    let tpm = try SoftwareTPM()
    defer { tpm.stop() }
    let connections = try (0..<5).map { _ in try TPMConnection(tcti: tpm.tcti) }
    for connection in connections {
      let sealed = try connection.seal(Array("store key".utf8))
      #expect(try connection.unseal(sealed) == Array("store key".utf8))
      let (blob, publicKey) = try connection.createP256()
      #expect(publicKey.count == 65)
      _ = try connection.sign(blob, digest: [UInt8](repeating: 7, count: 32))
    }
  }
}

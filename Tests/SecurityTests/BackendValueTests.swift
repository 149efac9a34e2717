import Foundation
import KeychainStorageMemory
import Synchronization
import Testing

@_spi(KeychainBridge) @testable import Security

/// A backend that does what the linked one does and records which of its entry points ran, so a
/// test can tell which of two backends side by side a call used.
final class RecordingBackend: SecurityBackend {
  let linked = testBackend
  let calls = Mutex<[String]>([])

  private func record(_ name: String) { calls.withLock { $0.append(name) } }

  /// The names of the entry points called so far.
  var called: [String] { calls.withLock { $0 } }

  func openStore(directory: URL, passphrase: String?, sealingToTPM: Bool) throws(KeychainStoreError)
    -> any ItemStorage
  {
    record("openStore")
    return try linked.openStore(directory: directory, passphrase: passphrase, sealingToTPM: sealingToTPM)
  }

  func connectAgent(socketPath: String, startingOnDemand: Bool) throws(SecStatus) -> any KeychainAgentLink {
    record("connectAgent")
    return try linked.connectAgent(socketPath: socketPath, startingOnDemand: startingOnDemand)
  }

  var keyEngine: any KeyEngine {
    record("keyEngine")
    return linked.keyEngine
  }

  var secureEnclave: any SecureEnclaveEngine {
    record("secureEnclave")
    return linked.secureEnclave
  }

  func sealBackup(_ plaintext: Data, passphrase: String) throws(SecStatus) -> Data {
    record("sealBackup")
    return try linked.sealBackup(plaintext, passphrase: passphrase)
  }

  func openBackup(_ sealed: Data, passphrase: String) throws(SecStatus) -> Data {
    record("openBackup")
    return try linked.openBackup(sealed, passphrase: passphrase)
  }

  func sealWithApplicationPassword(_ secret: Data, password: [UInt8]) throws(SecStatus) -> Data {
    record("sealWithApplicationPassword")
    return try linked.sealWithApplicationPassword(secret, password: password)
  }

  func openWithApplicationPassword(_ sealed: Data, password: [UInt8]) throws(SecStatus) -> Data {
    record("openWithApplicationPassword")
    return try linked.openWithApplicationPassword(sealed, password: password)
  }

  func certificateContents(_ bytes: Data) -> CertificateContents? {
    record("certificateContents")
    return linked.certificateContents(bytes)
  }

  func normalizedName(_ der: Data) -> (content: Data, sequence: Data)? {
    record("normalizedName")
    return linked.normalizedName(der)
  }

  func evaluateTrust(_ request: TrustRequest) -> TrustOutcome {
    record("evaluateTrust")
    return linked.evaluateTrust(request)
  }

  func sha1(_ bytes: [UInt8]) throws(SecStatus) -> Data {
    record("sha1")
    return try linked.sha1(bytes)
  }
}

/// The backend reaches a call as a value (issue 64): two backends side by side in one process,
/// each used only by what was made with it, none installed.
@Suite("The backend is a value")
struct BackendValueTests {
  static func engine(_ backend: RecordingBackend) -> SecItemEngine {
    let storage = InMemoryItemStorage()
    return SecItemEngine(
      storage: storage, accessGroups: ["team"],
      authenticator: KeychainStore(directory: URL(fileURLWithPath: "/nonexistent/backend-test"), storage: storage)
        .authenticator, backend: backend)
  }

  @Test("Two engines with two backends: each call digests with its own engine's backend")
  func twoEnginesTwoBackends() throws {
    let first = RecordingBackend()
    let second = RecordingBackend()
    let scratch = try ScratchDirectory()
    let der = try CertificateRules.certificate(subject: "/CN=side by side", in: scratch)
    let certificate = try #require(SecCertificate.parse(der, with: first))
    #expect(first.called.contains("certificateContents") && second.called.isEmpty)
    // A certificate item's fingerprint and normalized names are the engine's backend's work.
    let before = first.called.count
    _ = try Self.engine(second).add(
      try ItemRequest.reading(
        [kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate] as NSDictionary))
    #expect(second.called.contains("sha1"), "\(second.called)")
    #expect(first.called.count == before, "\(first.called)")
  }

  @Test("A certificate and its trust use the backend that parsed the certificate")
  func aCertificateCarriesItsBackend() throws {
    let mine = RecordingBackend()
    let other = RecordingBackend()
    let scratch = try ScratchDirectory()
    let der = try CertificateRules.certificate(subject: "/CN=carried", in: scratch)
    let certificate = try #require(SecCertificate.parse(der, with: mine))
    #expect(SecCertificateCopyKey(certificate) != nil)
    #expect(SecCertificateCopyNormalizedIssuerSequence(certificate) != nil)
    var trust: SecTrust?
    #expect(SecTrustCreateWithCertificates(certificate, SecPolicyCreateBasicX509(), &trust) == errSecSuccess)
    let created = try #require(trust)
    #expect(SecTrustSetAnchorCertificates(created, [certificate] as CFArray) == errSecSuccess)
    #expect(SecTrustEvaluateWithError(created, nil))
    let called = Set(mine.called)
    #expect(
      called.isSuperset(of: ["certificateContents", "keyEngine", "normalizedName", "evaluateTrust"]), "\(called)")
    #expect(other.called.isEmpty)
  }

  @Test("A key's public half is labelled by the backend that labelled the key")
  func aKeyCarriesItsBackend() throws {
    let mine = RecordingBackend()
    let other = RecordingBackend()
    let key = try SecKey(try mine.keyEngine.generate(.ec, bits: 256), labelledBy: mine)
    let before = mine.called.filter { $0 == "sha1" }.count
    let publicKey = try #require(SecKeyCopyPublicKey(key))
    #expect(publicKey.applicationLabel == key.applicationLabel)
    #expect(mine.called.filter { $0 == "sha1" }.count == before + 1, "\(mine.called)")
    #expect(other.called.isEmpty)
  }

  @Test("Apple's functions run with their context's backend: two contexts side by side, none installed")
  func twoContextsSideBySide() throws {
    let first = RecordingBackend()
    let second = RecordingBackend()
    let scratch = try ScratchDirectory()
    let der = try CertificateRules.certificate(subject: "/CN=in a context", in: scratch)
    let attributes =
      [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
      as CFDictionary
    let (firstKey, firstCertificate) = try withKeychainBackend(first) {
      (
        try #require(SecKeyCreateRandomKey(attributes, nil)),
        try #require(SecCertificateCreateWithData(nil, der as CFData))
      )
    }
    #expect(Set(first.called).isSuperset(of: ["keyEngine", "sha1", "certificateContents"]), "\(first.called)")
    #expect(second.called.isEmpty)
    // In the other context, a key made in the first signs with the first's engine: what an edge
    // made carries its backend.
    let firstCalls = first.called.count
    try withKeychainBackend(second) {
      let data = Data("signed".utf8) as CFData
      let signature = try #require(
        SecKeyCreateSignature(firstKey, .ecdsaSignatureMessageX962SHA256, data, nil))
      #expect(
        SecKeyVerifySignature(
          try #require(SecKeyCopyPublicKey(firstKey)), .ecdsaSignatureMessageX962SHA256, data, signature, nil))
      #expect(SecCertificateCopyKey(firstCertificate) != nil)
      _ = try #require(SecKeyCreateRandomKey(attributes, nil))
    }
    #expect(first.called.count > firstCalls)
    #expect(Set(second.called) == ["keyEngine", "sha1"], "\(second.called)")
  }

  @Test("Only SecurityBackend.swift reads the linked backend; every other file takes a context's or a value")
  func onlyItsFileReadsTheLinkedBackend() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources")
    let walker = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
    var readers: [String] = []
    for case let url as URL in walker where url.pathExtension == "swift" {
      let text = try String(contentsOf: url, encoding: .utf8)
      if (text.contains("SecurityBackends.linked") || text.contains("SecurityBackends.required("))
        && url.lastPathComponent != "SecurityBackend.swift"
      {
        readers.append(url.lastPathComponent)
      }
    }
    #expect(readers.isEmpty, "\(readers)")
  }
}

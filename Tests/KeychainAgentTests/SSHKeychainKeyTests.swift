import Foundation
import KeychainCrypto
import KeychainStorageMemory
import Security
import Testing

@testable import KeychainAgent

/// Keys made with Apple's API and offered to ssh (issue 65): a pair in the access group
/// `org.openssh.agent` is listed by its public key item and signs with its private key through
/// SecKey; ssh-add cannot remove it. swtpm's Secure Enclave keys and logins through sshd are in
/// scripts/check-ordinary-user.sh.
@Suite("The ssh-agent offers key pairs made in the keychain")
struct SSHKeychainKeyTests {
  let storage = InMemoryItemStorage()
  let service: SSHAgentService
  let store: KeychainStore

  init() throws {
    service = SSHAgentService(agent: try AgentServices.make(over: storage))
    store = KeychainStore(directory: URL(fileURLWithPath: "/nonexistent/ssh-keys"), storage: storage)
  }

  /// A key pair made as `security create-ssh-key` makes it.
  func makePair(type: CFString, bits: Int, label: String) throws -> SecKey {
    let attributes: [String: Any] = [
      kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: bits, kSecAttrLabel as String: label,
      kSecAttrAccessGroup as String: "org.openssh.agent",
      kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true],
      kSecPublicKeyAttrs as String: [kSecAttrIsPermanent as String: true],
    ]
    return try withKeychainContext(store: store, accessGroups: ["org.openssh.agent"]) {
      var error: Unmanaged<CFError>?
      return try #require(SecKeyCreateRandomKey(attributes as CFDictionary, &error), "\(String(describing: error))")
    }
  }

  /// The identities the agent lists: blob and comment each.
  func identities() throws -> [([UInt8], String)] {
    var reader = SSHReader(service.answer([SSHAgentMessage.requestIdentities], from: SSHAgentTests.caller))
    #expect(try reader.byte() == SSHAgentMessage.identitiesAnswer)
    return try (0..<reader.uint32()).map { _ in (try reader.string(), try reader.text()) }
  }

  /// The signature blob the agent answers a sign request with, or nil when it refuses.
  func sign(_ data: [UInt8], with blob: [UInt8], flags: UInt32 = 0) throws -> [UInt8]? {
    let answer = service.answer(
      SSHAgentTests.message(SSHAgentMessage.signRequest) {
        $0.string(blob)
        $0.string(data)
        $0.uint32(flags)
      }, from: SSHAgentTests.caller)
    var reader = SSHReader(answer)
    guard try reader.byte() == SSHAgentMessage.signResponse else { return nil }
    return try reader.string()
  }

  /// A DER SEQUENCE of two INTEGERs, as SecKey's ECDSA signatures are.
  static func der(_ r: [UInt8], _ s: [UInt8]) -> Data {
    func integer(_ magnitude: [UInt8]) -> [UInt8] {
      let digits = magnitude.first.map { $0 >= 0x80 } == true ? [0] + magnitude : magnitude
      return [0x02, UInt8(digits.count)] + digits
    }
    let body = integer(r) + integer(s)
    return Data([0x30, UInt8(body.count)] + body)
  }

  @Test("An ECDSA pair is listed with its label and signs; SecKey verifies what the agent answers")
  func anECDSAPairSigns() throws {
    let key = try makePair(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256, label: "work key")
    let publicKey = try #require(SecKeyCopyPublicKey(key))
    let listed = try identities()
    #expect(listed.map(\.1) == ["work key"])
    let blob = try #require(listed.first?.0)
    #expect(blob == SSHKeychainKeys.publicBlob(of: publicKey))
    let message = Array("a session to sign".utf8)
    var signature = SSHReader(try #require(try sign(message, with: blob)))
    #expect(try signature.text() == "ecdsa-sha2-nistp256")
    var pair = SSHReader(try signature.string())
    let der = Self.der(try pair.mpint(), try pair.mpint())
    #expect(
      SecKeyVerifySignature(
        publicKey, .ecdsaSignatureMessageX962SHA256, Data(message) as CFData, der as CFData, nil))
  }

  @Test("An RSA pair signs with rsa-sha2-256 and -512 only, never SHA-1")
  func anRSAPairSignsWithSHA2() throws {
    let key = try makePair(type: kSecAttrKeyTypeRSA, bits: 2048, label: "rsa key")
    let publicKey = try #require(SecKeyCopyPublicKey(key))
    let blob = try #require(try identities().first?.0)
    let message = Array("a commit".utf8)
    #expect(try sign(message, with: blob) == nil)
    for (flags, name, algorithm) in [
      (UInt32(2), "rsa-sha2-256", SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256),
      (4, "rsa-sha2-512", .rsaSignatureMessagePKCS1v15SHA512),
    ] {
      var signature = SSHReader(try #require(try sign(message, with: blob, flags: flags)))
      #expect(try signature.text() == name)
      let raw = Data(try signature.string())
      #expect(SecKeyVerifySignature(publicKey, algorithm, Data(message) as CFData, raw as CFData, nil))
    }
  }

  @Test("ssh-add -d and -D leave a pair made in the keychain; a pair of another group is not offered")
  func removalsLeaveKeychainPairs() throws {
    _ = try makePair(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 384, label: "kept")
    let blob = try #require(try identities().first?.0)
    let failure: [UInt8] = [SSHAgentMessage.failure]
    #expect(
      service.answer(
        SSHAgentTests.message(SSHAgentMessage.removeIdentity) { $0.string(blob) }, from: SSHAgentTests.caller)
        == failure)
    #expect(
      service.answer([SSHAgentMessage.removeAllIdentities], from: SSHAgentTests.caller)
        == [SSHAgentMessage.success])
    #expect(try identities().count == 1)
    // A pair elsewhere in the keychain is an application's, not ssh's.
    let attributes: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
      kSecAttrAccessGroup as String: "org.example.app",
      kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true],
      kSecPublicKeyAttrs as String: [kSecAttrIsPermanent as String: true],
    ]
    withKeychainContext(store: store, accessGroups: ["org.example.app"]) {
      #expect(SecKeyCreateRandomKey(attributes as CFDictionary, nil) != nil)
    }
    #expect(try identities().count == 1)
  }

  @Test("A pair in a group of its own is offered only to the programs a rule gives that group")
  func aPairInItsOwnGroupIsConfined() throws {
    _ = try makePair(type: kSecAttrKeyTypeECSECPrimeRandom, bits: 256, label: "everyone's")
    let attributes: [String: Any] = [
      kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
      kSecAttrLabel as String: "git's", kSecAttrAccessGroup as String: "org.openssh.agent.signing",
      kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true],
      kSecPublicKeyAttrs as String: [kSecAttrIsPermanent as String: true],
    ]
    withKeychainContext(store: store, accessGroups: ["org.openssh.agent.signing"]) {
      #expect(SecKeyCreateRandomKey(attributes as CFDictionary, nil) != nil)
    }
    // A policy with `/usr/bin/git = org.openssh.agent.signing`: git gets the pair, ssh does not.
    var written = AgentPolicy()
    written.rules = [
      AgentPolicy.Rule(executable: "/usr/bin/git", sha256: nil, groups: ["org.openssh.agent.signing"], place: "test")
    ]
    let policy = written
    let grants = [
      ("/usr/bin/git", AccessGrant(groups: ["org.openssh.agent.signing"], namedByRule: true)),
      ("/usr/bin/ssh", AccessGrant.ownGroup(of: "/usr/bin/ssh")),
    ]
    var listed: [String: [String]] = [:]
    var signed: [String: Bool] = [:]
    let message = Array("a commit".utf8)
    let everyKey = try identities()
    let confined = try #require(everyKey.first { $0.1 == "git's" }?.0)
    for (program, grant) in grants {
      let caller = SSHAgentCaller(
        executable: program, parent: nil,
        mayUseGroup: { group in SSHAgentService.mayUseKeys(of: group, grant, policy: policy) })
      var reader = SSHReader(service.answer([SSHAgentMessage.requestIdentities], from: caller))
      _ = try reader.byte()
      listed[program] = try (0..<reader.uint32()).map { _ in
        _ = try reader.string()
        return try reader.text()
      }
      let answer = service.answer(
        SSHAgentTests.message(SSHAgentMessage.signRequest) {
          $0.string(confined)
          $0.string(message)
          $0.uint32(0)
        }, from: caller)
      signed[program] = answer.first == SSHAgentMessage.signResponse
    }
    #expect(listed["/usr/bin/git"] == ["everyone's", "git's"])
    #expect(listed["/usr/bin/ssh"] == ["everyone's"])
    #expect(signed == ["/usr/bin/git": true, "/usr/bin/ssh": false])
  }
}

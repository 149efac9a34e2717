import Foundation
import KeychainCrypto
@_spi(KeychainBridge) import Security

/// Keys made with Apple's API (`SecKeyCreateRandomKey`, in software or in the Secure Enclave's
/// TPM) that the user offered to ssh: a key pair whose items are in the access group
/// `org.openssh.agent`, as `security create-ssh-key` makes it. The public key item lists it (no
/// secret is read, so listing never asks the user); the private key item, found by the pair's
/// application label, signs through SecKey, so a TPM-bound key signs in the TPM and its access
/// control (user presence) is asked for as for any use of it.
struct SSHKeychainKeys {
  /// An engine that searches every group.
  let engine: SecItemEngine
  /// Whether the caller may use the keys of a group (its policy).
  let mayUseGroup: (String) -> Bool

  /// One key pair offered to ssh.
  struct Listed {
    let publicBlob: [UInt8]
    let comment: String
    /// The pair's application label (the public key's SHA-1), which finds its private key.
    let applicationLabel: Data
    /// Its access group: `org.openssh.agent` or one under it (`org.openssh.agent.work`).
    let group: String
  }

  /// Whether `group` is one whose pairs are offered to ssh.
  static func offersKeys(of group: String) -> Bool {
    group == SSHAgentKeys.group || group.hasPrefix(SSHAgentKeys.group + ".")
  }

  private static func request(_ pairs: [String: Any]) throws(SecStatus) -> ItemRequest {
    try ItemRequest.reading(entries: pairs.map { ($0.key, RequestValue($0.value)) })
  }

  private static func query(keyClass: String) -> [String: Any] {
    [SecConstantValue.`class`: SecConstantValue.classKey, SecConstantValue.attrKeyClass: keyClass]
  }

  /// Every key pair offered to ssh that the caller may use, whose type OpenSSH knows (ECDSA P-256,
  /// P-384, P-521; RSA of 2048 bits or more), in the order they were made. A pair is offered when
  /// its group is `org.openssh.agent` or one under it; a group a policy rule names is offered only
  /// to the programs the rule grants it.
  func list() throws(SecStatus) -> [Listed] {
    var query = Self.query(keyClass: SecConstantValue.attrKeyClassPublic)
    query[SecConstantValue.matchLimit] = SecConstantValue.matchLimitAll
    query[SecConstantValue.returnRef] = true
    query[SecConstantValue.returnAttributes] = true
    return try engine.searchedItems(try Self.request(query)).compactMap { item in
      guard let group = item.string(SecConstantValue.attrAccessGroup), Self.offersKeys(of: group), mayUseGroup(group),
        let key = item.reference as? SecKey, let blob = Self.publicBlob(of: key),
        let label = item.data(SecConstantValue.attrApplicationLabel)
      else { return nil }
      return Listed(
        publicBlob: blob, comment: item.string(SecConstantValue.attrLabel) ?? "keychain key", applicationLabel: label,
        group: group)
    }
  }

  /// The private key of `listed`, read as SecItemCopyMatching reads a key's ref: a key whose access
  /// control asks for the user asks now, naming `reason`.
  func privateKey(of listed: Listed, reason: String) throws(SecStatus) -> SecKey? {
    var query = Self.query(keyClass: SecConstantValue.attrKeyClassPrivate)
    query[SecConstantValue.attrAccessGroup] = listed.group
    query[SecConstantValue.attrApplicationLabel] = listed.applicationLabel
    query[SecConstantValue.returnRef] = true
    query[SecConstantValue.useOperationPrompt] = reason
    return try engine.searchedItems(try Self.request(query)).first?.reference as? SecKey
  }

  /// The public key blob OpenSSH knows `key` by, or nil for a type it has no name for (RSA under
  /// 2048 bits among them).
  static func publicBlob(of key: SecKey) -> [UInt8]? {
    SSHPublicKeyBlob.of(rsa: key.keyType == .rsa, bits: key.bits, publicBytes: Array(key.publicBytes))
  }

  /// The signature blob of `data` by `key` as OpenSSH expects it; `flags` are the request's
  /// (rsa-sha2-256 is 2, rsa-sha2-512 is 4). nil for an RSA request that asks for SHA-1, which this
  /// agent does not make. Throws the status SecKey's signature failed with.
  static func signature(of data: [UInt8], by key: SecKey, flags: UInt32) throws(SecStatus) -> [UInt8]? {
    var blob = SSHWriter()
    let algorithm: SecKeyAlgorithm
    switch key.keyType {
    case .ec:
      guard let curve = SSHPublicKeyBlob.curve(bits: key.bits) else { throw SecStatus(errSecUnimplemented) }
      algorithm =
        switch key.bits {
        case 256: .ecdsaSignatureMessageX962SHA256
        case 384: .ecdsaSignatureMessageX962SHA384
        default: .ecdsaSignatureMessageX962SHA512
        }
      blob.string("ecdsa-sha2-" + curve)
    case .rsa:
      if flags & 4 != 0 {
        algorithm = .rsaSignatureMessagePKCS1v15SHA512
        blob.string("rsa-sha2-512")
      } else if flags & 2 != 0 {
        algorithm = .rsaSignatureMessagePKCS1v15SHA256
        blob.string("rsa-sha2-256")
      } else {
        return nil
      }
    }
    var error: Unmanaged<CFError>?
    guard let signed = SecKeyCreateSignature(key, algorithm, Data(data) as CFData, &error) as Data? else {
      throw SecStatus(OSStatus(error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? Int(errSecInternalComponent)))
    }
    if key.keyType == .rsa {
      blob.string(Array(signed))
    } else {
      guard let (r, s) = SSHPublicKeyBlob.derIntegerPair(Array(signed)) else { throw SecStatus(errSecDecode) }
      var pair = SSHWriter()
      pair.mpint(r)
      pair.mpint(s)
      blob.string(pair.bytes)
    }
    return blob.bytes
  }
}

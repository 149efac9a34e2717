import ArgumentParser
import Foundation
import KeychainCrypto
import Security
import SecurityCommandLine

/// The access group whose key pairs keychaind's ssh-agent offers to ssh: org.openssh.agent, or
/// org.openssh.agent.NAME for a pair the policy may confine on its own.
private func sshKeysGroup(_ name: String?) -> String {
  name.map { "org.openssh.agent.\($0)" } ?? "org.openssh.agent"
}

struct CreateSSHKey: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create-ssh-key",
    abstract: "Make a key pair in the keychain for keychaind's ssh-agent and print its OpenSSH public key.",
    discussion: """
      Makes the pair with SecKeyCreateRandomKey in the access group org.openssh.agent, where keychaind's \
      ssh-agent (keychaind --ssh-agent) offers it to ssh: the private key never leaves the keychain, and with \
      --secure-enclave it is made in the TPM (KEYCHAIN_BRIDGE_TCTI, else /dev/tpmrm0) and signs there. Prints \
      the public key as one line of an OpenSSH .pub file, for authorized_keys. With --user-presence each use \
      asks the user first, naming the program. Run it with KEYCHAIN_BRIDGE_AGENT set to the agent's socket, so \
      the pair is made in the store the agent serves.
      """)

  @OptionGroup var store: StoreOption
  @Option(
    name: .customShort("l"), help: ArgumentHelp("The key's label: its comment in ssh-add -l.", valueName: "label"))
  var label: String
  @Option(name: .customShort("t"), help: ArgumentHelp("ecdsa (the default) or rsa.", valueName: "type"))
  var type = "ecdsa"
  @Option(
    name: .customShort("b"),
    help: ArgumentHelp("Bits: 256 (the default), 384 or 521 for ecdsa; 2048, 3072 (the default) or 4096 for rsa."))
  var bits: Int?
  @Flag(help: "Make the key in the Secure Enclave (the TPM): ecdsa, 256 bits.")
  var secureEnclave = false
  @Flag(help: "Ask the user before each use of the key.")
  var userPresence = false
  @Option(
    help: ArgumentHelp(
      "Keep the pair in the access group org.openssh.agent.NAME, which the agent's policy can give to some programs only.",
      valueName: "name"))
  var group: String?

  func validate() throws {
    switch (type, bits ?? 0) {
    case ("ecdsa", 0), ("ecdsa", 256), ("ecdsa", 384), ("ecdsa", 521): break
    case ("rsa", 0), ("rsa", 2048), ("rsa", 3072), ("rsa", 4096): break
    case ("ecdsa", _), ("rsa", _): throw ValidationError("-b \(bits ?? 0) is not a size ssh takes for \(type) keys")
    default: throw ValidationError("-t \(type) is not a type this command makes: ecdsa or rsa")
    }
    if let group, group.isEmpty || group.contains(where: { $0 == "," || $0.isWhitespace }) {
      throw ValidationError("--group takes a name without commas or spaces")
    }
    if secureEnclave && (type != "ecdsa" || (bits ?? 256) != 256) {
      throw ValidationError("the Secure Enclave makes ecdsa keys of 256 bits only")
    }
  }

  func run() throws {
    try runReportingFailures {
      _ = try store.open()
      let operation = "create-ssh-key \(label)"
      var privateAttributes: [String: Any] = [kSecAttrIsPermanent as String: true]
      if userPresence {
        var error: Unmanaged<CFError>?
        guard
          let control = SecAccessControlCreateWithFlags(
            nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
            secureEnclave ? [.privateKeyUsage, .userPresence] : .userPresence,
            &error)
        else { throw CommandFailure(operation: operation, status: errSecParam, detail: nil) }
        privateAttributes[kSecAttrAccessControl as String] = control
      }
      var attributes: [String: Any] = [
        kSecAttrKeyType as String: type == "rsa" ? kSecAttrKeyTypeRSA : kSecAttrKeyTypeECSECPrimeRandom,
        kSecAttrKeySizeInBits as String: bits ?? (type == "rsa" ? 3072 : 256),
        kSecAttrLabel as String: label, kSecAttrAccessGroup as String: sshKeysGroup(group),
        kSecPrivateKeyAttrs as String: privateAttributes,
        kSecPublicKeyAttrs as String: [kSecAttrIsPermanent as String: true],
      ]
      if secureEnclave { attributes[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave }
      var error: Unmanaged<CFError>?
      guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error),
        let publicKey = SecKeyCopyPublicKey(key)
      else {
        let failure = error?.takeRetainedValue()
        throw CommandFailure(
          operation: operation, status: OSStatus(failure.map(CFErrorGetCode) ?? Int(errSecInternalComponent)),
          detail: failure.flatMap { CFErrorCopyDescription($0) as String? })
      }
      guard
        let blob = SSHPublicKeyBlob.of(
          rsa: publicKey.keyType == .rsa, bits: publicKey.bits, publicBytes: Array(publicKey.publicBytes)),
        let line = SSHPublicKeyBlob.line(blob, comment: label)
      else {
        throw CommandFailure(operation: operation, status: errSecUnimplemented, detail: "ssh has no name for this key")
      }
      print(line)
    }
  }
}

struct DeleteSSHKey: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete-ssh-key",
    abstract: "Delete the key pairs create-ssh-key made with this label.",
    discussion: """
      Deletes both halves of every pair with the label in the access group org.openssh.agent: keychaind's \
      ssh-agent offers them no more. A Secure Enclave key exists nowhere else, so it is gone for good. \
      Exit status 44 when no pair has the label.
      """)

  @OptionGroup var store: StoreOption
  @Option(name: .customShort("l"), help: ArgumentHelp("The label of the pairs to delete.", valueName: "label"))
  var label: String
  @Option(help: ArgumentHelp("The pairs' group is org.openssh.agent.NAME.", valueName: "name"))
  var group: String?

  func run() throws {
    try runReportingFailures {
      _ = try store.open()
      let query: [String: Any] = [
        kSecClass as String: kSecClassKey, kSecAttrAccessGroup as String: sshKeysGroup(group),
        kSecAttrLabel as String: label,
      ]
      let status = SecItemDelete(query as CFDictionary)
      guard status == errSecSuccess else {
        throw CommandFailure(operation: "delete-ssh-key \(label)", status: status, detail: nil)
      }
    }
  }
}

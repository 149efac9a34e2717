import Dispatch
import Foundation
import KeychainCrypto
@_spi(KeychainBridge) import Security
import Synchronization

/// Who is on an ssh-agent connection: the program the agent identified (`AgentService.identify`)
/// and the program that started it (ssh's parent: git, a shell), for the confirmation's words, and
/// the host keys the connection bound itself to (`session-bind@openssh.com`).
package final class SSHAgentCaller: @unchecked Sendable {
  // @unchecked: `boundHosts` is used by the connection's own thread only.
  let executable: String
  let parent: String?
  /// Whether the agent's policy lets this program use the keys of a group
  /// (`SSHAgentService.mayUseKeys`): `org.openssh.agent`, or a key pair's own group under it.
  let mayUseGroup: @Sendable (String) -> Bool
  var boundHosts: [[UInt8]] = []

  /// Whether the program may use the keys `ssh-add` added (the group `org.openssh.agent`).
  var mayUseKeys: Bool { mayUseGroup(SSHAgentKeys.group) }

  package init(executable: String, parent: String?, mayUseGroup: @escaping @Sendable (String) -> Bool) {
    self.executable = executable
    self.parent = parent
    self.mayUseGroup = mayUseGroup
  }

  /// A caller that may use the keys of every group, or of none.
  package convenience init(executable: String, parent: String?, mayUseKeys: Bool = true) {
    self.init(executable: executable, parent: parent, mayUseGroup: { _ in mayUseKeys })
  }
}

/// OpenSSH's agent protocol (draft-miller-ssh-agent) over the keychain the agent holds: list,
/// sign, add (with the confirm and lifetime constraints), remove, remove all, lock and unlock, and
/// the session-bind extension. A front end adapter: it reads a message, acts on the keychain
/// through an engine confined to the keys' group, and writes the answer; it needs no socket, so
/// the tests feed it messages.
package final class SSHAgentService: Sendable {
  /// Message numbers (draft-miller-ssh-agent §5.1).
  enum Message {
    static let failure: UInt8 = 5
    static let success: UInt8 = 6
    static let requestIdentities: UInt8 = 11
    static let identitiesAnswer: UInt8 = 12
    static let signRequest: UInt8 = 13
    static let signResponse: UInt8 = 14
    static let addIdentity: UInt8 = 17
    static let removeIdentity: UInt8 = 18
    static let removeAllIdentities: UInt8 = 19
    static let lock: UInt8 = 22
    static let unlock: UInt8 = 23
    static let addConstrainedIdentity: UInt8 = 25
    static let `extension`: UInt8 = 27
  }

  /// The longest message taken, OpenSSH's own bound (AGENT_MAX_LEN).
  package static let maximumMessageLength = 256 * 1024

  private let agent: AgentService
  private let prompter: any PromptService
  /// The agent's lock (`ssh-add -x`): a salted digest of its passphrase while locked.
  private let lockDigest = Mutex<(salt: [UInt8], digest: [UInt8])?>(nil)

  package init(agent: AgentService, prompter: any PromptService = PassphrasePrompt.fromEnvironment()) {
    self.agent = agent
    self.prompter = prompter
  }

  private var keys: SSHAgentKeys { SSHAgentKeys(engine: agent.engine(groups: [SSHAgentKeys.group])) }

  /// The key pairs made with Apple's API and offered to ssh, read and used for `caller` (its
  /// program is who a prompt of the key's access control names).
  private func keychainKeys(for caller: SSHAgentCaller) -> SSHKeychainKeys {
    // Every group is searched; the key pairs' own groups (org.openssh.agent and those under it)
    // and the caller's policy decide which it gets.
    SSHKeychainKeys(
      engine: agent.engine(groups: ["*"], programName: URL(fileURLWithPath: caller.executable).lastPathComponent),
      mayUseGroup: caller.mayUseGroup)
  }

  /// Every key the caller may use: those `ssh-add` added, then the pairs made in the keychain.
  private func identities(for caller: SSHAgentCaller) throws(SSHWireError) -> [(blob: [UInt8], comment: String)] {
    try unlocking(for: caller) { () throws(SecStatus) in
      let added = caller.mayUseKeys ? try keys.list().map { ($0.publicBlob, $0.comment) } : []
      return try added + keychainKeys(for: caller).list().map { ($0.publicBlob, $0.comment) }
    }
  }

  /// Whether a program the policy granted `grant` may use the keys of `group`: any program while
  /// no rule of the policy names the group (as OpenSSH's agent serves every program of the user),
  /// else only the programs whose rules grant it (or `*`). So a line
  /// `/usr/bin/ssh = org.openssh.agent` confines the keys ssh-add added to ssh, and
  /// `/usr/bin/git = org.openssh.agent.signing` one key pair made in that group to git.
  package static func mayUseKeys(
    of group: String = SSHAgentKeys.group, _ grant: AccessGrant, policy: AgentPolicy
  ) -> Bool {
    guard policy.namedGroups.contains(group) else { return true }
    return grant.allows(group)
  }

  private static let failure: [UInt8] = [Message.failure]
  private static let success: [UInt8] = [Message.success]

  /// The answer to one message from `caller`: a failure for anything malformed, refused or unknown,
  /// as OpenSSH's agent answers (the reason is logged, never a key's bytes).
  package func answer(_ message: [UInt8], from caller: SSHAgentCaller) -> [UInt8] {
    var reader = SSHReader(message)
    do throws(SSHWireError) {
      let type = try reader.byte()
      let locked = lockDigest.withLock { $0 != nil }
      switch type {
      case Message.requestIdentities:
        var writer = SSHWriter()
        writer.byte(Message.identitiesAnswer)
        let listed = locked ? [] : try identities(for: caller)
        writer.uint32(UInt32(listed.count))
        for key in listed {
          writer.string(key.blob)
          writer.string(key.comment)
        }
        return writer.bytes
      case Message.signRequest:
        let blob = try reader.string()
        let data = try reader.string()
        let flags = try reader.uint32()
        guard !locked else { return refuse("a signature while the agent is locked") }
        return try sign(data, with: blob, flags: flags, for: caller)
      case Message.addIdentity, Message.addConstrainedIdentity:
        guard !locked else { return refuse("an add while the agent is locked") }
        let key = try SSHAgentKey(reading: &reader)
        let comment = try reader.text()
        var confirm = false
        var lifetime: UInt32?
        while type == Message.addConstrainedIdentity && !reader.isAtEnd {
          switch try reader.byte() {
          case 1: lifetime = try reader.uint32()
          case 2: confirm = true
          default:
            // restrict-destination and other extensions: a constraint this agent would not
            // enforce is refused rather than ignored.
            return refuse("a constraint this agent does not enforce")
          }
        }
        try keychain { () throws(SecStatus) in
          try keys.add(key, comment: comment, confirm: confirm, lifetime: lifetime)
        }
        return Self.success
      case Message.removeIdentity:
        let blob = try reader.string()
        guard !locked else { return refuse("a removal while the agent is locked") }
        guard caller.mayUseKeys else { return refuse("a removal by a program the agent's policy keeps from the keys") }
        if try keychain({ () throws(SecStatus) in try keychainKeys(for: caller).list() }).contains(where: {
          $0.publicBlob == blob
        }) {
          // A key made in the keychain may exist nowhere else (a TPM's): `security delete-ssh-key`
          // removes it, on purpose, not `ssh-add -d`.
          return refuse("the removal of a key made in the keychain (security delete-ssh-key removes it)")
        }
        return try keychain { () throws(SecStatus) in try keys.remove(blob) } ? Self.success : Self.failure
      case Message.removeAllIdentities:
        guard !locked else { return refuse("a removal while the agent is locked") }
        guard caller.mayUseKeys else { return refuse("a removal by a program the agent's policy keeps from the keys") }
        try keychain { () throws(SecStatus) in try keys.removeAll() }
        return Self.success
      case Message.lock, Message.unlock:
        var passphrase = try reader.string()
        defer { Secrets.wipe(&passphrase) }
        return type == Message.lock ? lock(with: passphrase) : unlock(with: passphrase)
      case Message.extension:
        let name = try reader.text()
        guard name == "session-bind@openssh.com" else { return refuse("the extension \(name)") }
        // The host key and session of the connection ssh is making: named in confirmations.
        let hostKey = try reader.string()
        _ = try reader.string()  // the session identifier
        _ = try reader.string()  // the host's signature over it
        _ = try reader.byte()  // whether the connection forwards the agent
        if caller.boundHosts.count < 16 { caller.boundHosts.append(hostKey) }
        return Self.success
      default:
        return refuse("a message of type \(type)")
      }
    } catch {
      return refuse(error.reason)
    }
  }

  private func refuse(_ reason: String) -> [UInt8] {
    agent.logger.info("the ssh-agent refused \(reason)")
    return Self.failure
  }

  /// Runs a keychain operation; its failure becomes the message's.
  private func keychain<T>(_ body: () throws(SecStatus) -> T) throws(SSHWireError) -> T {
    do {
      return try body()
    } catch {
      throw SSHWireError(
        reason: error.code == errSecInteractionNotAllowed
          ? "an operation while the keychain is locked" : "an operation the keychain failed (\(error.code))")
    }
  }

  private func sign(_ data: [UInt8], with blob: [UInt8], flags: UInt32, for caller: SSHAgentCaller)
    throws(SSHWireError) -> [UInt8]
  {
    guard caller.mayUseKeys,
      let (key, listed) = try unlocking(for: caller, { () throws(SecStatus) in try keys.key(for: blob) })
    else {
      return try signWithKeychainKey(data, blob: blob, flags: flags, for: caller)
    }
    if listed.confirm {
      guard confirm(sign: listed, for: caller) else { return refuse("a signature the user did not allow") }
    }
    let signature: [UInt8]?
    do {
      signature = try key.signature(of: data, flags: flags)
    } catch {
      throw SSHWireError(reason: "a signature OpenSSL could not make: \(error)")
    }
    guard let signature else { return refuse("an RSA signature over SHA-1") }
    var writer = SSHWriter()
    writer.byte(Message.signResponse)
    writer.string(signature)
    return writer.bytes
  }

  /// A signature by a key pair made in the keychain: its private key is read as any key's ref (a
  /// key whose access control asks for the user asks now, naming the program, the key and the
  /// host), and signs through SecKey, in the TPM for a Secure Enclave key.
  private func signWithKeychainKey(_ data: [UInt8], blob: [UInt8], flags: UInt32, for caller: SSHAgentCaller)
    throws(SSHWireError) -> [UInt8]
  {
    let keychainKeys = keychainKeys(for: caller)
    guard
      let listed = try keychain({ () throws(SecStatus) in try keychainKeys.list() }).first(where: {
        $0.publicBlob == blob
      })
    else {
      return refuse("a signature with a key it does not hold, or that the agent's policy keeps from the program")
    }
    let reason = Self.words(signingWith: listed.comment, blob: blob, for: caller)
    let signature: [UInt8]?
    do {
      guard let key = try keychainKeys.privateKey(of: listed, reason: reason) else {
        return refuse("a signature with a key pair whose private key is gone")
      }
      signature = try SSHKeychainKeys.signature(of: data, by: key, flags: flags)
    } catch {
      return refuse("a signature the keychain refused (\(error.code))")
    }
    guard let signature else { return refuse("an RSA signature over SHA-1") }
    var writer = SSHWriter()
    writer.byte(Message.signResponse)
    writer.string(signature)
    return writer.bytes
  }

  /// What the caller asks, in the words a prompt shows: the program (and its parent), the key and
  /// the host it connects to.
  private static func words(signingWith comment: String, blob: [UInt8], for caller: SSHAgentCaller) -> String {
    let words = PassphraseAuthenticator.programWords
    var who = words(URL(fileURLWithPath: caller.executable).lastPathComponent)
    if let parent = caller.parent { who = "\(words(URL(fileURLWithPath: parent).lastPathComponent)) (via \(who))" }
    var text = "\(who) wants to sign with the ssh key “\(words(comment))” (\(SSHAgentKey.fingerprint(blob)))"
    if let host = caller.boundHosts.last { text += " for the host whose key is \(SSHAgentKey.fingerprint(host))" }
    return text
  }

  /// Runs `body`; when it finds the keychain locked and the keychain has a passphrase, asks the
  /// user to unlock it (the agent's prompt, naming the program) and runs it once more. The
  /// connection's thread waits for the answer, as for a confirmation.
  private func unlocking<T>(for caller: SSHAgentCaller, _ body: () throws(SecStatus) -> T) throws(SSHWireError) -> T {
    let first = Result { () throws(SecStatus) in try body() }
    guard case .failure(let status) = first, status.code == errSecInteractionNotAllowed, agent.store.isLocked,
      agent.store.hasPassphrase
    else { return try keychain { () throws(SecStatus) in try first.get() } }
    do {
      try agent.store.authenticator.authenticateUser(
        reason: "unlock the keychain for its ssh keys",
        caller: URL(fileURLWithPath: caller.executable).lastPathComponent,
        reuse: 0)
    } catch {
      throw SSHWireError(reason: "an operation while the keychain is locked, which the user did not unlock")
    }
    return try keychain(body)
  }

  /// Asks the user whether the caller may sign with `key`, naming the program (and its parent),
  /// the key and the host it connects to; the connection's thread waits for the answer.
  private func confirm(sign key: SSHAgentKeys.Listed, for caller: SSHAgentCaller) -> Bool {
    let text = Self.words(signingWith: key.comment, blob: key.publicBlob, for: caller)
    let answered = DispatchSemaphore(value: 0)
    let allowed = Atomic(false)
    prompter.confirm(text + ". Allow it?") { yes in
      allowed.store(yes, ordering: .relaxed)
      answered.signal()
    }
    answered.wait()
    return allowed.load(ordering: .relaxed)
  }

  private func lock(with passphrase: [UInt8]) -> [UInt8] {
    guard let salt = try? SecureBytes.random(count: 16), let digest = try? SHA256.hash(data: salt + passphrase) else {
      return Self.failure
    }
    return lockDigest.withLock { current in
      guard current == nil else { return Self.failure }
      current = (salt, digest)
      return Self.success
    }
  }

  private func unlock(with passphrase: [UInt8]) -> [UInt8] {
    lockDigest.withLock { current in
      guard let (salt, digest) = current, (try? SHA256.hash(data: salt + passphrase)) == digest else {
        return Self.failure
      }
      current = nil
      return Self.success
    }
  }
}

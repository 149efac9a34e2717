import Foundation
import KeychainCrypto
@_spi(KeychainBridge) import Security
import Synchronization

/// Who is on an ssh-agent connection: the program the agent identified (`AgentService.identify`)
/// and the program that started it (ssh's parent: git, a shell), for the confirmation's words, the
/// host keys the connection bound itself to (`session-bind@openssh.com`), and what the user proved
/// to the agent for it (its session, which asks the user without holding a thread).
package final class SSHAgentCaller: @unchecked Sendable {
  // @unchecked: `boundHosts` is used by the connection's owner of the moment only (one message is
  // answered at a time on a connection).
  let executable: String
  /// The executable's file name, as the engine's prompts and the unlock prompt name the program.
  let programName: String
  let parent: String?
  /// What the user proved for this connection, and who asks them.
  let session: CallerSession
  /// Whether the agent's policy lets this program use the keys of a group
  /// (`SSHAgentService.mayUseKeys`): `org.openssh.agent`, or a key pair's own group under it.
  let mayUseGroup: @Sendable (String) -> Bool
  var boundHosts: [[UInt8]] = []

  /// Whether the program may use the keys `ssh-add` added (the group `org.openssh.agent`).
  var mayUseKeys: Bool { mayUseGroup(SSHAgentKeys.group) }

  /// A caller whose user proves their presence to `session`; without one, a session that cannot
  /// ask the user.
  package init(
    executable: String, parent: String?, session: CallerSession? = nil,
    mayUseGroup: @escaping @Sendable (String) -> Bool
  ) {
    self.executable = executable
    programName = AgentCaller.programName(of: executable)
    self.parent = parent
    self.session = session ?? CallerSession(authenticator: nil, executable: executable)
    self.mayUseGroup = mayUseGroup
  }

  /// A caller that may use the keys of every group, or of none.
  package convenience init(executable: String, parent: String?, session: CallerSession? = nil, mayUseKeys: Bool = true)
  {
    self.init(executable: executable, parent: parent, session: session, mayUseGroup: { _ in mayUseKeys })
  }
}

/// OpenSSH's agent protocol (draft-miller-ssh-agent) over the keychain the agent holds: list,
/// sign, add (with the confirm and lifetime constraints), remove, remove all, lock and unlock, and
/// the session-bind extension. A front end adapter: it reads a message, acts on the keychain
/// through an engine confined to the keys' group, and writes the answer; it needs no socket, so
/// the tests feed it messages.
///
/// A message that waits for the user (a confirmation, the keychain's unlock, a key whose access
/// control asks for the user) holds no thread: its run stops at the question (`SSHAgentAsk`), the
/// question is asked without waiting, and the message runs again with the answer.
package final class SSHAgentService: Sendable {
  /// The longest message taken, OpenSSH's own bound (AGENT_MAX_LEN).
  package static let maximumMessageLength = 256 * 1024

  let agent: AgentService
  let prompter: any PromptService
  /// The agent's lock (`ssh-add -x`): a salted digest of its passphrase while locked.
  let lockDigest = Mutex<(salt: [UInt8], digest: [UInt8])?>(nil)

  package init(agent: AgentService, prompter: any PromptService = PassphrasePrompt.fromEnvironment()) {
    self.agent = agent
    self.prompter = prompter
  }

  private var keys: SSHAgentKeys { SSHAgentKeys(engine: agent.engine(groups: [SSHAgentKeys.group])) }

  /// The key pairs made with Apple's API and offered to ssh, read and used for `caller`: a key's
  /// access control that asks for the user stops the run (`deferring`, whose reason the caller
  /// reads; a new one when only listing), so that the caller's session asks without holding the
  /// thread.
  private func keychainKeys(for caller: SSHAgentCaller, deferring: DeferringAuthenticator? = nil) -> SSHKeychainKeys {
    // Every group is searched; the key pairs' own groups (org.openssh.agent and those under it)
    // and the caller's policy decide which it gets.
    SSHKeychainKeys(
      engine: agent.engine(
        groups: ["*"], authenticator: deferring ?? DeferringAuthenticator(session: caller.session),
        programName: caller.programName),
      mayUseGroup: caller.mayUseGroup)
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

  static let failure: [UInt8] = [SSHAgentMessage.failure]
  static let success: [UInt8] = [SSHAgentMessage.success]

  /// The answer to one message from `caller`: a failure for anything malformed, refused or unknown,
  /// as OpenSSH's agent answers (the reason is logged, never a key's bytes). nil when the answer
  /// waits for the user: it comes later, through `later`, on any thread.
  package func answer(
    _ message: [UInt8], from caller: SSHAgentCaller, later: @escaping @Sendable ([UInt8]) -> Void
  ) -> [UInt8]? {
    var reader = SSHReader(message)
    do throws(SSHWireError) {
      let type = try reader.byte()
      let locked = lockDigest.withLock { $0 != nil }
      switch type {
      case SSHAgentMessage.requestIdentities:
        guard !locked else { return Self.identitiesAnswer([]) }
        return respond(to: .identities, from: caller, answers: SSHAgentAnswers(), later: later)
      case SSHAgentMessage.signRequest:
        let query = SSHAgentQuery.sign(blob: try reader.string(), data: try reader.string(), flags: try reader.uint32())
        guard !locked else { return refuse("a signature while the agent is locked") }
        return respond(to: query, from: caller, answers: SSHAgentAnswers(), later: later)
      case SSHAgentMessage.addIdentity, SSHAgentMessage.addConstrainedIdentity:
        guard !locked else { return refuse("an add while the agent is locked") }
        let key = try SSHAgentKey(reading: &reader)
        let comment = try reader.text()
        var confirm = false
        var lifetime: UInt32?
        while type == SSHAgentMessage.addConstrainedIdentity && !reader.isAtEnd {
          switch try reader.byte() {
          case 1: lifetime = try reader.uint32()
          case 2: confirm = true
          default:
            // restrict-destination and other extensions: a constraint this agent would not
            // enforce is refused rather than ignored.
            return refuse("a constraint this agent does not enforce")
          }
        }
        return run { () throws(SSHAgentStop) in
          try keychain { () throws(SecStatus) in
            try keys.add(key, comment: comment, confirm: confirm, lifetime: lifetime)
          }
          return Self.success
        }
      case SSHAgentMessage.removeIdentity:
        let blob = try reader.string()
        guard !locked else { return refuse("a removal while the agent is locked") }
        guard caller.mayUseKeys else { return refuse("a removal by a program the agent's policy keeps from the keys") }
        return run { () throws(SSHAgentStop) in try remove(blob, for: caller) }
      case SSHAgentMessage.removeAllIdentities:
        guard !locked else { return refuse("a removal while the agent is locked") }
        guard caller.mayUseKeys else { return refuse("a removal by a program the agent's policy keeps from the keys") }
        return run { () throws(SSHAgentStop) in
          try keychain { () throws(SecStatus) in try keys.removeAll() }
          return Self.success
        }
      case SSHAgentMessage.lock, SSHAgentMessage.unlock:
        var passphrase = try reader.string()
        defer { Secrets.wipe(&passphrase) }
        return type == SSHAgentMessage.lock ? lock(with: passphrase) : unlock(with: passphrase)
      case SSHAgentMessage.extension:
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

  /// The answer to `query`, run with what the user already answered for it (`answers`); when the
  /// run stops at a question, the question is asked without waiting and the query runs again with
  /// its answer (nil is returned; the answer goes to `later`). A question asked once is not asked
  /// again for the same message.
  private func respond(
    to query: SSHAgentQuery, from caller: SSHAgentCaller, answers: SSHAgentAnswers,
    later: @escaping @Sendable ([UInt8]) -> Void
  ) -> [UInt8]? {
    do throws(SSHAgentStop) {
      return try run(query, for: caller, answers: answers)
    } catch {
      switch error {
      case .refused(let reason):
        return refuse(reason)
      case .asks(let question):
        guard !answers.asked.contains(question.kind) else {
          return refuse("a message that asked the user the same question twice")
        }
        ask(question, for: caller) { [self] refusal in
          if let refusal { return later(refuse(refusal)) }
          if let answer = respond(to: query, from: caller, answers: answers.adding(question.kind), later: later) {
            later(answer)
          }
        }
        return nil
      }
    }
  }

  /// One run of `query`.
  private func run(_ query: SSHAgentQuery, for caller: SSHAgentCaller, answers: SSHAgentAnswers)
    throws(SSHAgentStop) -> [UInt8]
  {
    switch query {
    case .identities:
      return Self.identitiesAnswer(try identities(for: caller))
    case .sign(let blob, let data, let flags):
      return try sign(data, with: blob, flags: flags, for: caller, answers: answers)
    }
  }

  /// Runs an operation that cannot wait for the user: its stop is a refusal.
  private func run(_ body: () throws(SSHAgentStop) -> [UInt8]) -> [UInt8] {
    do throws(SSHAgentStop) {
      return try body()
    } catch {
      if case .refused(let reason) = error { return refuse(reason) }
      return refuse("an operation that would wait for the user")
    }
  }

  private static func identitiesAnswer(_ listed: [(blob: [UInt8], comment: String)]) -> [UInt8] {
    var writer = SSHWriter()
    writer.byte(SSHAgentMessage.identitiesAnswer)
    writer.uint32(UInt32(listed.count))
    for key in listed {
      writer.string(key.blob)
      writer.string(key.comment)
    }
    return writer.bytes
  }

  /// Every key the caller may use: those `ssh-add` added, then the pairs made in the keychain.
  private func identities(for caller: SSHAgentCaller) throws(SSHAgentStop) -> [(blob: [UInt8], comment: String)] {
    try unlocking { () throws(SecStatus) in
      let added = caller.mayUseKeys ? try keys.list().map { ($0.publicBlob, $0.comment) } : []
      return try added + keychainKeys(for: caller).list().map { ($0.publicBlob, $0.comment) }
    }
  }

  private func remove(_ blob: [UInt8], for caller: SSHAgentCaller) throws(SSHAgentStop) -> [UInt8] {
    let keychainKeys = keychainKeys(for: caller)
    if try keychain({ () throws(SecStatus) in try keychainKeys.list() }).contains(where: { $0.publicBlob == blob }) {
      // A key made in the keychain may exist nowhere else (a TPM's): `security delete-ssh-key`
      // removes it, on purpose, not `ssh-add -d`.
      throw .refused("the removal of a key made in the keychain (security delete-ssh-key removes it)")
    }
    return try keychain { () throws(SecStatus) in try keys.remove(blob) } ? Self.success : Self.failure
  }

  func refuse(_ reason: String) -> [UInt8] {
    agent.logger.info("the ssh-agent refused \(reason)")
    return Self.failure
  }

  /// Runs a keychain operation; its failure becomes the message's.
  private func keychain<T>(_ body: () throws(SecStatus) -> T) throws(SSHAgentStop) -> T {
    do {
      return try body()
    } catch {
      throw .refused(
        error.code == errSecInteractionNotAllowed
          ? "an operation while the keychain is locked" : "an operation the keychain failed (\(error.code))")
    }
  }

  /// Runs `body`; when it finds the keychain locked and the keychain has a passphrase, the run
  /// stops to ask the user to unlock it (the agent's prompt, naming the program), and runs again
  /// once they did.
  private func unlocking<T>(_ body: () throws(SecStatus) -> T) throws(SSHAgentStop) -> T {
    do {
      return try body()
    } catch {
      guard error.code == errSecInteractionNotAllowed, agent.store.isLocked, agent.store.hasPassphrase else {
        return try keychain { () throws(SecStatus) in throw error }
      }
      throw .asks(.unlock)
    }
  }

  private func sign(
    _ data: [UInt8], with blob: [UInt8], flags: UInt32, for caller: SSHAgentCaller, answers: SSHAgentAnswers
  ) throws(SSHAgentStop) -> [UInt8] {
    guard caller.mayUseKeys, let (key, listed) = try unlocking({ () throws(SecStatus) in try keys.key(for: blob) })
    else {
      return try signWithKeychainKey(data, blob: blob, flags: flags, for: caller)
    }
    if listed.confirm && !answers.asked.contains(.confirmation) {
      throw .asks(.confirmation(Self.words(signingWith: listed.comment, blob: listed.publicBlob, for: caller)))
    }
    let signature: [UInt8]?
    do {
      signature = try key.signature(of: data, flags: flags)
    } catch {
      throw .refused("a signature OpenSSL could not make: \(error)")
    }
    guard let signature else { throw .refused("an RSA signature over SHA-1") }
    return Self.signResponse(signature)
  }

  /// A signature by a key pair made in the keychain: its private key is read as any key's ref (a
  /// key whose access control asks for the user stops the run to ask, naming the program, the key
  /// and the host), and signs through SecKey, in the TPM for a Secure Enclave key.
  private func signWithKeychainKey(_ data: [UInt8], blob: [UInt8], flags: UInt32, for caller: SSHAgentCaller)
    throws(SSHAgentStop) -> [UInt8]
  {
    let deferring = DeferringAuthenticator(session: caller.session)
    let keychainKeys = keychainKeys(for: caller, deferring: deferring)
    guard
      let listed = try unlocking({ () throws(SecStatus) in try keychainKeys.list() }).first(where: {
        $0.publicBlob == blob
      })
    else {
      throw .refused("a signature with a key it does not hold, or that the agent's policy keeps from the program")
    }
    let reason = Self.words(signingWith: listed.comment, blob: blob, for: caller)
    let key: SecKey?
    do {
      key = try keychainKeys.privateKey(of: listed, reason: reason)
    } catch {
      if let asked = deferring.deferredReason { throw .asks(.userPresence(asked)) }
      throw .refused("a signature the keychain refused (\(error.code))")
    }
    guard let key else { throw .refused("a signature with a key pair whose private key is gone") }
    let signature: [UInt8]?
    do {
      signature = try SSHKeychainKeys.signature(of: data, by: key, flags: flags)
    } catch {
      throw .refused("a signature the keychain refused (\(error.code))")
    }
    guard let signature else { throw .refused("an RSA signature over SHA-1") }
    return Self.signResponse(signature)
  }

  private static func signResponse(_ signature: [UInt8]) -> [UInt8] {
    var writer = SSHWriter()
    writer.byte(SSHAgentMessage.signResponse)
    writer.string(signature)
    return writer.bytes
  }
}

import Foundation
import KeychainCrypto
import Security

/// Message numbers (draft-miller-ssh-agent §5.1).
enum SSHAgentMessage {
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

/// A message that may wait for the user, read once and run again after each answer: the list of
/// keys (a locked keychain asks to be unlocked) and a signature (also a confirmation, or a key's
/// access control).
enum SSHAgentQuery: Sendable {
  case identities
  case sign(blob: [UInt8], data: [UInt8], flags: UInt32)
}

/// A question a message stopped at.
enum SSHAgentAsk: Sendable {
  /// The keychain is locked: the user's passphrase unlocks it.
  case unlock
  /// A key added with `ssh-add -c`: the user allows or refuses the signature this text describes.
  case confirmation(String)
  /// A key whose access control asks for the user: their proof, for this reason.
  case userPresence(String)

  /// Which question it is, so that a message asks each at most once.
  enum Kind: Sendable { case unlock, confirmation, userPresence }

  var kind: Kind {
    switch self {
    case .unlock: .unlock
    case .confirmation: .confirmation
    case .userPresence: .userPresence
    }
  }
}

/// The questions the user already answered, yes, for the message now run again.
struct SSHAgentAnswers: Sendable {
  private(set) var asked: Set<SSHAgentAsk.Kind> = []

  func adding(_ kind: SSHAgentAsk.Kind) -> SSHAgentAnswers {
    var more = self
    more.asked.insert(kind)
    return more
  }
}

/// Why a run stopped before its answer: refused (the reason is logged), or waiting for the user.
enum SSHAgentStop: Error {
  case refused(String)
  case asks(SSHAgentAsk)
}

extension SSHAgentService {
  /// Asks `question` for `caller` without waiting: `completion` runs later, on any thread, with
  /// nil once the user answered yes (the keychain unlocked, the signature allowed, their presence
  /// proved and held by the caller's session for the run again), else the reason to refuse.
  func ask(
    _ question: SSHAgentAsk, for caller: SSHAgentCaller, completion: @escaping @Sendable (String?) -> Void
  ) {
    switch question {
    case .unlock:
      agent.store.authenticator.authenticateUser(
        reason: "unlock the keychain for its ssh keys",
        caller: caller.programName,
        reuse: 0
      ) { failure in
        completion(failure == nil ? nil : "an operation while the keychain is locked, which the user did not unlock")
      }
    case .confirmation(let text):
      prompter.confirm(text + ". Allow it?") { allowed in
        completion(allowed ? nil : "a signature the user did not allow")
      }
    case .userPresence(let reason):
      caller.session.authenticateForRetry(reason: reason) { failure in
        completion(failure == nil ? nil : "a signature with a key whose access control the user did not satisfy")
      }
    }
  }

  /// What the caller asks, in the words a prompt shows: the program (and its parent), the key and
  /// the host it connects to.
  static func words(signingWith comment: String, blob: [UInt8], for caller: SSHAgentCaller) -> String {
    let words = PassphraseAuthenticator.programWords
    var who = words(caller.programName)
    if let parent = caller.parent { who = "\(words(URL(fileURLWithPath: parent).lastPathComponent)) (via \(who))" }
    var text = "\(who) wants to sign with the ssh key “\(words(comment))” (\(SSHAgentKey.fingerprint(blob)))"
    if let host = caller.boundHosts.last { text += " for the host whose key is \(SSHAgentKey.fingerprint(host))" }
    return text
  }

  /// `ssh-add -x`: the agent lists and signs nothing until unlocked with the same passphrase (its
  /// salted digest is kept, never the passphrase).
  func lock(with passphrase: [UInt8]) -> [UInt8] {
    guard let salt = try? SecureBytes.random(count: 16), let digest = try? SHA256.hash(data: salt + passphrase) else {
      return Self.failure
    }
    return lockDigest.withLock { current in
      guard current == nil else { return Self.failure }
      current = (salt, digest)
      return Self.success
    }
  }

  /// `ssh-add -X`.
  func unlock(with passphrase: [UInt8]) -> [UInt8] {
    lockDigest.withLock { current in
      guard let (salt, digest) = current, (try? SHA256.hash(data: salt + passphrase)) == digest else {
        return Self.failure
      }
      current = nil
      return Self.success
    }
  }
}

import KeychainCrypto
import Security

/// The Secret Service's sessions (specification 0.2, "Transfer of Secrets"): each belongs to the
/// client that opened it, and carries secrets as they are (`plain`) or encrypted under a key agreed
/// by Diffie-Hellman (`dh-ietf1024-sha256-aes128-cbc-pkcs7`, what libsecret and SecretStorage ask
/// for first).
struct SecretSessions {
  static let prefix = "/org/freedesktop/secrets/session/"
  static let plain = "plain"
  static let diffieHellman = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
  /// At most this many sessions open at once, every client counted: a session costs a key.
  static let maximumCount = 1024
  /// At most this many of them for one program (one executable, however many connections it
  /// opens), so that one program cannot use up every other's (issue 63).
  static let maximumPerProgram = 64

  private struct Session {
    let owner: String
    /// The executable of the program that opened it.
    let program: String
    /// nil for a plain session.
    let key: SecretServiceSessionKey?
  }

  private var sessions: [String: Session] = [:]
  private var next = 1

  /// Opens a session for `sender`, a connection of `program`, with `algorithm`, reading its input (the client's public value
  /// for Diffie-Hellman) from `arguments`: OpenSession's reply, the output and the session's path.
  mutating func open(algorithm: String, arguments: BusMessageReader, sender: String, program: String)
    throws(BusError) -> [BusValue]
  {
    let key: SecretServiceSessionKey?
    switch algorithm {
    case Self.plain:
      try arguments.within("v", "s") { () throws(BusError) in _ = try arguments.string() }
      key = nil
    case Self.diffieHellman:
      let peer = try arguments.within("v", "ay") { () throws(BusError) in try arguments.bytes() }
      do {
        key = try SecretServiceSessionKey(peerPublicKey: peer)
      } catch {
        throw .invalidArguments("The Diffie-Hellman public value is not one of the group's.")
      }
    default:
      throw .notSupported("The algorithm \(algorithm) is not supported; plain and \(Self.diffieHellman) are.")
    }
    guard sessions.count < Self.maximumCount else { throw .failed("Too many sessions are open.") }
    guard sessions.values.lazy.filter({ $0.program == program }).count < Self.maximumPerProgram else {
      throw .failed("This program has too many sessions open: close some first.")
    }
    let path = Self.prefix + "s\(next)"
    next += 1
    sessions[path] = Session(owner: sender, program: program, key: key)
    return [.variant(key.map { .bytes($0.publicKey) } ?? .string("")), .objectPath(path)]
  }

  /// Closes `path`, a session `sender` opened.
  mutating func close(_ path: String, sender: String) throws(BusError) {
    _ = try session(path, of: sender)
    sessions[path] = nil
  }

  /// Forgets the sessions of a client that left the bus.
  mutating func clientLeft(_ name: String) { sessions = sessions.filter { $0.value.owner != name } }

  /// Checks that `path` is a session `sender` opened.
  func check(_ path: String, of sender: String) throws(BusError) { _ = try session(path, of: sender) }

  /// `value` as a Secret structure `(oayays)` of `contentType` for `sender` in session `path`.
  func secret(_ value: [UInt8], contentType: String, session path: String, sender: String) throws(BusError)
    -> BusValue
  {
    var parameters: [UInt8] = []
    var carried = value
    if let key = try session(path, of: sender).key {
      do {
        (parameters, carried) = try key.encrypt(value)
      } catch {
        throw .failed("The secret could not be encrypted for the session.")
      }
    }
    return .structure([.objectPath(path), .bytes(parameters), .bytes(carried), .string(contentType)])
  }

  /// The secret a Secret structure from `sender` carries, decrypted in its session.
  func value(of secret: (session: String, parameters: [UInt8], value: [UInt8], contentType: String), sender: String)
    throws(BusError) -> [UInt8]
  {
    var value: [UInt8]
    if let key = try session(secret.session, of: sender).key {
      do {
        value = try key.decrypt(secret.value, iv: secret.parameters)
      } catch {
        throw .invalidArguments("The secret does not decrypt in its session: wrong key, IV or padding.")
      }
    } else {
      value = secret.value
    }
    guard value.count <= BusMessageReader.maximumLength else {
      Secrets.wipe(&value)
      throw .invalidArguments("A secret is longer than 1 MiB.")
    }
    return value
  }

  private func session(_ path: String, of sender: String) throws(BusError) -> Session {
    guard let session = sessions[path], session.owner == sender else {
      throw .noSession("No session at \(path) for this client.")
    }
    return session
  }
}

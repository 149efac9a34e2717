import Foundation
import KeychainCrypto
import Security

/// A private key as OpenSSH's agent protocol carries it (draft-miller-ssh-agent §4.2): its type
/// name and fields, from which the public key blob, the signing key and the signatures are made.
/// The fields are kept as the client sent them (the `key` part of an add, without the comment),
/// which is what the keychain stores, sealed like any secret.
struct SSHAgentKey {
  /// The key types this agent holds.
  static let types: Set<String> = [
    "ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "ssh-rsa",
  ]

  /// The type name (`ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`...).
  let type: String
  /// The public key blob, as `ssh-add -L` shows it and servers know it.
  let publicBlob: [UInt8]
  /// The type and private fields, as received: what is stored.
  let encoded: [UInt8]
  let signer: SSHSigningKey

  /// Reads the key part of an add (type, then its fields) from `reader`, which is left at the
  /// comment. With `checking`, the private and public halves must belong together (a key from a
  /// client; a stored one was checked when it was added, and its seal authenticates it since).
  init(reading reader: inout SSHReader, checking: Bool = true) throws(SSHWireError) {
    let start = reader.position
    type = try reader.text()
    guard Self.types.contains(type) else {
      throw SSHWireError(reason: "a key of type \(type), which this agent does not hold")
    }
    var blob = SSHWriter()
    blob.string(type)
    switch type {
    case "ssh-ed25519":
      let publicKey = try reader.string()
      var secret = try reader.string()
      defer { Secrets.wipe(&secret) }
      guard secret.count == 64 else { throw SSHWireError(reason: "an Ed25519 key that is not 64 bytes") }
      var seed = Array(secret.prefix(32))
      defer { Secrets.wipe(&seed) }
      do {
        signer = try SSHSigningKey(ed25519Seed: seed, publicKey: publicKey)
      } catch {
        throw SSHWireError(reason: error.description)
      }
      blob.string(publicKey)
    case "ssh-rsa":
      let modulus = try reader.mpint()
      let exponent = try reader.mpint()
      var privateExponent = try reader.mpint()
      var coefficient = try reader.mpint()
      var prime1 = try reader.mpint()
      var prime2 = try reader.mpint()
      defer {
        Secrets.wipe(&privateExponent)
        Secrets.wipe(&coefficient)
        Secrets.wipe(&prime1)
        Secrets.wipe(&prime2)
      }
      do {
        signer = try SSHSigningKey(
          rsaModulus: modulus, publicExponent: exponent, privateExponent: privateExponent, coefficient: coefficient,
          prime1: prime1, prime2: prime2)
      } catch {
        throw SSHWireError(reason: error.description)
      }
      guard signer.bits >= 2048 else {
        throw SSHWireError(reason: "an RSA key of \(signer.bits) bits (2048 at least)")
      }
      blob.mpint(exponent)
      blob.mpint(modulus)
    default:
      let curve = try reader.text()
      guard type == "ecdsa-sha2-" + curve else {
        throw SSHWireError(reason: "an ECDSA key whose curve is not its type's")
      }
      let point = try reader.string()
      var scalar = try reader.mpint()
      defer { Secrets.wipe(&scalar) }
      do {
        signer = try SSHSigningKey(ecdsaCurve: curve, privateScalar: scalar, publicPoint: point)
      } catch {
        throw SSHWireError(reason: error.description)
      }
      blob.string(curve)
      blob.string(point)
    }
    publicBlob = blob.bytes
    encoded = reader.read(since: start)
    if checking {
      do {
        try signer.checkPair()
      } catch {
        throw SSHWireError(reason: error.description)
      }
    }
  }

  /// The key read back from what `init(reading:)` stored.
  init(stored bytes: [UInt8]) throws(SSHWireError) {
    var reader = SSHReader(bytes)
    try self.init(reading: &reader, checking: false)
    guard reader.isAtEnd else { throw SSHWireError(reason: "a stored key with bytes left over") }
  }

  /// The fingerprint OpenSSH shows: SHA256: and the digest of the public blob in base64 without
  /// padding.
  static func fingerprint(_ publicBlob: [UInt8]) -> String {
    let digest = (try? SHA256.hash(data: publicBlob)) ?? []
    return "SHA256:" + Data(digest).base64EncodedString().trimmingCharacters(in: CharacterSet(charactersIn: "="))
  }

  /// The signature blob of `data` as OpenSSH expects it for this key; `flags` are the request's
  /// (rsa-sha2-256 is 2, rsa-sha2-512 is 4). nil for an RSA request that asks for SHA-1, which this
  /// agent does not make.
  func signature(of data: [UInt8], flags: UInt32) throws(CryptoError) -> [UInt8]? {
    var blob = SSHWriter()
    switch signer.kind {
    case .ed25519:
      blob.string(type)
      blob.string(try signer.sign(data))
    case .rsa:
      let name: String
      let digest: HashFunction
      if flags & 4 != 0 {
        (name, digest) = ("rsa-sha2-512", .sha512)
      } else if flags & 2 != 0 {
        (name, digest) = ("rsa-sha2-256", .sha256)
      } else {
        return nil
      }
      blob.string(name)
      blob.string(try signer.sign(data, digest: digest))
    case .ecdsa:
      guard let (r, s) = SSHPublicKeyBlob.derIntegerPair(try signer.sign(data)) else {
        throw .invalidParameter("an ECDSA signature that does not parse")
      }
      var pair = SSHWriter()
      pair.mpint(r)
      pair.mpint(s)
      blob.string(type)
      blob.string(pair.bytes)
    }
    return blob.bytes
  }
}

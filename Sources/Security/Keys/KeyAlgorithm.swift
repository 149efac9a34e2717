import Foundation

/// A SecKeyAlgorithm read from its string: what the operation does (keys rule 5).
package enum KeyAlgorithm: Sendable, Equatable {
  /// ECDSA; `digest` nil for the Digest forms that name no hash (any input length).
  case ecdsa(input: SignatureInput, format: ECDSASignatureFormat)
  case rsaSignature(input: SignatureInput, padding: RSASignatureScheme)
  case rsaEncryption(RSAEncryptionScheme)
  case ecies(cofactor: Bool, kdf: DigestKind, variableIV: Bool)
  case ecdh(cofactor: Bool, kdf: DigestKind?)

  /// What a signature algorithm signs: a digest the caller made (of the named hash's length, or
  /// any length when none is named) or a message hashed first.
  package enum SignatureInput: Sendable, Equatable {
    case digest(DigestKind?)
    case message(DigestKind)

    var hash: DigestKind? {
      switch self {
      case .digest(let hash): hash
      case .message(let hash): hash
      }
    }
  }

  package enum ECDSASignatureFormat: Sendable, Equatable {
    /// DER `SEQUENCE { r, s }`.
    case x962
    /// r‖s, each padded to the field size.
    case rfc4754
  }

  package enum RSASignatureScheme: Sendable, Equatable {
    case raw, pkcs1v15, pss
  }

  package enum RSAEncryptionScheme: Sendable, Equatable {
    case raw, pkcs1
    case oaep(DigestKind)
    case oaepAESGCM(DigestKind)
  }

  /// The last field of Apple's PSS constant for `hash`: the digest's length in bytes, except for
  /// SHA-224, whose constant says 24 (Apple's; its signatures still use a 28-byte salt, the
  /// digest's length, as every PSS algorithm here does).
  static func pssSaltField(_ hash: DigestKind) -> String {
    hash == .sha224 ? "24" : String(hash.length)
  }

  /// Parses Apple's string; nil for a string no key supports.
  package init?(_ name: String) {
    let parts = name.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    guard parts.count >= 3, parts[0] == "algid" else { return nil }
    func hash(_ index: Int) -> DigestKind? { index < parts.count ? DigestKind(rawValue: parts[index]) : nil }
    switch (parts[1], parts[2]) {
    case ("sign", "ECDSA"):
      guard parts.count >= 4 else { return nil }
      let form = parts[3]
      switch (form, parts.count) {
      case ("RFC4754", 4): self = .ecdsa(input: .digest(nil), format: .rfc4754)
      case ("digest-RFC4754", 4): self = .ecdsa(input: .digest(nil), format: .rfc4754)
      case ("digest-X962", 4): self = .ecdsa(input: .digest(nil), format: .x962)
      case ("digest-RFC4754", 5):
        guard let h = hash(4) else { return nil }; self = .ecdsa(input: .digest(h), format: .rfc4754)
      case ("digest-X962", 5):
        guard let h = hash(4) else { return nil }; self = .ecdsa(input: .digest(h), format: .x962)
      case ("message-RFC4754", 5):
        guard let h = hash(4) else { return nil }; self = .ecdsa(input: .message(h), format: .rfc4754)
      case ("message-X962", 5):
        guard let h = hash(4) else { return nil }; self = .ecdsa(input: .message(h), format: .x962)
      default: return nil
      }
    case ("sign", "RSA"):
      guard parts.count >= 4 else { return nil }
      switch (parts[3], parts.count) {
      case ("raw", 4): self = .rsaSignature(input: .digest(nil), padding: .raw)
      case ("digest-PKCS1v15", 4): self = .rsaSignature(input: .digest(nil), padding: .pkcs1v15)
      case ("digest-PKCS1v15", 5):
        guard let h = hash(4) else { return nil }; self = .rsaSignature(input: .digest(h), padding: .pkcs1v15)
      case ("message-PKCS1v15", 5):
        guard let h = hash(4) else { return nil }; self = .rsaSignature(input: .message(h), padding: .pkcs1v15)
      case ("digest-PSS", 7), ("message-PSS", 7):
        guard let h = hash(4), hash(5) == h, parts[6] == Self.pssSaltField(h) else { return nil }
        self = .rsaSignature(input: parts[3] == "digest-PSS" ? .digest(h) : .message(h), padding: .pss)
      default: return nil
      }
    case ("encrypt", "RSA"):
      switch parts.count {
      case 4 where parts[3] == "raw": self = .rsaEncryption(.raw)
      case 4 where parts[3] == "PKCS1": self = .rsaEncryption(.pkcs1)
      case 5 where parts[3] == "OAEP": guard let h = hash(4) else { return nil }; self = .rsaEncryption(.oaep(h))
      case 6 where parts[3] == "OAEP" && parts[5] == "AESGCM":
        guard let h = hash(4) else { return nil }
        self = .rsaEncryption(.oaepAESGCM(h))
      default: return nil
      }
    case ("encrypt", "ECIES"):
      guard parts.count == 7, ["ECDH", "ECDHC"].contains(parts[3]), parts[4] == "KDFX963", let h = hash(5),
        ["AESGCM", "AESGCM-KDFIV"].contains(parts[6])
      else { return nil }
      let variableIV = parts[6] == "AESGCM-KDFIV"
      if variableIV && h == .sha1 { return nil }  // Apple has no VariableIV SHA1 variant (5.6.5)
      self = .ecies(cofactor: parts[3] == "ECDHC", kdf: h, variableIV: variableIV)
    case ("keyexchange", "ECDH"), ("keyexchange", "ECDHC"):
      let cofactor = parts[2] == "ECDHC"
      switch parts.count {
      case 3: self = .ecdh(cofactor: cofactor, kdf: nil)
      case 5 where parts[3] == "KDFX963":
        guard let h = hash(4) else { return nil }; self = .ecdh(cofactor: cofactor, kdf: h)
      default: return nil
      }
    default:
      return nil
    }
  }

  /// Whether `key` can perform `operation` with this algorithm: the natural class only (decision
  /// D5) and the size limits of 5.2.3.
  package func isSupported(by key: SecKey, for operation: SecKeyOperationType) -> Bool {
    switch (self, key.keyType, key.isPrivate, operation) {
    case (.ecdsa, .ec, true, .sign), (.ecdsa, .ec, false, .verify): return true
    case (.ecies, .ec, false, .encrypt), (.ecies, .ec, true, .decrypt): return true
    case (.ecdh, .ec, true, .keyExchange): return true
    case (.rsaSignature(let input, let padding), .rsa, true, .sign),
      (.rsaSignature(let input, let padding), .rsa, false, .verify):
      guard padding == .pss, let hash = input.hash else { return true }
      return key.bits >= 16 * hash.length + 9
    case (.rsaEncryption(let scheme), .rsa, false, .encrypt), (.rsaEncryption(let scheme), .rsa, true, .decrypt):
      switch scheme {
      case .raw, .pkcs1: return true
      case .oaep(let hash), .oaepAESGCM(let hash): return key.blockSize >= 2 * hash.length + 2
      }
    default:
      return false
    }
  }
}

import Foundation

/// The operations SecKeyIsAlgorithmSupported asks about (keys rule 5.1.5).
public enum SecKeyOperationType: Int, Sendable {
  /// SecKeyCreateSignature.
  case sign = 0
  /// SecKeyVerifySignature.
  case verify = 1
  /// SecKeyCreateEncryptedData.
  case encrypt = 2
  /// SecKeyCreateDecryptedData.
  case decrypt = 3
  /// SecKeyCopyKeyExchangeResult.
  case keyExchange = 4
}

/// Apple's `SecKey`: one half of an RSA or elliptic-curve key pair, kept by the key engine.
///
/// Two keys are equal when they are of the same class (public or private) and hold the same key
/// (keys rule 4.3): a key re-imported from its external representation equals the original.
public final class SecKey: Hashable, Sendable, CustomStringConvertible {
  package let material: any EngineKey
  /// The backend that labelled it: the key's other half (`SecKeyCopyPublicKey`) is labelled by
  /// the same one, as a certificate's key is by its certificate's.
  package let backend: any SecurityBackend
  /// The public half's external representation: what equality and the application label use.
  package let publicBytes: Data

  /// The key `material` holds, its application label digested by the backend of the call's
  /// context (the CF functions' keys).
  package convenience init(_ material: any EngineKey) throws(KeyOperationFailure) {
    try self.init(material, labelledBy: try KeychainContext.current.keyBackend())
  }

  /// The key `material` holds, its application label digested by `backend` (an engine's keys,
  /// made from its rows).
  package init(_ material: any EngineKey, labelledBy backend: any SecurityBackend) throws(KeyOperationFailure) {
    self.material = material
    self.backend = backend
    publicBytes = try material.publicRepresentation()
    do {
      applicationLabel = try backend.sha1(Array(publicBytes))
    } catch {
      throw KeyOperationFailure(error.code, error.detail ?? "the key's application label could not be computed")
    }
  }

  package var keyType: KeyType { material.type }
  package var isPrivate: Bool { material.isPrivate }
  /// kSecAttrKeySizeInBits (keys rule 4.6).
  package var bits: Int { material.bits }
  /// SecKeyGetBlockSize: the modulus length, or the field size (keys rules 4.4, 4.5).
  package var blockSize: Int { (material.bits + 7) / 8 }

  /// kSecAttrApplicationLabel: SHA-1 of the public key's raw bytes (keys rule 4.11).
  package let applicationLabel: Data

  /// Keys are equal when class and key are (keys rule 4.3).
  public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
    lhs.isPrivate == rhs.isPrivate && lhs.keyType == rhs.keyType && lhs.publicBytes == rhs.publicBytes
  }

  /// Hashes class and public key.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(isPrivate)
    hasher.combine(publicBytes)
  }

  /// A description without key material.
  public var description: String {
    let type = keyType == .rsa ? "RSA" : "EC"
    return "<SecKey \(type) \(bits) bits, \(isPrivate ? "private" : "public")>"
  }

  /// The attribute dictionary of keys rule 4.7, with the usage flags of keys rule 4.8; v_Data (the external
  /// representation, which exports the key) only when `includingData`.
  package func attributeDictionary(includingData: Bool = true) throws(KeyOperationFailure) -> [String: Any] {
    let ec = keyType == .ec
    let flags: [String: Bool] = [
      SecConstantValue.attrCanEncrypt: !isPrivate,
      // Apple's quirk (4.8): an RSA public key reports decrypt.
      SecConstantValue.attrCanDecrypt: isPrivate || !ec,
      SecConstantValue.attrCanDerive: ec && isPrivate,
      SecConstantValue.attrCanSign: isPrivate,
      SecConstantValue.attrCanVerify: !isPrivate,
      SecConstantValue.attrCanWrap: !isPrivate,
      SecConstantValue.attrCanUnwrap: isPrivate,
      SecConstantValue.attrCanSignRecover: false,
      SecConstantValue.attrCanVerifyRecover: false,
      SecConstantValue.attrIsPermanent: true,
      SecConstantValue.attrIsPrivate: true,
      SecConstantValue.attrIsModifiable: true,
      SecConstantValue.attrIsSensitive: false,
      SecConstantValue.attrWasAlwaysSensitive: false,
      SecConstantValue.attrIsExtractable: true,
      SecConstantValue.attrWasNeverExtractable: false,
    ]
    var attributes: [String: Any] = flags.mapValues { NSNumber(value: $0) }
    attributes[SecConstantValue.`class`] = SecConstantValue.classKey as NSString
    attributes[SecConstantValue.attrKeyClass] = (isPrivate ? "1" : "0") as NSString
    attributes[SecConstantValue.attrKeyType] = (ec ? "73" : "42") as NSString
    attributes[SecConstantValue.attrApplicationLabel] = applicationLabel as NSData
    attributes[SecConstantValue.attrKeySizeInBits] = NSNumber(value: bits)
    attributes[SecConstantValue.attrEffectiveKeySize] = NSNumber(value: bits)
    if let token = material as? any TokenEngineKey {
      // A token's key is sensitive and never extractable; its item's data is the token's blob.
      attributes[SecConstantValue.attrTokenID] = token.tokenID as NSString
      attributes[SecConstantValue.attrIsSensitive] = NSNumber(value: true)
      attributes[SecConstantValue.attrWasAlwaysSensitive] = NSNumber(value: true)
      attributes[SecConstantValue.attrIsExtractable] = NSNumber(value: false)
      attributes[SecConstantValue.attrWasNeverExtractable] = NSNumber(value: true)
      return attributes
    }
    if includingData { attributes[SecConstantValue.valueData] = try material.externalRepresentation() as NSData }
    return attributes
  }
}

/// The key engine of the call's context, or the failure every SecKey function reports when there
/// is no backend.
func contextKeyEngine() throws(KeyOperationFailure) -> any KeyEngine {
  try KeychainContext.current.keyBackend().keyEngine
}

/// Writes a CFError for `failure` into `error` (keys rule 5.1.1), in Apple's domain with the status as code.
func report(_ failure: KeyOperationFailure, to error: UnsafeMutablePointer<Unmanaged<CFError>?>?) {
  guard let error else { return }
  error.pointee = Unmanaged.passRetained(SecurityErrors.error(failure.status, failure.reason))
}

/// Runs a SecKey function's body: its value, or nil with the CFError written.
func keyCall<T>(_ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ body: () throws(KeyOperationFailure) -> T)
  -> T?
{
  do {
    return try body()
  } catch {
    report(error, to: errorOut)
    return nil
  }
}

// MARK: - Creating keys

/// Generates a key pair and returns its private key, as Apple's `SecKeyCreateRandomKey` does.
///
/// `kSecAttrKeyType` is kSecAttrKeyTypeECSECPrimeRandom (kSecAttrKeySizeInBits 192, 224, 256, 384
/// or 521) or kSecAttrKeyTypeRSA (1024 to 8192 bits). With kSecAttrIsPermanent true (at the top
/// level or in kSecPublicKeyAttrs / kSecPrivateKeyAttrs), each such half is added to the keychain,
/// the public one first (keys rules 2.4 to 2.8). With kSecAttrTokenID kSecAttrTokenIDSecureEnclave the
/// private key is made in the TPM (EC, 256 bits), and its item holds the TPM's blob.
@discardableResult
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?)
  -> SecKey?
{
  keyCall(error) { () throws(KeyOperationFailure) -> SecKey in
    let entries = try KeyParameters(parameters)
    guard let typeName = entries.top[SecConstantValue.attrKeyType] as? String,
      let type = KeyParameters.keyType(typeName)
    else {
      throw KeyOperationFailure(errSecParam, "incorrect or missing kSecAttrKeyType")  // decision D1
    }
    guard let bits = KeyParameters.integer(entries.top[SecConstantValue.attrKeySizeInBits]),
      KeyParameters.isAllowedSize(bits, for: type)
    else {
      throw KeyOperationFailure(
        errSecParam, "failed to generate key: the key size is missing or not allowed for the type")
    }
    let key: SecKey
    if let token = entries.top[SecConstantValue.attrTokenID] {
      key = try SecKey(try secureEnclaveKey(token: token, type: type, bits: bits))
    } else {
      key = try SecKey(try contextKeyEngine().generate(type, bits: bits))
    }
    // Made when a half is to be stored, once for both.
    var service: (any SecItemService)?
    for (isPublic, attributes) in [
      (true, entries.merged(SecConstantValue.publicKeyAttrs)),
      (false, entries.merged(SecConstantValue.privateKeyAttrs)),
    ] {
      guard KeyParameters.boolean(attributes[SecConstantValue.attrIsPermanent]) == true else { continue }
      // The public half is made only when it is stored: a SecKey of it costs an import.
      let half = isPublic ? try SecKey(try key.material.publicKey(), labelledBy: key.backend) : key
      var add = attributes
      add[SecConstantValue.attrIsPermanent] = nil
      add[SecConstantValue.valueRef] = half
      // The public half is a software key, of no token: its item says so, or its ref could not be
      // made from it again (a token's item is its blob).
      if isPublic { add[SecConstantValue.attrTokenID] = nil }
      // Stored by the service of this call (the store and groups SecItemAdd would use), not through
      // the public SecItemAdd: no second trip through the CF adapter.
      do throws(SecStatus) {
        if service == nil { service = try SecItemServices.forCurrentCall() }
        _ = try service?.add(try ItemRequest(add as NSDictionary))
      } catch {
        SecItemFailureDetail.record(error)
        throw KeyOperationFailure(error.code, "failed to add key to keychain")
      }
    }
    return key
  }
}

/// A new key in the Secure Enclave (a TPM 2.0 here: decision D10 as issue 33 revised it): P-256
/// only, as Apple's; any other token is errSecUnimplemented.
private func secureEnclaveKey(token: Any, type: KeyType, bits: Int) throws(KeyOperationFailure) -> any EngineKey {
  guard (token as? String) == secureEnclaveTokenID else {
    throw KeyOperationFailure(errSecUnimplemented, "Only the Secure Enclave's token (a TPM) is available on Linux")
  }
  guard type == .ec, bits == 256 else {
    throw KeyOperationFailure(errSecParam, "Secure Enclave keys are 256-bit kSecAttrKeyTypeECSECPrimeRandom keys")
  }
  return try KeychainContext.current.keyBackend().secureEnclave.generateP256()
}

/// Restores a key from its external representation, as Apple's `SecKeyCreateWithData` does.
///
/// `attributes` must give kSecAttrKeyType and kSecAttrKeyClass (public or private); the bytes are
/// X9.63 for EC keys and PKCS#1 for RSA keys (an RSA public key may also be SubjectPublicKeyInfo
/// DER). The key is not stored (keys rules 3.4 to 3.9).
@discardableResult
public func SecKeyCreateWithData(
  _ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
  keyCall(error) { () throws(KeyOperationFailure) -> SecKey in
    let entries = try KeyParameters(attributes).top
    if entries[SecConstantValue.attrTokenID] != nil {
      throw KeyOperationFailure(
        errSecUnimplemented,
        "A token key cannot be made from data: a TPM key is made inside the TPM, with SecKeyCreateRandomKey.")
    }
    guard let typeCode = KeyParameters.integer(entries[SecConstantValue.attrKeyType]),
      let type = KeyParameters.keyType(String(typeCode))
    else { throw KeyOperationFailure(errSecParam, "Unsupported key type") }
    guard let keyClass = KeyParameters.integer(entries[SecConstantValue.attrKeyClass]) else {
      throw KeyOperationFailure(errSecParam, "Unsupported key class")
    }
    switch keyClass {
    case 0, 1: break
    case 2: throw KeyOperationFailure(errSecUnimplemented, "Symmetric keys are not supported")
    default: throw KeyOperationFailure(errSecParam, "Unsupported key class")
    }
    let isPrivate = keyClass == 1
    let engine = try contextKeyEngine()
    do {
      return try SecKey(try engine.importKey(type, isPrivate: isPrivate, data: keyData as Data))
    } catch {
      let name = "\(type == .rsa ? "RSA" : "EC") \(isPrivate ? "private" : "public")"
      throw KeyOperationFailure(errSecParam, "\(name) key creation from data failed")
    }
  }
}

// MARK: - Reading keys

/// The public key of a key pair (itself for a public key), as Apple's `SecKeyCopyPublicKey` does.
@discardableResult
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
  guard key.isPrivate else { return key }
  return try? SecKey(try key.material.publicKey(), labelledBy: key.backend)
}

/// The key's external representation (keys rules 3.1 to 3.3, 3.12).
@discardableResult
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?)
  -> CFData?
{
  keyCall(error) { () throws(KeyOperationFailure) -> CFData in try key.material.externalRepresentation() as NSData }
}

/// The key's attributes (keys rule 4.7): class, type, sizes, application label, usage flags and v_Data.
@discardableResult
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
  (try? key.attributeDictionary()).map { $0 as NSDictionary }
}

/// The block size in bytes: the modulus length of an RSA key, the field size of an EC key.
@discardableResult
public func SecKeyGetBlockSize(_ key: SecKey) -> Int { key.blockSize }

/// Whether `key` can perform `operation` with `algorithm` (keys rule 5.1.6); never an error.
@discardableResult
public func SecKeyIsAlgorithmSupported(
  _ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm
) -> Bool {
  KeyAlgorithm(algorithm.rawValue as String)?.isSupported(by: key, for: operation) ?? false
}

// MARK: - Parameters

/// A parameters dictionary with its sub-dictionaries (keys rule 2.4).
struct KeyParameters {
  var top: [String: Any]

  init(_ dictionary: NSDictionary) throws(KeyOperationFailure) {
    var top: [String: Any] = [:]
    for (key, value) in dictionary {
      guard let name = key as? String else {
        throw KeyOperationFailure(errSecParam, "a parameter's key is not a string")
      }
      top[name] = value
    }
    self.top = top
  }

  /// The top level merged with the sub-dictionary at `key`, whose entries win, without the keys
  /// that only generation reads.
  func merged(_ key: String) -> [String: Any] {
    var merged = top
    for name in [
      SecConstantValue.publicKeyAttrs, SecConstantValue.privateKeyAttrs, SecConstantValue.attrKeyType,
      SecConstantValue.attrKeySizeInBits,
    ] { merged[name] = nil }
    if let sub = top[key] as? NSDictionary {
      for (name, value) in sub { if let name = name as? String { merged[name] = value } }
    }
    return merged
  }

  static func keyType(_ name: String) -> KeyType? {
    switch name {
    case "73": .ec
    case "42": .rsa
    default: nil
    }
  }

  /// A CFNumber, or a CFString that is a decimal number (keys rules 1.4, 3.4).
  static func integer(_ value: Any?) -> Int? {
    if let number = value as? NSNumber { return number.intValue }
    if let text = value as? String, let number = Int(text), String(number) == text { return number }
    return nil
  }

  /// A CFBoolean (or a number); anything else is ignored (keys rule 2.6).
  static func boolean(_ value: Any?) -> Bool? {
    (value as? NSNumber)?.boolValue
  }

  /// The sizes decision D2 and keys rule 1.2 allow.
  static func isAllowedSize(_ bits: Int, for type: KeyType) -> Bool {
    switch type {
    case .ec: [192, 224, 256, 384, 521].contains(bits)
    case .rsa: (1024...8192).contains(bits)
    }
  }
}

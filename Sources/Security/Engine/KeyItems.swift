import Foundation

/// What a SecKey given as kSecValueRef contributes to a dictionary (keys rule 6.3 to 6.8),
/// and the SecKey a key item's kSecReturnRef gives back (6.7).
enum KeyItems {
  /// The attributes that describe a key's usage rather than identify it: a query by ref leaves
  /// them out (6.8).
  private static let notFiltering: Set<String> = [
    SecConstantValue.attrCanEncrypt, SecConstantValue.attrCanDecrypt, SecConstantValue.attrCanDerive,
    SecConstantValue.attrCanSign, SecConstantValue.attrCanVerify, SecConstantValue.attrCanWrap,
    SecConstantValue.attrCanUnwrap, SecConstantValue.attrCanSignRecover, SecConstantValue.attrCanVerifyRecover,
    SecConstantValue.attrIsPermanent,
  ]

  /// The key's attributes as stored attribute values (keys rule 4.7 without class and v_Data).
  static func attributes(of key: SecKey, forQuery: Bool) throws(SecStatus) -> [String: AttributeValue] {
    let dictionary: [String: Any]
    do {
      // Without v_Data: an item's data is set from the key apart, and a query never filters on it.
      dictionary = try key.attributeDictionary(includingData: false)
    } catch {
      throw SecStatus(error.status, detail: "kSecValueRef: \(error.reason)")
    }
    var values: [String: AttributeValue] = [:]
    for (name, value) in dictionary {
      guard let definition = ItemSchema.attribute(name, of: .key) else { continue }
      if forQuery && notFiltering.contains(name) { continue }
      if let converted = ValueConversion.attributeValue(value, kind: definition.kind) { values[name] = converted }
    }
    return values
  }

  /// The key's external representation (a token's blob for a token key): a key item's data.
  static func data(of key: SecKey) throws(SecStatus) -> Data {
    if let token = key.material as? any TokenEngineKey { return token.tokenBlob }
    do {
      return try key.material.externalRepresentation()
    } catch {
      throw SecStatus(error.status, detail: "kSecValueRef: \(error.reason)")
    }
  }

  /// The SecKey of a stored key item, from its type, class and data; nil when they do not make
  /// one (an item added with raw bytes that are not a key, 6.5).
  static func key(of item: StoredItem, backend: any SecurityBackend) -> SecKey? {
    let tokenID: String?
    switch item.attributes[SecConstantValue.attrTokenID] {
    case .string(let token)?: tokenID = token
    case nil: tokenID = nil
    default: return nil
    }
    guard let data = item.data, case .integer(let typeCode)? = item.attributes[SecConstantValue.attrKeyType],
      case .integer(let keyClass)? = item.attributes[SecConstantValue.attrKeyClass], keyClass == 0 || keyClass == 1
    else {
      // A token's item is its blob whatever its type says.
      guard tokenID != nil, let data = item.data else { return nil }
      return key(typeCode: "73", isPrivate: true, tokenID: tokenID, data: data, backend: backend)
    }
    return key(typeCode: String(typeCode), isPrivate: keyClass == 1, tokenID: tokenID, data: data, backend: backend)
  }

  /// The SecKey of a key's type, class and bytes (a token key's blob when `tokenID` names one);
  /// nil when they make none.
  static func key(typeCode: String, isPrivate: Bool, tokenID: String?, data: Data, backend: any SecurityBackend)
    -> SecKey?
  {
    // Decision 10.3: a token's key (an item with kSecAttrTokenID, say from an Apple backup) is never
    // made a software key from whatever bytes the item holds; a Secure Enclave key of this
    // keychain is the TPM's blob (issue 33), used where that TPM is.
    if let tokenID {
      guard tokenID == secureEnclaveTokenID, let key = try? backend.secureEnclave.key(fromBlob: data) else {
        return nil
      }
      return try? SecKey(key, labelledBy: backend)
    }
    guard let type = KeyParameters.keyType(typeCode) else { return nil }
    return try? SecKey(try backend.keyEngine.importKey(type, isPrivate: isPrivate, data: data), labelledBy: backend)
  }
}

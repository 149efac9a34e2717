import Foundation
@_spi(KeychainBridge) import Security

// How a request reaches the runtime: the dictionaries each operation derives from a request, and
// the generated wrappers (KeychainFunctions) it calls, the only way in.

extension KeychainRequest {
  /// This description with one more attribute (the generated attribute methods call it).
  func with(_ key: CFString, _ value: KeychainValue?) -> Self {
    Self(attributes: attributes.setting(key, value), persistentReference: persistentReference)
  }

  /// The search dictionary: the description, the return keys, the match limit.
  func search(_ returning: [CFString], limit: KeychainValue?) -> KeychainDictionary {
    var query = dictionary
    for key in returning { query[key] = .boolean(true) }
    query[kSecMatchLimit] = limit
    return query
  }

  /// A search through the runtime's typed entry point: the query's entries and the found items stay
  /// Swift values (no Foundation dictionary on either side, the largest cost of a lookup on Linux),
  /// while the runtime applies SecItemCopyMatching's rules and records the same dictionary. nil when
  /// nothing matches.
  func copyMatching(_ query: KeychainDictionary) -> Result<SecItemFoundValues.Found?, KeychainError> {
    KeychainFunctions.itemCopyMatchingEntries(query.runtimeEntries).map { $0?.found }
  }

  /// The first found item's `field` (its data, persistent reference or ref), or an identity
  /// search's result read as `Value`; nil when nothing matches, errSecDecode for another value.
  func first<Value>(
    _ query: KeychainDictionary, _ field: (FoundItems, Int) -> Value?
  ) -> Result<Value?, KeychainError> {
    copyMatching(query).flatMap { found in
      switch found {
      case nil: return .success(nil)
      case .items(let items)?:
        guard items.count > 0 else { return .success(nil) }
        guard let value = field(items, 0) else { return .failure(KeychainError(status: errSecDecode)) }
        return .success(value)
      case .identities(let result)?:
        guard let result else { return .success(nil) }
        guard let value = result as? Value else { return .failure(KeychainError(status: errSecDecode)) }
        return .success(value)
      }
    }
  }

  /// Adds the item `reference` (kSecValueRef) stands for; the class comes from the ref.
  func addReference(_ reference: KeychainValue) -> Result<Void, KeychainError> {
    var dictionary = dictionary
    dictionary[kSecClass] = nil
    dictionary[kSecValueRef] = reference
    return KeychainFunctions.itemAddEntries(dictionary.runtimeEntries)
  }

  /// The first match's ref as a `Reference` (SecKey, SecCertificate, SecIdentity), or nil when
  /// nothing matches.
  func firstReference<Reference>(as type: Reference.Type) -> Result<Reference?, KeychainError> {
    first(search([kSecReturnRef], limit: .string(kSecMatchLimitOne.description))) {
      $0.reference(at: $1) as? Reference
    }
  }

  /// An update's or a delete's outcome as the DSL answers it: whether anything matched, with
  /// errSecItemNotFound as false rather than an error.
  static func changedAny(_ outcome: Result<Void, KeychainError>) -> Result<Bool, KeychainError> {
    switch outcome {
    case .success: .success(true)
    case .failure(let error) where error.status == errSecItemNotFound: .success(false)
    case .failure(let error): .failure(error)
    }
  }

  static func encodeJSON<T: Encodable>(_ value: T) -> Result<Data, KeychainError> {
    // Sorted keys: the same value always gives the same bytes (Foundation's order is not stable).
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    do {
      return .success(try encoder.encode(value))
    } catch {
      return .failure(.encodingFailed(KeychainCodingFailure(error, valueType: T.self)))
    }
  }
}

extension KeychainChanges {
  /// These changes with one more attribute (the generated attribute methods call it).
  func with(_ key: CFString, _ value: KeychainValue?) -> Self {
    Self(attributes: attributes.setting(key, value))
  }
}

extension KeychainDictionary {
  /// This dictionary as the runtime's typed entry points take it: its Swift entries, and the
  /// CFDictionary made only when the runtime needs one.
  var runtimeEntries: SecItemEntries { SecItemEntries(requestEntries, dictionary: { self.cfDictionary }) }
}

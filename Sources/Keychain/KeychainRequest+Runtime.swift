import Foundation
@_spi(KeychainBridge) import Security

// How a request reaches the runtime: the one call per operation, and the dictionaries each
// operation derives from a request.

/// Performs one call through the wrappers secgen generates from the headers (KeychainFunctions),
/// as the status the callers here decide on.
///
/// The upsert is the runtime's own function, declared in SecItemPriv.h, so it has a generated
/// wrapper too. An update or upsert without its changes is errSecParam; a search without a result
/// to write to is the existence test's job (`KeychainFunctions.itemCopyMatchingExists`).
func perform(
  _ function: KeychainFunction, _ dictionary: KeychainDictionary, changes: KeychainDictionary? = nil,
  result: UnsafeMutablePointer<CFTypeRef?>? = nil
) -> OSStatus {
  func status<Value>(_ outcome: Result<Value, KeychainError>, _ deliver: (Value) -> Void = { _ in }) -> OSStatus {
    switch outcome {
    case .success(let value):
      deliver(value)
      return errSecSuccess
    case .failure(let error): return error.status
    }
  }
  switch function {
  case .add where result == nil:
    // The typed entry point: the same rules without building an NSDictionary (unless recording).
    return status(KeychainFunctions.itemAddEntries(dictionary.runtimeEntries))
  case .add:
    return status(KeychainFunctions.itemAdd(dictionary.cfDictionary)) { value in result?.pointee = value }
  case .copyMatching:
    return status(KeychainFunctions.itemCopyMatching(dictionary.cfDictionary)) { value in
      result?.pointee = value
    }
  case .update:
    guard let changes else { return errSecParam }
    return status(KeychainFunctions.itemUpdateEntries(dictionary.runtimeEntries, changes.runtimeEntries))
  case .delete:
    return status(KeychainFunctions.itemDeleteEntries(dictionary.runtimeEntries))
  case .upsert:
    guard let changes else { return errSecParam }
    return status(KeychainFunctions.itemUpsert(dictionary.cfDictionary, changes.cfDictionary))
  case .importItems: return errSecUnimplemented  // the DSL never imports; the case names recorded imports
  }
}

/// The keys that say what a search returns; they never belong in an add or in attributesToUpdate.
/// Built once: every operation removes them.
let searchOnlyKeys: Set<String> = Set(
  [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef, kSecMatchLimit].map { $0 as String })

/// searchOnlyKeys plus the keys that identify rather than describe an item.
let identityAndSearchKeys: Set<String> = searchOnlyKeys.union([
  kSecClass as String, kSecValuePersistentRef as String,
])

extension KeychainRequest {
  /// This description with another entry.
  func with(_ key: CFString, _ value: KeychainValue?) -> Self {
    Self(lowered: attributes.setting(key, value))
  }

  func search(_ returning: [CFString], limit: KeychainValue?) -> KeychainDictionary {
    var query = attributes.removingKeys(searchOnlyKeys)
    for key in returning { query[key] = .boolean(true) }
    query[kSecMatchLimit] = limit
    return query
  }

  /// A search through the runtime's typed entry point: the query's entries and the results stay
  /// Swift values (no Foundation dictionary on either side, the largest cost of a lookup on Linux),
  /// while the runtime applies SecItemCopyMatching's rules and records the same dictionary.
  func copyMatching(_ query: KeychainDictionary) -> Result<Any?, KeychainError> {
    KeychainFunctions.itemCopyMatchingEntries(query.runtimeEntries).map { $0 }
  }

  /// Adds the item `reference` (kSecValueRef) stands for; the class comes from the ref.
  func addReference(_ reference: KeychainValue) -> Result<Void, KeychainError> {
    var dictionary = attributes.removingKeys([kSecClass as String])
    dictionary[kSecValueRef] = reference
    return Self.status(perform(.add, dictionary))
  }

  /// The first match's ref as a `Reference` (SecKey, SecCertificate, SecIdentity), or nil when
  /// nothing matches.
  func firstReference<Reference>(as type: Reference.Type) -> Result<Reference?, KeychainError> {
    copyMatching(search([kSecReturnRef], limit: .string(kSecMatchLimitOne.description))).flatMap { result in
      guard let result else { return .success(nil) }
      guard let reference = result as? Reference else { return .failure(KeychainError(status: errSecDecode)) }
      return .success(reference)
    }
  }

  static func status(_ status: OSStatus) -> Result<Void, KeychainError> {
    status == errSecSuccess ? .success(()) : .failure(KeychainError(status: status))
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

extension KeychainDictionary {
  /// This dictionary as the runtime's typed entry points take it: its Swift entries, and the
  /// CFDictionary made only when the runtime needs one.
  var runtimeEntries: SecItemEntries { SecItemEntries(swiftEntries, dictionary: { self.cfDictionary }) }
}

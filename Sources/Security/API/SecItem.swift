import Foundation

/// Adds an item to the keychain, as Apple's `SecItemAdd` does.
///
/// - Parameters:
///   - attributes: the item's class (`kSecClass`), attributes, data (`kSecValueData`) and optional
///     return keys.
///   - result: receives the new item in the shape the return keys ask for; untouched without them.
/// - Returns: errSecSuccess, or errSecDuplicateItem, errSecParam, errSecNoSuchAttr,
///   errSecMissingEntitlement, errSecInteractionNotAllowed, ... (KeychainSemantics section 5).
// The four SecItem functions and SecRandomCopyBytes are C functions on Apple's platforms, where
// Swift never warns about an unused result; @discardableResult keeps code that ignores it building
// under warnings-as-errors here too.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
  SecItemCall.run(.add, attributes) { service throws(SecStatus) in
    if IdentityItems.reference(in: attributes) != nil {
      // 8.5: the result is shaped as a search by the identity ref would give it.
      let flags = try ItemRequest(
        IdentityItems.half(attributes, itemClass: SecConstantValue.classCertificate, reference: nil)
      ).returnFlags
      let pair = try service.addIdentity(
        try (attributes as NSDictionary).keychainEntries(), returningPair: result != nil && !flags.isEmpty)
      if let result, let pair { result.pointee = IdentityItems.shaped(pair, flags, backend: service.backend) }
      return
    }
    let request = try ItemRequest(attributes)
    let stored = try service.add(request)
    if !request.returnFlags.isEmpty, let result {
      result.pointee = ResultShape.single(stored, request.returnFlags, forAdd: true, backend: service.backend)
    }
  }
}

/// Finds items, as Apple's `SecItemCopyMatching` does.
///
/// - Parameters:
///   - query: the class, attribute constraints, `kSecMatchLimit` (default one) and return keys.
///   - result: receives the data, attributes, persistent reference, or an array of them (rule 4).
/// - Returns: errSecSuccess, errSecItemNotFound when nothing matches, or another errSec code.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
  SecItemCall.run(.copyMatching, query) { service throws(SecStatus) in
    guard case .items(let request) = try SecItemCall.read(query) else {
      let pairs = try service.matchingIdentities(try (query as NSDictionary).keychainEntries())
      if let result, let shaped = try SecItemCall.shapedIdentities(pairs, query, backend: service.backend) {
        result.pointee = shaped
      }
      return
    }
    let found = SecItemCall.shaped(
      try service.matchingItems(request), request, backend: service.backend)
    if let result, let value = found { result.pointee = ResultShape.bridged(value) }
  }
}

/// Changes every matching item, as Apple's `SecItemUpdate` does, in one transaction.
///
/// - Parameters:
///   - query: which items (match and return keys are ignored, as on macOS: decision 8).
///   - attributesToUpdate: new attribute values and/or `kSecValueData`.
/// - Returns: errSecSuccess, errSecItemNotFound, errSecDuplicateItem (nothing changed),
///   errSecNoSuchAttr for a key that cannot be updated, or another errSec code.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
  SecItemCall.run(.update, query, attributesToUpdate) { service throws(SecStatus) in
    guard case .items(let request) = try SecItemCall.read(query) else {
      try service.updateIdentities(
        try (query as NSDictionary).keychainEntries(), changes: try attributesToUpdate.keychainEntries())
      return
    }
    try service.update(request, changes: try attributesToUpdate.keychainEntries())
  }
}

/// Deletes every matching item, as Apple's `SecItemDelete` does.
///
/// - Parameter query: which items; `{kSecClass: X}` alone deletes every non-synchronizable item of
///   the class in the caller's groups. Match and return keys are ignored (decision 8).
/// - Returns: errSecSuccess, errSecItemNotFound when nothing matched, or another errSec code.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
  SecItemCall.run(.delete, query) { service throws(SecStatus) in
    guard case .items(let request) = try SecItemCall.read(query) else {
      try service.deleteIdentities(try (query as NSDictionary).keychainEntries())
      return
    }
    try service.delete(request)
  }
}

/// Updates the items `query` matches with `attributesToUpdate`, or adds `query` merged with
/// `attributesToUpdate` when nothing matches, in one store transaction.
///
/// Not part of Apple's API: the typed Keychain module's atomic `set` lowers to it, so an upsert can
/// never lose the old item the way a delete-then-add does. The dictionaries follow SecItemUpdate's
/// and SecItemAdd's rules.
package func SecItemUpsert(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
  SecItemCall.run(.upsert, query, attributesToUpdate) { service throws(SecStatus) in
    // The add is the query merged with the changes, without the search's keys.
    let merged = query.mutableCopy() as! NSMutableDictionary
    for key in [
      SecConstantValue.matchLimit, SecConstantValue.returnData, SecConstantValue.returnAttributes,
      SecConstantValue.returnRef, SecConstantValue.returnPersistentRef,
    ] { merged.removeObject(forKey: key) }
    for (key, value) in attributesToUpdate { merged.setObject(value, forKey: key as! AnyHashable) }
    try service.upsert(
      try ItemRequest(query), changes: try attributesToUpdate.keychainEntries(), addition: try ItemRequest(merged))
  }
}

/// Adds every dictionary (each as SecItemAdd would) in one transaction: all or none.
///
/// Not part of Apple's API: for imports, and for benchmarks that fill large stores.
package func SecItemImport(_ items: [CFDictionary]) -> OSStatus {
  SecItemCall.run(.importItems, NSDictionary()) { service throws(SecStatus) in
    _ = try service.importItems(count: items.count) { index throws(SecStatus) in try ItemRequest(items[index]) }
  }
}

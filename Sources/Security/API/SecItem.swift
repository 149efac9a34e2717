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
  SecItemCall.run(.add, attributes) { context throws(SecStatus) in
    if let identity = IdentityItems.reference(in: attributes) {
      try IdentityItems.add(attributes, identity, context)
      // 8.5: the result is shaped as a search by the identity ref would give it.
      let flags = try ItemRequest(
        IdentityItems.half(attributes, itemClass: SecConstantValue.classCertificate, reference: nil)
      ).returnFlags
      if let result, !flags.isEmpty,
        let pair = try IdentityItems.pairs([SecConstantValue.valueRef: identity] as NSDictionary, context, limit: 1)
          .first
      {
        result.pointee = IdentityItems.shaped(pair, flags)
      }
      return
    }
    let request = try ItemRequest(attributes)
    let item = try SecItemCall.newItem(from: request, context)
    let stored = try context.store.backend.insert(item)
    if !request.returnFlags.isEmpty, let result {
      result.pointee = ResultShape.single(stored, request.returnFlags, forAdd: true)
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
  SecItemCall.run(.copyMatching, query) { context throws(SecStatus) in
    guard case .items(let request) = try SecItemCall.read(query) else {
      try SecItemCall.copyIdentities(query, context, result)
      return
    }
    let found = try SecItemCall.copyMatching(request, context, foundationValues: true)
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
  SecItemCall.run(.update, query, attributesToUpdate) { context throws(SecStatus) in
    guard case .items(let request) = try SecItemCall.read(query) else {
      try IdentityItems.update(query, attributesToUpdate, context)
      return
    }
    try SecItemCall.update(request, try attributesToUpdate.keychainEntries(), context)
  }
}

/// Deletes every matching item, as Apple's `SecItemDelete` does.
///
/// - Parameter query: which items; `{kSecClass: X}` alone deletes every non-synchronizable item of
///   the class in the caller's groups. Match and return keys are ignored (decision 8).
/// - Returns: errSecSuccess, errSecItemNotFound when nothing matched, or another errSec code.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
  SecItemCall.run(.delete, query) { context throws(SecStatus) in
    guard case .items(let request) = try SecItemCall.read(query) else {
      try IdentityItems.delete(query, context)
      return
    }
    try SecItemCall.delete(request, context)
  }
}

/// Updates the items `query` matches with `attributesToUpdate`, or adds `query` merged with
/// `attributesToUpdate` when nothing matches, in one store transaction.
///
/// Not part of Apple's API: the typed Keychain module's atomic `set` lowers to it, so an upsert can
/// never lose the old item the way a delete-then-add does. The dictionaries follow SecItemUpdate's
/// and SecItemAdd's rules.
package func SecItemUpsert(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
  SecItemCall.run(.upsert, query, attributesToUpdate) { context throws(SecStatus) in
    let request = try ItemRequest(query)
    let itemClass = try request.requiredClass()
    let filter = try SecItemCall.filter(from: request, context, ignoringMatchAndReturn: true)
    let change = try SecItemCall.change(from: attributesToUpdate, itemClass: itemClass, context)
    // A persistent reference names an existing item: there is nothing to add when it is gone.
    if request.reference != nil {
      _ = try SecItemCall.changeStoredItems(filter, change, request, context)
      return
    }
    let merged = query.mutableCopy() as! NSMutableDictionary
    for key in [
      SecConstantValue.matchLimit, SecConstantValue.returnData, SecConstantValue.returnAttributes,
      SecConstantValue.returnRef, SecConstantValue.returnPersistentRef,
    ] { merged.removeObject(forKey: key) }
    for (key, value) in attributesToUpdate { merged.setObject(value, forKey: key as! AnyHashable) }
    let item = try SecItemCall.newItem(from: try ItemRequest(merged), context)
    _ = try SecItemCall.changeStoredItems(filter, change, request, context, orInsert: item)
  }
}

/// Adds every dictionary (each as SecItemAdd would) in one transaction: all or none.
///
/// Not part of Apple's API: for imports, and for benchmarks that fill large stores.
package func SecItemImport(_ items: [CFDictionary]) -> OSStatus {
  SecItemCall.run(.importItems, NSDictionary()) { context throws(SecStatus) in
    var prepared: [NewItem] = []
    prepared.reserveCapacity(items.count)
    for attributes in items {
      let request = try ItemRequest(attributes)
      if !request.returnFlags.isEmpty { throw .param }
      prepared.append(try SecItemCall.newItem(from: request, context))
    }
    try context.store.backend.insertBatch(prepared, skippingDuplicates: false)
  }
}

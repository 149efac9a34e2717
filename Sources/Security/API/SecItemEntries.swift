import Foundation

/// SecItemAdd, SecItemUpdate and SecItemDelete for the typed `Keychain` module, with the
/// dictionaries as entries of Swift values (see `SecItemCopyMatchingEntries`). A call that names a
/// ref or a persistent reference, or asks for a result, takes the CFDictionary path, which handles
/// identities and shapes results; the others run the same bodies without a Foundation dictionary.
/// `foundationDictionary` and `foundationChanges` build the CFDictionary forms, for that path and for
/// the recorder.
package func SecItemCallEntries(
  _ function: SecItemFunction, _ entries: [(String, Any)], changes changeEntries: [(String, Any)]? = nil,
  foundationDictionary dictionary: () -> NSDictionary, foundationChanges changes: () -> NSDictionary? = { nil }
) -> OSStatus {
  // An add's return keys ask for a result, which only the CFDictionary path shapes.
  let needsFoundationPath =
    SecItemCall.namesIdentityOrReference(entries) || entries.contains { $0.0.hasPrefix("r_") }
  switch function {
  case .add where !needsFoundationPath:
    return SecItemCall.run(.add, dictionary()) { context throws(SecStatus) in
      _ = try context.store.backend.insert(try SecItemCall.newItem(from: try ItemRequest(entries: entries), context))
    }
  case .update where !needsFoundationPath:
    guard let changeEntries else { return errSecParam }
    return SecItemCall.run(.update, dictionary(), changes()) { context throws(SecStatus) in
      try SecItemCall.update(try ItemRequest(entries: entries), changeEntries, context)
    }
  case .delete where !needsFoundationPath:
    return SecItemCall.run(.delete, dictionary()) { context throws(SecStatus) in
      try SecItemCall.delete(try ItemRequest(entries: entries), context)
    }
  case .add:
    return SecItemAdd(dictionary(), nil)
  case .update:
    guard let changes = changes() else { return errSecParam }
    return SecItemUpdate(dictionary(), changes)
  case .delete:
    return SecItemDelete(dictionary())
  case .copyMatching:
    return SecItemCopyMatchingEntries(entries, query: dictionary).status
  case .upsert:
    guard let changes = changes() else { return errSecParam }
    return SecItemUpsert(dictionary(), changes)
  case .importItems:
    return errSecUnimplemented
  }
}

/// SecItemCopyMatching for the typed `Keychain` module: the query as entries of Swift values and the
/// result as Swift values (`Data`, a `SearchedItem`, a ref, or `[Any]` of them), so neither side
/// builds or reads a Foundation dictionary. The rules, the store and the result are SecItemCopyMatching's;
/// `query` is the same dictionary as a `CFDictionary`, built only when a recorder is installed (or for
/// identity searches, which take the CFDictionary path).
package func SecItemCopyMatchingEntries(_ entries: [(String, Any)], query: () -> NSDictionary) -> (
  status: OSStatus, result: Any?
) {
  if SecItemCall.namesIdentityOrReference(entries) {
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query(), &result)
    return (status, result)
  }
  var found: Any?
  let status = SecItemCall.run(.copyMatching, query()) { context throws(SecStatus) in
    found = try SecItemCall.copyMatching(try ItemRequest(entries: entries), context, foundationValues: false)
  }
  return (status, status == errSecSuccess ? found : nil)
}

import Foundation

// The typed entry points SecItemPriv.h declares (SecItemAddEntries, SecItemCopyMatchingEntries,
// SecItemUpdateEntries, SecItemDeleteEntries): secgen wraps them like every other function, and the
// typed `Keychain` module calls only those wrappers. They apply the same rules as the four CF
// functions, in the same bodies, without building or reading a Foundation dictionary.

/// A SecItem dictionary as the typed `Keychain` module holds it (`SecItemEntriesRef` in
/// SecItemPriv.h): its entries, typed by the module (the request the engine parses, with no
/// dictionary or `Any` between), and the CFDictionary they stand for, made only when a recorder is
/// installed or a path reads dictionaries (identities, refs, add results).
package final class SecItemEntries: @unchecked Sendable {
  // @unchecked: the entries are immutable values and refs; the closure only builds a dictionary.
  /// The dictionary's keys and typed values, in the caller's order.
  package let entries: RequestEntries
  private let makeDictionary: () -> NSDictionary

  /// Entries and the way to make the CFDictionary they stand for.
  package init(_ entries: RequestEntries, dictionary: @escaping () -> NSDictionary) {
    self.entries = entries
    self.makeDictionary = dictionary
  }

  /// The same dictionary as a CFDictionary.
  package func dictionary() -> NSDictionary { makeDictionary() }
}

/// SecItemAdd, with no result, for `attributes` as entries.
package func SecItemAddEntries(_ attributes: SecItemEntries) -> OSStatus {
  callEntries(.add, attributes.entries, foundationDictionary: attributes.dictionary)
}

/// SecItemUpdate for a query and changes as entries.
package func SecItemUpdateEntries(_ query: SecItemEntries, _ attributesToUpdate: SecItemEntries) -> OSStatus {
  callEntries(
    .update, query.entries, changes: attributesToUpdate.entries, foundationDictionary: query.dictionary,
    foundationChanges: attributesToUpdate.dictionary)
}

/// SecItemDelete for a query as entries.
package func SecItemDeleteEntries(_ query: SecItemEntries) -> OSStatus {
  callEntries(.delete, query.entries, foundationDictionary: query.dictionary)
}

/// SecItemCopyMatching for a query as entries; `result` receives what it found (see
/// `copyMatchingEntries`), untouched when the search fails. NULL tests for existence.
package func SecItemCopyMatchingEntries(
  _ query: SecItemEntries, _ result: UnsafeMutablePointer<SecItemFoundValues?>?
) -> OSStatus {
  let (status, found) = copyMatchingEntries(query.entries, query: query.dictionary)
  if let result, let found { result.pointee = found }
  return status
}

/// What SecItemCopyMatchingEntries found (`SecItemFoundValuesRef` in SecItemPriv.h): the items as
/// the engine read them, in the search's order (at most one for a limit of one). No Apple result
/// shape is made: the typed module reads the field it wants from the engine's item, so a lookup's
/// value goes from the store's row to the caller through one form. An identity search, read as a
/// dictionary, answers SecItemCopyMatching's result instead.
package final class SecItemFoundValues: @unchecked Sendable {
  // @unchecked: immutable; the items are values, and an identity search's result is
  // SecItemCopyMatching's (a SecIdentity, Data, a dictionary or an array of them), never changed.
  /// What was found.
  package enum Found {
    /// The items of a search over passwords, keys or certificates.
    case items(FoundItems)
    /// SecItemCopyMatching's result for an identity search (nil when its return keys ask for
    /// nothing).
    case identities(CFTypeRef?)
  }

  /// What was found.
  package let found: Found

  init(_ found: Found) { self.found = found }
}

/// The items a typed search found, as the engine read them: each field is made where the caller
/// reads it (the secret, the persistent reference, a key's or certificate's ref, the whole item),
/// so a lookup of one field makes no other form of the item.
package struct FoundItems: Sendable {
  let stored: [StoredItem]
  let flags: ReturnFlags
  let backend: any SecurityBackend

  /// How many items were found.
  package var count: Int { stored.count }

  /// The secret of the item at `index`: empty when it has none, as SecItemCopyMatching answers
  /// (decision 2).
  package func data(at index: Int) -> Data { stored[index].data ?? Data() }

  /// The persistent reference of the item at `index`.
  package func persistentReference(at index: Int) -> Data { stored[index].persistentReference }

  /// The ref of the key or certificate at `index` (nil for a password, which has no ref type).
  package func reference(at index: Int) -> AnyObject? {
    ResultShape.reference(stored[index], flags, backend: backend)
  }

  /// The item at `index` with what the return keys asked for.
  package func item(at index: Int) -> SearchedItem { ResultShape.searched(stored[index], flags, backend: backend) }
}

/// SecItemAdd, SecItemUpdate and SecItemDelete with the dictionaries as typed entries
/// (see `copyMatchingEntries`). A call about identities (their class, an identity's ref or
/// persistent reference), or an add that asks for a result, takes the CFDictionary path, which
/// handles identities and shapes an add's results; the others, refs and persistent references of
/// other items included, run the same bodies without a Foundation dictionary. `foundationDictionary` and `foundationChanges`
/// build the CFDictionary forms, for that path and for the recorder.
func callEntries(
  _ function: SecItemFunction, _ entries: RequestEntries, changes changeEntries: RequestEntries? = nil,
  foundationDictionary dictionary: () -> NSDictionary, foundationChanges changes: () -> NSDictionary? = { nil }
) -> OSStatus {
  // An add's return keys ask for a result, which only the CFDictionary path shapes; identities
  // (a class, an identity's ref or persistent reference) are read as dictionaries.
  let needsFoundationPath = IdentityItems.isIdentityQuery(entries) || entries.containsKey { $0.hasPrefix("r_") }
  switch function {
  case .add where !needsFoundationPath:
    return SecItemCall.run(.add, dictionary()) { service throws(SecStatus) in
      _ = try service.add(try ItemRequest(entries: entries))
    }
  case .update where !needsFoundationPath:
    guard let changeEntries else { return errSecParam }
    return SecItemCall.run(.update, dictionary(), changes()) { service throws(SecStatus) in
      try service.update(try ItemRequest(entries: entries), changes: changeEntries)
    }
  case .delete where !needsFoundationPath:
    return SecItemCall.run(.delete, dictionary()) { service throws(SecStatus) in
      try service.delete(try ItemRequest(entries: entries))
    }
  case .add:
    return SecItemAdd(dictionary(), nil)
  case .update:
    guard let changes = changes() else { return errSecParam }
    return SecItemUpdate(dictionary(), changes)
  case .delete:
    return SecItemDelete(dictionary())
  case .copyMatching:
    return copyMatchingEntries(entries, query: dictionary).status
  case .upsert:
    guard let changes = changes() else { return errSecParam }
    return SecItemUpsert(dictionary(), changes)
  case .importItems:
    return errSecUnimplemented
  }
}

/// SecItemCopyMatching with the query as typed entries and the found items as the engine's typed
/// items, so neither side builds or reads a Foundation dictionary. The rules, the store and the
/// status are SecItemCopyMatching's; `query` is the same dictionary as a `CFDictionary`, built only
/// when a recorder is installed (or for identity searches, which take the CFDictionary path).
func copyMatchingEntries(_ entries: RequestEntries, query: () -> NSDictionary) -> (
  status: OSStatus, found: SecItemFoundValues?
) {
  if IdentityItems.isIdentityQuery(entries) {
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query(), &result)
    return (status, status == errSecSuccess ? SecItemFoundValues(.identities(result)) : nil)
  }
  var found: FoundItems?
  let status = SecItemCall.run(.copyMatching, query()) { service throws(SecStatus) in
    let request = try ItemRequest(entries: entries)
    found = FoundItems(
      stored: try service.matchingItems(request), flags: request.returnFlags, backend: service.backend)
  }
  guard status == errSecSuccess, let found else { return (status, nil) }
  return (status, SecItemFoundValues(.items(found)))
}

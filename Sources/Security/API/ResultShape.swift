import Foundation

/// Builds the result objects of rule 4 and decisions 2, 3 and 6.
enum ResultShape {
  /// Attributes never returned: internal bookkeeping.
  private static let hiddenAttributes: Set<String> = [
    SecConstantValue.attrUUID, SecConstantValue.attrPersistentReference,
  ]
  /// SecItemAdd's result leaves out these too (rule 4).
  private static let hiddenOnAdd: Set<String> = [SecConstantValue.attrTombstone, SecConstantValue.attrMultiUser]

  /// One item in the shape the flags ask for, as the CF object SecItem calls write; nil when
  /// nothing is to be written (no flags, or only kSecReturnRef, for which password items have no
  /// ref type).
  static func single(_ item: StoredItem, _ flags: ReturnFlags, forAdd: Bool, backend: any SecurityBackend)
    -> CFTypeRef?
  {
    value(item, flags, forAdd: forAdd, backend: backend).map(bridged)
  }

  /// A result of `value`, or an array of them, as the Foundation objects Apple's API hands out.
  static func bridged(_ value: Any) -> AnyObject {
    switch value {
    case let data as Data: data as NSData
    case let dictionary as [String: Any]: dictionary as NSDictionary
    case let array as [Any]: array.map(bridged) as NSArray
    default: value as AnyObject
    }
  }

  /// One item in the shape the flags ask for, as Swift values (`Data`, `[String: Any]`, or a ref);
  /// refs are made by `backend`.
  static func value(
    _ item: StoredItem, _ flags: ReturnFlags, forAdd: Bool, backend: any SecurityBackend
  ) -> Any? {
    // Keys and certificates have a ref type (SecKey, SecCertificate); password items have none, so
    // for them kSecReturnRef adds nothing.
    let keyRef = reference(item, flags, backend: backend)
    let shaped = flags.subtracting(.ref)
    if shaped.isEmpty { return keyRef }
    if flags == .data { return item.data ?? Data() }  // decision 2
    if flags == .persistentRef { return item.persistentReference }
    return dictionary(item, flags, keyRef, forAdd: forAdd)
  }

  /// The key's or certificate's ref when `flags` ask for one; password items have no ref type.
  static func reference(_ item: StoredItem, _ flags: ReturnFlags, backend: any SecurityBackend) -> AnyObject? {
    switch (flags.contains(.ref), item.itemClass) {
    case (true, .key): KeyItems.key(of: item, backend: backend)
    case (true, .certificate): item.data.flatMap { SecCertificate.parse($0, with: backend) }
    default: nil
    }
  }

  /// What a search must read for `flags`: a key's or certificate's kSecReturnRef is made from its
  /// bytes (and, for a key, its type and class attributes), so it reads both.
  static func fetch(for flags: ReturnFlags, _ itemClass: ItemClass) -> ItemFetch {
    let makesRefs = flags.contains(.ref) && (itemClass == .key || itemClass == .certificate)
    return ItemFetch(attributes: flags.contains(.attributes) || makesRefs, data: flags.contains(.data) || makesRefs)
  }

  /// `item` in the typed form whatever the flags (an engine's typed result): what they ask for,
  /// the ref made by `backend` when they ask for it.
  static func searched(_ item: StoredItem, _ flags: ReturnFlags, backend: any SecurityBackend) -> SearchedItem {
    searched(item, flags, reference(item, flags, backend: backend))
  }

  /// The typed module's form of a dictionary result: what the flags ask for, the attributes as the
  /// store keeps them (reading them needs no casts), the ref made as for the dictionary form.
  private static func searched(_ item: StoredItem, _ flags: ReturnFlags, _ reference: AnyObject?) -> SearchedItem {
    let attributes = flags.contains(.attributes)
    return SearchedItem(
      attributes: attributes ? item.attributes : [:], accessControl: attributes ? item.accessControl : nil,
      data: flags.contains(.data) ? item.data : nil,
      persistentReference: flags.contains(.persistentRef) ? item.persistentReference : nil, reference: reference)
  }

  private static func dictionary(_ item: StoredItem, _ flags: ReturnFlags, _ keyRef: AnyObject?, forAdd: Bool)
    -> [String: Any]
  {
    // A Swift dictionary, bridged once when the caller needs a Foundation one: setting an
    // NSMutableDictionary's entries one by one bridges every key on its own.
    var result = [String: Any](minimumCapacity: item.attributes.count + 3)
    if flags.contains(.attributes) {
      for (key, value) in item.attributes where !hiddenAttributes.contains(key) {
        if forAdd && hiddenOnAdd.contains(key) { continue }
        result[key] = value.object
      }
      if let accessControl = item.accessControl { result[SecConstantValue.attrAccessControl] = accessControl }
    }
    if flags.contains(.data), let data = item.data { result[SecConstantValue.valueData] = data }
    if flags.contains(.persistentRef) {
      result[SecConstantValue.valuePersistentRef] = item.persistentReference
    }
    if let keyRef { result[SecConstantValue.valueRef] = keyRef }
    return result
  }
}

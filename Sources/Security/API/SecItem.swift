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

extension SecItemCall {
  /// Whether a typed call must take the CFDictionary path: identities, refs and persistent
  /// references (which may name an identity) are handled there only.
  /// What a caller's query is about: identities, which have a path of their own, or items.
  enum QueryTarget {
    case identities
    case items(ItemRequest)
  }

  /// Reads a caller's query once: its entries decide whether it is about identities and are then
  /// parsed, so the NSDictionary is not searched by key first (three bridged lookups, 5% of a raw
  /// lookup). A dictionary whose entries cannot be read is judged as before, so its error is the same.
  static func read(_ query: NSDictionary) throws(SecStatus) -> QueryTarget {
    guard let entries = try? query.keychainEntries() else {
      return IdentityItems.isIdentityQuery(query) ? .identities : .items(try ItemRequest(query))
    }
    return IdentityItems.isIdentityQuery(entries) ? .identities : .items(try ItemRequest(entries: entries))
  }

  static func namesIdentityOrReference(_ entries: [(String, Any)]) -> Bool {
    entries.contains {
      $0.0 == SecConstantValue.valueRef || $0.0 == SecConstantValue.valuePersistentRef
        || ($0.0 == SecConstantValue.`class` && ($0.1 as? String) == SecConstantValue.classIdentity)
    }
  }

  /// SecItemUpdate's body for every class but identities.
  static func update(_ request: ItemRequest, _ changeEntries: [(String, Any)], _ context: Context) throws(SecStatus) {
    let itemClass = try request.requiredClass()
    let filter = try SecItemCall.filter(from: request, context, ignoringMatchAndReturn: true)
    let change = try SecItemCall.change(from: changeEntries, itemClass: itemClass, context)
    _ = try StorageUpdates.update(context.store.backend, filter, change)
  }

  /// SecItemDelete's body for every class but identities.
  static func delete(_ request: ItemRequest, _ context: Context) throws(SecStatus) {
    _ = try request.requiredClass()
    let filter = try SecItemCall.filter(from: request, context, ignoringMatchAndReturn: true)
    _ = try context.store.backend.delete(filter)
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

/// One result of the typed search: what the return keys asked for, its attributes as the store
/// keeps them, so the typed module reads them without casts.
///
/// A class, not a struct: a typed item reads some 30 fields through it, and each read copied the
/// struct's five reference-counted fields (5% of a listing). It stays public behind the package's
/// SPI, the one such declaration, rather than `package`: the release build's cross-module
/// optimization inlines small public methods into the Keychain module and not package ones, and
/// as `package` a DSL listing ran a third slower (keychain-bench; `@inlinable package` readers
/// cost lookups a fifth instead).
@_spi(KeychainBridge)
public final class SearchedItem: @unchecked Sendable {
  // @unchecked: every field is immutable; the ref is an immutable runtime object (SecKey, SecCertificate).
  let attributes: [String: AttributeValue]
  package let accessControl: SecAccessControl?
  package let data: Data?
  package let persistentReference: Data?
  package let reference: AnyObject?

  init(
    attributes: [String: AttributeValue], accessControl: SecAccessControl?, data: Data?, persistentReference: Data?,
    reference: AnyObject?
  ) {
    self.attributes = attributes
    self.accessControl = accessControl
    self.data = data
    self.persistentReference = persistentReference
    self.reference = reference
  }

  /// An attribute as SecItemCopyMatching would return it: the store's bookkeeping is never one.
  private func attribute(_ key: String) -> AttributeValue? {
    // Two string comparisons rather than a set lookup: this runs for every field of every item.
    key == SecConstantValue.attrUUID || key == SecConstantValue.attrPersistentReference ? nil : attributes[key]
  }

  /// Any entry the Foundation form would hold for `key`, as a Swift value (or the ref).
  public func value(_ key: String) -> Any? {
    switch key {
    case SecConstantValue.valueData: data
    case SecConstantValue.valuePersistentRef: persistentReference
    case SecConstantValue.valueRef: reference
    case SecConstantValue.attrAccessControl: accessControl
    default: attribute(key)?.swiftValue
    }
  }

  /// A text attribute; UTF-8 data and numbers read as text, as from the Foundation form.
  public func string(_ key: String) -> String? {
    switch attribute(key) {
    case .string(let value)?: value
    case .data(let value)?: String(data: value, encoding: .utf8)
    case .integer(let value)?: String(value)
    case .double(let value)?: NSNumber(value: value).stringValue
    case .date?, nil: nil
    }
  }

  /// A number attribute; a fraction is truncated as NSNumber's intValue does.
  public func integer(_ key: String) -> Int? {
    switch attribute(key) {
    case .integer(let value)?: Int(value)
    case .double(let value)?: value.isFinite && abs(value) < 9.2e18 ? Int(value) : nil
    case .string(let value)?: Int(value)
    case .data?, .date?, nil: nil
    }
  }

  /// A data attribute (text reads as its UTF-8 bytes), or the item's data or persistent reference.
  public func data(_ key: String) -> Data? {
    switch key {
    case SecConstantValue.valueData: return data
    case SecConstantValue.valuePersistentRef: return persistentReference
    default:
      switch attribute(key) {
      case .data(let value)?: return value
      case .string(let value)?: return Data(value.utf8)
      default: return nil
      }
    }
  }

  /// A date attribute.
  public func date(_ key: String) -> Date? {
    if case .date(let value)? = attribute(key) { return value }
    return nil
  }

  /// The raw value of an attribute whose values are constants; numeric ones ("73") as text.
  public func constant(_ key: String) -> String? {
    switch attribute(key) {
    case .string(let value)?: value
    case .integer(let value)?: String(value)
    default: nil
    }
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

extension SecItemCall {
  /// SecItemCopyMatching's search for every class but identities, its result as Swift values: what
  /// the return keys ask for, or nil when they ask for nothing to be written. Attribute values are
  /// Foundation objects when `foundationValues` (they are bridged to a CFDictionary next), Swift
  /// values otherwise.
  static func copyMatching(_ request: ItemRequest, _ context: Context, foundationValues: Bool) throws(SecStatus)
    -> Any?
  {
    let itemClass = try request.requiredClass()
    if request.useKeys[SecConstantValue.useItemList] != nil
      || request.matchKeys.contains(SecConstantValue.matchItemList)
    {
      throw .param
    }
    if request.matchKeys.contains(SecConstantValue.matchPolicy) { throw .unimplemented }
    if request.issuers != nil && itemClass != .certificate {
      throw SecStatus.unimplemented.naming(SecConstantValue.matchIssuers, "applies to certificates and identities")
    }
    if request.hostOrSubdomain != nil && itemClass != .internetPassword { throw .unimplemented }
    let filter = try SecItemCall.filter(from: request, context)
    let limit = request.limit ?? .one
    let flags = request.returnFlags
    var fetch = ResultShape.fetch(for: flags, itemClass)
    let readsSecrets = AuthenticationPolicy.readsSecrets(flags, of: itemClass)
    fetch.accessControl = readsSecrets
    // Skipped items must not use up the limit, so a skipping search reads every match first.
    let skipsConstrained = readsSecrets && AuthenticationPolicy.skipsConstrainedItems(request)
    var items = try context.store.backend.find(
      filter, limit: skipsConstrained ? nil : limit.rowLimit, fetch: fetch)
    if readsSecrets {
      items = try AuthenticationPolicy.admit(items, skipping: skipsConstrained, limit: limit.rowLimit)
    }
    guard !items.isEmpty else { throw .itemNotFound }
    if limit.isOne { return ResultShape.value(items[0], flags, forAdd: false, foundationValues: foundationValues) }
    return items.compactMap { ResultShape.value($0, flags, forAdd: false, foundationValues: foundationValues) }
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
      _ = try StorageUpdates.update(context.store.backend, filter, change)
      return
    }
    let merged = query.mutableCopy() as! NSMutableDictionary
    for key in [
      SecConstantValue.matchLimit, SecConstantValue.returnData, SecConstantValue.returnAttributes,
      SecConstantValue.returnRef, SecConstantValue.returnPersistentRef,
    ] { merged.removeObject(forKey: key) }
    for (key, value) in attributesToUpdate { merged.setObject(value, forKey: key as! AnyHashable) }
    let item = try SecItemCall.newItem(from: try ItemRequest(merged), context)
    _ = try StorageUpdates.upsert(context.store.backend, filter, change, orInsert: item)
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

/// The steps shared by the SecItem calls: context, access-group policy and the add/update rules.
enum SecItemCall {
  /// SecItemCopyMatching for kSecClassIdentity (keys rule 8.1 to 8.5), with the return
  /// keys read as for any class.
  static func copyIdentities(
    _ query: NSDictionary, _ context: Context, _ result: UnsafeMutablePointer<CFTypeRef?>?
  ) throws(SecStatus) {
    let returns = try ItemRequest(
      IdentityItems.half(
        query, itemClass: SecConstantValue.classCertificate, reference: nil,
        dropping: Array(IdentityItems.keyOnlyAttributes(in: query).keys) + [SecConstantValue.valuePersistentRef]))
    let limit = returns.limit ?? .one
    // Identities have no class of their own here; their ref always carries the private key.
    let readsSecrets = AuthenticationPolicy.readsSecrets(returns.returnFlags, of: nil)
    let skipsConstrained = readsSecrets && AuthenticationPolicy.skipsConstrainedItems(returns)
    var pairs = try IdentityItems.pairs(query, context, limit: skipsConstrained ? nil : limit.rowLimit)
    if readsSecrets {
      // An identity's ref and data carry its private key: the key item's access control decides.
      let admittedKeys = Set(
        try AuthenticationPolicy.admit(pairs.map(\.key), skipping: skipsConstrained, limit: nil).map(\.persistentID))
      pairs = pairs.filter { admittedKeys.contains($0.key.persistentID) }
      if let rowLimit = limit.rowLimit { pairs = Array(pairs.prefix(rowLimit)) }
    }
    guard !pairs.isEmpty else { throw .itemNotFound }
    guard let result else { return }
    if limit.isOne {
      if let shaped = IdentityItems.shaped(pairs[0], returns.returnFlags), !returns.returnFlags.isEmpty {
        result.pointee = shaped
      }
    } else {
      result.pointee =
        (returns.returnFlags.isEmpty ? [] : pairs.compactMap { IdentityItems.shaped($0, returns.returnFlags) })
        as NSArray
    }
  }

  struct Context {
    var store: KeychainStore
    var accessGroups: [String]
  }

  /// Runs one call: every failure becomes its status, and nothing escapes as a crash. The call is
  /// recorded when a recorder is installed (withSecItemCallRecording).
  static func run(
    _ function: SecItemFunction, _ dictionary: @autoclosure () -> NSDictionary,
    _ changes: @autoclosure () -> NSDictionary? = nil, _ body: (Context) throws(SecStatus) -> Void
  ) -> OSStatus {
    let status: OSStatus
    SecItemFailureDetail.clear()
    do throws(SecStatus) {
      let current = KeychainContext.current
      let groups = current.resolvedAccessGroups
      guard !groups.isEmpty else { throw SecStatus.missingEntitlement }  // rule 11
      try body(Context(store: try current.resolvedStore(), accessGroups: groups))
      status = errSecSuccess
    } catch {
      status = error.code
      SecItemFailureDetail.record(error)
    }
    SecItemCallRecorder.record(function, dictionary, changes, status)
    return status
  }

  private static let tokenGroup = "com.apple.token"

  /// Checks that the caller may use `group` (rule 3.4).
  static func checkGroup(_ group: String, _ context: Context, writing: Bool) throws(SecStatus) {
    if writing && group == tokenGroup { throw .missingEntitlement }
    guard context.accessGroups.contains(group) || context.accessGroups.contains("*") else {
      throw .missingEntitlement
    }
  }

  /// Builds the store filter of a search, update or delete query (rule 3).
  static func filter(from request: ItemRequest, _ context: Context, ignoringMatchAndReturn: Bool = false)
    throws(SecStatus) -> ItemFilter
  {
    let itemClass = try request.requiredClass()
    if request.useKeys[SecConstantValue.useItemList] != nil { throw .param }
    var filter = ItemFilter(itemClass: itemClass)
    filter.reference = request.reference
    var attributes = request.attributes
    if let key = request.keyReference {
      // The ref stands for its identifying attributes (keys rule 6.8).
      attributes.merge(try KeyItems.attributes(of: key, forQuery: true)) { given, _ in given }
    }
    if let certificate = request.certificateReference {
      // A certificate is identified by its type, issuer and serial number (7.16).
      let identity = certificate.itemAttributes.filter {
        [SecConstantValue.attrCertificateType, SecConstantValue.attrIssuer, SecConstantValue.attrSerialNumber]
          .contains($0.key)
      }
      attributes.merge(identity) { given, _ in given }
    }
    // Data and access control never filter (rule 9.7); the dates are system values but do filter.
    attributes[SecConstantValue.attrAccessControl] = nil
    if request.reference != nil {
      guard attributes.isEmpty, !request.synchronizableAny else { throw .param }  // rule 6.8
      filter.synchronizable = nil
    } else if request.synchronizableAny {
      filter.synchronizable = nil
    } else if case .integer(let sync)? = attributes[SecConstantValue.attrSynchronizable] {
      filter.synchronizable = sync
    } else {
      filter.synchronizable = 0
    }
    attributes[SecConstantValue.attrSynchronizable] = nil
    if case .string(let group)? = attributes[SecConstantValue.attrAccessGroup] {
      try checkGroup(group, context, writing: false)
      filter.accessGroups = [group]
    } else if context.accessGroups.contains("*") {
      filter.accessGroups = nil
    } else {
      filter.accessGroups = context.accessGroups
    }
    attributes[SecConstantValue.attrAccessGroup] = nil
    let constraints = ItemRows.comparable(itemClass, attributes)
    filter.attributes = constraints
    filter.primaryKey = ItemRows.primaryKey(itemClass, naming: constraints)
    if !ignoringMatchAndReturn {
      filter.hostOrSubdomain = request.hostOrSubdomain
      filter.issuers = request.issuers
    }
    return filter
  }

  /// Builds a new item from an add dictionary (rule 5), with defaults for what it leaves out.
  static func newItem(from request: ItemRequest, _ context: Context) throws(SecStatus) -> NewItem {
    let itemClass = try request.requiredClass()
    if let key = request.matchKeys.sorted().first {
      throw SecStatus.param.naming(key, "match keys have no meaning in SecItemAdd (decision 1)")
    }
    if request.reference != nil || request.useKeys[SecConstantValue.useItemList] != nil {
      throw .param
    }
    if request.synchronizableAny { throw .param }
    if request.useKeys[SecConstantValue.useAuthenticationUI].flatMap(ValueConversion.string)
      == SecConstantValue.useAuthenticationUISkip
    {
      throw .param
    }  // rule 1.11
    var attributes = request.attributes
    var data = request.valueData
    if let key = request.keyReference {
      // The key's own attributes, under the caller's (keys rule 6.3), and its bytes.
      attributes.merge(try KeyItems.attributes(of: key, forQuery: false)) { given, _ in given }
      if data == nil { data = try KeyItems.data(of: key) }
    }
    if let certificate = request.certificateReference {
      // The certificate's own attributes (7.13) and, when the caller gives none, its subject
      // summary as the label (7.15); the data is its DER.
      attributes.merge(certificate.itemAttributes) { given, _ in given }
      if attributes[SecConstantValue.attrLabel] == nil, let summary = certificate.contents.subjectSummary {
        attributes[SecConstantValue.attrLabel] = .string(summary)
      }
      if data == nil { data = certificate.derBytes }
    }
    for key in [
      SecConstantValue.attrCreationDate, SecConstantValue.attrModificationDate, SecConstantValue.attrTombstone,
      SecConstantValue.attrMultiUser, SecConstantValue.attrSHA1, SecConstantValue.attrUUID,
    ] { attributes[key] = nil }  // store-set (2.2)
    for (key, value) in ItemSchema.primaryKeyDefaults(of: itemClass) where attributes[key] == nil {
      attributes[key] = value
    }
    let protection = try request.protection() ?? ItemSchema.defaultAccessibility
    attributes[SecConstantValue.attrAccessible] = .string(protection)
    if attributes[SecConstantValue.attrSynchronizable] == nil {
      attributes[SecConstantValue.attrSynchronizable] = .integer(0)
    }
    try validate(attributes, request.accessControl)
    if ItemSchema.accessibilityValues[protection] == .whenPasscodeSet && !context.store.hasPassphrase {
      throw .authFailed  // rule 5.13: no passcode is set
    }
    if case .string(let group)? = attributes[SecConstantValue.attrAccessGroup] {
      try checkGroup(group, context, writing: true)
    } else {
      guard let group = context.accessGroups.first(where: { $0 != "*" }) else { throw .missingEntitlement }
      attributes[SecConstantValue.attrAccessGroup] = .string(group)
    }
    let complete = try ItemRows.completed(attributes, at: Date())
    return NewItem(
      itemClass: itemClass, attributes: complete, accessControl: request.accessControl, data: data,
      index: try ItemRows.index(itemClass, complete))
  }

  /// Rules that concern an item as a whole, on add and after an update.
  static func validate(_ attributes: [String: AttributeValue], _ accessControl: SecAccessControl?) throws(SecStatus) {
    // Decision 4: synchronizable with a ThisDeviceOnly protection is stored as given (rule 5.12).
    guard case .integer(1)? = attributes[SecConstantValue.attrSynchronizable] else { return }
    if let accessControl, accessControl.flags.hasConstraints { throw .param }  // rule 1.13
  }

  /// What an update does to each matching item, for the store to run inside its transaction.
  /// Parses attributesToUpdate (rules 7.6 to 7.8, decisions 5 and 7).
  static func change(from dictionary: NSDictionary, itemClass: ItemClass, _ context: Context) throws(SecStatus)
    -> ItemChange
  {
    try change(from: try dictionary.keychainEntries(), itemClass: itemClass, context)
  }

  /// attributesToUpdate's entries as a change (rules 7.x and decisions 5 and 7).
  static func change(from entries: [(String, Any)], itemClass: ItemClass, _ context: Context) throws(SecStatus)
    -> ItemChange
  {
    var change = ItemChange()
    for (name, value) in entries {
      if name == SecConstantValue.valueData {
        guard let data = value as? Data else {
          throw SecStatus.param.naming(name, "must be Data, not \(describeType(value))")
        }
        change.data = data
        continue
      }
      guard name.utf8.count == 4, let definition = ItemSchema.attribute(name, of: itemClass) else {
        throw SecStatus.noSuchAttribute.naming(name, "cannot be changed by SecItemUpdate (decision 5)")
      }
      if value is NSNull { throw .param }
      switch (definition.ownership, name) {
      case (.storeDates, _), (.unsupported, _), (_, SecConstantValue.attrSharingGroup): throw .param
      case (.system, _): continue  // musr and the other system values are ignored
      default: break
      }
      if definition.kind == .accessControl {
        guard let accessControl = value as? SecAccessControl else { throw .param }
        change.accessControl = accessControl
        continue
      }
      guard let converted = ValueConversion.attributeValue(value, kind: definition.kind) else { throw .param }
      change.attributes[name] = converted
    }
    try checkItemSize(data: change.data, attributes: change.attributes)
    if let accessControl = change.accessControl,
      case .string(let protection)? = change.attributes[SecConstantValue.attrAccessible],
      protection != accessControl.protection
    {
      throw .param
    }
    if case .string(let group)? = change.attributes[SecConstantValue.attrAccessGroup] {
      try checkGroup(group, context, writing: true)  // rule 7.8
    }
    return change
  }
}

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
  static func single(_ item: StoredItem, _ flags: ReturnFlags, forAdd: Bool) -> CFTypeRef? {
    value(item, flags, forAdd: forAdd).map(bridged)
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

  /// One item in the shape the flags ask for, as Swift values (`Data`, `[String: Any]`, or a ref).
  static func value(_ item: StoredItem, _ flags: ReturnFlags, forAdd: Bool, foundationValues: Bool = true) -> Any? {
    // Keys and certificates have a ref type (SecKey, SecCertificate); password items have none, so
    // for them kSecReturnRef adds nothing.
    let keyRef: AnyObject? =
      switch (flags.contains(.ref), item.itemClass) {
      case (true, .key): KeyItems.key(of: item)
      case (true, .certificate): item.data.flatMap { SecCertificateCreateWithData(nil, $0 as NSData) }
      default: nil
      }
    let shaped = flags.subtracting(.ref)
    if shaped.isEmpty { return keyRef }
    if flags == .data { return item.data ?? Data() }  // decision 2
    if flags == .persistentRef { return item.persistentReference }
    guard foundationValues else { return searched(item, flags, keyRef) }
    return dictionary(item, flags, keyRef, forAdd: forAdd)
  }

  /// What a search must read for `flags`: a key's or certificate's kSecReturnRef is made from its
  /// bytes (and, for a key, its type and class attributes), so it reads both.
  static func fetch(for flags: ReturnFlags, _ itemClass: ItemClass) -> ItemFetch {
    let makesRefs = flags.contains(.ref) && (itemClass == .key || itemClass == .certificate)
    return ItemFetch(attributes: flags.contains(.attributes) || makesRefs, data: flags.contains(.data) || makesRefs)
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
    var result: [String: Any] = [:]
    result.reserveCapacity(item.attributes.count + 3)
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

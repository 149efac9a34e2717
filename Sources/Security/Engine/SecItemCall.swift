import Foundation

/// The steps shared by the SecItem calls, run by `SecItemEngine`: access-group policy and the
/// add/update rules.
enum SecItemCall {
  /// SecItemCopyMatching for kSecClassIdentity (keys rule 8.1 to 8.5): the identities the call
  /// hands out, at most its limit, their private keys proven for. The return keys are read as for
  /// any class; `shapedIdentities` makes the result.
  static func matchingIdentities(_ query: NSDictionary, _ engine: SecItemEngine) throws(SecStatus) -> [IdentityPair] {
    let returns = try IdentityItems.certificateRequest(query)
    let limit = returns.limit ?? .one
    // Identities have no class of their own here; their ref always carries the private key.
    let readsSecrets = ItemAuthentication.readsSecrets(returns.returnFlags, of: nil)
    var authentication = try ItemAuthentication(returns, engine: engine)
    let rowLimit = readsSecrets && authentication.skipsItems ? nil : limit.rowLimit
    var pairs = try IdentityItems.pairs(query, engine, limit: rowLimit)
    if readsSecrets {
      // An identity's ref and data carry its private key: the key item's access control decides.
      let admitted = try authentication.admit(pairs.map(\.key), limit: nil)
      let keys = Dictionary(admitted.map { ($0.persistentID, $0) }) { first, _ in first }
      pairs = pairs.compactMap { pair in
        keys[pair.key.persistentID].map { IdentityPair(certificate: pair.certificate, key: $0) }
      }
      if let rowLimit = limit.rowLimit { pairs = Array(pairs.prefix(rowLimit)) }
    }
    guard !pairs.isEmpty else { throw .itemNotFound }
    return pairs
  }

  private static let tokenGroup = "com.apple.token"

  /// Checks that the caller may use `group` (rule 3.4).
  static func checkGroup(_ group: String, _ engine: SecItemEngine, writing: Bool) throws(SecStatus) {
    if writing && group == tokenGroup { throw .missingEntitlement }
    guard engine.accessGroups.contains(group) || engine.accessGroups.contains("*") else {
      throw .missingEntitlement
    }
  }

  /// Builds the store filter of a search, update or delete query (rule 3).
  static func filter(from request: ItemRequest, _ engine: SecItemEngine, ignoringMatchAndReturn: Bool = false)
    throws(SecStatus) -> ItemFilter
  {
    let itemClass = try request.requiredClass()
    if request.useKeys[SecConstantValue.useItemList] != nil { throw .param }
    var filter = ItemFilter(itemClass: itemClass)
    filter.reference = request.reference
    var attributes = normalizingIssuer(request.attributes, of: itemClass, engine)
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
      try checkGroup(group, engine, writing: false)
      filter.accessGroups = [group]
    } else if engine.accessGroups.contains("*") {
      filter.accessGroups = nil
    } else {
      filter.accessGroups = engine.accessGroups
    }
    attributes[SecConstantValue.attrAccessGroup] = nil
    let constraints = ItemRows.comparable(itemClass, attributes)
    filter.attributes = constraints
    filter.primaryKey = ItemRows.primaryKey(itemClass, naming: constraints)
    if !ignoringMatchAndReturn {
      filter.hostOrSubdomain = request.hostOrSubdomain
      filter.issuers = issuers(of: request, engine)
    }
    return filter
  }

  /// `attributes` with a certificate's kSecAttrIssuer given as a whole DN (a SEQUENCE) replaced by
  /// its normalized content, which certificate items store (keys rule 7.17), by the engine's
  /// backend; normalized content, and a DN that does not parse, pass through.
  static func normalizingIssuer(
    _ attributes: [String: AttributeValue], of itemClass: ItemClass, _ engine: SecItemEngine
  ) -> [String: AttributeValue] {
    guard itemClass == .certificate, case .data(let der)? = attributes[SecConstantValue.attrIssuer], der.first == 0x30,
      let normalized = engine.backend.normalizedName(der)?.content
    else { return attributes }
    var normalizedAttributes = attributes
    normalizedAttributes[SecConstantValue.attrIssuer] = .data(normalized)
    return normalizedAttributes
  }

  /// kSecMatchIssuers' names normalized as certificate items store their issuer (keys rules 7.11,
  /// 7.18), by the engine's backend; a name that is not exactly one Name is kept as given.
  static func issuers(of request: ItemRequest, _ engine: SecItemEngine) -> Set<Data>? {
    request.issuers.map { names in Set(names.map { engine.backend.normalizedName($0)?.content ?? $0 }) }
  }

  /// Builds a new item from an add dictionary (rule 5), with defaults for what it leaves out.
  static func newItem(from request: ItemRequest, _ engine: SecItemEngine) throws(SecStatus) -> NewItem {
    let itemClass = try request.requiredClass()
    if let key = request.matchKeys.sorted().first {
      throw SecStatus.param.naming(key, "is a search key, which SecItemAdd does not take")
    }
    if request.reference != nil || request.useKeys[SecConstantValue.useItemList] != nil {
      throw .param
    }
    if request.synchronizableAny { throw .param }
    if request.useKeys[SecConstantValue.useAuthenticationUI]?.string
      == SecConstantValue.useAuthenticationUISkip
    {
      throw .param
    }  // rule 1.11
    var attributes = normalizingIssuer(request.attributes, of: itemClass, engine)
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
    if ItemIndex.protectionClasses[protection] == .whenPasscodeSet && !engine.storage.hasPassphrase {
      throw .authFailed  // rule 5.13: no passcode is set
    }
    if case .string(let group)? = attributes[SecConstantValue.attrAccessGroup] {
      try checkGroup(group, engine, writing: true)
    } else {
      guard let group = engine.accessGroups.first(where: { $0 != "*" }) else { throw .missingEntitlement }
      attributes[SecConstantValue.attrAccessGroup] = .string(group)
    }
    let complete = try ItemRows.completed(attributes, at: engine.clock(), backend: engine.backend)
    if let control = request.accessControl, control.flags.contains(.applicationPassword), let secret = data {
      data = try ItemAuthentication.sealForApplicationPassword(secret, request, engine)
    }
    let item = NewItem(
      itemClass: itemClass, attributes: complete, accessControl: request.accessControl, data: data,
      index: try ItemRows.index(itemClass, complete))
    warnIfUnprovable(request.accessControl, engine)
    return item
  }

  /// Warns when an access control asks for the user's presence on a store without a passphrase:
  /// such a store is a device without a passcode (rule 5.13), where Apple's keychain stores the
  /// item (keys rule 10.4) and its data can never be read (errSecInteractionNotAllowed). The call
  /// succeeds as Apple's does; the warning says what to change.
  static func warnIfUnprovable(_ accessControl: SecAccessControl?, _ engine: SecItemEngine) {
    guard let requirement = AccessRequirement(accessControl), requirement.proofs.contains(.passcode),
      !engine.storage.hasPassphrase
    else { return }
    KeychainWarnings.warn(
      "an item asks for the user's presence, but this keychain store has no passphrase to ask for, so its "
        + "data cannot be read (errSecInteractionNotAllowed), as on a device without a passcode. Use a store made "
        + "with a passphrase (security create-keychain -p), or the agent keychaind serving one.")
  }

  /// Rules that concern an item as a whole, on add and after an update.
  static func validate(_ attributes: some AttributeLookup, _ accessControl: SecAccessControl?) throws(SecStatus) {
    // Decision 4: synchronizable with a ThisDeviceOnly protection is stored as given (rule 5.12).
    guard case .integer(1)? = attributes[SecConstantValue.attrSynchronizable] else { return }
    if let accessControl, accessControl.flags.hasConstraints { throw .param }  // rule 1.13
  }

  /// What an update does to each matching item, for the store to run inside its transaction.
  /// Parses attributesToUpdate (rules 7.6 to 7.8, decisions 5 and 7).
  static func change(from dictionary: NSDictionary, itemClass: ItemClass, _ engine: SecItemEngine) throws(SecStatus)
    -> ItemChange
  {
    try change(from: try dictionary.keychainEntries(), itemClass: itemClass, engine)
  }

  /// attributesToUpdate's entries as a change (rules 7.x and decisions 5 and 7).
  static func change(from entries: RequestEntries, itemClass: ItemClass, _ engine: SecItemEngine) throws(SecStatus)
    -> ItemChange
  {
    var change = ItemChange()
    for (name, value) in entries {
      if name == SecConstantValue.valueData {
        guard let data = value.data else {
          throw SecStatus.param.naming(name, "must be Data, not \(value.typeDescription)")
        }
        change.data = data
        continue
      }
      guard name.utf8.count == 4, let definition = ItemSchema.attribute(name, of: itemClass) else {
        throw SecStatus.noSuchAttribute.naming(name, "cannot be changed by SecItemUpdate")
      }
      if value.isNull { throw .param }
      switch (definition.ownership, name) {
      case (.storeDates, _), (.unsupported, _), (_, SecConstantValue.attrSharingGroup): throw .param
      case (.system, _): continue  // musr and the other system values are ignored
      default: break
      }
      if definition.kind == .accessControl {
        guard let accessControl = value.object as? SecAccessControl else { throw .param }
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
    warnIfUnprovable(change.accessControl, engine)
    if case .string(let group)? = change.attributes[SecConstantValue.attrAccessGroup] {
      try checkGroup(group, engine, writing: true)  // rule 7.8
    }
    return change
  }
}

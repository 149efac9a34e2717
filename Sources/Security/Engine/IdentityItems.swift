import Foundation

/// One certificate and the private key that goes with it: an identity as the engine finds it,
/// before it is shaped into a SecIdentity or a dictionary.
package struct IdentityPair: Sendable {
  /// The certificate item.
  package var certificate: StoredItem
  /// The private-key item whose application label is the certificate's public-key hash.
  package var key: StoredItem

  /// A pair of found items.
  package init(certificate: StoredItem, key: StoredItem) {
    self.certificate = certificate
    self.key = key
  }
}

/// kSecClassIdentity (keys rule 8): no table of its own, but the join of certificate items
/// and private-key items whose application label is the certificate's public-key hash.
///
/// An identity dictionary is read twice, as a certificate dictionary and as a key dictionary, so
/// that each half follows its own class's rules; both halves are reached through the store with
/// the caller's access groups.
enum IdentityItems {
  /// The SecIdentity a dictionary's kSecValueRef holds, if any.
  static func reference(in dictionary: NSDictionary) -> SecIdentity? {
    dictionary.object(forKey: SecConstantValue.valueRef) as? SecIdentity
  }

  /// Whether the dictionary asks for kSecClassIdentity.
  static func isIdentityQuery(_ dictionary: NSDictionary) -> Bool {
    (dictionary.object(forKey: SecConstantValue.`class`) as? String) == SecConstantValue.classIdentity
      || reference(in: dictionary) != nil || persistentCertificateReference(in: dictionary) != nil
  }

  /// `isIdentityQuery` over a dictionary's entries, already read (each key is there once).
  static func isIdentityQuery(_ entries: RequestEntries) -> Bool {
    if entries.value(ofKey: SecConstantValue.`class`)?.string == SecConstantValue.classIdentity { return true }
    if entries.value(ofKey: SecConstantValue.valueRef)?.object is SecIdentity { return true }
    guard let value = entries.value(ofKey: SecConstantValue.valuePersistentRef) else { return false }
    return value.data.flatMap(certificateReference(inIdentityReference:)) != nil
  }

  /// An identity's persistent reference is "idnt" and its certificate's UUID (8.5): the
  /// certificate's own reference for it, when the dictionary holds one.
  static func persistentCertificateReference(in dictionary: NSDictionary) -> Data? {
    (dictionary.object(forKey: SecConstantValue.valuePersistentRef) as? Data).flatMap(
      certificateReference(inIdentityReference:))
  }

  private static func certificateReference(inIdentityReference data: Data) -> Data? {
    guard data.count == 20, data.prefix(4) == Data(SecConstantValue.classIdentity.utf8) else { return nil }
    return ItemReference.bytes(of: .certificate, uuid: Data(data.dropFirst(4)))
  }

  /// The persistent reference of the identity whose certificate is `certificate`.
  static func persistentReference(of certificate: StoredItem) -> Data {
    ItemReference.bytes(of: .identity, uuid: certificate.persistentID)
  }

  /// `dictionary` for one half: another class and ref, without what only the identity call reads.
  static func half(_ dictionary: NSDictionary, itemClass: String, reference: AnyObject?, dropping: [String] = [])
    -> NSMutableDictionary
  {
    let copy = dictionary.mutableCopy() as! NSMutableDictionary
    copy.setObject(itemClass as NSString, forKey: SecConstantValue.`class` as NSString)
    if let reference {
      copy.setObject(reference, forKey: SecConstantValue.valueRef as NSString)
    } else {
      copy.removeObject(forKey: SecConstantValue.valueRef)
    }
    for key in dropping { copy.removeObject(forKey: key) }
    return copy
  }

  static let resultKeys = [
    SecConstantValue.returnData, SecConstantValue.returnAttributes, SecConstantValue.returnRef,
    SecConstantValue.returnPersistentRef, SecConstantValue.matchLimit,
  ]

  /// SecItemAdd of an identity (8.5): the certificate, then the private key, each with the rest
  /// of the dictionary. One duplicate half is tolerated; both are errSecDuplicateItem.
  static func add(_ dictionary: NSDictionary, _ identity: SecIdentity, _ engine: SecItemEngine)
    throws(SecStatus)
  {
    var duplicates = 0
    for (itemClass, reference) in [
      (SecConstantValue.classCertificate, identity.certificate as AnyObject),
      (SecConstantValue.classKey, identity.privateKey as AnyObject),
    ] {
      let request = try ItemRequest(half(dictionary, itemClass: itemClass, reference: reference, dropping: resultKeys))
      do {
        _ = try engine.storage.insert(try SecItemCall.newItem(from: request, engine))
      } catch .duplicateItem {
        duplicates += 1
      }
    }
    if duplicates == 2 { throw .duplicateItem }
  }

  /// The attributes of an identity query that only keys have (8.2): they filter the key, and every
  /// other attribute the certificate, whose column wins where both classes have one.
  static func keyOnlyAttributes(in dictionary: NSDictionary) -> [String: Any] {
    var attributes: [String: Any] = [:]
    for case let (name as String, value) in dictionary where name.utf8.count == 4 {
      if ItemSchema.attribute(name, of: .certificate) == nil, ItemSchema.attribute(name, of: .key) != nil {
        attributes[name] = value
      }
    }
    return attributes
  }

  typealias Pair = IdentityPair

  /// The identities a query names (8.1, 8.2): certificates matching its attributes, each with
  /// every private key (kcls 1, decision D3) whose application label is its public-key hash.
  static func pairs(_ dictionary: NSDictionary, _ engine: SecItemEngine, limit: Int?) throws(SecStatus)
    -> [Pair]
  {
    let identity = reference(in: dictionary)
    var keyConstraints = keyOnlyAttributes(in: dictionary)
    let certificateQuery = half(
      dictionary, itemClass: SecConstantValue.classCertificate, reference: identity?.certificate,
      dropping: resultKeys + Array(keyConstraints.keys))
    if let identity { keyConstraints[SecConstantValue.valueRef] = identity.privateKey }
    if let certificateReference = persistentCertificateReference(in: dictionary) {
      certificateQuery.setObject(
        certificateReference as NSData, forKey: SecConstantValue.valuePersistentRef as NSString)
    }
    let certificateRequest = try ItemRequest(certificateQuery)
    var certificateFilter = try SecItemCall.filter(from: certificateRequest, engine, ignoringMatchAndReturn: true)
    certificateFilter.issuers = SecItemCall.issuers(of: certificateRequest, engine)
    let everything = ItemFetch(attributes: true, data: true)
    let certificates = try engine.storage.find(certificateFilter, limit: nil, fetch: everything)
    guard !certificates.isEmpty else { return [] }

    var keyQuery: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classKey, SecConstantValue.attrKeyClass: 1,
      SecConstantValue.attrSynchronizable: SecConstantValue.attrSynchronizableAny,
    ]
    keyQuery.merge(keyConstraints) { _, new in new }
    let keyFilter = try SecItemCall.filter(from: try ItemRequest(keyQuery as NSDictionary), engine)
    var keysByLabel: [Data: [StoredItem]] = [:]
    for key in try engine.storage.find(keyFilter, limit: nil, fetch: everything) {
      if case .data(let label)? = key.attributes[SecConstantValue.attrApplicationLabel] {
        keysByLabel[label, default: []].append(key)
      }
    }
    var pairs: [Pair] = []
    for certificate in certificates {
      guard case .data(let hash)? = certificate.attributes[SecConstantValue.attrPublicKeyHash] else { continue }
      for key in keysByLabel[hash] ?? [] {
        pairs.append(Pair(certificate: certificate, key: key))
        if let limit, pairs.count >= limit { return pairs }
      }
    }
    return pairs
  }

  /// One identity in the shape the return keys ask for (8.3, 8.4): the key's attributes overwritten
  /// by the certificate's, the certificate's data, and the SecIdentity as its ref.
  static func shaped(_ pair: Pair, _ flags: ReturnFlags, backend: any SecurityBackend) -> AnyObject? {
    let identity = pair.certificate.data.flatMap { SecCertificate.parse($0, with: backend) }.flatMap {
      certificate in KeyItems.key(of: pair.key, backend: backend).flatMap { SecIdentityCreate(nil, certificate, $0) }
    }
    if flags == .ref { return identity }
    if flags == .data { return (pair.certificate.data ?? Data()) as NSData }
    if flags == .persistentRef { return persistentReference(of: pair.certificate) as NSData }
    var result: [String: Any] = [:]
    if flags.contains(.attributes) {
      let merged = pair.key.attributes.merging(pair.certificate.attributes)
      for (key, value) in merged
      where key != SecConstantValue.attrUUID && key != SecConstantValue.attrPersistentReference {
        result[key] = value.object
      }
      result[SecConstantValue.`class`] = SecConstantValue.classIdentity as NSString
    }
    if flags.contains(.data), let data = pair.certificate.data { result[SecConstantValue.valueData] = data as NSData }
    if flags.contains(.ref), let identity { result[SecConstantValue.valueRef] = identity }
    if flags.contains(.persistentRef) {
      result[SecConstantValue.valuePersistentRef] = persistentReference(of: pair.certificate) as NSData
    }
    return result as NSDictionary
  }

  /// An identity query read as its certificate half, without what only the key half means (the
  /// key's attributes and a persistent reference): its return, match and use keys.
  static func certificateRequest(_ query: NSDictionary) throws(SecStatus) -> ItemRequest {
    try ItemRequest(
      half(
        query, itemClass: SecConstantValue.classCertificate, reference: nil,
        dropping: Array(keyOnlyAttributes(in: query).keys) + [SecConstantValue.valuePersistentRef]))
  }

  /// SecItemUpdate of identities (8.8): each certificate, then its key, with the same changes,
  /// which must therefore be valid for both classes (a label, an accessibility...).
  static func update(_ query: NSDictionary, _ changes: NSDictionary, _ engine: SecItemEngine) throws(SecStatus) {
    let pairs = try pairs(query, engine, limit: nil)
    guard !pairs.isEmpty else { throw .itemNotFound }
    let certificateChange = try SecItemCall.change(from: changes, itemClass: .certificate, engine)
    let keyChange = try SecItemCall.change(from: changes, itemClass: .key, engine)
    // The query's use keys (its LAContext, whether it may prompt) decide how a protected private
    // key's proof is given, as for a search of identities.
    let uses = try certificateRequest(query)
    for pair in pairs {
      for (item, change) in [(pair.certificate, certificateChange), (pair.key, keyChange)] {
        _ = try SecItemCall.changeStoredItems(exactly(item), change, uses, engine)
      }
    }
  }

  /// SecItemDelete of identities (8.6, 8.7): each certificate, then its key unless another
  /// certificate still has the key's application label as its public-key hash.
  static func delete(_ dictionary: NSDictionary, _ engine: SecItemEngine) throws(SecStatus) {
    let pairs = try pairs(dictionary, engine, limit: nil)
    guard !pairs.isEmpty else { throw .itemNotFound }
    for pair in pairs { try deleteIfPresent(pair.certificate, engine) }
    for pair in pairs {
      guard case .data(let label)? = pair.key.attributes[SecConstantValue.attrApplicationLabel] else { continue }
      var remaining = ItemFilter(itemClass: .certificate)
      remaining.synchronizable = nil
      remaining.attributes = [SecConstantValue.attrPublicKeyHash: .bytes(Array(label))]
      let stillUsed = try engine.storage.find(
        remaining, limit: 1, fetch: ItemFetch(attributes: false, data: false))
      guard stillUsed.isEmpty else { continue }
      try deleteIfPresent(pair.key, engine)
    }
  }

  /// The filter that names exactly `item`, by its persistent reference.
  static func exactly(_ item: StoredItem) -> ItemFilter {
    var filter = ItemFilter(itemClass: item.itemClass)
    filter.reference = .uuid(item.itemClass, item.persistentID)
    filter.synchronizable = nil
    return filter
  }

  /// Deletes `item`; already gone (two identities sharing a key or certificate) is not a failure.
  private static func deleteIfPresent(_ item: StoredItem, _ engine: SecItemEngine) throws(SecStatus) {
    do {
      _ = try engine.storage.delete(exactly(item))
    } catch .itemNotFound {
      return
    }
  }
}

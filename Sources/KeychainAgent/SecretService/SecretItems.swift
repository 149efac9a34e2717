import Foundation
@_spi(KeychainBridge) import Security

/// Secret Service items as keychain items (issue 51): one store, two APIs.
///
/// An item of a collection is a `kSecClassGenericPassword` item in the collection's access group
/// (for the default collection `KeychainAccessGroups.defaultAccessGroup`, the group Apple-API
/// programs of a store without an agent policy use). Its attributes are kept exactly, as JSON with sorted keys, in the generic
/// attribute (`gena`); `service` is also its service (`svce`), and `username`, else `account`, its
/// account (`acct`), so that `SecItemCopyMatching` finds what `secret-tool store` wrote. The label
/// is `labl`; created and modified are the item's dates. An Apple-API item without such JSON shows
/// on the bus with the attributes `service`, `username` and `account` derived from its service and
/// account.
///
/// Identity: a generic password's key is its group, service and account (Apple's rule 2.1). The
/// Secret Service allows two items with the same attributes (CreateItem without replace), so an
/// item that would take another's key carries a distinct `vwht` (Apple's view hint, part of the
/// key's SPI columns and never set by Apple-API calls here): both exist, and a search by service
/// and account through Apple's API finds the first.
///
/// Keys are `SecConstantValue`'s Swift strings, not Apple's `kSec...` constants: those are
/// CFStrings, and bridging one `as String` on every use was a twentieth of a lookup's time.
struct SecretItems {
  let engine: SecItemEngine
  let collection: SecretCollection
  /// Whether the engine may ask the user on this thread. The bus's calls may not (its one thread
  /// serves every client): an item that needs the user then answers `BusError.needsUser`, and
  /// the bus asks without waiting and runs the call again (issue 63).
  var interactive = true

  /// One item as the bus sees it.
  struct Item {
    var path: String
    var persistentReference: Data
    var label: String
    var attributes: [String: String]
    var created: Date?
    var modified: Date?
    /// The secret's MIME type, as the program that stored it said (text/plain when it said none).
    var contentType = SecretServiceAttributes.defaultContentType
  }

  /// The path of the item whose persistent reference is `persistentReference`: the UUID behind the
  /// reference (its last 16 bytes) as 32 hexadecimal digits, under the collection's path.
  func path(of persistentReference: Data) -> String {
    // Every item of every search and lookup is named this way: written digit by digit, as
    // String(format:) per byte was a sixth of a lookup's time.
    let digits = Array("0123456789abcdef".utf8)
    var hex = [UInt8]()
    hex.reserveCapacity(32)
    for byte in persistentReference.suffix(16) {
      hex.append(digits[Int(byte >> 4)])
      hex.append(digits[Int(byte & 0x0f)])
    }
    return collection.path + "/i" + String(decoding: hex, as: UTF8.self)
  }

  /// The persistent reference of the generic password at `path`, or nil when `path` names none.
  func persistentReference(at path: String) -> Data? {
    let prefix = collection.path + "/i"
    guard path.hasPrefix(prefix) else { return nil }
    let hex = path.utf8.dropFirst(prefix.utf8.count)
    guard hex.count == 32 else { return nil }
    // Digit by digit, as `path(of:)` writes them: a String and a radix parse per byte were a
    // twentieth of GetSecrets.
    func nibble(_ digit: UInt8) -> UInt8? {
      switch digit {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
      default: nil
      }
    }
    var uuid = Data(capacity: 16)
    var digits = hex.makeIterator()
    while let high = digits.next() {
      guard let low = digits.next(), let high = nibble(high), let low = nibble(low) else { return nil }
      uuid.append(high << 4 | low)
    }
    return ItemReference.bytes(of: .genericPassword, uuid: uuid)
  }

  /// The search dictionary for `attributes`: the class and group, and the service and account
  /// where the attributes name them (the store's indexes narrow by those).
  private func query(for attributes: [String: String]) -> [String: Any] {
    var query: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword,
      SecConstantValue.attrAccessGroup: collection.group,
      SecConstantValue.matchLimit: SecConstantValue.matchLimitAll,
    ]
    if let service = attributes["service"] { query[SecConstantValue.attrService] = service }
    if let account = attributes["username"] ?? attributes["account"] { query[SecConstantValue.attrAccount] = account }
    return query
  }

  /// Every item of the collection whose attributes include `attributes`.
  func search(_ wanted: [String: String]) throws(BusError) -> [Item] {
    var query = query(for: wanted)
    query[SecConstantValue.returnAttributes] = true
    query[SecConstantValue.returnPersistentRef] = true
    let found: [SearchedItem]
    do {
      // The typed results (attributes as the store keeps them): Foundation values would be made
      // only to be read back (a tenth of a lookup's time in the agent).
      found = try engine.searchedItems(try Self.request(query))
    } catch {
      throw Self.busError(error)
    }
    return found.compactMap { row in
      guard let reference = row.persistentReference else { return nil }
      return item(row, reference: reference)
    }.filter { item in wanted.allSatisfy { item.attributes[$0.key] == $0.value } }
  }

  /// The item at `path`, or NoSuchObject; read by its persistent reference, not by a search.
  func item(at path: String) throws(BusError) -> Item { try read(at: path, withSecret: false).item }

  /// The item at `path` and its secret, read at once.
  func itemAndSecret(at path: String) throws(BusError) -> (item: Item, secret: [UInt8]) {
    let read = try read(at: path, withSecret: true)
    return (read.item, read.secret ?? [])
  }

  private func read(at path: String, withSecret: Bool) throws(BusError) -> (item: Item, secret: [UInt8]?) {
    guard let reference = persistentReference(at: path) else { throw .noSuchObject("No item at \(path).") }
    // A persistent reference takes no other constraint (Apple's rule 8 of searches): the group is
    // checked on the row, so that a path under one collection never names another's item.
    var query: [String: Any] = [
      SecConstantValue.valuePersistentRef: reference, SecConstantValue.returnAttributes: true,
    ]
    if withSecret {
      query[SecConstantValue.returnData] = true
      if !interactive { query[SecConstantValue.useAuthenticationUI] = SecConstantValue.useAuthenticationUIFail }
    }
    do {
      let found = try engine.searchedItems(try Self.request(query))
      guard let row = found.first, row.string(SecConstantValue.attrAccessGroup) == collection.group else {
        throw BusError.noSuchObject("No item at \(path).")
      }
      return (item(row, reference: reference), withSecret ? row.data.map { Array($0) } : nil)
    } catch let error as BusError {
      throw error
    } catch let error as SecStatus where error.code == errSecInteractionNotAllowed {
      throw busError(error)
    } catch {
      throw .noSuchObject("No item at \(path).")
    }
  }

  /// Creates an item (or, with `replace`, replaces the one with exactly these attributes, once
  /// `beforeReplacing` allows it for that item's path): its path, and whether it replaced one.
  /// The path comes from the stored row's reference; nothing is read back.
  func create(
    label: String, attributes: [String: String], secret: [UInt8], contentType: String, replace: Bool,
    beforeReplacing: (String) throws(BusError) -> Void
  ) throws(BusError) -> (path: String, replaced: Bool) {
    let encodedAttributes = try Self.checkBounds(attributes)
    try Self.checkContentType(contentType)
    // A program that names no content type stores text, as libsecret assumes.
    let contentType = contentType.isEmpty ? SecretServiceAttributes.defaultContentType : contentType
    if replace, let first = try search(attributes).first(where: { $0.attributes == attributes }) {
      try beforeReplacing(first.path)
      try update(first, label: label, attributes: nil, secret: secret, contentType: contentType)
      return (first.path, true)
    }
    var add = SecretServiceAttributes.addition(
      group: collection.group, label: label, attributes: attributes, secret: Data(secret),
      encodedAttributes: encodedAttributes)
    if contentType != SecretServiceAttributes.defaultContentType {
      add[SecConstantValue.attrDescription] = contentType
    }
    let stored: StoredItem
    do {
      do {
        stored = try engine.add(try Self.request(add))
      } catch  where error.code == errSecDuplicateItem {
        // Another item has this service and account: this one is told apart by its view hint.
        add[SecConstantValue.attrSyncViewHint] = SecretServiceAttributes.distinctViewHint()
        stored = try engine.add(try Self.request(add))
      }
    } catch {
      throw Self.busError(error)
    }
    return (path(of: stored.persistentID), false)
  }

  /// Changes an item's label, attributes or secret (and the secret's content type with it).
  func update(
    _ item: Item, label: String?, attributes: [String: String]?, secret: [UInt8]?, contentType: String? = nil
  ) throws(BusError) {
    var query: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword,
      SecConstantValue.valuePersistentRef: item.persistentReference,
    ]
    if !interactive { query[SecConstantValue.useAuthenticationUI] = SecConstantValue.useAuthenticationUIFail }
    var changes: RequestEntries = []
    if let label { changes.append((SecConstantValue.attrLabel, .string(label))) }
    if let attributes {
      changes.append((SecConstantValue.attrGeneric, .data(try Self.checkBounds(attributes))))
      if let service = attributes["service"] { changes.append((SecConstantValue.attrService, .string(service))) }
      if let account = attributes["username"] ?? attributes["account"] {
        changes.append((SecConstantValue.attrAccount, .string(account)))
      }
    }
    if let secret { changes.append((SecConstantValue.valueData, .data(Data(secret)))) }
    if let contentType, !contentType.isEmpty, contentType != item.contentType {
      try Self.checkContentType(contentType)
      changes.append((SecConstantValue.attrDescription, .string(contentType)))
    }
    guard !changes.isEmpty else { return }
    if secret == nil {
      // A label or attributes changed through the bus need what reading the secret needs: an item
      // that asks for the user is not relabelled unasked (issue 63). The secret read is wiped.
      var read = try itemAndSecret(at: item.path)
      Secrets.wipe(&read.secret)
    }
    do {
      try engine.update(try Self.request(query), changes: changes)
    } catch {
      throw busError(error)
    }
  }

  /// Deletes the item at `path`, or NoSuchObject. The row is found by its reference alone, by an
  /// engine confined to this collection's group, so that a path under one collection never names
  /// another's item; it is not read first.
  func delete(at path: String) throws(BusError) {
    guard let reference = persistentReference(at: path) else { throw .noSuchObject("No item at \(path).") }
    let confined = SecItemEngine(
      storage: engine.storage, accessGroups: [collection.group], authenticator: engine.authenticator,
      backend: engine.backend, clock: engine.clock, programName: engine.programName)
    let query: [String: Any] = [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword, SecConstantValue.valuePersistentRef: reference,
    ]
    do {
      try confined.delete(try Self.request(query))
    } catch  where error.code == errSecItemNotFound {
      throw .noSuchObject("No item at \(path).")
    } catch {
      throw Self.busError(error)
    }
  }

  /// A row of the search as a bus item.
  private func item(_ row: SearchedItem, reference: Data) -> Item {
    // Only data holds the Secret Service's JSON: text in the generic attribute is an Apple-API value.
    let stored = (row.value(SecConstantValue.attrGeneric) as? Data).flatMap(SecretServiceAttributes.decoded)
    let attributes =
      stored
      ?? SecretServiceAttributes.derived(
        service: row.string(SecConstantValue.attrService), account: row.string(SecConstantValue.attrAccount))
    var item = Item(
      path: path(of: reference), persistentReference: reference, label: row.string(SecConstantValue.attrLabel) ?? "",
      attributes: attributes, created: row.date(SecConstantValue.attrCreationDate),
      modified: row.date(SecConstantValue.attrModificationDate))
    // Only an item the Secret Service wrote keeps a content type in its kind: an Apple-API item's
    // kind ("application password") is no MIME type.
    if stored != nil, let kind = row.string(SecConstantValue.attrDescription), !kind.isEmpty {
      item.contentType = kind
    }
    return item
  }

  /// Refuses a content type the store would not keep as given: longer than the bound, or with
  /// control characters. Any other text is kept ("text/plain; charset=utf8" included).
  private static func checkContentType(_ contentType: String) throws(BusError) {
    guard contentType.utf8.count <= SecretServiceAttributes.maximumContentTypeLength,
      !contentType.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else {
      throw .invalidArguments(
        "A secret's content type is a MIME type such as text/plain, at most "
          + "\(SecretServiceAttributes.maximumContentTypeLength) bytes without control characters.")
    }
  }

  /// The attributes as the generic attribute keeps them, or InvalidArgs when the store would not
  /// read them back as they are (encoded once: the encoding is both the bound and the value).
  private static func checkBounds(_ attributes: [String: String]) throws(BusError) -> Data {
    let encoded = SecretServiceAttributes.encoded(attributes)
    guard attributes.count <= SecretServiceAttributes.maximumCount,
      encoded.count <= SecretServiceAttributes.maximumEncodedLength
    else {
      throw .invalidArguments(
        "An item keeps at most \(SecretServiceAttributes.maximumCount) attributes, 64 KiB of them in all.")
    }
    return encoded
  }

  /// A request from `pairs`, read by the keychain's grammar without a Foundation dictionary
  /// (bridging one was a twentieth of the agent's time).
  private static func request(_ pairs: [String: Any]) throws(SecStatus) -> ItemRequest {
    try ItemRequest.reading(entries: pairs.map { ($0.key, RequestValue($0.value)) })
  }

  /// A keychain status as the bus's error, telling an item that needs the user from a locked
  /// store: both answer errSecInteractionNotAllowed.
  func busError(_ status: SecStatus) -> BusError {
    status.code == errSecInteractionNotAllowed && !engine.storage.isLocked ? .needsUser : Self.busError(status)
  }

  /// A keychain status as the bus's error.
  static func busError(_ status: SecStatus) -> BusError {
    switch status.code {
    case errSecItemNotFound: .noSuchObject("No such item.")
    case errSecInteractionNotAllowed: .isLocked("The keychain is locked.")
    case errSecMissingEntitlement: .accessDenied("The keychain's policy does not give this program the item.")
    default:
      .failed(status.detail ?? (SecCopyErrorMessageString(status.code, nil) as String?) ?? "The keychain failed.")
    }
  }
}

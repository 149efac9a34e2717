import Foundation
@_spi(KeychainBridge) import Security

/// A typed description of keychain items of one class: what to add, or what to find, change or
/// delete. The generated builders (`GenericPassword`, `InternetPassword`, `KeyQuery`...) conform.
///
/// A description is its class, the attributes its methods set, and, for one made from a persistent
/// reference, that reference. Every operation lowers it to exactly one dictionary (two for an
/// update) and one SecItem call; `dictionary` shows what that dictionary holds.
public protocol KeychainRequest: Sendable, Hashable {
  /// The typed result item of this class.
  associatedtype Item: KeychainItem

  /// The attribute changes an update of this class takes.
  associatedtype Changes: KeychainChanges

  /// The class's `kSecClass` value (`kSecClassGenericPassword`...).
  static var itemClass: CFString { get }

  /// The attributes this description sets (`kSecAttr...` keys only: no class, no return keys).
  var attributes: KeychainDictionary { get }

  /// The one item this description stands for, when it was made from a persistent reference.
  var persistentReference: PersistentReference? { get }

  /// A description of this class with these attributes, for the one item `persistentReference`
  /// finds when it is given.
  init(attributes: KeychainDictionary, persistentReference: PersistentReference?)

  /// The dictionary the operations start from: `kSecClass`, the persistent reference when there
  /// is one, and the attributes. A conformance may leave the class out when its references carry it.
  var dictionary: KeychainDictionary { get }

  /// Whether `item()` and `all()` ask for each item's ref (kSecReturnRef): true for the classes
  /// whose items have one (keys, certificates, identities), so their typed items carry it.
  static var returnsReferences: Bool { get }
}

extension KeychainRequest {
  /// Password items have no ref type.
  public static var returnsReferences: Bool { false }

  /// Every item of this class; the attribute methods narrow it.
  public init() { self.init(attributes: KeychainDictionary(minimumCapacity: 8), persistentReference: nil) }

  /// The one item `reference` identifies.
  public init(reference: PersistentReference) {
    self.init(attributes: KeychainDictionary(minimumCapacity: 8), persistentReference: reference)
  }

  /// `kSecClass`, the persistent reference when there is one, and the attributes.
  public var dictionary: KeychainDictionary {
    var dictionary = attributes
    // The class, the reference, and what an operation adds (return keys, the limit, the data).
    dictionary.reserveCapacity(adding: 6)
    dictionary[kSecClass] = .string(Self.itemClass.description)
    if let persistentReference { dictionary[kSecValuePersistentRef] = .data(persistentReference.data) }
    return dictionary
  }

  /// This description with `changes` applied: each attribute `changes` sets replaces this one's.
  public func merging(_ changes: Changes) -> Self {
    var merged = attributes
    for (key, value) in changes.attributes.entries { merged[key] = value }
    return Self(attributes: merged, persistentReference: persistentReference)
  }
}

/// Attribute changes for the items of one class: what `update(_:data:)` and `set(_:changing:)`
/// change, and what `merging(_:)` applies to a description. Each generated builder has one
/// (`GenericPassword.Changes`), with a method per attribute that an item of its class can change.
public protocol KeychainChanges: Sendable, Hashable {
  /// The attributes these changes set (`kSecAttr...` keys only).
  var attributes: KeychainDictionary { get }

  /// Changes that set these attributes.
  init(attributes: KeychainDictionary)
}

extension KeychainChanges {
  /// No change yet; the attribute methods add them.
  public init() { self.init(attributes: KeychainDictionary(minimumCapacity: 8)) }
}

/// A typed item as a search returns it.
public protocol KeychainItem: Sendable, Hashable {
  /// Reads the item from a search result.
  init(result: ItemAttributes)

  /// The item's secret, when the search asked for it.
  var data: Data? { get }

  /// The item's persistent reference.
  var persistentReference: PersistentReference? { get }
}

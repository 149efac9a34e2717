import Foundation
@_spi(KeychainBridge) import Security

/// A typed description of keychain items of one class: what to add, or what to find, change or
/// delete. The generated builders (`GenericPassword`, `InternetPassword`...) conform.
///
/// Every operation lowers to exactly one dictionary (two for an update) and one SecItem call.
public protocol KeychainRequest: Sendable, Hashable {
  /// The typed result item of this class.
  associatedtype Item: KeychainItem

  /// The dictionary this description lowers to, `kSecClass` included.
  var attributes: KeychainDictionary { get }

  /// Wraps a lowered dictionary (the generated setters build on it).
  init(lowered attributes: KeychainDictionary)

  /// Whether `item()` and `all()` ask for each item's ref (kSecReturnRef): true for the classes
  /// whose items have one (keys, certificates, identities), so their typed items carry it.
  static var returnsReferences: Bool { get }
}

extension KeychainRequest {
  /// Password items have no ref type.
  public static var returnsReferences: Bool { false }
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

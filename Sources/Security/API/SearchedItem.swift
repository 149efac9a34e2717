import Foundation

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
  let attributes: SortedAttributes
  package let accessControl: SecAccessControl?
  package let data: Data?
  package let persistentReference: Data?
  package let reference: AnyObject?

  init(
    attributes: SortedAttributes, accessControl: SecAccessControl?, data: Data?, persistentReference: Data?,
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
    // The binary search compares small strings, with no hashing (SortedAttributes).
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

import Foundation

/// How a Secret Service item is kept as a keychain item (the SecretService article): a generic
/// password whose every attribute is kept exactly, as JSON with sorted keys, in the generic
/// attribute (`kSecAttrGeneric`), with `service` also its service and `username`, else `account`,
/// its account; a secret's content type other than text/plain is its kind (`kSecAttrDescription`).
/// The agent's Secret Service and `security import-gnome-keyring` both write items this way, so
/// what one writes the other, and Apple's API, read.
package enum SecretServiceAttributes {
  /// The most attributes one item keeps, and the longest JSON of them: a Secret Service item has a
  /// handful; the JSON is read back on every search.
  package static let maximumCount = 256
  package static let maximumEncodedLength = 64 * 1024
  /// The content type of a secret whose program named none, kept by storing nothing.
  package static let defaultContentType = "text/plain"
  /// The longest content type kept (in the item's kind, kSecAttrDescription).
  package static let maximumContentTypeLength = 255

  /// The attributes as the generic attribute keeps them.
  package static func encoded(_ attributes: [String: String]) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return (try? encoder.encode(attributes)) ?? Data("{}".utf8)
  }

  /// The attributes a generic attribute keeps, or nil when it holds no such JSON (an item added
  /// through Apple's API) or more than the bounds allow.
  package static func decoded(_ generic: Data) -> [String: String]? {
    // JSONSerialization rather than JSONDecoder: every search and lookup decodes one object per
    // item, and the decoder's Decodable machinery took 2.4 times as long for the same answer.
    guard generic.count <= maximumEncodedLength, generic.first == UInt8(ascii: "{"),
      let attributes = (try? JSONSerialization.jsonObject(with: generic)) as? [String: String],
      attributes.count <= maximumCount
    else { return nil }
    return attributes
  }

  /// The service and account an item with `attributes` has in the keychain.
  package static func serviceAndAccount(of attributes: [String: String]) -> (service: String, account: String) {
    (attributes["service"] ?? "", attributes["username"] ?? attributes["account"] ?? "")
  }

  /// The attributes an Apple-API item (no JSON) shows: `service`, `username` and `account` from
  /// its service and account.
  package static func derived(service: String?, account: String?) -> [String: String] {
    var attributes: [String: String] = [:]
    if let service { attributes["service"] = service }
    if let account {
      attributes["username"] = account
      attributes["account"] = account
    }
    return attributes
  }

  /// The view hint that keeps a second item with the same service and account apart (the
  /// Secret Service allows two items with equal attributes; Apple's key would not).
  package static func distinctViewHint() -> String { "org.freedesktop.secrets/\(UUID().uuidString)" }

  /// The dictionary that adds an item with `attributes`, `label` and `secret` to `group`;
  /// `encodedAttributes` is `encoded(attributes)` when the caller has it already.
  package static func addition(
    group: String, label: String, attributes: [String: String], secret: Data, encodedAttributes: Data? = nil
  ) -> [String: Any] {
    let (service, account) = serviceAndAccount(of: attributes)
    return [
      SecConstantValue.`class`: SecConstantValue.classGenericPassword, SecConstantValue.attrAccessGroup: group,
      SecConstantValue.attrService: service, SecConstantValue.attrAccount: account, SecConstantValue.attrLabel: label,
      SecConstantValue.attrGeneric: encodedAttributes ?? encoded(attributes), SecConstantValue.valueData: secret,
    ]
  }
}

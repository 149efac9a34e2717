// keys rule 10.4 and rule 6.7: Linux has no LAContext, biometry or
// passcode prompt, so an item whose access control asks for user authentication is stored and its
// attributes are readable, but its secret (data, or the key a ref would carry) is never handed out:
// the read answers errSecInteractionNotAllowed, as Apple does when it may not show the prompt
// (kSecUseAuthenticationUIFail), and kSecUseAuthenticationUISkip leaves such items out instead.

/// Decides which found items a search may hand out secrets of.
enum AuthenticationPolicy {
  /// Whether a search of `itemClass` with these return flags reads a secret: the data, or a ref (a
  /// key's ref is its key material, a certificate's is made from its data, an identity's holds its
  /// private key; password items have no ref, so for them kSecReturnRef reads nothing). Attributes
  /// and persistent references are metadata, readable without authentication.
  static func readsSecrets(_ flags: ReturnFlags, of itemClass: ItemClass?) -> Bool {
    if flags.contains(.data) { return true }
    guard flags.contains(.ref) else { return false }
    switch itemClass {
    case .genericPassword?, .internetPassword?: return false
    default: return true
    }
  }

  /// Whether the query asks for items that need authentication to be skipped (rule 6.7).
  static func skipsConstrainedItems(_ request: ItemRequest) -> Bool {
    request.useKeys[SecConstantValue.useAuthenticationUI].flatMap(ValueConversion.string)
      == SecConstantValue.useAuthenticationUISkip
  }

  /// Whether reading the item's secret would need user authentication.
  static func needsAuthentication(_ item: StoredItem) -> Bool {
    item.accessControl?.flags.hasConstraints ?? false
  }

  /// The items a secret-reading search may return: every one, when none needs authentication;
  /// with `skipping`, those that do not (at most `limit` of them); otherwise the search fails.
  static func admit(_ items: [StoredItem], skipping: Bool, limit: Int?) throws(SecStatus) -> [StoredItem] {
    guard items.contains(where: needsAuthentication) || skipping else { return items }
    guard skipping else {
      throw SecStatus.interactionNotAllowed.naming(
        SecConstantValue.attrAccessControl, "asks for user authentication, which Linux cannot perform")
    }
    let admitted = items.filter { !needsAuthentication($0) }
    guard let limit else { return admitted }
    return Array(admitted.prefix(limit))
  }
}

import Foundation

/// The names of Apple's constants for the strings they stand for, so that tools can show
/// `kSecAttrAccount` where a dictionary holds "acct".
package enum SecConstantNames {
  /// Where two constants share a string, the name Apple's public headers use.
  private static let preferred: [String: String] = [
    SecConstantValue.useDataProtectionKeychain: "kSecUseDataProtectionKeychain",
    SecConstantValue.attrPersistentReference: "kSecAttrPersistentReference",
  ]

  private static let names: [String: String] = {
    var names: [String: String] = [:]
    for (name, value) in secItemConstantTable where names[value as String] == nil {
      names[value as String] = name
    }
    return names.merging(preferred) { _, preferred in preferred }
  }()

  /// The constant whose string is `code` ("acct" gives "kSecAttrAccount", "ak" gives
  /// "kSecAttrAccessibleWhenUnlocked"), or nil when no constant has it.
  public static func name(for code: String) -> String? {
    names[code]
  }
}

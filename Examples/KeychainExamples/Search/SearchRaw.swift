import Foundation
import Security

extension SearchExample {
  public static let rawSource = #filePath

  public static func raw(_ environment: ExampleEnvironment) -> [String] {
    for (service, account, label) in genericItems {
      let attributes: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
        kSecAttrAccount as String: account, kSecAttrLabel as String: label,
      ]
      _ = SecItemAdd(attributes as CFDictionary, nil)
    }
    for (server, account) in internetItems {
      let attributes: [String: Any] = [
        kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
        kSecAttrAccount as String: account,
      ]
      _ = SecItemAdd(attributes as CFDictionary, nil)
    }
    func accounts(_ query: [String: Any]) -> String {
      var query = query
      query[kSecReturnAttributes as String] = true
      query[kSecReturnPersistentRef as String] = true
      query[kSecMatchLimit as String] = kSecMatchLimitAll
      var result: CFTypeRef?
      let status = SecItemCopyMatching(query as CFDictionary, &result)
      guard status == errSecSuccess, let items = result as? [[String: Any]] else { return "none" }
      return items.compactMap { $0[kSecAttrAccount as String] as? String }.joined(separator: ", ")
    }
    return [
      "service mail: " + accounts([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "mail"]),
      "label work: " + accounts([kSecClass as String: kSecClassGenericPassword, kSecAttrLabel as String: "work"]),
      "server example.com: "
        + accounts([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com"]),
      "server nowhere.org: "
        + accounts([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "nowhere.org"]),
    ]
  }
}

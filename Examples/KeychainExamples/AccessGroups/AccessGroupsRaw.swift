import Foundation
import Security

extension AccessGroupsExample {
  public static let rawSource = #filePath

  public static func raw(_ environment: ExampleEnvironment) -> [String] {
    func token(_ account: String, group: String? = nil) -> [String: Any] {
      var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.sync",
        kSecAttrAccount as String: account,
      ]
      if let group { query[kSecAttrAccessGroup as String] = group }
      return query
    }
    func read(_ query: [String: Any]) -> String {
      var query = query
      query[kSecReturnData as String] = true
      query[kSecMatchLimit as String] = kSecMatchLimitOne
      var result: CFTypeRef?
      let status = SecItemCopyMatching(query as CFDictionary, &result)
      return (result as? Data).map { String(decoding: $0, as: UTF8.self) }
        ?? (status == errSecItemNotFound ? "absent" : "error \(status)")
    }
    func add(_ query: [String: Any], _ secret: String) -> String {
      var attributes = query
      attributes[kSecValueData as String] = Data(secret.utf8)
      return describe(SecItemAdd(attributes as CFDictionary, nil))
    }
    var log: [String] = []
    environment.asApp(appA) {
      log.append("A adds its own token: \(add(token("a-private"), "a-secret"))")
      log.append("A adds a shared token: \(add(token("shared", group: sharedGroup), "shared-secret"))")
    }
    environment.asApp(appB) {
      log.append("B reads A's token: \(read(token("a-private")))")
      log.append("B reads the shared token: \(read(token("shared")))")
      log.append("B adds into A's group: \(add(token("b-intruder", group: appA[0]), "x"))")
      log.append("B reads from A's group: \(read(token("a-private", group: appA[0])))")
      log.append("B adds its own token: \(add(token("b-private"), "b-secret"))")
    }
    environment.asApp(appA) {
      log.append("A reads B's token: \(read(token("b-private")))")
      log.append("A reads its own token: \(read(token("a-private")))")
    }
    return log
  }
}

import Foundation
import Security

/// Which passwords a wrapper manages, as a raw query.
enum RawPasswordQuery {
  case generic(service: String)
  case internet(
    server: String, port: Int, path: String, securityDomain: String, protocol: CFString, authenticationType: CFString)

  var query: [String: Any] {
    switch self {
    case .generic(let service):
      return [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
    case .internet(let server, let port, let path, let domain, let internetProtocol, let authenticationType):
      return [
        kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server, kSecAttrPort as String: port,
        kSecAttrPath as String: path, kSecAttrSecurityDomain as String: domain,
        kSecAttrProtocol as String: internetProtocol, kSecAttrAuthenticationType as String: authenticationType,
      ]
    }
  }
}

/// A password wrapper over a configurable query, with the raw Security API.
struct RawPasswordWrapper {
  /// Failures, with readable messages.
  enum WrapperError: Error, CustomStringConvertible {
    case keychain(OSStatus)
    case notText

    var description: String {
      switch self {
      case .keychain(let status): (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
      case .notText: "The stored password is not UTF-8 text."
      }
    }
  }

  let base: RawPasswordQuery

  private func query(account: String) -> [String: Any] {
    var query = base.query
    query[kSecAttrAccount as String] = account
    return query
  }

  func set(_ password: String, account: String) throws(WrapperError) {
    let changes: [String: Any] = [kSecValueData as String: Data(password.utf8)]
    var status = SecItemUpdate(query(account: account) as CFDictionary, changes as CFDictionary)
    if status == errSecItemNotFound {
      var attributes = query(account: account)
      attributes[kSecValueData as String] = Data(password.utf8)
      status = SecItemAdd(attributes as CFDictionary, nil)
    }
    guard status == errSecSuccess else { throw .keychain(status) }
  }

  func get(account: String) throws(WrapperError) -> String? {
    var query = query(account: account)
    query[kSecReturnData as String] = true
    query[kSecMatchLimit as String] = kSecMatchLimitOne
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    if status == errSecItemNotFound { return nil }
    guard status == errSecSuccess else { throw .keychain(status) }
    guard let data = result as? Data, let text = String(data: data, encoding: .utf8) else { throw .notText }
    return text
  }

  func remove(account: String) throws(WrapperError) {
    let status = SecItemDelete(query(account: account) as CFDictionary)
    guard status == errSecSuccess || status == errSecItemNotFound else { throw .keychain(status) }
  }

  func removeAll() throws(WrapperError) {
    let status = SecItemDelete(base.query as CFDictionary)
    guard status == errSecSuccess || status == errSecItemNotFound else { throw .keychain(status) }
  }
}

extension PasswordWrapperExample {
  public static let rawSource = #filePath

  public static func raw(_ environment: ExampleEnvironment) -> [String] {
    let wrappers = [
      ("generic", RawPasswordWrapper(base: .generic(service: "com.example.mail"))),
      (
        "internet",
        RawPasswordWrapper(
          base: .internet(
            server: "example.com", port: 443, path: "/login", securityDomain: "example",
            protocol: kSecAttrProtocolHTTPS, authenticationType: kSecAttrAuthenticationTypeHTMLForm))
      ),
    ]
    var log: [String] = []
    for (label, wrapper) in wrappers {
      func step(_ name: String, _ body: () throws -> String) {
        do { log.append("\(label) \(name): \(try body())") } catch { log.append("\(label) \(name): \(error)") }
      }
      step("set alice") {
        try wrapper.set("alice-1", account: "alice"); return "ok"
      }
      step("set alice again") {
        try wrapper.set("alice-2", account: "alice"); return "ok"
      }
      step("set bob") {
        try wrapper.set("bob-1", account: "bob"); return "ok"
      }
      step("get alice") { try wrapper.get(account: "alice") ?? "absent" }
      step("remove alice") {
        try wrapper.remove(account: "alice"); return "ok"
      }
      step("get alice") { try wrapper.get(account: "alice") ?? "absent" }
      step("remove all") {
        try wrapper.removeAll(); return "ok"
      }
      step("get bob") { try wrapper.get(account: "bob") ?? "absent" }
    }
    return log
  }
}

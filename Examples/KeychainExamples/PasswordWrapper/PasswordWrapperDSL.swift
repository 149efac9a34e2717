import Foundation
import Keychain

/// A password wrapper over a configurable description of items, with the DSL.
struct PasswordWrapper<Request: KeychainRequest> {
  /// Failures, with readable messages.
  enum WrapperError: Error, CustomStringConvertible {
    case keychain(KeychainError)

    var description: String {
      switch self {
      case .keychain(let error): error.message
      }
    }
  }

  /// All the passwords this wrapper manages.
  let all: Request
  /// The one password of an account.
  let account: (String) -> Request

  func set(_ password: String, account name: String) throws(WrapperError) {
    try account(name).set(password).mapError(WrapperError.keychain).get()
  }

  func get(account name: String) throws(WrapperError) -> String? {
    try account(name).string().mapError(WrapperError.keychain).get()
  }

  func remove(account name: String) throws(WrapperError) {
    _ = try account(name).delete().mapError(WrapperError.keychain).get()
  }

  func removeAll() throws(WrapperError) {
    _ = try all.delete().mapError(WrapperError.keychain).get()
  }
}

/// Example 2: a password wrapper for generic and internet passwords.
public enum PasswordWrapperExample: KeychainExample {
  public static let name = "password-wrapper"
  public static let title = "Password wrapper over a configurable query: set, get, remove one, remove all"
  public static let dslSource = #filePath

  static func exercise<Request>(_ label: String, _ wrapper: PasswordWrapper<Request>, into log: inout [String]) {
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

  public static func dsl(_ environment: ExampleEnvironment) -> [String] {
    let mail = GenericPassword().service("com.example.mail")
    let web = InternetPassword().server("example.com").port(443).path("/login").securityDomain("example")
      .protocol(.https).authenticationType(.htmlForm)
    var log: [String] = []
    exercise("generic", PasswordWrapper(all: mail, account: { mail.account($0) }), into: &log)
    exercise("internet", PasswordWrapper(all: web, account: { web.account($0) }), into: &log)
    return log
  }
}

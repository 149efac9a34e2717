import Foundation
import Keychain

/// Example 5: a secret readable only while unlocked, replaced while locked.
public enum LockStateExample: KeychainExample {
  public static let name = "lock-state"
  public static let title = "Lock state: WhenUnlocked data while locked; a failed replace keeps the old secret"
  public static let dslSource = #filePath

  static let secret = GenericPassword().service("com.example.vault").account("master").accessibility(.whenUnlocked)

  public static func dsl(_ environment: ExampleEnvironment) -> [String] {
    var log = ["store: \(describe(secret.set("original")))"]
    environment.lockDevice()
    log.append("read while locked: \(describe(secret.string()))")
    log.append("replace while locked: \(describe(secret.set("new")))")
    environment.unlockDevice()
    switch secret.string() {
    case .success(let value): log.append("read after unlock: \(value ?? "error \(KeychainError.itemNotFound.status)")")
    case .failure(let error): log.append("read after unlock: error \(error.status)")
    }
    return log
  }
}

import Foundation
import Keychain

/// Example 6: two apps sharing one access group and isolated otherwise.
public enum AccessGroupsExample: KeychainExample {
  public static let name = "access-groups"
  public static let title = "Access groups: two apps share one group and cannot see each other's own items"
  public static let dslSource = #filePath

  static let sharedGroup = "com.example.shared"
  static let appA = ["com.example.app-a", sharedGroup]
  static let appB = ["com.example.app-b", sharedGroup]

  public static func dsl(_ environment: ExampleEnvironment) -> [String] {
    func token(_ account: String, group: String? = nil) -> GenericPassword {
      let item = GenericPassword().service("com.example.sync").account(account)
      return group.map { item.accessGroup($0) } ?? item
    }
    func read(_ item: GenericPassword) -> String {
      switch item.string() {
      case .success(let value): value ?? "absent"
      case .failure(let error): "error \(error.status)"
      }
    }
    var log: [String] = []
    environment.asApp(appA) {
      log.append("A adds its own token: \(describe(token("a-private").add("a-secret")))")
      log.append("A adds a shared token: \(describe(token("shared", group: sharedGroup).add("shared-secret")))")
    }
    environment.asApp(appB) {
      log.append("B reads A's token: \(read(token("a-private")))")
      log.append("B reads the shared token: \(read(token("shared")))")
      log.append("B adds into A's group: \(describe(token("b-intruder", group: appA[0]).add("x")))")
      log.append("B reads from A's group: \(read(token("a-private", group: appA[0])))")
      log.append("B adds its own token: \(describe(token("b-private").add("b-secret")))")
    }
    environment.asApp(appA) {
      log.append("A reads B's token: \(read(token("b-private")))")
      log.append("A reads its own token: \(read(token("a-private")))")
    }
    return log
  }
}

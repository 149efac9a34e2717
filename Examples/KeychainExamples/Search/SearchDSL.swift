import Foundation
import Keychain

/// Example 7: searches by attributes.
public enum SearchExample: KeychainExample {
  public static let name = "search"
  public static let title = "Search by attributes: a service's items, items with a label, a server's passwords"
  public static let dslSource = #filePath

  static let genericItems = [
    ("mail", "alice", "work"), ("mail", "bob", "home"), ("chat", "carol", "work"), ("mail", "dave", "work"),
  ]
  static let internetItems = [("example.com", "erin"), ("other.net", "frank"), ("example.com", "grace")]

  public static func dsl(_ environment: ExampleEnvironment) -> [String] {
    for (service, account, label) in genericItems {
      _ = GenericPassword().service(service).account(account).label(label).add()
    }
    for (server, account) in internetItems {
      _ = InternetPassword().server(server).account(account).add()
    }
    func accounts<Request: KeychainRequest>(_ request: Request, _ account: (Request.Item) -> String?) -> String {
      let items = (try? request.all().get()) ?? []
      return items.isEmpty ? "none" : items.compactMap(account).joined(separator: ", ")
    }
    return [
      "service mail: " + accounts(GenericPassword().service("mail")) { $0.account },
      "label work: " + accounts(GenericPassword().label("work")) { $0.account },
      "server example.com: " + accounts(InternetPassword().server("example.com")) { $0.account },
      "server nowhere.org: " + accounts(InternetPassword().server("nowhere.org")) { $0.account },
    ]
  }
}

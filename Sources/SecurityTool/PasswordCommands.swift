import ArgumentParser
import Foundation
import Keychain
@_spi(KeychainBridge) import Security

// MARK: Shared by both classes

/// find-*-password: the first match, printed as macOS prints it, with -g or -w for the password.
func findAndPrint<Request: KeychainRequest>(
  _ request: Request, store: StoreOption, showPassword: Bool, passwordOnly: Bool,
  lines: (Request.Item, String) -> [String]
) throws {
  try runReportingFailures {
    let opened = try store.open()
    guard let item = try request.item(includingData: showPassword || passwordOnly).orFail("SecKeychainSearchCopyNext")
    else { throw notFound("SecKeychainSearchCopyNext") }
    if passwordOnly {
      print(String(decoding: item.data ?? Data(), as: UTF8.self))
      return
    }
    printLines(lines(item, opened.directory.path))
    if showPassword { FileHandle.standardError.write(Data((ItemFormatting.passwordLine(item.data) + "\n").utf8)) }
  }
}

/// delete-*-password: prints the first match, then deletes exactly that item (by its reference).
func deleteFirst<Request: KeychainRequest>(
  _ request: Request, store: StoreOption, lines: (Request.Item, String) -> [String]
) throws {
  try runReportingFailures {
    let opened = try store.open()
    guard let item = try request.item().orFail("SecKeychainSearchCopyNext"), let reference = item.persistentReference
    else { throw notFound("SecKeychainSearchCopyNext") }
    printLines(lines(item, opened.directory.path))
    _ = try Request(lowered: KeychainDictionary([kSecValuePersistentRef as String: .data(reference.data)])).delete()
      .orFail("SecKeychainItemDelete")
    print("password has been deleted.")
  }
}

/// `-g | -w` of the find commands.
struct PasswordDisplay: ParsableArguments {
  @Flag(name: .customShort("g"), help: "Also print the password (to standard error).") var showPassword = false
  @Flag(name: .customShort("w"), help: "Print only the password.") var passwordOnly = false

  func validate() throws {
    if showPassword && passwordOnly { throw ValidationError("-g and -w cannot be used together") }
  }
}

// MARK: Generic passwords

struct AddGenericPassword: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add-generic-password", abstract: "Add a generic password item.")

  @OptionGroup var store: StoreOption
  @Option(name: .customShort("a"), help: ArgumentHelp("Account name (required).", valueName: "account")) var account:
    String
  @Option(name: .customShort("s"), help: ArgumentHelp("Service name (required).", valueName: "service")) var service:
    String
  @Option(name: .customShort("w"), help: ArgumentHelp("The password.", valueName: "password")) var password: String = ""
  @Option(name: .customShort("l"), help: ArgumentHelp("Label (default: the service name).", valueName: "label"))
  var label: String?
  @Option(name: .customShort("j"), help: ArgumentHelp("Comment.", valueName: "comment")) var comment: String?
  @Option(name: .customShort("D"), help: ArgumentHelp("Kind (description).", valueName: "kind")) var kind: String?
  @Flag(name: .customShort("U"), help: "Update the item if it already exists (otherwise that is an error).")
  var update = false

  func run() throws {
    try runReportingFailures {
      _ = try store.open()
      let item = GenericPassword().account(account).service(service)
      // The default label (the service) is for new items; -U without -l keeps an item's label.
      let exists = update ? try item.exists().orFail("SecKeychainSearchCopyNext") : false
      var attributes = GenericPassword()
      if let label = label ?? (exists ? nil : service) { attributes = attributes.label(label) }
      if let comment { attributes = attributes.comment(comment) }
      if let kind { attributes = attributes.description(kind) }
      let data = Data(password.utf8)
      if update {
        try item.set(data, changing: attributes).orFail("SecKeychainItemModifyContent")
      } else {
        try GenericPassword(
          lowered: KeychainDictionary(item.attributes.entries.merging(attributes.attributes.entries) { $1 })
        )
        .add(data).orFail("SecKeychainItemCreateFromContent")
      }
    }
  }
}

/// `-a -s -l` matching options of the generic-password find and delete commands.
struct GenericPasswordMatch: ParsableArguments {
  @Option(name: .customShort("a"), help: ArgumentHelp("Match the account name.", valueName: "account")) var account:
    String?
  @Option(name: .customShort("s"), help: ArgumentHelp("Match the service name.", valueName: "service")) var service:
    String?
  @Option(name: .customShort("l"), help: ArgumentHelp("Match the label.", valueName: "label")) var label: String?

  var request: GenericPassword {
    var request = GenericPassword()
    if let account { request = request.account(account) }
    if let service { request = request.service(service) }
    if let label { request = request.label(label) }
    return request
  }
}

struct FindGenericPassword: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "find-generic-password", abstract: "Find a generic password item and print its attributes.")

  @OptionGroup var store: StoreOption
  @OptionGroup var match: GenericPasswordMatch
  @OptionGroup var display: PasswordDisplay

  func run() throws {
    try findAndPrint(
      match.request, store: store, showPassword: display.showPassword, passwordOnly: display.passwordOnly
    ) {
      ItemFormatting.lines($0, store: $1)
    }
  }
}

struct DeleteGenericPassword: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete-generic-password", abstract: "Delete the first matching generic password item.")

  @OptionGroup var store: StoreOption
  @OptionGroup var match: GenericPasswordMatch

  func run() throws {
    try deleteFirst(match.request, store: store) { ItemFormatting.lines($0, store: $1) }
  }
}

// MARK: Internet passwords

/// The internet-password attributes shared by add, find and delete.
struct InternetPasswordOptions: ParsableArguments {
  @Option(name: .customShort("a"), help: ArgumentHelp("Account name.", valueName: "account")) var account: String?
  @Option(name: .customShort("s"), help: ArgumentHelp("Server name.", valueName: "server")) var server: String?
  @Option(
    name: .customShort("r"),
    help: ArgumentHelp("Protocol, a four-character code such as \"htps\".", valueName: "protocol"))
  var internetProtocol: String?
  @Option(name: .customShort("P"), help: ArgumentHelp("Port number.", valueName: "port")) var port: Int?
  @Option(name: .customShort("p"), help: ArgumentHelp("Path.", valueName: "path")) var path: String?
  @Option(name: .customShort("d"), help: ArgumentHelp("Security domain.", valueName: "domain")) var securityDomain:
    String?
  @Option(
    name: .customShort("t"),
    help: ArgumentHelp("Authentication type, a four-character code such as \"form\".", valueName: "type"))
  var authenticationType: String?

  /// A four-character code padded with spaces, as macOS pads "ftp" to "ftp ".
  static func code(_ text: String) -> String {
    text.count < 4 ? text + String(repeating: " ", count: 4 - text.count) : text
  }

  func validate() throws {
    if let port, !(0...65535).contains(port) {
      throw ValidationError("port \(port) is out of range (0 to 65535)")
    }
    if let internetProtocol, InternetProtocol(constant: Self.code(internetProtocol)) == nil {
      throw ValidationError("unknown protocol '\(internetProtocol)' (use a four-character code such as htps or ftp)")
    }
    if let authenticationType, AuthenticationType(constant: Self.code(authenticationType)) == nil {
      throw ValidationError("unknown authentication type '\(authenticationType)' (use a code such as form or dflt)")
    }
  }

  var request: InternetPassword {
    var request = InternetPassword()
    if let account { request = request.account(account) }
    if let server { request = request.server(server) }
    if let internetProtocol, let value = InternetProtocol(constant: Self.code(internetProtocol)) {
      request = request.protocol(value)
    }
    if let port { request = request.port(port) }
    if let path { request = request.path(path) }
    if let securityDomain { request = request.securityDomain(securityDomain) }
    if let authenticationType, let value = AuthenticationType(constant: Self.code(authenticationType)) {
      request = request.authenticationType(value)
    }
    return request
  }
}

struct AddInternetPassword: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add-internet-password", abstract: "Add an internet password item.")

  @OptionGroup var store: StoreOption
  @OptionGroup var options: InternetPasswordOptions
  @Option(name: .customShort("w"), help: ArgumentHelp("The password.", valueName: "password")) var password: String = ""
  @Option(name: .customShort("l"), help: ArgumentHelp("Label (default: the server name).", valueName: "label"))
  var label: String?
  @Option(name: .customShort("j"), help: ArgumentHelp("Comment.", valueName: "comment")) var comment: String?
  @Flag(name: .customShort("U"), help: "Update the item if it already exists (otherwise that is an error).")
  var update = false

  func validate() throws {
    guard options.account != nil, options.server != nil else {
      throw ValidationError("-a ACCOUNT and -s SERVER are required")
    }
  }

  func run() throws {
    try runReportingFailures {
      _ = try store.open()
      let item = options.request
      let exists = update ? try item.exists().orFail("SecKeychainSearchCopyNext") : false
      var attributes = InternetPassword()
      if let label = label ?? (exists ? nil : options.server) { attributes = attributes.label(label) }
      if let comment { attributes = attributes.comment(comment) }
      let data = Data(password.utf8)
      if update {
        try item.set(data, changing: attributes).orFail("SecKeychainItemModifyContent")
      } else {
        try InternetPassword(
          lowered: KeychainDictionary(item.attributes.entries.merging(attributes.attributes.entries) { $1 })
        )
        .add(data).orFail("SecKeychainItemCreateFromContent")
      }
    }
  }
}

struct FindInternetPassword: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "find-internet-password", abstract: "Find an internet password item and print its attributes.")

  @OptionGroup var store: StoreOption
  @OptionGroup var options: InternetPasswordOptions
  @OptionGroup var display: PasswordDisplay

  func run() throws {
    try findAndPrint(
      options.request, store: store, showPassword: display.showPassword, passwordOnly: display.passwordOnly
    ) {
      ItemFormatting.lines($0, store: $1)
    }
  }
}

struct DeleteInternetPassword: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete-internet-password", abstract: "Delete the first matching internet password item.")

  @OptionGroup var store: StoreOption
  @OptionGroup var options: InternetPasswordOptions

  func run() throws {
    try deleteFirst(options.request, store: store) { ItemFormatting.lines($0, store: $1) }
  }
}

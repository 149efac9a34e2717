import ArgumentParser
import Foundation
import Keychain
import KeychainCrypto
import Security
import SecurityCommandLine

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
      print(ItemFormatting.passwordOnly(item.data ?? Data()))
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
    _ = try Request(reference: reference).delete()
      .orFail("SecKeychainItemDelete")
    print("password has been deleted.")
  }
}

/// `-g | -w` of the find commands.
struct PasswordDisplay: ParsableArguments {
  @Flag(name: .customShort("g"), help: "Also print the password (to standard error).") var showPassword = false
  @Flag(
    name: .customShort("w"),
    help: "Print only the password: as text when it is printable ASCII, else in hexadecimal (as on macOS).")
  var passwordOnly = false

  func validate() throws {
    if showPassword && passwordOnly { throw ValidationError("-g and -w cannot be used together") }
  }
}

/// A four-character code (`-c aapl`, `-C note`) as the number macOS stores: the four bytes,
/// big-endian. Nil when `text` is not four ASCII characters.
func fourCharacterCode(_ text: String) -> Int? {
  let bytes = Array(text.utf8)
  guard bytes.count == 4, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
  return bytes.reduce(0) { $0 << 8 | Int($1) }
}

/// `-c -C -D -j`: attributes that add, find and delete of both classes take, as macOS's tool does.
struct ItemAttributeOptions: ParsableArguments {
  @Option(name: .customShort("c"), help: ArgumentHelp("Creator, a four-character code.", valueName: "creator"))
  var creator: String?
  @Option(name: .customShort("C"), help: ArgumentHelp("Type, a four-character code.", valueName: "type"))
  var type: String?
  @Option(name: .customShort("D"), help: ArgumentHelp("Kind (the item's description).", valueName: "kind"))
  var kind: String?
  @Option(name: .customShort("j"), help: ArgumentHelp("Comment.", valueName: "comment")) var comment: String?

  func validate() throws {
    for (flag, code) in [("-c", creator), ("-C", type)] {
      if let code, fourCharacterCode(code) == nil {
        throw ValidationError("\(flag) takes a four-character code such as aapl, not '\(code)'")
      }
    }
  }

  /// These attributes as changes: the same keys for either class.
  func changes<Changes: KeychainChanges>(_ changeType: Changes.Type = Changes.self) -> Changes {
    var added = KeychainDictionary()
    added[kSecAttrCreator] = creator.flatMap(fourCharacterCode).map { .integer($0) }
    added[kSecAttrType] = type.flatMap(fourCharacterCode).map { .integer($0) }
    added[kSecAttrDescription] = kind.map { .string($0) }
    added[kSecAttrComment] = comment.map { .string($0) }
    return Changes(attributes: added)
  }

  /// `request` narrowed, or extended, by these attributes.
  func applied<Request: KeychainRequest>(to request: Request) -> Request { request.merging(changes()) }
}

/// `-w -X -T -A` of the add commands: the password as text or hexadecimal, and macOS's application
/// access lists, which have no meaning here.
struct AddedPassword: ParsableArguments {
  @Option(
    name: .customShort("w"), help: ArgumentHelp("The password (last on the line: prompted).", valueName: "password"))
  var password: String?
  @Option(name: .customShort("X"), help: ArgumentHelp("The password as hexadecimal bytes.", valueName: "hex"))
  var hexPassword: String?
  @Option(
    name: .customShort("T"),
    help: ArgumentHelp(
      "An application allowed to use the item (accepted, not stored: Linux has no such lists).",
      valueName: "application"))
  var applications: [String] = []
  @Flag(name: .customShort("A"), help: "Allow any application (accepted, not stored: Linux has no such lists).")
  var anyApplication = false

  func validate() throws {
    if password != nil && hexPassword != nil { throw ValidationError("-w and -X cannot be used together") }
    if let hexPassword, Self.bytes(hex: hexPassword) == nil {
      throw ValidationError("-X takes an even number of hexadecimal digits")
    }
  }

  static func bytes(hex: String) -> Data? { Hex.decode(hex).map { Data($0) } }

  /// The password's bytes, after saying on standard error that access lists are not kept.
  var data: Data {
    if !applications.isEmpty || anyApplication {
      FileHandle.standardError.write(
        Data(
          ("security: -T and -A set macOS application access lists, which have no meaning on Linux; "
            + "the item is stored without one\n").utf8))
    }
    if let hexPassword, let bytes = Self.bytes(hex: hexPassword) { return bytes }
    return Data((password ?? "").utf8)
  }
}

// MARK: Generic passwords

struct AddGenericPassword: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add-generic-password", abstract: "Add a generic password item.")

  @OptionGroup var store: StoreOption
  @Option(name: .customShort("a"), help: ArgumentHelp("Account name.", valueName: "account")) var account: String?
  @Option(name: .customShort("s"), help: ArgumentHelp("Service name.", valueName: "service")) var service: String?
  @OptionGroup var password: AddedPassword
  @Option(name: .customShort("l"), help: ArgumentHelp("Label (default: the service name).", valueName: "label"))
  var label: String?
  @OptionGroup var attributes: ItemAttributeOptions
  @Option(name: .customShort("G"), help: ArgumentHelp("The generic attribute.", valueName: "value")) var generic:
    String?
  @Flag(name: .customShort("U"), help: "Update the item if it already exists (otherwise that is an error).")
  var update = false
  @Flag(
    name: .customLong("synchronizable"),
    help: "Make the item synchronizable: it follows the keychain's sync group to its other stores.")
  var synchronizable = false

  func run() throws {
    try runReportingFailures {
      _ = try store.open()
      // As on macOS, a missing account or service is the empty string: the item's key still has one.
      var item = GenericPassword().account(account ?? "").service(service ?? "")
      // The synchronizable flag is part of the item's key (rule 10): -U updates the synchronizable one.
      if synchronizable { item = item.synchronizable(true) }
      // The default label (the service) is for new items; -U without -l keeps an item's label.
      let exists = update ? try item.exists().orFail("SecKeychainSearchCopyNext") : false
      var changes = attributes.changes(GenericPassword.Changes.self)
      if let label = label ?? (exists ? nil : service) { changes = changes.label(label) }
      if let generic { changes = changes.generic(Data(generic.utf8)) }
      let data = password.data
      if update {
        try item.set(data, changing: changes).orFail("SecKeychainItemModifyContent")
      } else {
        try item.merging(changes).add(data).orFail("SecKeychainItemCreateFromContent")
      }
    }
  }
}

/// `-a -s -l -c -C -D -j -G` matching options of the generic-password find and delete commands.
struct GenericPasswordMatch: ParsableArguments {
  @Option(name: .customShort("a"), help: ArgumentHelp("Match the account name.", valueName: "account")) var account:
    String?
  @Option(name: .customShort("s"), help: ArgumentHelp("Match the service name.", valueName: "service")) var service:
    String?
  @Option(name: .customShort("l"), help: ArgumentHelp("Match the label.", valueName: "label")) var label: String?
  @OptionGroup var attributes: ItemAttributeOptions
  @Option(name: .customShort("G"), help: ArgumentHelp("Match the generic attribute.", valueName: "value"))
  var generic: String?

  var request: GenericPassword {
    var request = GenericPassword()
    if let account { request = request.account(account) }
    if let service { request = request.service(service) }
    if let label { request = request.label(label) }
    if let generic { request = request.generic(Data(generic.utf8)) }
    // Synchronizable items too: the tool finds what the keychain holds (rule 3.2 would hide them).
    return attributes.applied(to: request.synchronizable(.any))
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
  @OptionGroup var password: AddedPassword
  @Option(name: .customShort("l"), help: ArgumentHelp("Label (default: the server name).", valueName: "label"))
  var label: String?
  @OptionGroup var attributes: ItemAttributeOptions
  @Flag(name: .customShort("U"), help: "Update the item if it already exists (otherwise that is an error).")
  var update = false
  @Flag(
    name: .customLong("synchronizable"),
    help: "Make the item synchronizable: it follows the keychain's sync group to its other stores.")
  var synchronizable = false

  func run() throws {
    try runReportingFailures {
      _ = try store.open()
      // As on macOS, a missing account or server is the empty string: the item's key still has one.
      var item = options.request
      if options.account == nil { item = item.account("") }
      if options.server == nil { item = item.server("") }
      if synchronizable { item = item.synchronizable(true) }
      let exists = update ? try item.exists().orFail("SecKeychainSearchCopyNext") : false
      var changes = attributes.changes(InternetPassword.Changes.self)
      if let label = label ?? (exists ? nil : options.server) { changes = changes.label(label) }
      let data = password.data
      if update {
        try item.set(data, changing: changes).orFail("SecKeychainItemModifyContent")
      } else {
        try item.merging(changes).add(data).orFail("SecKeychainItemCreateFromContent")
      }
    }
  }
}

struct FindInternetPassword: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "find-internet-password", abstract: "Find an internet password item and print its attributes.")

  @OptionGroup var store: StoreOption
  @OptionGroup var options: InternetPasswordOptions
  @OptionGroup var attributes: ItemAttributeOptions
  @Option(name: .customShort("l"), help: ArgumentHelp("Match the label.", valueName: "label")) var label: String?

  /// The options, the attributes and the label, as one request.
  var request: InternetPassword {
    let request = attributes.applied(to: options.request.synchronizable(.any))
    return label.map { request.label($0) } ?? request
  }
  @OptionGroup var display: PasswordDisplay

  func run() throws {
    try findAndPrint(
      request, store: store, showPassword: display.showPassword,
      passwordOnly: display.passwordOnly
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
  @OptionGroup var attributes: ItemAttributeOptions
  @Option(name: .customShort("l"), help: ArgumentHelp("Match the label.", valueName: "label")) var label: String?

  /// The options, the attributes and the label, as one request.
  var request: InternetPassword {
    let request = attributes.applied(to: options.request.synchronizable(.any))
    return label.map { request.label($0) } ?? request
  }

  func run() throws {
    try deleteFirst(request, store: store) { ItemFormatting.lines($0, store: $1) }
  }
}

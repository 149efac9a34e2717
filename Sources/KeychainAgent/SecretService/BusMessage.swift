import CSystemdBus
import Foundation

/// A D-Bus error a method call is answered with: its name (the specification's
/// `org.freedesktop.Secret.Error.*`, or D-Bus's own) and a sentence.
package struct BusError: Error, Sendable, Equatable {
  /// The error's D-Bus name, as `org.freedesktop.Secret.Error.IsLocked`.
  package let name: String
  /// What went wrong, in a sentence for the client's user.
  package let message: String

  /// The error named `name`, saying `message`.
  package init(_ name: String, _ message: String) {
    self.name = name
    self.message = message
  }

  /// The arguments do not have the method's signature, or a value is out of bounds.
  static func invalidArguments(_ message: String) -> BusError {
    BusError("org.freedesktop.DBus.Error.InvalidArgs", message)
  }

  /// No object at that path, or no such item, collection or session.
  static func noSuchObject(_ message: String) -> BusError {
    BusError("org.freedesktop.Secret.Error.NoSuchObject", message)
  }

  static func noSession(_ message: String) -> BusError { BusError("org.freedesktop.Secret.Error.NoSession", message) }

  static func isLocked(_ message: String) -> BusError { BusError("org.freedesktop.Secret.Error.IsLocked", message) }

  /// An item whose access control asks for the user, read on a thread that may not ask: the bus
  /// asks without waiting and runs the call again; a client that sees it was not allowed it.
  static let needsUser = BusError(
    "org.freedesktop.Secret.Error.IsLocked", "This item asks for the user's presence, which was not given.")

  /// Whether this is the error of a locked object (whatever its sentence).
  var isLocked: Bool { name == "org.freedesktop.Secret.Error.IsLocked" }

  static func notSupported(_ message: String) -> BusError {
    BusError("org.freedesktop.DBus.Error.NotSupported", message)
  }

  static func unknownMethod(_ message: String) -> BusError {
    BusError("org.freedesktop.DBus.Error.UnknownMethod", message)
  }

  static func accessDenied(_ message: String) -> BusError {
    BusError("org.freedesktop.DBus.Error.AccessDenied", message)
  }

  static func failed(_ message: String) -> BusError { BusError("org.freedesktop.DBus.Error.Failed", message) }
}

/// A value a reply carries, with its D-Bus type.
package indirect enum BusValue: Sendable {
  case string(String)
  case objectPath(String)
  case boolean(Bool)
  case uint64(UInt64)
  case bytes([UInt8])
  /// An array of object paths (`ao`).
  case objectPaths([String])
  /// A string-to-string dictionary (`a{ss}`).
  case stringMap([String: String])
  /// A variant holding the value.
  case variant(BusValue)
  /// A struct of the values, in order.
  case structure([BusValue])
  /// An `a{sv}` dictionary.
  case properties([(String, BusValue)])
  /// An `a{o(oayays)}` dictionary of secrets by item.
  case secretsByItem([(String, BusValue)])

  /// The value's D-Bus signature.
  var signature: String {
    switch self {
    case .string: "s"
    case .objectPath: "o"
    case .boolean: "b"
    case .uint64: "t"
    case .bytes: "ay"
    case .objectPaths: "ao"
    case .stringMap: "a{ss}"
    case .variant: "v"
    case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
    case .properties: "a{sv}"
    case .secretsByItem: "a{o(oayays)}"
    }
  }
}

/// Reads a method call's arguments, bounded: a client names at most `maximumElements` objects or
/// attributes in one call, and no string or byte array is longer than `maximumLength` (the bus
/// itself bounds a message at 128 MiB; these keep one call from making the agent hold much of it).
package struct BusMessageReader {
  let message: OpaquePointer
  static let maximumElements = 4096
  static let maximumLength = 1 << 20

  /// Whether every argument was read.
  package func isAtEnd() -> Bool { sd_bus_message_at_end(message, 1) > 0 }

  package func string() throws(BusError) -> String { try basic(Character("s")) }

  package func objectPath() throws(BusError) -> String { try basic(Character("o")) }

  package func boolean() throws(BusError) -> Bool {
    var value: Int32 = 0
    guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "b")), &value) > 0 else {
      throw .invalidArguments("a boolean was expected")
    }
    return value != 0
  }

  private func basic(_ type: Character) throws(BusError) -> String {
    var pointer: UnsafePointer<CChar>?
    guard sd_bus_message_read_basic(message, CChar(type.asciiValue!), &pointer) > 0, let pointer else {
      throw .invalidArguments(type == "o" ? "an object path was expected" : "a string was expected")
    }
    let value = String(cString: pointer)
    guard value.utf8.count <= Self.maximumLength else { throw .invalidArguments("a string is too long") }
    return value
  }

  /// A byte array of at most `limit` bytes.
  package func bytes(limit: Int = maximumLength) throws(BusError) -> [UInt8] {
    var pointer: UnsafeRawPointer?
    var size = 0
    guard sd_bus_message_read_array(message, CChar(UInt8(ascii: "y")), &pointer, &size) >= 0 else {
      throw .invalidArguments("a byte array was expected")
    }
    guard size <= limit else { throw .invalidArguments("a byte array is too long") }
    guard let pointer, size > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: size))
  }

  /// Reads a container of `type` (`a`, `r`, `e`, `v`) with `contents`, through `body`.
  package func within<Value>(_ type: Character, _ contents: String, _ body: () throws(BusError) -> Value)
    throws(BusError)
    -> Value
  {
    guard sd_bus_message_enter_container(message, CChar(type.asciiValue!), contents) > 0 else {
      throw .invalidArguments("\(type == "a" ? "an array" : "a value") of \(contents) was expected")
    }
    let value = try body()
    guard sd_bus_message_exit_container(message) >= 0 else { throw .invalidArguments("a container did not end") }
    return value
  }

  /// The elements of an array of `contents`, each read by `element`, at most `maximumElements`.
  package func array<Element>(_ contents: String, _ element: () throws(BusError) -> Element) throws(BusError)
    -> [Element]
  {
    try within("a", contents) { () throws(BusError) in
      var elements: [Element] = []
      while sd_bus_message_at_end(message, 0) == 0 {
        guard elements.count < Self.maximumElements else { throw .invalidArguments("an array is too long") }
        elements.append(try element())
      }
      return elements
    }
  }

  package func objectPaths() throws(BusError) -> [String] {
    try array("o") { () throws(BusError) in try objectPath() }
  }

  package func stringMap() throws(BusError) -> [String: String] {
    var map: [String: String] = [:]
    for (key, value) in try array(
      "{ss}",
      { () throws(BusError) in
        try within("e", "ss") { () throws(BusError) in (try string(), try string()) }
      })
    {
      map[key] = value
    }
    return map
  }

  /// A secret struct `(oayays)`: session, parameters, value, content type. The value may be one
  /// cipher block longer than a secret may be: an encrypted session pads a 1 MiB secret to that
  /// (the session checks the secret's own length once decrypted).
  package func secret() throws(BusError) -> (session: String, parameters: [UInt8], value: [UInt8], contentType: String)
  {
    try within("r", "oayays") { () throws(BusError) in
      (try objectPath(), try bytes(), try bytes(limit: Self.maximumLength + 16), try string())
    }
  }

  /// The type of the next value (its signature), without reading it.
  func peekSignature() -> String? {
    var type: CChar = 0
    var contents: UnsafePointer<CChar>?
    guard sd_bus_message_peek_type(message, &type, &contents) > 0 else { return nil }
    let head = String(UnicodeScalar(UInt8(bitPattern: type)))
    return contents.map { head + String(cString: $0) } ?? head
  }

  /// An `a{sv}` of properties: each name and a reader positioned in its variant.
  func properties(_ each: (String) throws(BusError) -> Void) throws(BusError) {
    _ = try array("{sv}") { () throws(BusError) in
      try within("e", "sv") { () throws(BusError) in
        let name = try string()
        try each(name)
      }
    }
  }

  /// Skips the next value, whatever it is.
  package func skip() throws(BusError) {
    guard sd_bus_message_skip(message, nil) >= 0 else { throw .invalidArguments("a value could not be read") }
  }
}

/// Appends reply values to a message.
struct BusMessageWriter {
  let message: OpaquePointer

  func append(_ value: BusValue) -> Int32 {
    switch value {
    case .string(let string): return basic("s", string)
    case .objectPath(let path): return basic("o", path)
    case .boolean(let flag):
      var bit: Int32 = flag ? 1 : 0
      return sd_bus_message_append_basic(message, CChar(UInt8(ascii: "b")), &bit)
    case .uint64(let number):
      var copy = number
      return sd_bus_message_append_basic(message, CChar(UInt8(ascii: "t")), &copy)
    case .bytes(let bytes):
      return bytes.withUnsafeBytes { buffer in
        sd_bus_message_append_array(message, CChar(UInt8(ascii: "y")), buffer.baseAddress, buffer.count)
      }
    case .objectPaths(let paths):
      return container("a", "o") { paths.reduce(0) { $0 < 0 ? $0 : basic("o", $1) } }
    case .stringMap(let map):
      return container("a", "{ss}") {
        map.sorted { $0.key < $1.key }.reduce(0) { result, entry in
          result < 0 ? result : container("e", "ss") { min(basic("s", entry.key), basic("s", entry.value)) }
        }
      }
    case .variant(let inner):
      return container("v", inner.signature) { append(inner) }
    case .structure(let fields):
      let contents = String(value.signature.dropFirst().dropLast())
      return container("r", contents) { fields.reduce(0) { $0 < 0 ? $0 : append($1) } }
    case .properties(let entries):
      return container("a", "{sv}") {
        entries.reduce(0) { result, entry in
          result < 0 ? result : container("e", "sv") { min(basic("s", entry.0), append(.variant(entry.1))) }
        }
      }
    case .secretsByItem(let entries):
      return container("a", "{o(oayays)}") {
        entries.reduce(0) { result, entry in
          result < 0 ? result : container("e", "o(oayays)") { min(basic("o", entry.0), append(entry.1)) }
        }
      }
    }
  }

  private func basic(_ type: Character, _ text: String) -> Int32 {
    text.withCString { sd_bus_message_append_basic(message, CChar(type.asciiValue!), $0) }
  }

  private func container(_ type: Character, _ contents: String, _ body: () -> Int32) -> Int32 {
    let opened = sd_bus_message_open_container(message, CChar(type.asciiValue!), contents)
    guard opened >= 0 else { return opened }
    let written = body()
    guard written >= 0 else { return written }
    return sd_bus_message_close_container(message)
  }
}

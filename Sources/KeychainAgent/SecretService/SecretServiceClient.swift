import CSystemdBus
import Foundation

/// A Secret Service client over sd-bus: one connection to a bus by address, method calls with
/// `BusValue` arguments and bounded reads of their replies. keychain-bench measures keychaind and
/// GNOME Keyring through it, so both are called by the same client, whose own cost (a Ping's
/// round trip through the bus) the bench shows beside them.
package final class SecretServiceClient {
  private var bus: OpaquePointer?
  /// The service's bus name.
  package static let name = "org.freedesktop.secrets"

  /// Connects to the bus at `address` (a `DBUS_SESSION_BUS_ADDRESS` value).
  package init(address: String) throws(BusError) {
    var opened: OpaquePointer?
    guard sd_bus_new(&opened) >= 0, let opened else { throw .failed("cannot make a bus connection") }
    bus = opened
    guard sd_bus_set_address(opened, address) >= 0, sd_bus_set_bus_client(opened, 1) >= 0,
      sd_bus_start(opened) >= 0
    else { throw .failed("cannot connect to the bus at \(address)") }
  }

  deinit { sd_bus_flush_close_unref(bus) }

  /// Calls `member` of `interface` on `path` of the service with `arguments`; `read` reads the
  /// reply. The reply's D-Bus error is thrown as it came.
  package func call<Value>(
    _ path: String, _ interface: String, _ member: String, _ arguments: [BusValue] = [],
    destination: String = SecretServiceClient.name, read: (BusMessageReader) throws(BusError) -> Value
  ) throws(BusError) -> Value {
    var message: OpaquePointer?
    guard sd_bus_message_new_method_call(bus, &message, destination, path, interface, member) >= 0, let message else {
      throw .failed("cannot make a method call")
    }
    defer { sd_bus_message_unref(message) }
    let writer = BusMessageWriter(message: message)
    for argument in arguments where writer.append(argument) < 0 { throw .invalidArguments("cannot write \(argument)") }
    var error = sd_bus_error()
    defer { sd_bus_error_free(&error) }
    var reply: OpaquePointer?
    guard sd_bus_call(bus, message, 60_000_000, &error, &reply) >= 0, let reply else {
      throw BusError(
        error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed",
        error.message.map { String(cString: $0) } ?? "the call failed")
    }
    defer { sd_bus_message_unref(reply) }
    return try read(BusMessageReader(message: reply))
  }

  /// Calls a method whose reply is ignored.
  package func call(_ path: String, _ interface: String, _ member: String, _ arguments: [BusValue] = [])
    throws(BusError)
  {
    try call(path, interface, member, arguments) { _ throws(BusError) in () }
  }
}

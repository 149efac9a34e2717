import Foundation
import LocalPostgres
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The PostgreSQL launcher the sync tests use. A server given two listen addresses starts, and
/// reports ready, when only one of them binds: a client connection elsewhere in the tests that
/// holds 127.0.0.1:port as its source port made TransportSecurity's server answer on 127.0.0.2 only,
/// and its first connection on 127.0.0.1 was refused.
@Suite struct TestServerLaunch {
  @Test func aServerThatCouldNotBindEveryAddressIsStartedElsewhere() throws {
    // A connected client socket whose source port is `held`, as any test's connection may be.
    let listener = try LoopbackSocket(port: 0)
    try listener.listen()
    let client = try LoopbackSocket(port: 0)
    try client.connect(to: listener.port)
    let held = client.port
    let spare = try LoopbackSocket(port: 0).port  // free once its socket is closed

    let server = try PostgresTestServer.dedicated(
      options: "-c listen_addresses=127.0.0.1,127.0.0.2", ports: [held, spare])
    defer { server.stop() }
    #expect(server.port == spare)
    _ = try server.makeDatabase()  // on 127.0.0.1
  }
}

/// A TCP socket bound to 127.0.0.1, closed when released.
private final class LoopbackSocket {
  let descriptor: Int32
  let port: Int

  init(port requested: Int) throws {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw LaunchTestError("socket: \(errno)") }
    var address = Self.loopback(requested)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard bound == 0, named == 0 else {
      close(descriptor)
      throw LaunchTestError("bind: \(errno)")
    }
    self.descriptor = descriptor
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  deinit { close(descriptor) }

  func listen() throws {
    guard Glibc.listen(descriptor, 1) == 0 else { throw LaunchTestError("listen: \(errno)") }
  }

  func connect(to port: Int) throws {
    var address = Self.loopback(port)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw LaunchTestError("connect: \(errno)") }
  }

  private static func loopback(_ port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}

private struct LaunchTestError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

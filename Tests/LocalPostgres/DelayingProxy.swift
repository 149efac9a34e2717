import Foundation
import Synchronization

/// A TCP proxy on 127.0.0.1 that holds every chunk of data for `delay` before passing it on, in
/// each direction: the network delay of the sync fault tests, between a store and the real server.
public final class DelayingProxy: Sendable {
  /// The port the proxy listens on.
  public let port: Int
  private let listener: Int32
  private let stopped = StopFlag()

  private final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
  }

  /// Starts forwarding to 127.0.0.1:`targetPort`.
  public init(targetPort: Int, delay: Duration) throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw TestServerError("socket() failed") }
    var address = Self.loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 16) == 0 else { throw TestServerError("the proxy cannot listen") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    self.listener = listener
    let microseconds = UInt32(delay.components.seconds * 1_000_000 + delay.components.attoseconds / 1_000_000_000_000)
    Thread.detachNewThread { [stopped] in
      while !stopped.value.load(ordering: .relaxed) {
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var target = Self.loopback(port: targetPort)
        let connected = withUnsafePointer(to: &target) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
          }
        }
        guard connected == 0 else {
          close(client)
          close(upstream)
          continue
        }
        for (from, to) in [(client, upstream), (upstream, client)] {
          Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
              let count = recv(from, &buffer, buffer.count, 0)
              guard count > 0 else { break }
              usleep(microseconds)
              guard send(to, buffer, count, Int32(MSG_NOSIGNAL)) == count else { break }
            }
            shutdown(to, Int32(SHUT_RDWR))
            shutdown(from, Int32(SHUT_RDWR))
          }
        }
      }
    }
  }

  /// Stops accepting connections (open ones end with their peers).
  public func stop() {
    stopped.value.store(true, ordering: .relaxed)
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}

import Foundation
import Security

#if canImport(Glibc)
  import Glibc
#endif

/// Why a connection's frames stopped.
package enum FrameSocketError: Error, Equatable, CustomStringConvertible {
  /// The peer closed the connection (or it broke) before a whole frame came.
  case closed
  /// The peer announced a frame longer than the protocol allows.
  case tooLong(Int)
  /// A system call failed: which, and errno.
  case system(String, Int32)
  /// The socket path does not fit a Unix socket address (107 bytes at most).
  case pathTooLong(String)

  package var description: String {
    switch self {
    case .closed: "the connection closed"
    case .tooLong(let length): "a frame of \(length) bytes, longer than \(AgentFrame.maximumFrameLength)"
    case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
    case .pathTooLong(let path): "the socket path \(path) is longer than a Unix socket address holds (107 bytes)"
    }
  }
}

/// The user and process at the other end of a Unix socket, as the kernel reports them
/// (`SO_PEERCRED`): what the peer cannot lie about.
package struct PeerCredentials: Sendable, Equatable {
  package var pid: Int32
  package var uid: UInt32
  package var gid: UInt32
}

/// Frames over a connected Unix stream socket, with plain POSIX calls: the storage contract is
/// synchronous (SecItem calls block their caller), so a blocking socket and one thread per
/// connection in the agent serve it with no event loop to bridge.
package enum FrameSocket {
  /// `path` as a Unix socket address.
  static func address(_ path: String) throws(FrameSocketError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else { throw .pathTooLong(path) }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      buffer.copyBytes(from: bytes)
      buffer[bytes.count] = 0
    }
    return address
  }

  /// A new stream socket that is not inherited by programs this process runs.
  static func makeSocket() throws(FrameSocketError) -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw .system("socket", errno) }
    return descriptor
  }

  /// A connection to the socket at `path`.
  package static func connect(to path: String) throws(FrameSocketError) -> Int32 {
    var address = try address(path)
    let descriptor = try makeSocket()
    let result = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard result == 0 else {
      let code = errno
      close(descriptor)
      throw .system("connect", code)
    }
    return descriptor
  }

  /// A socket listening at `path` (which must not exist), readable and writable by its owner alone.
  package static func listen(at path: String, backlog: Int32 = 64) throws(FrameSocketError) -> Int32 {
    var address = try address(path)
    let descriptor = try makeSocket()
    // The socket file takes its mode from the umask: 0600 from the moment it exists.
    let previous = umask(0o177)
    let bound = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    let bindError = errno
    umask(previous)
    guard bound == 0 else {
      close(descriptor)
      throw .system("bind", bindError)
    }
    guard Glibc.listen(descriptor, backlog) == 0 else {
      let code = errno
      close(descriptor)
      throw .system("listen", code)
    }
    return descriptor
  }

  /// The path of a listening Unix stream socket handed to this process (systemd socket
  /// activation), after checking that it is one.
  package static func listeningPath(of descriptor: Int32) throws(FrameSocketError) -> String {
    var value: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &value, &length) == 0 else { throw .system("SO_TYPE", errno) }
    guard value == Int32(SOCK_STREAM.rawValue) else { throw .system("a stream socket", EPROTOTYPE) }
    guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &value, &length) == 0, value == 1 else {
      throw .system("a listening socket", EINVAL)
    }
    var address = sockaddr_un()
    var size = socklen_t(MemoryLayout<sockaddr_un>.size)
    let named = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &size) }
    }
    guard named == 0 else { throw .system("getsockname", errno) }
    guard address.sun_family == sa_family_t(AF_UNIX) else { throw .system("a Unix socket", EAFNOSUPPORT) }
    let path = withUnsafeBytes(of: address.sun_path) { bytes in
      String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
    guard path.hasPrefix("/") else { throw .system("a socket with a path", EINVAL) }
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    return path
  }

  /// The next connection on a listening socket, and its peer's credentials.
  package static func accept(on listener: Int32) throws(FrameSocketError) -> (Int32, PeerCredentials) {
    while true {
      // accept4(SOCK_CLOEXEC) is not in Swift's Glibc module; the agent runs no program that
      // could inherit the descriptor between the two calls.
      let descriptor = Glibc.accept(listener, nil, nil)
      if descriptor < 0 {
        if errno == EINTR || errno == ECONNABORTED { continue }
        throw .system("accept", errno)
      }
      _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
      guard let peer = credentials(of: descriptor) else {
        let code = errno
        close(descriptor)
        throw .system("getsockopt(SO_PEERCRED)", code)
      }
      return (descriptor, peer)
    }
  }

  /// The kernel's record of who is at the other end.
  package static func credentials(of descriptor: Int32) -> PeerCredentials? {
    // struct ucred's layout (pid_t, uid_t, gid_t), spelled out: Glibc declares it only for
    // _GNU_SOURCE.
    var credentials = PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max)
    var length = socklen_t(MemoryLayout<PeerCredentials>.size)
    guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
      length == socklen_t(MemoryLayout<PeerCredentials>.size)
    else { return nil }
    return credentials
  }

  /// Sends one frame: its length, then `body`.
  package static func send(_ body: [UInt8], on descriptor: Int32) throws(FrameSocketError) {
    guard body.count <= AgentFrame.maximumFrameLength else { throw .tooLong(body.count) }
    var frame: [UInt8] = []
    frame.reserveCapacity(4 + body.count)
    TaggedBinaryForm.appendLength(body.count, to: &frame)
    frame.append(contentsOf: body)
    var sent = 0
    while sent < frame.count {
      // MSG_NOSIGNAL: a peer that went away is an error here, not a SIGPIPE that ends the process.
      let result = frame.withUnsafeBytes { buffer in
        Glibc.send(descriptor, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
      }
      if result < 0 {
        if errno == EINTR { continue }
        throw errno == EPIPE || errno == ECONNRESET ? .closed : .system("send", errno)
      }
      sent += result
    }
  }

  /// Receives one frame's body; nil when the peer closed the connection between frames.
  ///
  /// With `spinning`, the first bytes are polled for up to that many microseconds before the
  /// thread sleeps in recv: a sleeping thread woken from another CPU costs a hypervisor's wake-up
  /// (35 to 45 µs each way on the 2-core VM this was measured on: a C ping-pong over a Unix socket
  /// took 72 to 91 µs a round trip, 5 µs on one CPU or with 20 µs of polling), which was four
  /// fifths of a lookup through the agent. The poll costs at most that CPU time per frame.
  package static func receive(on descriptor: Int32, spinning microseconds: Int = 0) throws(FrameSocketError)
    -> [UInt8]?
  {
    var header = [UInt8](repeating: 0, count: 4)
    // nil: the peer closed the connection while it was polled.
    guard let polled = try poll(into: &header, on: descriptor, forMicroseconds: microseconds) else { return nil }
    guard try read(into: &header, on: descriptor, from: polled, allowEnd: polled == 0) else { return nil }
    let length = header.reversed().reduce(0) { $0 << 8 | Int($1) }
    // Bounded before anything is allocated for it.
    guard length <= AgentFrame.maximumFrameLength else { throw .tooLong(length) }
    var body = [UInt8](repeating: 0, count: length)
    _ = try read(into: &body, on: descriptor, allowEnd: false)
    return body
  }

  /// Reads what has arrived into `buffer` without sleeping, for up to `microseconds`; returns how
  /// many bytes it read (0 when none came in time), or nil when the peer closed the connection.
  private static func poll(into buffer: inout [UInt8], on descriptor: Int32, forMicroseconds microseconds: Int)
    throws(FrameSocketError) -> Int?
  {
    guard microseconds > 0 else { return 0 }
    let deadline = monotonicMicroseconds() + microseconds
    while true {
      let count = buffer.count
      let result = buffer.withUnsafeMutableBytes { bytes in
        recv(descriptor, bytes.baseAddress!, count, Int32(MSG_DONTWAIT))
      }
      if result > 0 { return result }
      if result == 0 { return nil }
      guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
        throw errno == ECONNRESET ? .closed : .system("recv", errno)
      }
      if monotonicMicroseconds() >= deadline { return 0 }
    }
  }

  private static func monotonicMicroseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1_000_000 + now.tv_nsec / 1000
  }

  /// Fills `buffer` from byte `start`; false when the connection ended before its first byte and
  /// `allowEnd` is set.
  private static func read(into buffer: inout [UInt8], on descriptor: Int32, from start: Int = 0, allowEnd: Bool)
    throws(FrameSocketError) -> Bool
  {
    var filled = start
    while filled < buffer.count {
      let count = buffer.count
      let result = buffer.withUnsafeMutableBytes { bytes in
        recv(descriptor, bytes.baseAddress! + filled, count - filled, 0)
      }
      if result == 0 {
        if filled == 0 && allowEnd { return false }
        throw .closed
      }
      if result < 0 {
        if errno == EINTR { continue }
        throw errno == ECONNRESET ? .closed : .system("recv", errno)
      }
      filled += result
    }
    return true
  }
}

import CKeychainAgent
import Foundation
import Security
import Synchronization

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
  /// Bytes came from a process other than the one that connected (`PeerCredentials.pid`): the
  /// connection was handed to, or shared with, another program. 0 when the kernel could not say.
  case otherSender(Int32)
  /// Every connection's frames together would exceed the memory the agent sets aside for them.
  case overBudget(Int)
  /// The process serving the socket (this process identifier) is not the expected agent.
  case notTheAgent(Int32)

  package var description: String {
    switch self {
    case .closed: "the connection closed"
    case .tooLong(let length): "a frame of \(length) bytes, longer than \(AgentFrame.maximumFrameLength)"
    case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
    case .pathTooLong(let path): "the socket path \(path) is longer than a Unix socket address holds (107 bytes)"
    case .otherSender(let pid):
      pid == 0
        ? "bytes came from a process the agent cannot see (another namespace)"
        : "bytes came from process \(pid), not the process that connected"
    case .notTheAgent(let pid):
      "the process serving the socket (\(pid)) is not the keychain agent this program expects: another program may have put itself at the socket's path"
    case .overBudget(let length):
      "a frame of \(length) bytes while the agent's connections already hold all the memory it sets aside for frames"
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

  /// How long a send on a non-blocking socket waits for its peer to read, in seconds.
  package static let sendPatienceSeconds = 30

  /// Sends one frame: its length, then `body`. On a non-blocking socket, waits at most
  /// `sendPatienceSeconds` at a time for the peer to make room.
  package static func send(_ body: [UInt8], on descriptor: Int32) throws(FrameSocketError) {
    guard body.count <= AgentFrame.maximumFrameLength else { throw .tooLong(body.count) }
    var frame: [UInt8] = []
    frame.reserveCapacity(4 + body.count)
    TaggedBinaryForm.appendLength(body.count, to: &frame)
    frame.append(contentsOf: body)
    // The copy may hold a secret the answer carried.
    defer { Secrets.wipe(&frame) }
    try sendAll(frame, on: descriptor)
  }

  /// Sends one of OpenSSH's agent messages: its 32-bit big-endian length, then `body`; waits for
  /// room as `send` does.
  package static func sendSSHAgentMessage(_ body: [UInt8], on descriptor: Int32) throws(FrameSocketError) {
    let length = UInt32(body.count)
    var frame = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
    frame.reserveCapacity(4 + body.count)
    frame.append(contentsOf: body)
    defer { Secrets.wipe(&frame) }
    try sendAll(frame, on: descriptor)
  }

  private static func sendAll(_ frame: [UInt8], on descriptor: Int32) throws(FrameSocketError) {
    var sent = 0
    while sent < frame.count {
      // MSG_NOSIGNAL: a peer that went away is an error here, not a SIGPIPE that ends the process.
      let result = frame.withUnsafeBytes { buffer in
        Glibc.send(descriptor, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
      }
      if result < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN || errno == EWOULDBLOCK {
          // A non-blocking socket (the agent's) whose peer has not read what came before: wait
          // for room, but not for ever: a client that never reads is given up.
          var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
          let waited = Glibc.poll(&ready, 1, Int32(sendPatienceSeconds * 1000))
          if waited > 0 || (waited < 0 && errno == EINTR) { continue }
          throw .system("send", waited == 0 ? ETIMEDOUT : errno)
        }
        throw errno == EPIPE || errno == ECONNRESET ? .closed : .system("send", errno)
      }
      sent += result
    }
  }

  /// Receives one frame's body; nil when the peer closed the connection between frames.
  ///
  /// With `sender`, every byte must come from that process (SO_PASSCRED must be on, see
  /// `passCredentials`), else `.otherSender`. With `budget`, the body's bytes are counted against
  /// it as they arrive (the caller releases them with `FrameBudget.release` once done); the body
  /// grows with what arrives, so a header announcing a long frame costs nothing until its bytes
  /// come.
  ///
  /// With `spinning`, the first bytes are polled for up to that many microseconds before the
  /// thread sleeps in recv: a sleeping thread woken from another CPU costs a hypervisor's wake-up
  /// (35 to 45 µs each way on the 2-core VM this was measured on: a C ping-pong over a Unix socket
  /// took 72 to 91 µs a round trip, 5 µs on one CPU or with 20 µs of polling), which was four
  /// fifths of a lookup through the agent. The poll costs at most that CPU time per frame.
  package static func receive(
    on descriptor: Int32, spinning microseconds: Int = 0, sender: Int32? = nil, budget: FrameBudget? = nil
  ) throws(FrameSocketError) -> [UInt8]? {
    var outcome: AdaptivePoll.Outcome?
    return try receive(on: descriptor, spinning: microseconds, sender: sender, budget: budget, outcome: &outcome)
  }

  /// `receive` polling as long as `polling` allows, which learns from how the poll ended.
  package static func receive(
    on descriptor: Int32, polling: inout AdaptivePoll, sender: Int32? = nil, budget: FrameBudget? = nil
  ) throws(FrameSocketError) -> [UInt8]? {
    var outcome: AdaptivePoll.Outcome?
    defer { if let outcome { polling.record(outcome) } }
    return try receive(on: descriptor, spinning: polling.budget(), sender: sender, budget: budget, outcome: &outcome)
  }

  private static func receive(
    on descriptor: Int32, spinning microseconds: Int, sender: Int32?, budget: FrameBudget?,
    outcome: inout AdaptivePoll.Outcome?
  ) throws(FrameSocketError) -> [UInt8]? {
    var header = [UInt8](repeating: 0, count: 4)
    // nil: the peer closed the connection while it was polled.
    guard
      let polled = try poll(
        into: &header, on: descriptor, forMicroseconds: microseconds, sender: sender, outcome: &outcome)
    else {
      return nil
    }
    guard try read(into: &header, on: descriptor, from: polled, allowEnd: polled == 0, sender: sender) else {
      return nil
    }
    let length = header.reversed().reduce(0) { $0 << 8 | Int($1) }
    // Bounded before anything is allocated for it.
    guard length <= AgentFrame.maximumFrameLength else { throw .tooLong(length) }
    // Small frames (every lookup) are read at once; a long one grows as its bytes arrive, doubling,
    // each outgrown buffer wiped (it may hold part of a secret).
    var body = [UInt8](repeating: 0, count: min(length, 64 << 10))
    var counted = 0
    var filled = 0
    do throws(FrameSocketError) {
      while true {
        if let budget {
          guard budget.reserve(body.count - counted) else { throw FrameSocketError.overBudget(length) }
          counted = body.count
        }
        _ = try read(into: &body, on: descriptor, from: filled, allowEnd: false, sender: sender)
        filled = body.count
        guard filled < length else { break }
        var larger = [UInt8](repeating: 0, count: min(length, filled * 2))
        larger.withUnsafeMutableBytes { target in
          body.withUnsafeBytes { source in target.copyMemory(from: source) }
        }
        Secrets.wipe(&body)
        body = larger
      }
    } catch {
      budget?.release(counted)
      Secrets.wipe(&body)
      throw error
    }
    return body
  }

  /// Turns on SO_PASSCRED: each read then learns which process sent its bytes (`receive(sender:)`).
  package static func passCredentials(on descriptor: Int32) throws(FrameSocketError) {
    guard keychain_socket_pass_credentials(descriptor) == 0 else { throw .system("setsockopt(SO_PASSCRED)", errno) }
  }

  /// How many bytes wait unread on the socket.
  package static func pendingBytes(on descriptor: Int32) throws(FrameSocketError) -> Int {
    let pending = keychain_socket_pending_bytes(descriptor)
    guard pending >= 0 else { throw .system("ioctl(FIONREAD)", errno) }
    return Int(pending)
  }

  /// recv, checking the sender when one is expected (a Result: the buffer's closure cannot
  /// throw a typed error).
  private static func receiveBytes(
    _ descriptor: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int, _ flags: Int32, sender: Int32?
  ) -> Result<Int, FrameSocketError> {
    guard let sender else { return .success(recv(descriptor, pointer, count, flags)) }
    var from: pid_t = 0
    let result = keychain_receive_with_sender(descriptor, pointer, UInt(count), flags, &from)
    if result > 0 && from != sender { return .failure(.otherSender(from)) }
    return .success(result)
  }

  /// Reads what has arrived into `buffer` without sleeping, for up to `microseconds`; returns how
  /// many bytes it read (0 when none came in time), or nil when the peer closed the connection.
  private static func poll(
    into buffer: inout [UInt8], on descriptor: Int32, forMicroseconds microseconds: Int, sender: Int32?,
    outcome: inout AdaptivePoll.Outcome?
  ) throws(FrameSocketError) -> Int? {
    guard microseconds > 0 else { return 0 }
    // Some(n): n bytes came (0: the peer closed the connection); nil: nothing yet.
    let (result, ended) = try AdaptivePoll.poll(forMicroseconds: microseconds) { () throws(FrameSocketError) -> Int? in
      let count = buffer.count
      let result = try buffer.withUnsafeMutableBytes { bytes in
        receiveBytes(descriptor, bytes.baseAddress!, count, Int32(MSG_DONTWAIT), sender: sender)
      }.get()
      if result >= 0 { return result }
      guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
        throw errno == ECONNRESET ? .closed : .system("recv", errno)
      }
      return nil
    }
    outcome = ended
    guard let result else { return 0 }
    return result > 0 ? result : nil
  }

  /// Fills `buffer` from byte `start`; false when the connection ended before its first byte and
  /// `allowEnd` is set.
  private static func read(
    into buffer: inout [UInt8], on descriptor: Int32, from start: Int = 0, allowEnd: Bool, sender: Int32? = nil
  ) throws(FrameSocketError) -> Bool {
    var filled = start
    while filled < buffer.count {
      let count = buffer.count
      let result = try buffer.withUnsafeMutableBytes { bytes in
        receiveBytes(descriptor, bytes.baseAddress! + filled, count - filled, 0, sender: sender)
      }.get()
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

/// The memory every connection's frames may hold at once: an agent reads a frame's bytes only as
/// they arrive and counts them here, so many connections announcing long frames cannot make it
/// allocate more than this.
package final class FrameBudget: Sendable {
  /// The bytes that may be held at once.
  package let limit: Int
  private let held = Atomic<Int>(0)

  package init(limit: Int) { self.limit = limit }

  /// Counts `bytes` more; false (and nothing counted) when that would pass the limit.
  package func reserve(_ bytes: Int) -> Bool {
    var current = held.load(ordering: .relaxed)
    while true {
      guard bytes <= limit - current else { return false }
      let (exchanged, original) = held.compareExchange(
        expected: current, desired: current + bytes, ordering: .relaxed)
      if exchanged { return true }
      current = original
    }
  }

  /// Gives back `bytes` counted by `reserve`.
  package func release(_ bytes: Int) { held.subtract(bytes, ordering: .relaxed) }
}

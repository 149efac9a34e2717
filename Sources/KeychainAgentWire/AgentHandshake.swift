import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// How a connection to the agent begins: the client connects and sends nothing until the agent
/// greets it (`AgentFrame.greeting`).
///
/// The agent identifies its caller from the process that connected (its executable, read from
/// /proc) and greets it only after that, and it refuses a connection on which bytes arrived before
/// the greeting. So every request was sent after the agent read the caller's executable: a
/// program cannot connect, send, and then exec a trusted program that the agent would take the
/// request for (issue 49, case 2). The agent also learns who sent each later read
/// (SO_PASSCRED) and checks the executable again at each request.
package enum AgentHandshake {
  /// A connection to the agent at `path`, greeted. With `expectedAgent`, the process serving the
  /// socket must run that executable (the same file: device and inode), so a relay another
  /// program of the user put at the socket's path is refused before anything is sent to it (it
  /// can pass the agent's greeting on, but not be the agent's file).
  package static func connect(to path: String, expectedAgent: String? = nil) throws(FrameSocketError) -> Int32 {
    let descriptor = try FrameSocket.connect(to: path)
    do throws(FrameSocketError) {
      // Bounded: a keychaind of the first protocol, still running after an upgrade, waits for a
      // request while this waits for its greeting.
      var limit = timeval(tv_sec: greetingSeconds, tv_usec: 0)
      setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
      let greeting: [UInt8]?
      do throws(FrameSocketError) {
        greeting = try FrameSocket.receive(on: descriptor)
      } catch .system(_, let code) where code == EAGAIN || code == EWOULDBLOCK {
        throw .system(
          "waiting \(greetingSeconds) s for the agent's greeting (an older keychaind still running? restart it)", code)
      }
      guard let greeting, greeting == AgentFrame.greeting else { throw FrameSocketError.closed }
      var unlimited = timeval(tv_sec: 0, tv_usec: 0)
      setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &unlimited, socklen_t(MemoryLayout<timeval>.size))
      // Checked once greeted: the process that made the socket may still become the agent
      // (systemd-socket-activate execs keychaind in its own process when the first client comes).
      if let expectedAgent { try checkAgent(on: descriptor, is: expectedAgent) }
      return descriptor
    } catch {
      close(descriptor)
      throw error
    }
  }

  /// How long a client waits for the greeting: an agent greets as soon as it has read the
  /// caller's executable, so only an agent that does not speak this protocol takes this long.
  package static let greetingSeconds = 30

  /// Refuses a server that is not `executable` run by this user.
  ///
  /// Which file a process runs (`/proc/PID/exe`) is readable by root, and by the process's own
  /// user only while the process is dumpable: keychaind makes itself undumpable before it holds a
  /// key, so for an ordinary user the kernel answers EACCES for the real agent. What such a client
  /// can still verify is that the server is a process of this user that is not dumpable (its
  /// /proc folder then belongs to root): a relay that is dumpable, as any program is unless it
  /// asks otherwise, shows its own executable and is refused. A relay that makes itself
  /// undumpable too passes this client's check; the agent then cannot read that relay's
  /// executable either and refuses it (`AgentService.identify`), so it can pass nothing on. The
  /// Authentication article's table states what remains.
  package static func checkAgent(on descriptor: Int32, is executable: String) throws(FrameSocketError) {
    guard let server = FrameSocket.credentials(of: descriptor) else { throw .system("getsockopt(SO_PEERCRED)", errno) }
    var expected = stat()
    guard server.uid == getuid(), stat(executable, &expected) == 0 else { throw .notTheAgent(server.pid) }
    var running = stat()
    if stat("/proc/\(server.pid)/exe", &running) == 0 {
      guard expected.st_dev == running.st_dev, expected.st_ino == running.st_ino else {
        throw .notTheAgent(server.pid)
      }
      return
    }
    guard errno == EACCES, isUndumpable(server.pid) else { throw .notTheAgent(server.pid) }
  }

  /// Whether process `pid`, of this user (who is not root), is not dumpable: the kernel gives the
  /// files in the /proc folder of such a process to root (`task_dump_owner`), which no program of
  /// the user can change.
  static func isUndumpable(_ pid: Int32) -> Bool {
    var link = stat()
    return getuid() != 0 && lstat("/proc/\(pid)/exe", &link) == 0 && link.st_uid == 0
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// systemd's user units for the agent, and the socket systemd hands over when it starts it.
///
/// The socket unit has systemd listen at `%t/keychain-bridge/agent.sock` (`%t` is
/// `$XDG_RUNTIME_DIR`) in a 0700 folder; the first connection starts the service, which receives
/// the listening socket as descriptor 3 (sd_listen_fds(3)) and serves on it.
package enum SystemdUnits {
  /// The socket path the units use, for a client's KEYCHAIN_BRIDGE_AGENT.
  package static let socketInRuntimeDirectory = "keychain-bridge/agent.sock"

  static let socketUnit = """
    [Unit]
    Description=KeychainBridge keychain agent socket

    [Socket]
    ListenStream=%t/\(socketInRuntimeDirectory)
    SocketMode=0600
    DirectoryMode=0700

    [Install]
    WantedBy=sockets.target

    """

  /// The service unit running the agent at `executable`.
  package static func serviceUnit(executable: String) -> String {
    """
    [Unit]
    Description=KeychainBridge keychain agent
    Requires=keychaind.socket

    [Service]
    ExecStart=\(executable)
    LimitCORE=0

    [Install]
    Also=keychaind.socket

    """
  }

  /// Writes both units into `directory` (created 0700 when missing) and says what to run next.
  package static func install(into directory: URL, executable: String) throws -> [URL] {
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let socket = directory.appendingPathComponent("keychaind.socket")
    let service = directory.appendingPathComponent("keychaind.service")
    try Data(socketUnit.utf8).write(to: socket)
    try Data(serviceUnit(executable: executable).utf8).write(to: service)
    return [socket, service]
  }

  /// The user's unit folder: $XDG_CONFIG_HOME/systemd/user.
  package static var userUnitDirectory: URL {
    URL(fileURLWithPath: AgentPolicy.configurationHome).appendingPathComponent("systemd/user", isDirectory: true)
  }

  /// The listening socket systemd passed, when this process was started by socket activation:
  /// LISTEN_PID names this process and LISTEN_FDS counts descriptors from 3. The variables are
  /// removed, so that nothing this process starts takes them for its own.
  package static func activatedListener() throws(AgentStartError) -> Int32? {
    let environment = ProcessInfo.processInfo.environment
    guard let pid = environment["LISTEN_PID"].flatMap({ Int32($0) }), pid == getpid() else { return nil }
    let count = environment["LISTEN_FDS"].flatMap { Int($0) } ?? 0
    unsetenv("LISTEN_PID")
    unsetenv("LISTEN_FDS")
    unsetenv("LISTEN_FDNAMES")
    guard count == 1 else { throw AgentStartError("systemd passed \(count) sockets; the agent serves one") }
    return 3
  }
}

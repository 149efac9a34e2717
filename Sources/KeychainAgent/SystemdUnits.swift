import Foundation
import Security

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
  /// The ssh-agent's socket path the units use, for SSH_AUTH_SOCK.
  package static let sshSocketInRuntimeDirectory = "keychain-bridge/ssh.sock"

  /// The names the sockets are passed under (systemd's FileDescriptorName, LISTEN_FDNAMES).
  package static let agentSocketName = "agent"
  package static let sshSocketName = "ssh"

  static let socketUnit = """
    [Unit]
    Description=KeychainBridge keychain agent socket

    [Socket]
    ListenStream=%t/\(socketInRuntimeDirectory)
    SocketMode=0600
    DirectoryMode=0700
    FileDescriptorName=\(agentSocketName)

    [Install]
    WantedBy=sockets.target

    """

  /// The ssh-agent's socket unit: the same service, started by the first ssh client too.
  static let sshSocketUnit = """
    [Unit]
    Description=KeychainBridge ssh-agent socket

    [Socket]
    ListenStream=%t/\(sshSocketInRuntimeDirectory)
    SocketMode=0600
    DirectoryMode=0700
    FileDescriptorName=\(sshSocketName)
    Service=keychaind.service

    [Install]
    WantedBy=sockets.target

    """

  /// The service unit running the agent at `executable` with `arguments` (`--store DIR`,
  /// `--policy FILE`, `--idle-timeout SECONDS`: what the units were installed with), serving the
  /// Secret Service too with `secretService`.
  package static func serviceUnit(
    executable: String, arguments: [String] = [], secretService: Bool = false, sshAgent: Bool = false
  ) -> String {
    let command = ([executable] + (secretService ? ["--secret-service"] : []) + arguments).map(systemdQuoted)
    let sockets = "keychaind.socket" + (sshAgent ? " keychaind-ssh.socket" : "")
    return """
      [Unit]
      Description=KeychainBridge keychain agent
      Requires=\(sockets)

      [Service]
      ExecStart=\(command.joined(separator: " "))
      LimitCORE=0

      [Install]
      Also=\(sockets)

      """
  }

  /// The D-Bus activation file for the Secret Service: the session bus starts the agent (through
  /// systemd's unit when systemd runs the user's session, else by `Exec`) when a program first
  /// asks for org.freedesktop.secrets.
  package static func busActivationFile(executable: String, arguments: [String] = []) -> String {
    let command = ([executable, "--secret-service"] + arguments).map(busQuoted)
    return """
      [D-BUS Service]
      Name=org.freedesktop.secrets
      Exec=\(command.joined(separator: " "))
      SystemdService=keychaind.service

      """
  }

  /// One word of an ExecStart line: quoted, with systemd's specifiers (`%`) and variables (`$`)
  /// escaped, so a store folder with spaces or a percent sign reaches the agent as written.
  static func systemdQuoted(_ word: String) -> String {
    var quoted = "\""
    for character in word {
      switch character {
      case "\\": quoted += "\\\\"
      case "\"": quoted += "\\\""
      case "%": quoted += "%%"
      case "$": quoted += "$$"
      default: quoted.append(character)
      }
    }
    return quoted + "\""
  }

  /// One word of a D-Bus service file's Exec line, which dbus-daemon splits as a shell would
  /// (quotes and backslashes only; nothing is expanded).
  static func busQuoted(_ word: String) -> String {
    var quoted = "\""
    for character in word {
      if character == "\\" || character == "\"" || character == "$" || character == "`" { quoted += "\\" }
      quoted.append(character)
    }
    return quoted + "\""
  }

  /// Writes both units into `directory` (created 0700 when missing), running the agent with
  /// `arguments`; with `secretService`, the service serves the Secret Service too and the bus's
  /// activation file is written into `busServiceDirectory`. Returns the files written.
  package static func install(
    into directory: URL, executable: String, arguments: [String] = [], secretService: Bool = false,
    sshAgent: Bool = false, busServiceDirectory: URL? = nil
  ) throws -> [URL] {
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let socket = directory.appendingPathComponent("keychaind.socket")
    let service = directory.appendingPathComponent("keychaind.service")
    try Data(socketUnit.utf8).write(to: socket)
    try Data(
      serviceUnit(executable: executable, arguments: arguments, secretService: secretService, sshAgent: sshAgent).utf8
    ).write(to: service)
    var written = [socket, service]
    if sshAgent {
      let sshSocket = directory.appendingPathComponent("keychaind-ssh.socket")
      try Data(sshSocketUnit.utf8).write(to: sshSocket)
      written.append(sshSocket)
    }
    guard secretService else { return written }
    let busDirectory = busServiceDirectory ?? userBusServiceDirectory
    try FileManager.default.createDirectory(at: busDirectory, withIntermediateDirectories: true)
    let activation = busDirectory.appendingPathComponent("org.freedesktop.secrets.service")
    try Data(busActivationFile(executable: executable, arguments: arguments).utf8).write(to: activation)
    return written + [activation]
  }

  /// The user's D-Bus service folder, $XDG_DATA_HOME/dbus-1/services: the session bus reads it
  /// before the system's, so this activation file wins over GNOME Keyring's.
  package static var userBusServiceDirectory: URL {
    let environment = ProcessInfo.processInfo.environment
    let dataHome =
      environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
      ?? KeychainStore.homeDirectory().appendingPathComponent(".local/share").path
    return URL(fileURLWithPath: dataHome).appendingPathComponent("dbus-1/services", isDirectory: true)
  }

  /// The user's unit folder: $XDG_CONFIG_HOME/systemd/user.
  package static var userUnitDirectory: URL {
    URL(fileURLWithPath: AgentPolicy.configurationHome).appendingPathComponent("systemd/user", isDirectory: true)
  }

  /// The listening sockets systemd passed, by name, when this process was started by socket
  /// activation: LISTEN_PID names this process, LISTEN_FDS counts descriptors from 3 and
  /// LISTEN_FDNAMES names them (`agent`, `ssh`; one unnamed socket is the agent's, as units
  /// written before the ssh-agent's had). Empty when not activated. The variables are removed, so
  /// that nothing this process starts takes them for its own.
  package static func activatedListeners() throws(AgentStartError) -> [String: Int32] {
    let environment = ProcessInfo.processInfo.environment
    guard let pid = environment["LISTEN_PID"].flatMap({ Int32($0) }), pid == getpid() else { return [:] }
    let count = environment["LISTEN_FDS"].flatMap { Int($0) } ?? 0
    let names = environment["LISTEN_FDNAMES"]?.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    unsetenv("LISTEN_PID")
    unsetenv("LISTEN_FDS")
    unsetenv("LISTEN_FDNAMES")
    guard (1...2).contains(count) else {
      throw AgentStartError("systemd passed \(count) sockets; the agent serves its own and the ssh-agent's")
    }
    guard let names, names.count == count, names != ["unknown"] else {
      guard count == 1 else {
        throw AgentStartError("systemd passed \(count) sockets without names (FileDescriptorName=agent and ssh)")
      }
      return [agentSocketName: 3]
    }
    var listeners: [String: Int32] = [:]
    for (index, name) in names.enumerated() {
      guard name == agentSocketName || name == sshSocketName, listeners[name] == nil else {
        throw AgentStartError("systemd passed a socket named \(name); the agent's are named agent and ssh")
      }
      listeners[name] = Int32(3 + index)
    }
    return listeners
  }
}

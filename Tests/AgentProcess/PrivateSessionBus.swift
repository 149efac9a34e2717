import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A D-Bus session bus of a test's own: `dbus-daemon` on a socket in a private folder, with no
/// service activation (so no installed keyring, GNOME Keyring's included, is started on it), and
/// stopped when the test ends. Any user may connect (unlike a real session bus), so that a test can
/// show what a service does with a caller of another user.
package final class PrivateSessionBus: @unchecked Sendable {
  // @unchecked: set up in init, then read only; `stop` is called once.
  package let folder: URL
  /// The value for `DBUS_SESSION_BUS_ADDRESS`.
  package let address: String
  private let process = Process()

  /// A bus that activates the services of `serviceDirectory` (none when nil), started with
  /// `environment` added to this process's (which the services it starts inherit).
  package init(serviceDirectory: URL? = nil, environment daemonEnvironment: [String: String] = [:]) throws {
    folder = URL(fileURLWithPath: "/tmp/kb-bus-\(getpid())-\(UInt32.random(in: 0...UInt32.max))", isDirectory: true)
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    let socket = folder.appendingPathComponent("bus").path
    address = "unix:path=\(socket)"
    let configuration = """
      <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
        "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
      <busconfig>
        <type>session</type>
        <listen>\(address)</listen>
        <auth>EXTERNAL</auth>\(serviceDirectory.map { "\n  <servicedir>\($0.path)</servicedir>" } ?? "")
        <policy context="default">
          <allow user="*"/>
          <allow send_destination="*" eavesdrop="true"/>
          <allow eavesdrop="true"/>
          <allow own="*"/>
        </policy>
      </busconfig>
      """
    let configurationFile = folder.appendingPathComponent("bus.conf")
    try Data(configuration.utf8).write(to: configurationFile)
    process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
    process.arguments = ["--config-file=\(configurationFile.path)", "--nofork", "--nopidfile"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.environment = ProcessInfo.processInfo.environment.merging(daemonEnvironment) { $1 }
    try process.run()
    for _ in 0..<3000 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
    guard FileManager.default.fileExists(atPath: socket) else {
      stop()
      throw AgentTestError("dbus-daemon did not make its socket within 30 s")
    }
  }

  /// The environment a client of this bus runs with.
  package var environment: [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = address
    return environment
  }

  /// Runs `executable` with `arguments` on this bus, `input` on its standard input; its exit
  /// status, standard output and standard error. `environment` is added to the bus's. A client
  /// that hangs is killed after 60 s.
  package func run(
    _ executable: String, _ arguments: [String], input: String = "", asUser user: String? = nil,
    environment extra: [String: String] = [:]
  )
    throws -> (
      status: Int32, output: String, error: String
    )
  {
    let child = Process()
    if let user {
      // setpriv, as CI runs as root: the client runs as `user`, with no group of root's.
      child.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
      child.arguments =
        ["--reuid=\(user)", "--regid=\(user == "nobody" ? "nogroup" : user)", "--clear-groups", executable]
        + arguments
    } else {
      child.executableURL = URL(fileURLWithPath: executable)
      child.arguments = arguments
    }
    child.environment = environment.merging(extra) { $1 }
    let output = Pipe()
    let error = Pipe()
    let standardInput = Pipe()
    child.standardOutput = output
    child.standardError = error
    child.standardInput = standardInput
    try child.run()
    standardInput.fileHandleForWriting.write(Data(input.utf8))
    try? standardInput.fileHandleForWriting.close()
    let killer = DispatchWorkItem { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
    DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: killer)
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = error.fileHandleForReading.readDataToEndOfFile()
    child.waitUntilExit()
    killer.cancel()
    return (child.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
  }

  /// Stops the bus and removes its folder.
  package func stop() {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: folder)
  }
}

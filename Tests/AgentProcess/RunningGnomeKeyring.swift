import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// GNOME Keyring's secrets component on a private bus: keychain-bench measures it beside keychaind,
/// and the import test has it write a real keyring file. It starts with a new login keyring
/// unlocked by `password` on its standard input, as a desktop login does, its home in a folder of
/// the bus's, and is ready when the default alias names that keyring.
package final class RunningGnomeKeyring {
  package static let executable = "/usr/bin/gnome-keyring-daemon"
  /// Whether GNOME Keyring is installed.
  package static var installed: Bool { FileManager.default.isExecutableFile(atPath: executable) }

  /// Its home: the keyrings are in `data/keyrings`.
  package let home: URL
  private let process = Process()

  /// The login keyring's file.
  package var loginKeyring: URL { home.appendingPathComponent("data/keyrings/login.keyring") }

  /// Starts it on `bus` and waits (up to 30 s) until it serves its login keyring.
  package init(on bus: PrivateSessionBus, password: String) throws {
    home = bus.folder.appendingPathComponent("gnome-home", isDirectory: true)
    let runtime = bus.folder.appendingPathComponent("gnome-run", isDirectory: true)
    for folder in [home, runtime] {
      try FileManager.default.createDirectory(
        at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
    process.executableURL = URL(fileURLWithPath: Self.executable)
    process.arguments = ["--foreground", "--unlock", "--components=secrets"]
    process.environment = bus.environment.merging([
      "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path, "XDG_RUNTIME_DIR": runtime.path,
    ]) { $1 }
    let input = Pipe()
    process.standardInput = input
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    input.fileHandleForWriting.write(Data(password.utf8))
    try input.fileHandleForWriting.close()
    let ask = [
      "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
      "org.freedesktop.Secret.Service.ReadAlias", "string:default",
    ]
    for _ in 0..<300 {
      if try bus.run("/usr/bin/dbus-send", ask).output.contains("/org/freedesktop/secrets/collection/") { return }
      usleep(100_000)
    }
    stop()
    throw AgentTestError("GNOME Keyring did not make its login keyring within 30 s")
  }

  /// Ends it. In the foreground it does not end on SIGTERM; its file is written before each call
  /// is answered, so nothing is lost.
  package func stop() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}

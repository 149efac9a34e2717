import Foundation
import Security

#if canImport(Glibc)
  import Glibc
#endif

/// A real terminal for a test: a tmux server on a private socket in `folder`, running one command
/// in a 200x40 window, killed afterwards. Tests read its screen and type into it as a user would
/// (LocalAuthenticationTests' terminal prompt, the Secret Service's pinentry prompt).
package final class TestTerminal {
  package let socket: String

  /// Starts tmux running `command` (through the shell).
  package init(in folder: URL, command: String) throws {
    socket = folder.appendingPathComponent("tmux.sock").path
    try Self.tmux(socket, ["new-session", "-d", "-x", "200", "-y", "40", command])
  }

  deinit { _ = try? Self.tmux(socket, ["kill-server"]) }

  /// Runs tmux with `arguments`; its standard output.
  ///
  /// posix_spawn and waitpid, not Foundation's Process: the server new-session starts inherits
  /// the descriptor Process watches for its child's end, so Process would wait for the server.
  @discardableResult
  package static func tmux(_ socket: String, _ arguments: [String]) throws -> String {
    let capture = socket + ".out"
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, capture, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    // The server lives on after this call: it must not keep the test process's sockets open
    // (a PostgreSQL session another test waits to see closed).
    guard SpawnedProcess.closeDescriptors(from: 3, in: &actions) else { throw CocoaError(.executableLoad) }
    let argv: [UnsafeMutablePointer<CChar>?] =
      (["/usr/bin/tmux", "-S", socket] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var child: pid_t = 0
    let spawned = posix_spawn(&child, "/usr/bin/tmux", &actions, nil, argv, environ)
    guard spawned == 0 else { throw CocoaError(.executableLoad) }
    var status: Int32 = 0
    while waitpid(child, &status, 0) < 0 && errno == EINTR {}
    return (try? String(contentsOfFile: capture, encoding: .utf8)) ?? ""
  }

  /// What the window shows now.
  package var screen: String { (try? Self.tmux(socket, ["capture-pane", "-p"])) ?? "" }

  /// The terminal device of the window (as /dev/pts/N).
  package var device: String {
    ((try? Self.tmux(socket, ["display-message", "-p", "#{pane_tty}"])) ?? "").trimmingCharacters(
      in: .whitespacesAndNewlines)
  }

  /// Types `text` and Enter.
  package func type(_ text: String) throws { try Self.tmux(socket, ["send-keys", text, "Enter"]) }

  /// Waits until the screen shows `text`; false after 20 s.
  package func waitFor(_ text: String) -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    while ContinuousClock.now < deadline {
      if screen.contains(text) { return true }
      usleep(50_000)
    }
    return false
  }
}

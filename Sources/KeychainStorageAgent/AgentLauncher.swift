import CKeychainAgent
import Foundation
import KeychainAgentWire
import Security

#if canImport(Glibc)
  import Glibc
#endif

/// Starts `keychaind` when a program needs it, as gpg starts gpg-agent: what
/// `KEYCHAIN_BRIDGE_AGENT=auto` asks for, on a machine without systemd's user units (with them,
/// the socket already answers and nothing is started).
///
/// The agent is started from the `keychaind` beside the running program (where SwiftPM and a
/// package's installation put it), else from `PATH`; in a session of its own (no terminal, not
/// in the program's process group, so it outlives the program), with the few variables of the
/// program's environment that say where the user's files are and how to ask them
/// (`agentEnvironment`: so it serves the store `KEYCHAIN_BRIDGE_HOME` names, and nothing such as
/// `LD_PRELOAD` chooses code it runs), its standard error going to
/// `keychaind.log` beside the socket. Programs that start at the same time take a lock on the
/// socket's folder first, so one agent is started and the others connect to it.
package enum AgentLauncher {
  /// How long a start may take before the program gives up on it: the agent opens the store
  /// (a passphrase store runs scrypt, about 0.1 s) before it listens.
  static let startTimeout: TimeInterval = 10

  /// The `keychaind` to start: beside this program's executable, else the first on `PATH`.
  package static func executable() -> String? {
    executable(
      beside: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
      searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
  }

  /// The `keychaind` in `programFolder`, else in the first folder of `searchPath` that has one;
  /// only absolute folders are searched: a relative one, such as `.`, would start whatever file
  /// named keychaind the working directory holds, and hand it the store.
  package static func executable(beside programFolder: URL, searchPath: String) -> String? {
    let beside = programFolder.appendingPathComponent("keychaind").path
    if access(beside, X_OK) == 0 { return beside }
    for folder in searchPath.split(separator: ":") where folder.hasPrefix("/") {
      let candidate = "\(folder)/keychaind"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }

  /// Makes sure an agent answers at `socketPath`: returns at once when one does, else starts one
  /// and waits until it answers. errSecNotAvailable, with the reason and the agent's last words,
  /// when none can be started.
  package static func ensureRunning(at socketPath: String) throws(SecStatus) {
    // Checked before anything is written there: the user's alone (0700), as the agent requires.
    let folder: String
    do throws(SocketFolderError) {
      folder = try SocketFolder.prepare(for: socketPath)
    } catch {
      throw failure(socketPath, error.description)
    }
    let lock = open("\(folder)/agent.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard lock >= 0 else {
      throw failure(socketPath, "cannot open \(folder)/agent.lock: \(String(cString: strerror(errno)))")
    }
    defer { close(lock) }
    // Held until the agent answers: a program that waited for it then finds the agent running.
    guard flock(lock, LOCK_EX) == 0 else {
      throw failure(socketPath, "cannot lock \(folder)/agent.lock: \(String(cString: strerror(errno)))")
    }
    if answers(socketPath) { return }
    guard let executable = executable() else {
      throw failure(socketPath, "no keychaind beside this program or on PATH")
    }
    let log = "\(folder)/keychaind.log"
    let pid = try spawn(executable, arguments: ["--socket", socketPath], log: log, socketPath: socketPath)
    let deadline = Date().addingTimeInterval(startTimeout)
    while Date() < deadline {
      if answers(socketPath) {
        reapWhenItEnds(pid)
        return
      }
      var status: Int32 = 0
      if waitpid(pid, &status, WNOHANG) == pid {
        throw failure(socketPath, "\(executable) exited at once: \(lastLine(of: log))")
      }
      usleep(10_000)
    }
    reapWhenItEnds(pid)
    throw failure(socketPath, "\(executable) did not answer within \(Int(startTimeout)) s: \(lastLine(of: log))")
  }

  private static func answers(_ socketPath: String) -> Bool {
    guard let descriptor = try? FrameSocket.connect(to: socketPath) else { return false }
    close(descriptor)
    return true
  }

  /// Starts `executable` in a session of its own, its standard input and output on /dev/null and
  /// its standard error appended to `log`.
  private static func spawn(_ executable: String, arguments: [String], log: String, socketPath: String)
    throws(SecStatus) -> pid_t
  {
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let environment = agentEnvironment(ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") }
    let envp = environment + [nil]
    defer { environment.forEach { free($0) } }
    var pid: pid_t = 0
    let result = keychaind_spawn_detached(executable, argv, envp, log, &pid)
    guard result == 0 else {
      throw failure(socketPath, "cannot start \(executable): \(String(cString: strerror(result)))")
    }
    return pid
  }

  /// The variables an agent started on demand receives of the starting program's `environment`
  /// (issue 49, case 6): where the user's files, runtime folder and display are, the keychain's
  /// own settings, and the language; nothing that chooses code (`LD_*`, interpreters' paths) or
  /// that the agent does not need. An agent started with the program's whole environment ran the
  /// program's `LD_PRELOAD`, which made it dumpable and its memory readable.
  package static func agentEnvironment(_ environment: [String: String]) -> [String: String] {
    let kept: Set<String> = [
      "HOME", "USER", "LOGNAME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
      "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "LANG", "LC_ALL", "LC_MESSAGES", "LC_CTYPE",
      "KEYCHAIN_BRIDGE_HOME", "KEYCHAIN_BRIDGE_ASKPASS", "KEYCHAIN_BRIDGE_ASKPASS_TIMEOUT", "KEYCHAIN_BRIDGE_TCTI",
      // A program that holds the passphrase may unlock anyway; the agent wipes it once read.
      "KEYCHAIN_BRIDGE_PASSPHRASE",
    ]
    var chosen = environment.filter { kept.contains($0.key) }
    // A fixed search path: the askpass helper's interpreter must not be found where the program said.
    chosen["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    return chosen
  }

  /// Reaps the agent when it ends, on a thread of its own, so that an agent that exits while this
  /// program runs leaves no zombie.
  private static func reapWhenItEnds(_ child: pid_t) {
    Thread.detachNewThread {
      var status: Int32 = 0
      while waitpid(child, &status, 0) < 0 && errno == EINTR {}
    }
  }

  private static func lastLine(of log: String) -> String {
    let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").last.map(String.init) ?? "(nothing in \(log))"
  }

  private static func failure(_ socketPath: String, _ reason: String) -> SecStatus {
    SecStatus(
      errSecNotAvailable,
      detail: "KEYCHAIN_BRIDGE_AGENT=auto could not start keychaind at \(socketPath): \(reason). Start it with "
        + "`keychaind --socket \(socketPath)`, or unset KEYCHAIN_BRIDGE_AGENT to use the store in this process")
  }
}

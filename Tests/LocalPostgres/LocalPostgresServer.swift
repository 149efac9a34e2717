import Foundation
import Security
import Synchronization

/// A real PostgreSQL server for the sync tests and the sync benchmark: Debian's `postgresql`
/// binaries, a cluster made by `initdb` in a temporary folder, listening on 127.0.0.1 (and a Unix
/// socket in that folder) only, stopped when the process exits. Each test gets a database of its own.
///
/// PostgreSQL refuses to run as root; under root the server runs as the `postgres` user that
/// Debian's package creates.
public final class PostgresTestServer: Sendable {
  public let directory: URL
  public let port: Int
  let binaries: URL
  private let runAsPostgres: Bool
  private static let user = "keychain_bridge_test"

  /// The server of this test process, started on first use.
  public static func shared() throws -> PostgresTestServer {
    try sharedServer.withLock { server in
      if let server { return server }
      let started = try dedicated()
      server = started
      return started
    }
  }

  /// A server of its own, for a test that stops and restarts it, or one that needs other
  /// settings (`options`: more `-c name=value` server options); stopped at exit too. `ports`: the
  /// ports to try, in order (tests of this launcher); random ones otherwise.
  public static func dedicated(options: String = "", ports: [Int]? = nil) throws -> PostgresTestServer {
    let started = try PostgresTestServer(options: options, ports: ports)
    let first = running.withLock { servers in
      servers.append(started)
      return servers.count == 1
    }
    if first { atexit { PostgresTestServer.running.withLock { $0.forEach { $0.stop() } } } }
    return started
  }

  private static let sharedServer = Mutex<PostgresTestServer?>(nil)
  private static let running = Mutex<[PostgresTestServer]>([])

  private init(options: String, ports: [Int]?) throws {
    let binaries = try Self.findBinaries()
    let runAsPostgres = getuid() == 0
    let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
      "kb-postgres-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    if runAsPostgres { try Self.shell("/bin/chown", ["postgres:postgres", directory.path]) }
    func run(_ tool: String, _ arguments: [String]) throws {
      try Self.runTool(binaries, runAsPostgres, directory, tool, arguments)
    }
    let dataPath = directory.appendingPathComponent("data").path
    try run("initdb", ["-D", dataPath, "-U", Self.user, "--auth=trust", "--no-sync", "-E", "UTF8"])
    var chosen: Int?
    let log = directory.appendingPathComponent("server.log")
    for candidate in ports ?? (0..<20).map({ _ in Int.random(in: Self.candidatePorts) }) {
      let logged = (try? Data(contentsOf: log).count) ?? 0
      do {
        try run(
          "pg_ctl", Self.startArguments(dataPath: dataPath, directory: directory, port: candidate, options: options))
      } catch {
        continue
      }
      // A server given two listen addresses starts, and reports ready, when only one of them
      // binds; the tests then find nothing on the other. Such a start is tried again elsewhere.
      let started = (try? Data(contentsOf: log).dropFirst(logged)) ?? Data()
      if String(decoding: started, as: UTF8.self).contains("could not bind") {
        _ = try? run("pg_ctl", ["-D", dataPath, "-m", "immediate", "-w", "stop"])
        continue
      }
      chosen = candidate
      break
    }
    guard let chosen else {
      throw TestServerError("PostgreSQL did not start on any port tried; see \(directory.path)/server.log")
    }
    self.binaries = binaries
    self.runAsPostgres = runAsPostgres
    self.directory = directory
    self.options = options
    port = chosen
  }

  /// Ports to listen on: below the kernel's ephemeral range where there is room, because any
  /// client connection of the tests (to the other servers they start) may hold a port of that range
  /// as its source port, and a server restarted on its port must find it free again.
  private static let candidatePorts: Range<Int> = {
    let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
      .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    if let low = range?.first, low > 21_000 { return 20_000..<low }
    return 20_000..<60_000
  }()

  /// The server options given at creation, used again at each restart.
  private let options: String

  private static func startArguments(dataPath: String, directory: URL, port: Int, options: String) -> [String] {
    [
      "-D", dataPath, "-l", "\(directory.path)/server.log", "-w", "-t", "300", "-o",
      "-p \(port) -c listen_addresses=127.0.0.1 -k \(directory.path) -c fsync=off -c synchronous_commit=off \(options)",
      "start",
    ]
  }

  private var dataPath: String { directory.appendingPathComponent("data").path }

  /// A new, empty database on the server, as a postgres:// URL over TCP on 127.0.0.1.
  public func makeDatabase() throws -> String {
    let name = "kb_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
    try run(
      "psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", "postgres", "-qc", "CREATE DATABASE \(name)"])
    return url(database: name)
  }

  /// The database's URL. Connecting may take up to five minutes (`connect_timeout`): the suite
  /// runs beside cold builds on two cores, where a connection and its schema check have taken
  /// longer than the 20 s a user gets by default (issue 52). The tests of the deadline itself set
  /// their own.
  public func url(database: String) -> String {
    "postgres://\(Self.user)@127.0.0.1:\(port)/\(database)?connect_timeout=300"
  }

  /// Runs SQL on a database with psql and returns its unaligned output.
  @discardableResult
  public func sql(_ statement: String, database: String) throws -> String {
    try run(
      "psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", database, "-XAtqc", statement])
  }

  /// The whole database as pg_dump writes it (plain SQL, data included).
  public func dump(database: String) throws -> Data {
    Data(try run("pg_dump", ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.user, "-d", database]).utf8)
  }

  public func stopForRestart() throws {
    try run("pg_ctl", ["-D", dataPath, "-m", "fast", "-w", "stop"])
  }

  public func startAgain() throws {
    try run("pg_ctl", Self.startArguments(dataPath: dataPath, directory: directory, port: port, options: options))
  }

  public func stop() {
    _ = try? run("pg_ctl", ["-D", dataPath, "-m", "immediate", "-w", "stop"])
    try? FileManager.default.removeItem(at: directory)
  }

  @discardableResult
  private func run(_ tool: String, _ arguments: [String]) throws -> String {
    try Self.runTool(binaries, runAsPostgres, directory, tool, arguments)
  }

  @discardableResult
  private static func runTool(
    _ binaries: URL, _ runAsPostgres: Bool, _ directory: URL, _ tool: String, _ arguments: [String]
  ) throws -> String {
    let executable = binaries.appendingPathComponent(tool).path
    if runAsPostgres {
      return try shell("/usr/sbin/runuser", ["-u", "postgres", "--", executable] + arguments, directory: directory)
    }
    return try shell(executable, arguments, directory: directory)
  }

  /// Runs a program and waits for it with posix_spawn and waitpid. Its output goes to files, not
  /// pipes: the server pg_ctl starts would inherit a pipe and keep it open for ever.
  @discardableResult
  private static func shell(_ executable: String, _ arguments: [String], directory: URL? = nil) throws -> String {
    let path = executable.hasPrefix("/") ? executable : "/usr/bin/\(executable)"
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString)")
    let outputPath = scratch.path + ".out"
    let errorPath = scratch.path + ".err"
    defer {
      unlink(outputPath)
      unlink(errorPath)
    }
    let status = waitForExit(try spawn(path, arguments, outputPath: outputPath, errorPath: errorPath))
    let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
    guard status == 0 else {
      throw TestServerError("\(path) \(arguments.joined(separator: " ")) failed (status \(status)): \(errors)")
    }
    return output
  }

  /// Debian installs the server under /usr/lib/postgresql/VERSION/bin, off the PATH.
  private static func findBinaries() throws -> URL {
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
    for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
      let bin = URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin", isDirectory: true)
      if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
    }
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
      let bin = URL(fileURLWithPath: String(directory), isDirectory: true)
      if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
    }
    throw TestServerError("PostgreSQL's server is not installed (Debian's postgresql package; make setup installs it)")
  }
}

public struct TestServerError: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// Starts a program with posix_spawn, its output to `outputPath` and its errors to `errorPath` (or
/// to the same file), holding no other descriptor of this process. Files, not pipes: a file
/// survives the program being killed, and a server the program starts (pg_ctl) would inherit a
/// pipe and keep it open for ever. For the same reason nothing else is inherited: another test's
/// pipe, open while this one spawns, kept by the server for the whole run, left that test waiting
/// for its child's output to end (a CI run hung so).
public func spawn(
  _ path: String, _ arguments: [String], outputPath: String, errorPath: String? = nil,
  environment: [String: String] = [:]
) throws -> pid_t {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
  if let errorPath {
    posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
  } else {
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
  }
  guard SpawnedProcess.closeDescriptors(from: 3, in: &actions) else {
    throw TestServerError("cannot start \(path): the C library cannot close inherited descriptors")
  }
  let argv = ([path] + arguments).map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { strdup("\($0)=\($1)") } + [nil]
  defer { variables.forEach { free($0) } }
  var pid: pid_t = 0
  let spawned = posix_spawn(&pid, path, &actions, nil, argv, variables)
  guard spawned == 0 else { throw TestServerError("cannot start \(path): \(String(cString: strerror(spawned)))") }
  return pid
}

/// Waits for a child and returns its exit status (or 128 + the signal that ended it).
@discardableResult
public func waitForExit(_ pid: pid_t) -> Int32 {
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
  return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

/// A program built beside the test bundle (an executable product of this package).
public func builtProgram(_ name: String) -> String {
  URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
}

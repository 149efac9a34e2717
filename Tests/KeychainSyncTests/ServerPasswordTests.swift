import Foundation
import LocalPostgres
import Logging
import Security
import Testing

@testable import KeychainSync

#if canImport(Glibc)
  import Glibc
#endif

/// The sync server's password, taken as PostgreSQL's own clients take it (issue 67): from the URL,
/// else PGPASSWORD, else ~/.pgpass (or PGPASSFILE); and the failures said as what they are.
@Suite struct ServerPassword {
  /// A password file in a folder of its own, with `mode`.
  static func passwordFile(_ text: String, mode: mode_t = 0o600) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-pgpass-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let path = folder.appendingPathComponent("pgpass").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, mode)
    return path
  }

  @Test("The URL's password, else PGPASSWORD, else the password file's first matching line")
  func passwordSources() throws {
    let url = "postgres://kb@db.example:5433/keychain"
    #expect(
      try SyncServerAddress("postgres://kb:inline@db.example/keychain", environment: ["PGPASSWORD": "env"]).password
        == "inline")
    #expect(try SyncServerAddress(url, environment: ["PGPASSWORD": "from-env"]).password == "from-env")
    let file = try Self.passwordFile(
      """
      # host:port:database:user:password
      other.example:*:*:kb:not-this
      db.example:5433:keychain:someone:not-this-either
      db.example:5433:*:kb:p\\:ss\\\\word
      *:*:*:*:too-late

      """)
    #expect(try SyncServerAddress(url, environment: ["PGPASSFILE": file]).password == "p:ss\\word")
    #expect(try SyncServerAddress(url, environment: ["PGPASSFILE": file, "PGPASSWORD": "first"]).password == "first")
    // A Unix socket is "localhost" to the password file.
    let socketFile = try Self.passwordFile("localhost:5432:keychain:kb:over-socket\n")
    #expect(
      try SyncServerAddress("postgres://kb@/keychain?host=/run/postgresql", environment: ["PGPASSFILE": socketFile])
        .password == "over-socket")
    // A file others may read is not used, as libpq does not use it; a missing one is no password.
    let readable = try Self.passwordFile("*:*:*:*:exposed\n", mode: 0o644)
    #expect(try SyncServerAddress(url, environment: ["PGPASSFILE": readable]).password == nil)
    #expect(try SyncServerAddress(url, environment: ["PGPASSFILE": "/no/such/file"]).password == nil)
  }

  @Test("A context's message does not repeat the store's own prefix")
  func noDoubledPrefix() {
    let error = KeychainSyncError(
      SecStatus(errSecParam, detail: "Sync: the group passphrase must have at least 12 characters"),
      "Cannot create the sync group")
    #expect(error.message == "Cannot create the sync group: the group passphrase must have at least 12 characters")
  }

  @Test("A role with a password: asked for when missing, refused when wrong, let in with PGPASSWORD or the file")
  func aServerThatWantsAPassword() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-pw-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let hba = folder.appendingPathComponent("pg_hba.conf")
    try "local all all trust\nhost all kbpw 127.0.0.1/32 scram-sha-256\nhost all all 127.0.0.1/32 trust\n".write(
      to: hba, atomically: true, encoding: .utf8)
    if getuid() == 0 {
      chmod(folder.path, 0o755)
      chown(hba.path, getpwnam("postgres").pointee.pw_uid, getpwnam("postgres").pointee.pw_gid)
    }
    let server = try PostgresTestServer.dedicated(options: "-c hba_file=\(hba.path)")
    defer { server.stop() }
    let admin = try server.makeDatabase()
    let database = try #require(URL(string: admin)?.lastPathComponent)
    _ = try server.sql("CREATE ROLE kbpw LOGIN PASSWORD 'the password'", database: database)
    _ = try server.sql("ALTER DATABASE \(database) OWNER TO kbpw", database: database)
    let url = "postgres://kbpw@127.0.0.1:\(server.port)/\(database)"
    let logger = Logger(label: "test")
    func connect(_ url: String, _ environment: [String: String]) async -> KeychainSyncError? {
      do throws(KeychainSyncError) {
        let connected = try await SyncServer.connect(
          try SyncServerAddress(url, environment: environment), logger: logger, deadline: .seconds(300))
        await connected.close()
        return nil
      } catch {
        return error
      }
    }
    let missing = try #require(await connect(url, [:]))
    #expect(missing.status == errSecAuthFailed && missing.asksForServerPassword, "\(missing)")
    #expect(missing.message.contains("asks for kbpw's password and none was given"), "\(missing)")
    #expect(!missing.message.contains("authMechanism"), "\(missing)")
    let wrong = try #require(await connect(url, ["PGPASSWORD": "not it"]))
    #expect(wrong.status == errSecAuthFailed && !wrong.asksForServerPassword, "\(wrong)")
    #expect(wrong.message.contains("refused the connection: password authentication failed"), "\(wrong)")
    #expect(await connect(url, ["PGPASSWORD": "the password"]) == nil)
    let file = try Self.passwordFile("127.0.0.1:\(server.port):*:kbpw:the password\n")
    #expect(await connect(url, ["PGPASSFILE": file]) == nil)
    // A database the server does not have is the server's answer, not an unreachable server.
    let absent = try #require(
      await connect("postgres://kbpw@127.0.0.1:\(server.port)/nowhere", ["PGPASSWORD": "the password"]))
    #expect(absent.message.contains("refused the connection: database \"nowhere\" does not exist"), "\(absent)")
    #expect(!absent.message.contains("Cannot reach"), "\(absent)")
  }
}

import Foundation
import Security
import Testing

@testable import KeychainSync

#if canImport(Glibc)
  import Glibc
#endif

/// A sync server that is not on loopback is reached over verified TLS unless the URL says
/// otherwise (issue 27: libpq's default, prefer, let a network attacker downgrade to plaintext).
/// The servers here listen on 127.0.0.2, which the client does not count as loopback, and accept
/// that address only as their pg_hba.conf says: over TLS, or over plaintext.
@Suite(.serialized) struct TransportSecurity {
  @Test func remoteServersDefaultToVerifiedTLSAndLoopbackToPlaintext() throws {
    #expect(try SyncServerAddress("postgres://kb@db.example/keychain").transportSecurity == .verifyFull)
    #expect(try SyncServerAddress("postgres://kb@127.0.0.2:5432/keychain").transportSecurity == .verifyFull)
    #expect(try SyncServerAddress("postgres://kb@127.0.0.1/keychain").transportSecurity == .disable)
    #expect(try SyncServerAddress("postgres://kb@localhost/keychain").transportSecurity == .disable)
    #expect(try SyncServerAddress("postgres://kb@db.example/k?sslmode=prefer").transportSecurity == .prefer)
    #expect(try SyncServerAddress("postgres://kb@db.example/k?sslmode=disable").transportSecurity == .disable)
    #expect(throws: KeychainSyncError.self) { try SyncServerAddress("postgres://kb@db.example/k?sslmode=allow") }
    // libpq's connect_timeout, in whole seconds; 0 (libpq's "for ever") and nonsense refused.
    #expect(try SyncServerAddress("postgres://kb@db.example/k").connectTimeout == .seconds(20))
    #expect(try SyncServerAddress("postgres://kb@db.example/k?connect_timeout=90").connectTimeout == .seconds(90))
    for refused in ["0", "-1", "1.5", "ten", "3601", "99999999999999999999"] {
      #expect(throws: KeychainSyncError.self) {
        try SyncServerAddress("postgres://kb@db.example/k?connect_timeout=\(refused)")
      }
    }
  }

  /// A certificate authority and a server certificate for 127.0.0.2, made by the openssl command
  /// line, readable by the server's user.
  private struct Certificates {
    let directory: URL
    var authority: String { directory.appendingPathComponent("ca.pem").path }
    var certificate: String { directory.appendingPathComponent("server.pem").path }
    var key: String { directory.appendingPathComponent("server.key").path }

    init() throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-tls-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
      try Self.openssl(
        ["req", "-x509"] + curve + [
          "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=keychain-bridge test CA",
          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
        ], in: directory)
      try Self.openssl(
        ["req"] + curve + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.2"], in: directory)
      try "subjectAltName=IP:127.0.0.2\n".write(
        to: directory.appendingPathComponent("san.cnf"), atomically: true, encoding: .utf8)
      try Self.openssl(
        [
          "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
          "-out", "server.pem", "-days", "2", "-extfile", "san.cnf",
        ], in: directory)
      chmod(directory.appendingPathComponent("server.key").path, 0o600)
      if getuid() == 0 {
        // The server runs as Debian's postgres user under root, and reads its key as that user.
        let chown = Process()
        chown.executableURL = URL(fileURLWithPath: "/bin/chown")
        chown.arguments = ["-R", "postgres:postgres", directory.path]
        try chown.run()
        chown.waitUntilExit()
      }
    }

    private static func openssl(_ arguments: [String], in directory: URL) throws {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
      process.arguments = arguments
      process.currentDirectoryURL = directory
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      process.waitUntilExit()
      guard process.terminationStatus == 0 else { throw TestServerError("openssl \(arguments[0]) failed") }
    }
  }

  /// A server listening on 127.0.0.1 and 127.0.0.2; `hba` is its whole pg_hba.conf.
  private func server(_ certificates: Certificates, tls: Bool, hba: String) throws -> PostgresTestServer {
    let hbaFile = certificates.directory.appendingPathComponent("pg_hba-\(tls).conf")
    try hba.write(to: hbaFile, atomically: true, encoding: .utf8)
    if getuid() == 0 { chown(hbaFile.path, getpwnam("postgres").pointee.pw_uid, getpwnam("postgres").pointee.pw_gid) }
    var options = "-c listen_addresses=127.0.0.1,127.0.0.2 -c hba_file=\(hbaFile.path)"
    if tls { options += " -c ssl=on -c ssl_cert_file=\(certificates.certificate) -c ssl_key_file=\(certificates.key)" }
    return try PostgresTestServer.dedicated(options: options)
  }

  /// What a client gets from the server at `url`: errSecNoSuchKeychain means it connected and
  /// found no group (the key file names none); errSecNotAvailable means it could not connect.
  private func reach(_ url: String) async -> OSStatus {
    do {
      let store = try TestStore()
      let keyFile = Data("KBSG1".utf8) + Data((0..<32).map { _ in UInt8.random(in: 0...255) })
      try await KeychainSyncGroup.join(store: store.store, server: url, keyFile: keyFile)
      return errSecSuccess
    } catch let error as KeychainSyncError {
      return error.status
    } catch {
      return errSecInternalComponent
    }
  }

  @Test func aServerWithACertificateIsReachedOnlyWhenTheCertificateVerifies() async throws {
    let certificates = try Certificates()
    defer { try? FileManager.default.removeItem(at: certificates.directory) }
    // TLS only on 127.0.0.2: a plaintext connection there is refused by the server itself.
    let server = try server(
      certificates, tls: true,
      hba: "local all all trust\nhost all all 127.0.0.1/32 trust\nhostssl all all 127.0.0.2/32 trust\n")
    defer { server.stop() }
    let remote = try server.makeDatabase().replacingOccurrences(of: "@127.0.0.1:", with: "@127.0.0.2:")
    #expect(await reach(remote + "&sslrootcert=\(certificates.authority)") == errSecNoSuchKeychain)
    // The system's roots do not know the test authority: refused, never plaintext.
    #expect(await reach(remote) == errSecNotAvailable)
    #expect(await reach(remote + "&sslmode=require") == errSecNotAvailable)
  }

  @Test func aServerWithoutTLSIsRefusedUnlessTheURLSaysPlaintext() async throws {
    let certificates = try Certificates()
    defer { try? FileManager.default.removeItem(at: certificates.directory) }
    let server = try server(
      certificates, tls: false,
      hba: "local all all trust\nhost all all 127.0.0.1/32 trust\nhost all all 127.0.0.2/32 trust\n")
    defer { server.stop() }
    let remote = try server.makeDatabase().replacingOccurrences(of: "@127.0.0.1:", with: "@127.0.0.2:")
    #expect(await reach(remote) == errSecNotAvailable)
    #expect(await reach(remote + "&sslmode=disable") == errSecNoSuchKeychain)
  }
}

import Foundation
import NIOSSL
import PostgresNIO
import Security

/// A PostgreSQL connection string, as libpq writes it: `postgres://user[:password]@host[:port]/db`,
/// its password, when the URL has none, taken as PostgreSQL's own clients take it: `PGPASSWORD`,
/// else the password file (`PGPASSFILE`, else `~/.pgpass`, used only when no one else may read it),
/// with `?sslmode=disable|prefer|require|verify-full`, `?sslrootcert=/path/ca.pem` and
/// `?host=/socket/directory` for a Unix socket, and `?connect_timeout=SECONDS` (how long connecting,
/// and bringing the schema up to date, may take; 20 s when absent).
///
/// A server that is not on loopback or a Unix socket is reached over TLS with its certificate
/// verified (chain and host name), unless the URL says `sslmode=disable` or `sslmode=prefer`
/// explicitly: libpq's default, prefer, falls back to plaintext, which a network attacker forces.
/// Here `require` verifies too (libpq's `require` does not), so no mode that says TLS skips the
/// check.
struct SyncServerAddress: Sendable, Equatable {
  enum TransportSecurity: String, Sendable {
    case disable, prefer, require
    case verifyFull = "verify-full"
  }

  var user: String
  var password: String?
  var host: String
  var port: Int
  var database: String
  /// A directory holding the server's Unix socket (libpq's `host=/path` form); nil for TCP.
  var socketDirectory: String?
  var transportSecurity: TransportSecurity
  /// A PEM file of the certificate authorities to trust instead of the system's (`sslrootcert`).
  var rootCertificates: String?
  /// How long connecting may take, TCP, TLS, authentication and the schema's check included
  /// (`connect_timeout`, libpq's name, in whole seconds).
  var connectTimeout: Duration = .seconds(20)
  /// Whether the URL set `connectTimeout`.
  var connectTimeoutGiven = false

  /// The longest `connect_timeout` taken: past an hour a connection that does not come is not
  /// worth waiting for, and a bound keeps the arithmetic of deadlines safe.
  static let longestConnectTimeout = 3600

  init(_ connectionString: String, environment: [String: String] = ProcessInfo.processInfo.environment)
    throws(KeychainSyncError)
  {
    guard let components = URLComponents(string: connectionString),
      components.scheme == "postgres" || components.scheme == "postgresql"
    else {
      throw KeychainSyncError(
        status: errSecParam, message: "The sync server must be a postgres:// URL (postgres://user@host:port/database).")
    }
    let query = Dictionary(
      (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
    guard let user = components.user, !user.isEmpty else {
      throw KeychainSyncError(
        status: errSecParam, message: "The sync server URL names no user (postgres://USER@host/db).")
    }
    self.user = user
    password = components.password
    socketDirectory = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
    host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
    port = components.port ?? 5432
    let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
    database = path.isEmpty ? user : path
    let loopback = socketDirectory != nil || ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host)
    if let mode = query["sslmode"] {
      guard let parsed = TransportSecurity(rawValue: mode) else {
        throw KeychainSyncError(
          status: errSecParam,
          message: "The sync server URL's sslmode must be disable, prefer, require or verify-full, not \(mode).")
      }
      transportSecurity = parsed
    } else {
      // On loopback TLS only costs time; anywhere else a verified TLS connection or nothing.
      transportSecurity = loopback ? .disable : .verifyFull
    }
    rootCertificates = query["sslrootcert"].flatMap { $0.isEmpty ? nil : $0 }
    if let given = query["connect_timeout"] {
      // libpq's 0 means "wait for ever"; a sync engine must notice a server that never answers.
      guard let seconds = Int(given), (1...Self.longestConnectTimeout).contains(seconds) else {
        throw KeychainSyncError(
          status: errSecParam,
          message:
            "The sync server URL's connect_timeout must be a whole number of seconds from 1 to "
            + "\(Self.longestConnectTimeout), not \(given).")
      }
      connectTimeout = .seconds(seconds)
      connectTimeoutGiven = true
    }
    if password == nil { password = PostgresPasswordFile.password(for: self, environment: environment) }
  }

  /// The address without its password, for messages and status.
  var redacted: String {
    let location = socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } ?? "\(host):\(port)"
    return "postgres://\(user)@\(location)/\(database)"
  }

  func configuration() throws(KeychainSyncError) -> PostgresConnection.Configuration {
    if let socketDirectory {
      return PostgresConnection.Configuration(
        unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user, password: password, database: database)
    }
    let tls: PostgresConnection.Configuration.TLS
    switch transportSecurity {
    case .disable:
      tls = .disable
    case .prefer, .require, .verifyFull:
      do {
        // The client configuration verifies the chain and the host name (fullVerification).
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        if let rootCertificates { configuration.trustRoots = .file(rootCertificates) }
        let context = try NIOSSLContext(configuration: configuration)
        tls = transportSecurity == .prefer ? .prefer(context) : .require(context)
      } catch {
        throw KeychainSyncError(
          status: errSecNotAvailable, message: "TLS could not be set up for \(redacted): \(error).")
      }
    }
    var configuration = PostgresConnection.Configuration(
      host: host, port: port, username: user, password: password, database: database, tls: tls)
    // TCP's own part of the connection: 5 s unless the URL sets the whole connection's time.
    configuration.options.connectTimeout = .seconds(connectTimeoutGiven ? connectTimeout.components.seconds : 5)
    return configuration
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A sync server's password as PostgreSQL's own clients find it when the URL has none (libpq's
/// rules): `PGPASSWORD`, else the first matching line of the password file `PGPASSFILE` names,
/// else `~/.pgpass`. A line is `host:port:database:user:password`, `*` matching anything, `\:`
/// and `\\` escaping; `localhost` also matches a Unix socket. A password file that others may
/// read is not used, as libpq does not use it.
///
/// Written here rather than taken from libpq: the client is postgres-nio, which reads neither.
enum PostgresPasswordFile {
  /// The longest password file read: a few lines, from disk.
  static let maximumLength = 1 << 20

  static func password(for address: SyncServerAddress, environment: [String: String]) -> String? {
    if let given = environment["PGPASSWORD"], !given.isEmpty { return given }
    let path =
      environment["PGPASSFILE"].flatMap { $0.isEmpty ? nil : $0 }
      ?? environment["HOME"].map { "\($0)/.pgpass" }
    guard let path, let text = contents(of: path) else { return nil }
    let host = address.socketDirectory == nil ? address.host : "localhost"
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
      let fields = Self.fields(of: line)
      guard fields.count == 5 else { continue }
      let wanted = [host, String(address.port), address.database, address.user]
      if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
    }
    return nil
  }

  /// The file's text, when it is a regular file of at most `maximumLength` bytes that only its
  /// owner may read or write.
  private static func contents(of path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_mode & 0o077 == 0,
      status.st_size <= maximumLength
    else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
    var filled = 0
    while filled < bytes.count {
      let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
      if count <= 0 { break }
      filled += count
    }
    return String(decoding: bytes.prefix(filled), as: UTF8.self)
  }

  /// A line's colon-separated fields, `\:` and `\\` read as the characters.
  static func fields(of line: Substring) -> [String] {
    var fields: [String] = []
    var current = ""
    var escaped = false
    for character in line {
      if escaped {
        current.append(character)
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == ":" && fields.count < 4 {
        fields.append(current)
        current = ""
      } else {
        current.append(character)
      }
    }
    fields.append(current)
    return fields
  }
}

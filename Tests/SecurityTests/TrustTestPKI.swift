import Foundation
import Security

/// A PKI made with the openssl command line for the trust tests (issue 53): a root (EC P-256), an
/// intermediate (RSA 2048) it signed, and leaves the intermediate signed: RSA and EC servers for
/// leaf.example, a wildcard, a client, one with no extended key usage; a self-signed server; an
/// intermediate marked CA:FALSE and a leaf it signed; a second root no one trusts; and the weak
/// ones Apple refuses (issue 63): leaves signed with MD5 and SHA-1, an RSA-1024 leaf, and an RSA
/// root's intermediates signed with MD5 and SHA-1 with a leaf under each. Every certificate is valid
/// from now for `days` days (the leaves 30).
final class TrustTestPKI {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-trust-\(UUID().uuidString)")

  init() throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try root("root", subject: "/CN=Trust Test Root")
    try root("other-root", subject: "/CN=Nobody's Root")
    try root("root-rsa", subject: "/CN=Trust Test RSA Root", key: "rsa:2048")
    try issue(
      "intermediate", key: "rsa:2048", subject: "/CN=Trust Test Intermediate", issuer: "root",
      extensions: "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n", days: 3650)
    try issue(
      "leaf-rsa", key: "rsa:2048", subject: "/CN=leaf.example", issuer: "intermediate",
      extensions: "subjectAltName=DNS:leaf.example,IP:192.0.2.7\nextendedKeyUsage=serverAuth\n", days: 30)
    try issue(
      "leaf-ec", key: "ec", subject: "/CN=ec.example", issuer: "intermediate",
      extensions: "subjectAltName=DNS:ec.example\nextendedKeyUsage=serverAuth,clientAuth\n", days: 30)
    try issue(
      "leaf-wildcard", key: "ec", subject: "/CN=*.wild.example", issuer: "intermediate",
      extensions: "subjectAltName=DNS:*.wild.example\nextendedKeyUsage=serverAuth\n", days: 30)
    try issue(
      "leaf-client", key: "ec", subject: "/CN=Client", issuer: "intermediate",
      extensions: "extendedKeyUsage=clientAuth\n", days: 30)
    try issue(
      "leaf-no-usage", key: "ec", subject: "/CN=plain.example", issuer: "intermediate",
      extensions: "subjectAltName=DNS:plain.example\n", days: 30)
    try issue(
      "leaf-common-name-only", key: "ec", subject: "/CN=cn.example", issuer: "intermediate",
      extensions: "extendedKeyUsage=serverAuth\n", days: 30)
    try issue(
      "not-a-ca", key: "ec", subject: "/CN=Not A CA", issuer: "intermediate",
      extensions: "basicConstraints=critical,CA:FALSE\n", days: 3650)
    try issue(
      "leaf-under-not-a-ca", key: "ec", subject: "/CN=under.example", issuer: "not-a-ca",
      extensions: "subjectAltName=DNS:under.example\nextendedKeyUsage=serverAuth\n", days: 30)
    try openssl(
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
      path("self-signed.key"), "-out", path("self-signed.pem"), "-subj", "/CN=self.example", "-days", "30",
      "-addext", "subjectAltName=DNS:self.example", "-addext", "extendedKeyUsage=serverAuth")
    // Weak algorithms: ECDSA has no MD5 signature, so the weak intermediates hang off an RSA root.
    let server = "extendedKeyUsage=serverAuth\n"
    for digest in ["md5", "sha1"] {
      try issue(
        "leaf-\(digest)", key: "rsa:2048", subject: "/CN=\(digest).example", issuer: "intermediate",
        extensions: "subjectAltName=DNS:\(digest).example\n" + server, days: 30, digest: digest)
      try issue(
        "intermediate-\(digest)", key: "rsa:2048", subject: "/CN=Intermediate \(digest)", issuer: "root-rsa",
        extensions: "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n", days: 3650,
        digest: digest)
      try issue(
        "leaf-under-\(digest)", key: "rsa:2048", subject: "/CN=under-\(digest).example",
        issuer: "intermediate-\(digest)", extensions: "subjectAltName=DNS:under-\(digest).example\n" + server, days: 30)
    }
    try issue(
      "leaf-rsa1024", key: "rsa:1024", subject: "/CN=short.example", issuer: "intermediate",
      extensions: "subjectAltName=DNS:short.example\n" + server, days: 30)
  }

  deinit { try? FileManager.default.removeItem(at: folder) }

  func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

  /// The certificate `name` as Security holds it.
  func certificate(_ name: String) throws -> SecCertificate {
    let der = try openssl("x509", "-in", path("\(name).pem"), "-outform", "DER")
    guard let certificate = SecCertificateCreateWithData(nil, der as CFData) else {
      throw KeyTestFailure.openssl("\(name).pem is not a certificate")
    }
    return certificate
  }

  /// Whether `openssl verify` trusts `leaf` through `untrusted` to `anchor` at `time` for
  /// `purpose` (and `host`).
  func opensslVerifies(
    _ leaf: String, untrusted: [String], anchor: String, time: Date? = nil, purpose: String? = nil, host: String? = nil
  ) throws -> Bool {
    var arguments = ["verify", "-CAfile", path("\(anchor).pem")]
    if !untrusted.isEmpty {
      try Data(try untrusted.map { try String(contentsOfFile: path("\($0).pem"), encoding: .utf8) }.joined().utf8)
        .write(to: folder.appendingPathComponent("untrusted-bundle.pem"))
      arguments += ["-untrusted", path("untrusted-bundle.pem")]
    }
    if let time { arguments += ["-attime", String(Int(time.timeIntervalSince1970))] }
    if let purpose { arguments += ["-purpose", purpose] }
    if let host { arguments += ["-verify_hostname", host] }
    return (try? openssl(arguments + [path("\(leaf).pem")])) != nil
  }

  private func root(_ name: String, subject: String, key: String = "ec") throws {
    var request = ["req", "-x509", "-newkey", key]
    if key == "ec" { request += ["-pkeyopt", "ec_paramgen_curve:P-256"] }
    try openssl(
      request + [
        "-nodes", "-keyout", path("\(name).key"), "-out", path("\(name).pem"), "-subj", subject, "-days", "3650",
      ])
  }

  private func issue(
    _ name: String, key: String, subject: String, issuer: String, extensions: String, days: Int,
    digest: String = "sha256"
  ) throws {
    var request = ["req", "-newkey", key]
    if key == "ec" { request += ["-pkeyopt", "ec_paramgen_curve:P-256"] }
    try openssl(request + ["-nodes", "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", subject])
    try Data(extensions.utf8).write(to: folder.appendingPathComponent("\(name).ext"))
    try openssl(
      "x509", "-req", "-in", path("\(name).csr"), "-CA", path("\(issuer).pem"), "-CAkey", path("\(issuer).key"),
      "-set_serial", String(UInt32.random(in: 1...UInt32.max)), "-out", path("\(name).pem"), "-days", String(days),
      "-extfile", path("\(name).ext"), "-\(digest)")
  }

  /// The suite's `openssl` runner (KeyTestSupport.swift), in this PKI's folder.
  @discardableResult
  private func openssl(_ arguments: String...) throws -> Data { try openssl(arguments) }

  @discardableResult
  private func openssl(_ arguments: [String]) throws -> Data { try SecurityTests.openssl(arguments, in: folder) }
}

import Foundation
import TestTools
import Testing

/// `security import`, `export` and `find-identity` against files the openssl CLI makes and reads
/// (issue 52): what one writes, the other reads.
@Suite(.enabled(if: InstalledTool.runs(needing: "/usr/bin/openssl"), "the openssl CLI is needed"))
struct ImportExportCommandTests {
  /// A CA (EC P-256) and a server certificate for leaf.example (RSA 2048, serverAuth) it signed,
  /// with the leaf's key in PKCS#12 (friendly name "My Leaf", passphrase "pw", the CA beside it).
  final class PKI {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-pki-\(UUID().uuidString)")

    init() throws {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("ca.key"),
        "-out", path("ca.pem"), "-subj", "/CN=Tool Test Root", "-days", "30")
      try openssl(
        "req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("leaf.key"), "-out", path("leaf.csr"), "-subj",
        "/CN=leaf.example")
      try Data("subjectAltName=DNS:leaf.example\nextendedKeyUsage=serverAuth\n".utf8).write(to: url("ext"))
      try openssl(
        "x509", "-req", "-in", path("leaf.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
        "-out", path("leaf.pem"), "-days", "10", "-extfile", path("ext"))
      try openssl(
        "pkcs12", "-export", "-inkey", path("leaf.key"), "-in", path("leaf.pem"), "-certfile", path("ca.pem"), "-name",
        "My Leaf", "-passout", "pass:pw", "-out", path("leaf.p12"))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func url(_ name: String) -> URL { folder.appendingPathComponent(name) }
    func path(_ name: String) -> String { url(name).path }

    /// Runs the openssl CLI; its standard output, or a failure with what it said.
    @discardableResult
    func openssl(_ arguments: String...) throws -> String {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
      process.arguments = arguments
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      let data = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      guard process.terminationStatus == 0 else { throw OpenSSLFailed(arguments: arguments) }
      return String(decoding: data, as: UTF8.self)
    }

    /// The public key of a key or certificate file, as PEM, by openssl.
    func publicKey(of name: String, certificate: Bool = false) throws -> String {
      certificate
        ? try openssl("x509", "-in", path(name), "-noout", "-pubkey")
        : try openssl("pkey", "-in", path(name), "-pubout")
    }
  }

  struct OpenSSLFailed: Error { var arguments: [String] }

  /// The leaf's SHA-1, as find-identity prints it.
  static func hash(_ pki: PKI) throws -> String {
    let fingerprint = try pki.openssl("x509", "-in", pki.path("leaf.pem"), "-noout", "-fingerprint", "-sha1")
    return String(fingerprint.split(separator: "=").last ?? "").replacingOccurrences(of: ":", with: "")
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test("import reads openssl's PKCS#12 once, refuses it again with 45 and a wrong passphrase with 51")
  func importReadsPKCS12() throws {
    let pki = try PKI()
    let tool = SecurityToolTests.Harness()
    let imported = try tool.run("import", pki.path("leaf.p12"), "-P", "pw")
    #expect(imported.status == 0 && imported.output == "1 identity imported.\n1 certificate imported.\n", "\(imported)")
    let again = try tool.run("import", pki.path("leaf.p12"), "-P", "pw")
    #expect(again.status == 45 && again.errors.contains("already exists"), "\(again)")
    let wrong = try tool.run("import", pki.path("leaf.p12"), "-P", "not it")
    #expect(wrong.status == 51, "\(wrong)")
    // The passphrase can come as one line of standard input.
    let other = SecurityToolTests.Harness()
    #expect(try other.run(["import", pki.path("leaf.p12")], input: "pw\n").status == 0)
    // Bytes that are not PKCS#12: errSecDecode, nothing added.
    try Data(repeating: 0x30, count: 64).write(to: pki.url("junk.p12"))
    let junk = try SecurityToolTests.Harness().run("import", pki.path("junk.p12"), "-P", "pw")
    #expect(junk.status == 93, "\(junk)")
    // A FIFO is refused before it is opened (it would block).
    #expect(mkfifo(pki.path("fifo"), 0o600) == 0)
    let fifo = try tool.run("import", pki.path("fifo"), "-f", "pkcs12", "-P", "pw")
    #expect(fifo.status != 0 && fifo.errors.contains("is not a file that can be read"), "\(fifo)")
  }

  @Test("find-identity: untrusted without the root, valid with it, and the policy's host and usage checked")
  func findIdentityNamesWhyAnIdentityIsNotValid() throws {
    let pki = try PKI()
    let tool = SecurityToolTests.Harness()
    #expect(try tool.run("import", pki.path("leaf.p12"), "-P", "pw").status == 0)
    let hash = try Self.hash(pki)
    let untrusted = try tool.run(["find-identity"], environment: ["SSL_CERT_FILE": pki.path("ext")])
    #expect(
      untrusted.output == """
        Policy: X.509 Basic
          Matching identities
          1) \(hash) "leaf.example" (CSSMERR_TP_NOT_TRUSTED)
             1 identities found

          Valid identities only
             0 valid identities found

        """, "\(untrusted)")
    let trusted = ["SSL_CERT_FILE": pki.path("ca.pem")]
    let valid = try tool.run(["find-identity", "-v", "-p", "ssl-server", "-s", "leaf.example"], environment: trusted)
    #expect(valid.output == "  1) \(hash) \"leaf.example\"\n     1 valid identities found\n", "\(valid)")
    let otherHost = try tool.run(["find-identity", "-p", "ssl-server", "-s", "other.example"], environment: trusted)
    #expect(otherHost.output.contains("(CSSMERR_APPLETP_HOSTNAME_MISMATCH)"), "\(otherHost)")
    // A server-only certificate is not a client's; Apple's code-signing policy does not exist here.
    let client = try tool.run(["find-identity", "-p", "ssl-client"], environment: trusted)
    #expect(
      client.output.contains("Policy: SSL (client)") && client.output.contains("(CSSMERR_TP_VERIFY_ACTION_FAILED)"))
    let signing = try tool.run(["find-identity", "-p", "codesigning"], environment: trusted)
    #expect(signing.status == 64 && signing.errors.contains("basic"), "\(signing)")
    // No identity: still exit 0, as on macOS.
    let empty = try SecurityToolTests.Harness().run("find-identity", "-v")
    #expect(empty.status == 0 && empty.output == "     0 valid identities found\n", "\(empty)")
  }

  @Test("export writes PKCS#12 that openssl opens (AES-256, SHA-256 MAC, the label kept) into a 0600 file")
  func exportWritesPKCS12OpenSSLReads() throws {
    let pki = try PKI()
    let tool = SecurityToolTests.Harness()
    #expect(try tool.run("import", pki.path("leaf.p12"), "-P", "pw").status == 0)
    let exported = try tool.run("export", "-t", "identities", "-P", "secret", "-o", pki.path("out.p12"))
    #expect(exported.status == 0, "\(exported)")
    let mode = try FileManager.default.attributesOfItem(atPath: pki.path("out.p12"))[.posixPermissions] as? Int
    #expect(mode == 0o600)
    let info = try pki.openssl("pkcs12", "-in", pki.path("out.p12"), "-passin", "pass:secret", "-nodes", "-info")
    #expect(info.contains("friendlyName: My Leaf"), "\(info)")
    try Data(info.utf8).write(to: pki.url("opened.pem"))
    #expect(try pki.publicKey(of: "opened.pem") == pki.publicKey(of: "leaf.key"))
    #expect(throws: OpenSSLFailed.self) {
      try pki.openssl("pkcs12", "-in", pki.path("out.p12"), "-passin", "pass:wrong", "-nodes")
    }
    // The passphrase asked for twice on a terminal; piped, one line.
    #expect(try tool.run(["export", "-t", "identities", "-o", pki.path("piped.p12")], input: "again\n").status == 0)
    #expect(
      try pki.openssl("pkcs12", "-in", pki.path("piped.p12"), "-passin", "pass:again", "-nodes").contains("PRIVATE KEY")
    )
    // A symbolic link at -o is refused, not followed.
    try FileManager.default.createSymbolicLink(atPath: pki.path("link.p12"), withDestinationPath: pki.path("target"))
    let linked = try tool.run("export", "-t", "identities", "-P", "x", "-o", pki.path("link.p12"))
    #expect(linked.status != 0 && !FileManager.default.fileExists(atPath: pki.path("target")), "\(linked)")
  }

  @Test("export as PEM, imported into another keychain, is the same identity; one-item formats refuse many")
  func pemSequenceRoundTrips() throws {
    let pki = try PKI()
    let tool = SecurityToolTests.Harness()
    #expect(try SecurityToolTests.Harness().run("export").status == 44)
    #expect(try tool.run("import", pki.path("leaf.p12"), "-P", "pw").status == 0)
    let all = try tool.run("export")
    #expect(all.status == 0)
    try Data(all.output.utf8).write(to: pki.url("all.pem"))
    #expect(try pki.publicKey(of: "all.pem") == pki.publicKey(of: "leaf.key"))
    #expect(all.output.components(separatedBy: "-----BEGIN CERTIFICATE-----").count == 3)
    let other = SecurityToolTests.Harness()
    let imported = try other.run("import", pki.path("all.pem"))
    #expect(imported.output == "1 key imported.\n2 certificates imported.\n", "\(imported)")
    let hash = try Self.hash(pki)
    let found = try other.run(["find-identity", "-v"], environment: ["SSL_CERT_FILE": pki.path("ca.pem")])
    #expect(found.output == "  1) \(hash) \"leaf.example\"\n     1 valid identities found\n", "\(found)")
    // x509 is one certificate: two are refused with errSecParam; the CA alone after the leaf's gone.
    let many = try tool.run("export", "-t", "certs", "-f", "x509")
    #expect(many.status == 206 && many.errors.contains("use pemseq"), "\(many)")
    // One key, DER and PEM, as openssl reads them.
    let single = SecurityToolTests.Harness()
    #expect(try single.run("import", pki.path("leaf.key")).output == "1 key imported.\n")
    #expect(try single.run("export", "-t", "privKeys", "-f", "pkcs8", "-o", pki.path("key.der")).status == 0)
    #expect(
      try pki.openssl("pkey", "-in", pki.path("key.der"), "-inform", "DER", "-pubout") == pki.publicKey(of: "leaf.key"))
  }

  @Test("import takes DER with -t, encrypted PKCS#8 with -P, and names what it cannot take")
  func importNamesWhatItCannotTake() throws {
    let pki = try PKI()
    try pki.openssl("x509", "-in", pki.path("ca.pem"), "-outform", "DER", "-out", pki.path("ca.der"))
    let tool = SecurityToolTests.Harness()
    let der = try tool.run("import", pki.path("ca.der"))
    #expect(der.status == 87 && der.errors.contains("say what it holds with -t"), "\(der)")
    #expect(try tool.run("import", pki.path("ca.der"), "-t", "cert").output == "1 certificate imported.\n")
    try pki.openssl(
      "pkcs8", "-topk8", "-v2", "aes256", "-in", pki.path("leaf.key"), "-passout", "pass:k", "-out", pki.path("enc.pem")
    )
    #expect(try tool.run("import", pki.path("enc.pem"), "-P", "wrong").status == 51)
    #expect(try tool.run("import", pki.path("enc.pem"), "-P", "k").output == "1 key imported.\n")
    try Data("-----BEGIN DH PARAMETERS-----\nMAA=\n-----END DH PARAMETERS-----\n".utf8).write(to: pki.url("dh.pem"))
    let unknown = try tool.run("import", pki.path("dh.pem"))
    #expect(
      unknown.errors.contains("holds a PEM block DH PARAMETERS, which is not a certificate or a key"), "\(unknown)")
    try Data("-----BEGIN CERTIFICATE-----\nMAA=\n".utf8).write(to: pki.url("cut.pem"))
    let cut = try tool.run("import", pki.path("cut.pem"))
    #expect(cut.errors.contains("starts on line 1 has no END line"), "\(cut)")
  }
}

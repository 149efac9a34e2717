import Foundation
import Keychain
import Security
import TestTools
import Testing

/// The typed trust API (issue 53): `CertificateTrust` through the generated SecTrust and SecPolicy
/// wrappers, with a case per reason a chain is not trusted.
@Suite(.enabled(if: InstalledTool.runs(needing: "/usr/bin/openssl"), "the openssl CLI is needed"))
struct CertificateTrustTests {
  /// A root and a server certificate for api.example it signed, valid 30 days from now.
  static func chain() throws -> (leaf: SecurityCertificate, root: SecurityCertificate) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-typed-trust-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data("subjectAltName=DNS:api.example\nextendedKeyUsage=serverAuth\n".utf8)
      .write(to: folder.appendingPathComponent("ext"))
    for arguments in [
      [
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "root.key", "-out",
        "root.pem", "-subj", "/CN=Typed Root", "-days", "365",
      ],
      [
        "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "leaf.key", "-out",
        "leaf.csr", "-subj", "/CN=api.example",
      ],
      [
        "x509", "-req", "-in", "leaf.csr", "-CA", "root.pem", "-CAkey", "root.key", "-set_serial", "7", "-days", "30",
        "-extfile", "ext", "-outform", "DER", "-out", "leaf.der",
      ],
      ["x509", "-in", "root.pem", "-outform", "DER", "-out", "root.der"],
    ] {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
      process.arguments = arguments
      process.currentDirectoryURL = folder
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      process.waitUntilExit()
      #expect(process.terminationStatus == 0, "openssl \(arguments)")
    }
    let leaf = try #require(
      SecurityCertificate(derRepresentation: try Data(contentsOf: folder.appendingPathComponent("leaf.der"))))
    let root = try #require(
      SecurityCertificate(derRepresentation: try Data(contentsOf: folder.appendingPathComponent("root.der"))))
    return (leaf, root)
  }

  @Test func aServerChainIsTrustedForItsHostAndEachFailureHasItsCase() throws {
    let (leaf, root) = try Self.chain()
    let trust = CertificateTrust([leaf], policies: [.tlsServer(hostName: "api.example")]).anchored(to: [root])
    #expect(try trust.evaluate().get() == [leaf, root])
    let otherHost = CertificateTrust([leaf], policies: [.tlsServer(hostName: "www.example")]).anchored(to: [root])
    #expect(otherHost.evaluate().failure == .hostNameMismatch)
    #expect(trust.at(Date().addingTimeInterval(90 * 86_400)).evaluate().failure == .expired)
    #expect(trust.at(Date().addingTimeInterval(-2 * 86_400)).evaluate().failure == .notYetValid)
    // Not anchored: the system's roots do not know this one.
    #expect(CertificateTrust([leaf], policies: [.tlsServer(hostName: "api.example")]).evaluate().failure == .untrusted)
    #expect(
      CertificateTrust([leaf], policies: [.tlsClient]).anchored(to: [root]).evaluate().failure == .notPermittedForUsage)
    let revocation = CertificateTrust([leaf], policies: [.basic, .revocation(requirePositiveResponse: true)])
    #expect(revocation.anchored(to: [root]).evaluate().failure == .revocationUnknown)
    #expect(TrustFailure.hostNameMismatch.status == errSecHostNameMismatch)
  }
}

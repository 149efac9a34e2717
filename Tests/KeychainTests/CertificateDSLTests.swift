import Foundation
import Keychain
import Security
import Testing

/// `SecurityCertificate`, `Identity` and the `CertificateQuery` / `IdentityQuery` builders.
@Suite struct CertificateDSL {
  /// A PKCS#12 file of a P-256 key and a self-signed certificate, made by the openssl command line.
  static func pkcs12(subject: String, passphrase: String) throws -> Data {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-p12-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    for arguments in [
      [
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "k.pem",
        "-subj", subject, "-days", "1", "-out", "c.pem", "-addext", "subjectAltName=email:client@example.com",
      ],
      ["pkcs12", "-export", "-inkey", "k.pem", "-in", "c.pem", "-passout", "pass:\(passphrase)", "-out", "id.p12"],
    ] {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = ["openssl"] + arguments
      process.currentDirectoryURL = directory
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
    }
    return try Data(contentsOf: directory.appendingPathComponent("id.p12"))
  }

  @Test func aPKCS12IdentityIsReadStoredAndFound() throws {
    let file = try Self.pkcs12(subject: "/CN=Typed Client", passphrase: "pw")
    #expect(Identity.importPKCS12(file, passphrase: "nope").failure == .authFailed)
    #expect(Identity.importPKCS12(Data("junk".utf8), passphrase: "pw").failure == .decode)
    let imported = try #require(try Identity.importPKCS12(file, passphrase: "pw").get().first)
    let certificate = try imported.identity.certificate().get()
    #expect(certificate.subjectSummary == "Typed Client" && certificate.commonName().success == "Typed Client")
    #expect(certificate.emailAddresses().success == ["client@example.com"])
    #expect(certificate.serialNumber().success?.isEmpty == false)
    let validity = try #require(certificate.notValidBefore).distance(to: try #require(certificate.notValidAfter))
    #expect(validity > 0)
    #expect(imported.chain.first == certificate)
    #expect(SecurityCertificate(derRepresentation: certificate.derRepresentation) == certificate)
    let privateKey = try imported.identity.privateKey().get()
    #expect(Identity(certificate: certificate, privateKey: privateKey) == imported.identity)
    #expect(Identity(certificate: certificate, privateKey: try PrivateKey.generate(.p256).get()) == nil)
    // The identity's key signs what the certificate's key verifies.
    let message = Data("client hello".utf8)
    let signature = try privateKey.signature(
      for: message, algorithm: .ecdsaSignatureMessageX962SHA256
    )
    .get()
    #expect(throws: Never.self) {
      try certificate.publicKey!.isValidSignature(signature, for: message, algorithm: .ecdsaSignatureMessageX962SHA256)
        .get()
    }
    try withStore { _ throws in
      try IdentityQuery().add(imported.identity).get()
      #expect(try IdentityQuery().label("Typed Client").identity().get() == imported.identity)
      #expect(try CertificateQuery().label("Typed Client").certificate().get() == certificate)
      #expect(CertificateQuery().add(certificate).failure == .duplicateItem)
      // Typed items carry their refs, and the builders update and delete.
      #expect(try CertificateQuery().item().get()?.certificate == certificate)
      let identityItem = try #require(try IdentityQuery().item().get())
      #expect(identityItem.identity == imported.identity && identityItem.label == "Typed Client")
      #expect(try IdentityQuery().update(.init().label("Renamed")).get())
      #expect(try IdentityQuery().label("Renamed").identity().get() == imported.identity)
      #expect(try IdentityQuery().delete().get())
      #expect(try IdentityQuery().all().get().isEmpty && CertificateQuery().all().get().isEmpty)
    }
  }
}

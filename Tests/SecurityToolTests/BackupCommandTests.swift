import Foundation
import Security
import Testing

/// `security export-keychain` and `security import-keychain` on the built binary.
@Suite struct SecurityToolBackupCommands {
  typealias Harness = SecurityToolTests.Harness

  /// A store with two generic passwords, an internet password and a ThisDeviceOnly item.
  static func filledStore() throws -> Harness {
    let tool = Harness()
    #expect(
      try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "pw-alice", "-j", "note").status == 0)
    #expect(try tool.run("add-generic-password", "-a", "carol", "-s", "svc", "-X", "00ff10").status == 0)
    #expect(
      try tool.run("add-internet-password", "-a", "bob", "-s", "example.com", "-r", "htps", "-P", "443", "-w", "pw-bob")
        .status == 0)
    // The tool has no accessibility option: the library adds the ThisDeviceOnly item to the same store.
    let status = try tool.library {
      SecItemAdd(
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "device",
          kSecAttrService as String: "svc", kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
          kSecValueData as String: Data("pw-device".utf8),
        ] as CFDictionary, nil)
    }
    #expect(status == errSecSuccess)
    return tool
  }

  func backupPath(_ tool: Harness) -> String { tool.workingDirectory.appendingPathComponent("backup.kcb").path }

  @Test func exportThenImportRestoresTheItemsAndCountsWhatItSkipped() throws {
    let source = try Self.filledStore()
    let path = backupPath(source)
    let exported = try source.run("export-keychain", "-o", path, "-P", "backup pass")
    #expect(exported.status == 0, "\(exported.errors)")
    #expect(exported.output == "exported 3 item(s); skipped 1 ThisDeviceOnly item(s)\n")
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    let file = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(file.range(of: Data("pw-alice".utf8)) == nil && file.range(of: Data("alice".utf8)) == nil)

    let destination = Harness()
    let imported = try destination.run("import-keychain", "-i", path, "-P", "backup pass")
    #expect(imported.status == 0, "\(imported.errors)")
    #expect(imported.output == "added 3 item(s); skipped 0 duplicate(s); rejected 0 item(s)\n")
    #expect(try destination.run("find-generic-password", "-a", "alice", "-w").output == "pw-alice\n")
    #expect(try destination.run("find-generic-password", "-a", "carol", "-w").output == "00ff10\n")
    #expect(try destination.run("find-internet-password", "-s", "example.com", "-w").output == "pw-bob\n")
    #expect(try destination.run("find-generic-password", "-a", "device").status == 44)
    let found = try destination.run("find-generic-password", "-a", "alice")
    #expect(found.output.contains("\"icmt\"<blob>=\"note\""))

    let again = try destination.run("import-keychain", "-i", path, "-P", "backup pass")
    #expect(again.output == "added 0 item(s); skipped 3 duplicate(s); rejected 0 item(s)\n")
  }

  @Test func thePassphraseIsReadFromStandardInputWhenNotGiven() throws {
    let source = try Self.filledStore()
    let path = backupPath(source)
    let exported = try source.run(["export-keychain", "-o", path], input: "piped pass\n")
    #expect(exported.status == 0, "\(exported.errors)")
    #expect(!exported.output.contains("piped pass") && !exported.errors.contains("piped pass"))
    let destination = Harness()
    #expect(try destination.run(["import-keychain", "-i", path], input: "piped pass\n").status == 0)
    #expect(try destination.run("find-generic-password", "-a", "alice", "-w").output == "pw-alice\n")
    let none = try destination.run(["export-keychain", "-o", path + ".2"], input: "")
    #expect(none.status == 206)  // errSecParam's (-50) low byte
    #expect(none.errors.contains("A backup needs a passphrase"))
  }

  @Test func aWrongPassphraseOrADamagedFileImportsNothing() throws {
    let source = try Self.filledStore()
    let path = backupPath(source)
    #expect(try source.run("export-keychain", "-o", path, "-P", "backup pass").status == 0)
    let file = try Data(contentsOf: URL(fileURLWithPath: path))
    var altered = file
    altered[altered.count / 2] ^= 0x80
    let damaged = [
      ("altered.kcb", altered), ("truncated.kcb", file.prefix(file.count - 5)), ("short.kcb", file.prefix(10)),
    ]
    let destination = Harness()
    let wrong = try destination.run("import-keychain", "-i", path, "-P", "not it")
    #expect(wrong.status == 51)  // errSecAuthFailed's low byte, as macOS's tool exits
    #expect(wrong.errors.contains("errSecAuthFailed") && wrong.errors.contains("passphrase is wrong"))
    #expect(!wrong.errors.contains("not it"))
    for (name, bytes) in damaged {
      let damagedPath = destination.workingDirectory.appendingPathComponent(name).path
      try Data(bytes).write(to: URL(fileURLWithPath: damagedPath))
      let result = try destination.run("import-keychain", "-i", damagedPath, "-P", "backup pass")
      #expect([51, 93].contains(result.status), "\(name): \(result.errors)")
    }
    let missing = try destination.run("import-keychain", "-i", "/nonexistent/backup.kcb", "-P", "backup pass")
    #expect(missing.status != 0 && missing.errors.contains("could not be read"))
    let dump = try destination.run("dump-keychain")
    #expect(dump.status == 0 && dump.output.isEmpty)
  }
}

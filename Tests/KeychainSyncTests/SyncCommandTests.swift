import Foundation
import Testing

/// `security sync-group` and `--synchronizable`, on the built binary, against the real server.
@Suite struct SyncGroupCommands {
  let server: PostgresTestServer
  let url: String
  let root = FileManager.default.temporaryDirectory.appendingPathComponent("sync-cli-\(UUID().uuidString)")

  init() throws {
    server = try PostgresTestServer.shared()
    url = try server.makeDatabase()
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
  }

  /// Runs `security` on the store `name` and returns its exit status, output and errors.
  func security(_ name: String, _ arguments: String..., environment: [String: String] = [:]) throws -> (
    status: Int32, output: String
  ) {
    let output = root.appendingPathComponent("\(UUID().uuidString).out").path
    let pid = try spawn(
      builtProgram("security"), arguments, outputPath: output,
      environment: [
        "KEYCHAIN_BRIDGE_HOME": root.appendingPathComponent(name).path,
        "KEYCHAIN_BRIDGE_ACCESS_GROUPS": "com.example.cli",
      ].merging(environment) { $1 })
    let status = waitForExit(pid)
    return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
  }

  @Test func createJoinSyncStatusAndLeaveThroughTheTool() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let created = try security("laptop", "sync-group", "create", "--server", url, "-p", "tool passphrase")
    #expect(created.status == 0, "\(created.output)")
    #expect(created.output.contains("created sync group"))
    #expect(
      try security("laptop", "add-generic-password", "-a", "me", "-s", "mail", "-w", "pw1", "--synchronizable").status
        == 0)
    #expect(try security("laptop", "add-generic-password", "-a", "me", "-s", "local-only", "-w", "pw2").status == 0)
    let pushed = try security("laptop", "sync-group", "sync")
    #expect(pushed.status == 0)
    #expect(pushed.output.contains("pushed 1 change(s)"))

    // The passphrase from the environment, as a service would give it.
    let joined = try security(
      "desktop", "sync-group", "join", "--server", url,
      environment: ["KEYCHAIN_BRIDGE_SYNC_PASSPHRASE": "tool passphrase"])
    #expect(joined.status == 0, "\(joined.output)")
    #expect(joined.output.contains("applied 1"))
    let found = try security("desktop", "find-generic-password", "-a", "me", "-s", "mail", "-w")
    #expect(found.output == "pw1\n")
    #expect(try security("desktop", "find-generic-password", "-s", "local-only").status == 44)

    let status = try security("desktop", "sync-group", "status")
    #expect(status.output.contains("synchronizable items: 1"))
    #expect(status.output.contains("pending changes: 0"))
    #expect(status.output.contains("stores in the group: 2"))
    #expect(status.output.contains("(this store)"))
    #expect(!status.output.contains("tool passphrase"))

    let wrong = try security("phone", "sync-group", "join", "--server", url, "-p", "not it")
    #expect(wrong.status == Int32(UInt8(truncatingIfNeeded: errSecAuthFailedCode)))

    #expect(try security("desktop", "sync-group", "leave").status == 0)
    #expect(try security("desktop", "sync-group", "status").output == "not in a sync group\n")
    #expect(try security("desktop", "sync-group", "sync").status != 0)
  }

  @Test func aKeyFileJoinsWithoutThePassphrase() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    #expect(try security("a", "sync-group", "create", "--server", url, "-p", "tool passphrase").status == 0)
    let keyFile = root.appendingPathComponent("group.key").path
    #expect(try security("a", "sync-group", "export-key", "-o", keyFile).status == 0)
    let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    #expect(try security("b", "sync-group", "join", "--server", url, "--key-file", keyFile).status == 0)
    #expect(try security("a", "sync-group", "status").output.contains("group:"))
    // The same key as a variable, as a secret store hands it to a service.
    let printed = try security("a", "sync-group", "export-key", "--base64")
    #expect(Data(base64Encoded: printed.output.trimmingCharacters(in: .whitespacesAndNewlines)) != nil)
    let joined = try security(
      "c", "sync-group", "join", "--server", url,
      environment: ["KEYCHAIN_BRIDGE_SYNC_KEY": printed.output.trimmingCharacters(in: .whitespacesAndNewlines)])
    #expect(joined.status == 0, "\(joined.output)")
    let bad = try security("d", "sync-group", "join", "--server", url, environment: ["KEYCHAIN_BRIDGE_SYNC_KEY": "%%%"])
    #expect(bad.status == Int32(UInt8(truncatingIfNeeded: Int32(-26275))))
  }
}

/// errSecAuthFailed's value, without importing Security into this file's namespace twice.
private let errSecAuthFailedCode: Int32 = -25293

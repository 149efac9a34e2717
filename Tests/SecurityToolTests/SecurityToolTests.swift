import Foundation
import GRDB
import Keychain
import Security
import TestTools
import Testing

/// The built `security` binary against temporary stores.
@Suite struct SecurityToolTests {
  static let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    .appendingPathComponent("security")
  static let groups = "tool.group"

  /// Runs `executable` with `arguments` and returns its standard output.
  static func runCollectingOutput(_ executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  /// Runs `executable` with `arguments` and exactly `environment`, its standard output discarded;
  /// returns its exit status and what it wrote on standard error.
  static func runCollectingErrors(_ executable: String, _ arguments: [String], environment: [String: String]) throws
    -> (status: Int32, errors: String)
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, message)
  }

  /// A temporary store and a way to run the tool on it.
  final class Harness {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-cli-\(UUID().uuidString)")
    /// Where the tool runs, beside the store: a relative keychain path lands here, never in the
    /// repository the tests run from.
    var workingDirectory: URL { URL(fileURLWithPath: directory.path + "-cwd", isDirectory: true) }

    deinit {
      try? FileManager.default.removeItem(at: directory)
      try? FileManager.default.removeItem(at: workingDirectory)
    }

    @discardableResult
    func run(_ arguments: String...) throws -> (status: Int32, output: String, errors: String) {
      try run(arguments)
    }

    /// Runs `body` with the library on the same store and groups as the tool.
    func library<T>(_ body: () throws -> T) throws -> T {
      try withKeychainContext(
        store: try KeychainStore(directory: directory), accessGroups: [SecurityToolTests.groups], body)
    }
  }

  @Test func addThenFindPrintsTheMacOSFormat() throws {
    let tool = Harness()
    #expect(
      try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "pw", "-l", "Label", "-j", "note").status
        == 0)
    let found = try tool.run("find-generic-password", "-a", "alice", "-s", "svc")
    #expect(found.status == 0)
    let lines = found.output.split(separator: "\n").map(String.init)
    #expect(
      lines.prefix(4) == ["keychain: \"\(tool.directory.path)\"", "version: 512", "class: \"genp\"", "attributes:"])
    #expect(lines.contains("    \"acct\"<blob>=\"alice\""))
    #expect(lines.contains("    \"svce\"<blob>=\"svc\""))
    #expect(lines.contains("    0x00000007 <blob>=\"Label\""))
    #expect(lines.contains("    \"icmt\"<blob>=\"note\""))
    #expect(lines.contains { $0.hasPrefix("    \"cdat\"<timedate>=0x") && $0.hasSuffix("Z\\000\"") })
    #expect(!found.output.contains("pw"))
  }

  @Test(arguments: ["x\\377", "x\\376"])
  func argumentsThatAreNotUTF8AreRefusedNotChanged(account: String) throws {
    let tool = Harness()
    // Process takes Swift strings, which cannot hold these bytes: the shell's printf makes them.
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = [
      "-c", "exec \"$0\" add-generic-password -a \"$(printf '\(account)')\" -s svc -w pw",
      SecurityToolTests.binary.path,
    ]
    shell.environment = [
      "KEYCHAIN_BRIDGE_HOME": tool.directory.path, "KEYCHAIN_BRIDGE_ACCESS_GROUPS": SecurityToolTests.groups,
    ]
    let errors = Pipe()
    shell.standardError = errors
    try shell.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    shell.waitUntilExit()
    #expect(shell.terminationStatus == 64)
    #expect(message.contains("argument 3 is not valid UTF-8"))
    #expect(try tool.run("find-generic-password", "-s", "svc").status == 44)
  }

  @Test func minusWGivenLastReadsThePasswordFromStandardInput() throws {
    let tool = Harness()
    let added = try tool.run(["add-generic-password", "-a", "alice", "-s", "svc", "-w"], input: "from-stdin\n")
    #expect(added.status == 0, "\(added.errors)")
    #expect(!added.output.contains("from-stdin") && !added.errors.contains("from-stdin"))
    #expect(try tool.run("find-generic-password", "-s", "svc", "-w").output == "from-stdin\n")
    // -w with a value, and find's -w flag, are unchanged.
    #expect(try tool.run("add-internet-password", "-a", "bob", "-s", "example.com", "-w", "given").status == 0)
    #expect(try tool.run("find-internet-password", "-s", "example.com", "-w").output == "given\n")
  }

  @Test func theKeychainMayBeTheLastArgumentAsOnMacOS() throws {
    let tool = Harness()
    let other = tool.directory.appendingPathComponent("login.keychain-db").path
    #expect(try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "pw", other).status == 0)
    #expect(try tool.run("find-generic-password", "-s", "svc", other).status == 0)
    // The default store (KEYCHAIN_BRIDGE_HOME) does not have it.
    #expect(try tool.run("find-generic-password", "-s", "svc").status == 44)
    #expect(try tool.run("find-generic-password", "-s", "svc", "-k", other, other).status == 64)
  }

  @Test func versionPrintsTheToolsVersion() throws {
    let result = try Harness().run("--version")
    #expect(result.status == 0)
    #expect(result.output.hasPrefix("security (KeychainBridge) "))
  }

  @Test func anOutOfRangePortIsRefused() throws {
    let tool = Harness()
    let result = try tool.run(
      "add-internet-password", "-a", "bob", "-s", "example.com", "-P", "99999999999", "-w", "pw")
    #expect(result.status == 64)
    #expect(result.errors.contains("port 99999999999 is out of range"))
    #expect(try tool.run("find-internet-password", "-s", "example.com").status == 44)
    #expect(
      try tool.run("add-internet-password", "-a", "bob", "-s", "example.com", "-P", "65535", "-w", "pw").status == 0)
  }

  @Test func anEmptyKeychainPathIsRefused() throws {
    let tool = Harness()
    let result = try tool.run("find-generic-password", "-k", "", "-s", "svc")
    #expect(result.status == 64)
    #expect(result.errors.contains("-k needs a keychain path"))
  }

  @Test func unlockKeychainTakesTheKeychainAsItsLastArgument() throws {
    let tool = Harness()
    let store = tool.directory.appendingPathComponent("locked").path
    #expect(try tool.run("create-keychain", "-p", "right", store).status == 0)
    #expect(try tool.run("unlock-keychain", "-p", "right", store).status == 0)
    let wrong = try tool.run("unlock-keychain", "-p", "wrong", store)
    #expect(wrong.status == 51)
    #expect(try tool.run("unlock-keychain", "-p", "right", "-k", store, store).status == 64)
  }

  @Test(
    "lock-keychain without an agent says the lock ends with the command; -p on a key-file store is refused (errSecParam, exit 206 as macOS gives -50)"
  )
  func lockAndUnlockSayWhatTheyDid() throws {
    let tool = Harness()
    try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "pw")
    let locked = try tool.run("lock-keychain")
    #expect(locked.status == 0 && locked.errors.contains("locked for this command only"), "\(locked)")
    let unlocked = try tool.run("unlock-keychain", "-p", "anything")
    #expect(unlocked.status == 206 && unlocked.errors.contains("This keychain has no passphrase"), "\(unlocked)")
    #expect(try tool.run("unlock-keychain").status == 0)
  }

  @Test("The default keychain is in $HOME, as every program reads it (issue 52)")
  func theDefaultKeychainFollowsHome() throws {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("kb-home-\(UUID().uuidString)").path
    var environment = ProcessInfo.processInfo.environment
    for name in ["KEYCHAIN_BRIDGE_HOME", "XDG_DATA_HOME", "KEYCHAIN_BRIDGE_AGENT"] { environment[name] = nil }
    environment["HOME"] = home
    let process = Process()
    process.executableURL = Self.binary
    process.arguments = ["default-keychain"]
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(printed == "    \"\(home)/.local/share/keychain-bridge\"\n", "\(printed)")
  }

  @Test(
    "security does not link the sync tool's PostgreSQL client; sync-group runs security-sync or says where it is (issue 52)",
    .enabled(if: InstalledTool.runs(needing: "/usr/bin/nm"), "nm (binutils) is needed"))
  func theSyncToolIsApart() throws {
    let symbols = try Self.runCollectingOutput("/usr/bin/nm", [Self.binary.path])
    #expect(!symbols.isEmpty && !symbols.contains("PostgresNIO") && !symbols.contains("NIOPosix"))
    // Alone in a folder, security says where the sync commands are.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-alone-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let alone = folder.appendingPathComponent("security")
    try FileManager.default.copyItem(at: Self.binary, to: alone)
    let result = try Self.runCollectingErrors(
      alone.path, ["sync-group", "status"], environment: ProcessInfo.processInfo.environment)
    #expect(
      result.status == 1 && result.errors.contains("the sync commands are in the security-sync tool")
        && result.errors.contains("`make install-sync`"), "\(result)")
    // Beside it, security-sync answers for it.
    let tool = Harness()
    #expect(try tool.run("sync-group", "status").output == "not in a sync group\n")
  }

  @Test("An unknown command is named as one, with the list of commands (issue 52)")
  func anUnknownCommandIsNamed() throws {
    let result = try Harness().run("export-all", "-o", "out.p12")
    #expect(result.status == 64, "\(result)")
    #expect(
      result.errors.hasPrefix("security: \"export-all\" is not a command. The commands are: add-generic-password"))
    #expect(!result.errors.contains("Unknown option"))
  }

  @Test("dump-keychain prints keys too, as macOS does, never their bytes (issue 52)")
  func dumpKeychainPrintsKeys() throws {
    let tool = Harness()
    try tool.run("show-keychain-info")  // makes the store
    let store = try KeychainStore(directory: tool.directory)
    let made = withKeychainContext(store: store, accessGroups: [Self.groups]) {
      SecKeyCreateRandomKey(
        [
          kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
          kSecPrivateKeyAttrs as String: [
            kSecAttrIsPermanent as String: true, kSecAttrLabel as String: "tool key",
          ],
        ] as CFDictionary, nil)
    }
    #expect(made != nil)
    let dumped = try tool.run("dump-keychain", "-d").output
    #expect(dumped.contains("class: 0x00000010 "), "\(dumped)")
    #expect(dumped.contains("    0x00000001 <blob>=\"tool key\""))
    #expect(dumped.contains("    0x00000009 <uint32>=0x00000049 "))  // ECDSA, CSSM's 73
    #expect(dumped.contains("    0x0000000A <uint32>=0x00000100 "))  // 256 bits
    #expect(!dumped.contains("data:"))
  }

  @Test("list-keychains prints the default keychain; delete-keychain removes a store and nothing else (issue 52)")
  func listAndDeleteKeychains() throws {
    let tool = Harness()
    try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "pw")
    #expect(try tool.run("list-keychains").output == "    \"\(tool.directory.path)\"\n")
    #expect(try tool.run("list-keychains", "-s", "/elsewhere").status == 1)

    let other = FileManager.default.temporaryDirectory.appendingPathComponent("kb-delete-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: other) }
    #expect(try tool.run("create-keychain", "-p", "pw", other.path).status == 0)
    try Data("keep me".utf8).write(to: other.appendingPathComponent("notes.txt"))
    #expect(try tool.run("delete-keychain", other.path).status == 0)
    // The store's files are gone; what else the folder held stays, and so does the folder.
    #expect(try FileManager.default.contentsOfDirectory(atPath: other.path) == ["notes.txt"])
    let notAStore = try tool.run("delete-keychain", other.path)
    #expect(notAStore.status == 50 && notAStore.errors.contains("holds no keychain"), "\(notAStore)")
    #expect(FileManager.default.fileExists(atPath: other.appendingPathComponent("notes.txt").path))

    #expect(try tool.run("delete-keychain", tool.directory.path).status == 0)
    #expect(!FileManager.default.fileExists(atPath: tool.directory.path))
  }

  @Test(
    "find-certificate finds by common name and prints PEM and hashes that openssl agrees with (issue 52)",
    .enabled(if: InstalledTool.runs(needing: "/usr/bin/openssl"), "the openssl CLI is needed"))
  func findCertificateAgreesWithOpenSSL() throws {
    let tool = Harness()
    try tool.run("show-keychain-info")  // makes the store
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-cert-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let pem = folder.appendingPathComponent("cert.pem").path
    let der = folder.appendingPathComponent("cert.der").path
    _ = try Self.runCollectingOutput(
      "/usr/bin/openssl",
      [
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
        folder.appendingPathComponent("key.pem").path, "-out", pem, "-days", "30", "-subj",
        "/CN=Tool Test Cert/emailAddress=tool@example.org",
      ])
    _ = try Self.runCollectingOutput("/usr/bin/openssl", ["x509", "-in", pem, "-outform", "DER", "-out", der])
    let certificate = try #require(
      SecCertificateCreateWithData(nil, try Data(contentsOf: URL(fileURLWithPath: der)) as CFData))
    let store = try KeychainStore(directory: tool.directory)
    let added = withKeychainContext(store: store, accessGroups: [Self.groups]) {
      SecItemAdd([kSecValueRef as String: certificate] as CFDictionary, nil)
    }
    #expect(added == errSecSuccess)
    let found = try tool.run("find-certificate", "-a", "-c", "Tool Test", "-p", "-Z")
    #expect(found.status == 0, "\(found)")
    let expectedPEM = try String(contentsOfFile: pem, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(found.output.contains(expectedPEM), "\(found.output)")
    let fingerprint = try Self.runCollectingOutput(
      "/usr/bin/openssl", ["x509", "-in", pem, "-noout", "-fingerprint", "-sha1"])
    let sha1 = fingerprint.split(separator: "=").last.map { $0.replacingOccurrences(of: ":", with: "") }
      .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    #expect(sha1 != nil && found.output.contains("SHA-1 hash: \(sha1!)"), "\(found.output) \(fingerprint)")
    #expect(try tool.run("find-certificate", "-e", "tool@example.org").output.contains("class: 0x80001000"))
    #expect(try tool.run("find-certificate", "-c", "Nobody").status == 44)
  }

  @Test func showKeychainInfoCountsDamagedItems() throws {
    let tool = Harness()
    try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "pw-a")
    try tool.run("add-generic-password", "-a", "bob", "-s", "svc", "-w", "pw-b")
    #expect(try tool.run("show-keychain-info").output.contains("items=2 damaged=0"))
    try DatabaseQueue(path: tool.directory.appendingPathComponent("keychain.db").path).write { db in
      try db.execute(
        sql: "UPDATE item SET acct = (SELECT acct FROM item ORDER BY id LIMIT 1) WHERE id = (SELECT MAX(id) FROM item)")
    }
    let info = try tool.run("show-keychain-info")
    #expect(info.status == 0)
    #expect(info.output.contains("items=2 damaged=1"))
    #expect(info.errors.contains("1 item(s) failed authentication"))
    #expect(try tool.run("find-generic-password", "-a", "alice", "-w").output == "pw-a\n")
  }

  @Test func minusWPrintsThePasswordAloneAndMinusGToStandardError() throws {
    let tool = Harness()
    let password = "correct horse — ünïcödé"
    try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", password)
    let alone = try tool.run("find-generic-password", "-s", "svc", "-w")
    // Not printable ASCII, so -w prints it in hexadecimal, as macOS's tool does.
    let hex = Data(password.utf8).map { String(format: "%02x", $0) }.joined()
    #expect(alone.status == 0 && alone.output == hex + "\n")
    let shown = try tool.run("find-generic-password", "-s", "svc", "-g")
    #expect(shown.errors.hasPrefix("password: 0x"))
    #expect(shown.errors.contains("\\303\\274"))
    #expect(!shown.output.contains("password:"))
  }

  @Test func aDuplicateIsAnErrorWithoutMinusUAndReplacedWithIt() throws {
    let tool = Harness()
    try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "first secret")
    let duplicate = try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "second secret")
    #expect(duplicate.status == 45)
    #expect(duplicate.errors.contains("errSecDuplicateItem (-25299)"))
    #expect(duplicate.errors.split(separator: "\n").count == 1)
    #expect(!duplicate.errors.contains("second secret"), "a password must never appear in an error")
    #expect(try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "second secret", "-U").status == 0)
    #expect(try tool.run("find-generic-password", "-a", "alice", "-w").output == "second secret\n")
  }

  @Test func aMissingItemExits44() throws {
    let tool = Harness()
    let missing = try tool.run("find-generic-password", "-a", "nobody")
    #expect(missing.status == 44)
    #expect(missing.errors.contains("errSecItemNotFound (-25300)"))
    #expect(try tool.run("delete-internet-password", "-s", "nowhere").status == 44)
  }

  @Test func deletePrintsTheItemAndRemovesIt() throws {
    let tool = Harness()
    try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "x")
    try tool.run("add-generic-password", "-a", "bob", "-s", "svc", "-w", "y")
    let deleted = try tool.run("delete-generic-password", "-a", "alice")
    #expect(deleted.status == 0 && deleted.output.hasSuffix("password has been deleted.\n"))
    #expect(try tool.run("find-generic-password", "-a", "alice").status == 44)
    #expect(try tool.run("find-generic-password", "-a", "bob").status == 0)
  }

  @Test func internetPasswordsTakeEveryMacOSFlag() throws {
    let tool = Harness()
    let add = try tool.run(
      "add-internet-password", "-a", "bob", "-s", "example.com", "-r", "htps", "-P", "443", "-p", "/login", "-d",
      "realm",
      "-t", "form", "-w", "hunter2")
    #expect(add.status == 0, "\(add.errors)")
    let found = try tool.run("find-internet-password", "-s", "example.com", "-r", "htps", "-P", "443")
    #expect(found.output.contains("class: \"inet\""))
    #expect(found.output.contains("    \"port\"<uint32>=0x000001BB "))
    #expect(found.output.contains("    \"ptcl\"<uint32>=\"htps\""))
    #expect(found.output.contains("    \"atyp\"<blob>=\"form\""))
    #expect(found.output.contains("    \"sdmn\"<blob>=\"realm\""))
    #expect(found.output.contains("    \"path\"<blob>=\"/login\""))
    #expect(try tool.run("find-internet-password", "-s", "example.com", "-P", "8080").status == 44)
    #expect(try tool.run("find-internet-password", "-s", "example.com", "-w").output == "hunter2\n")
    #expect(try tool.run("delete-internet-password", "-s", "example.com", "-a", "bob").status == 0)
  }

  @Test func dumpKeychainListsEveryItemAndDataWithMinusD() throws {
    let tool = Harness()
    try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "g-secret")
    try tool.run("add-internet-password", "-a", "bob", "-s", "example.com", "-w", "i-secret")
    let plain = try tool.run("dump-keychain")
    #expect(plain.output.components(separatedBy: "class: ").count == 3)
    #expect(!plain.output.contains("g-secret"))
    let withData = try tool.run("dump-keychain", "-d")
    #expect(withData.output.contains("data:\n\"g-secret\"") && withData.output.contains("data:\n\"i-secret\""))
  }

  @Test func badInputPrintsUsageNeverAStackTrace() throws {
    let tool = Harness()
    for arguments in [
      ["find-generic-password", "-x"], ["add-generic-password", "-s"], ["no-such-command"],
      ["add-internet-password", "-a", "a", "-s", "s", "-r", "gopher"], ["find-internet-password", "-P", "eighty"],
      ["find-generic-password", "-g", "-w"],
    ] {
      let result = try tool.run(arguments)
      #expect(result.status != 0, "\(arguments)")
      #expect(
        result.errors.contains("Error:") || result.errors.contains("Usage:")
          || result.errors.contains("is not a command"),
        "\(arguments): \(result.errors)")
      #expect(!result.errors.contains("Fatal error") && !result.errors.contains("Stack dump"))
    }
  }

  @Test func theMinusKOptionChoosesTheStore() throws {
    let tool = Harness()
    let other = FileManager.default.temporaryDirectory.appendingPathComponent("kb-cli-other-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: other) }
    try tool.run("add-generic-password", "-k", other.path, "-a", "alice", "-s", "svc", "-w", "x")
    #expect(try tool.run("find-generic-password", "-a", "alice").status == 44)
    #expect(try tool.run("find-generic-password", "-k", other.path, "-a", "alice").status == 0)
  }

  @Test func passphraseStoresAreCreatedAndUnlockedAsOnMacOS() throws {
    let tool = Harness()
    let store = tool.directory.appendingPathComponent("vault").path
    #expect(try tool.run("create-keychain", "-p", "open sesame", store).status == 0)
    #expect(try tool.run("create-keychain", "-p", "again", store).status == 48)
    #expect(try tool.run("show-keychain-info", "-k", store).output.contains("protection=passphrase"))
    let wrong = try tool.run("unlock-keychain", "-k", store, "-p", "not-it-7f3a")
    #expect(wrong.status == 51)
    #expect(wrong.errors.contains("errSecAuthFailed") && !wrong.errors.contains("not-it-7f3a"))
    #expect(try tool.run("unlock-keychain", "-k", store, "-p", "open sesame").status == 0)
    #expect(try tool.run("lock-keychain", "-k", store).status == 0)
    #expect(try tool.run("default-keychain").output == "    \"\(tool.directory.path)\"\n")
  }

  @Test func itemsRoundTripBetweenTheToolTheDSLAndTheRawAPI() throws {
    let tool = Harness()
    try tool.run("add-generic-password", "-a", "alice", "-s", "svc", "-w", "from the tool")
    try tool.library { () throws in
      #expect(try GenericPassword().account("alice").service("svc").string().get() == "from the tool")
      var result: CFTypeRef?
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice",
        kSecReturnData as String: true,
      ]
      #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
      #expect(result as? Data == Data("from the tool".utf8))
      _ = GenericPassword().account("carol").service("svc").add("from the DSL")
      let raw: [String: Any] = [
        kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "raw.example",
        kSecAttrAccount as String: "dave", kSecValueData as String: Data("from the raw API".utf8),
      ]
      #expect(SecItemAdd(raw as CFDictionary, nil) == errSecSuccess)
    }
    #expect(try tool.run("find-generic-password", "-a", "carol", "-w").output == "from the DSL\n")
    #expect(try tool.run("find-internet-password", "-s", "raw.example", "-w").output == "from the raw API\n")
  }
}

extension SecurityToolTests.Harness {
  @discardableResult
  func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> (
    status: Int32, output: String, errors: String
  ) {
    let process = Process()
    process.executableURL = SecurityToolTests.binary
    process.arguments = arguments
    try FileManager.default.createDirectory(at: workingDirectory, withIntermediateDirectories: true)
    process.currentDirectoryURL = workingDirectory
    process.environment = [
      "KEYCHAIN_BRIDGE_HOME": directory.path, "KEYCHAIN_BRIDGE_ACCESS_GROUPS": SecurityToolTests.groups,
    ].merging(environment) { $1 }
    let inputPipe = Pipe()
    if let input {
      process.standardInput = inputPipe
      inputPipe.fileHandleForWriting.write(Data(input.utf8))
      try? inputPipe.fileHandleForWriting.close()
    } else {
      process.standardInput = FileHandle.nullDevice
    }
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
      process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self)
    )
  }
}

import Foundation
import Security
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Opening stores: concurrent creation, read-only stores, directory modes and item size limits.
@Suite(.serialized) struct StoreOpening {
  @Test func manyProcessesCreatingOneStoreAtOnceAllSucceed() throws {
    let trials = ReliabilityTests.long ? 100 : 25
    let processesPerTrial = 4
    var failures: [String] = []
    for trial in 0..<trials {
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-race-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: directory) }
      let processes = try (0..<processesPerTrial).map { index -> (Process, Pipe) in
        let process = Process()
        process.executableURL = FullDisk.helper
        process.arguments = ["open", directory.path, "p\(index)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        return (process, pipe)
      }
      for (process, pipe) in processes {
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus != 0 { failures.append("trial \(trial): \(output)") }
      }
      let store = try KeychainStore(directory: directory)
      withKeychainContext(store: store, accessGroups: ["helper"]) {
        let found = count([kSecClass as String: kSecClassGenericPassword])
        if found != processesPerTrial { failures.append("trial \(trial): \(found) items") }
      }
    }
    print("creation race: \(trials * processesPerTrial) processes in \(trials) trials, \(failures.count) failures")
    #expect(failures.isEmpty, "\(failures.prefix(5))")
  }

  /// Fills a store, makes it unwritable with `makeReadOnly`, and checks it still answers reads.
  private func checkReadOnly(_ directory: URL, makeReadOnly: () throws -> Bool) throws {
    do {
      let store = try KeychainStore(directory: directory)
      withKeychainContext(store: store, accessGroups: ["ro"]) {
        #expect(add(genp("alice", [kSecValueData as String: Data(utf8: "alice-secret")])) == errSecSuccess)
        #expect(add(genp("bob", [kSecValueData as String: Data(utf8: "bob-secret")])) == errSecSuccess)
      }
    }
    try #require(try makeReadOnly())
    let store = try KeychainStore(directory: directory)
    #expect(store.isReadOnly)
    withKeychainContext(store: store, accessGroups: ["ro"]) {
      #expect(readData(genp("alice")) == Data(utf8: "alice-secret"))
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 2)
      #expect(add(genp("carol", [kSecValueData as String: Data(utf8: "c")])) == errSecReadOnly)
      #expect(update(genp("alice"), [kSecValueData as String: Data(utf8: "x")]) == errSecReadOnly)
      #expect(delete(genp("bob")) == errSecReadOnly)
      #expect(readData(genp("bob")) == Data(utf8: "bob-secret"))
    }
  }

  @Test(.enabled(if: ScratchMount.isPossible, "a tmpfs needs root and mount(2)"))
  func aStoreOnAReadOnlyFileSystemAnswersReadsAndRefusesWrites() throws {
    let mount = try #require(try ScratchMount(megabytes: 4), "root could not mount a tmpfs")
    defer { mount.remove() }
    try checkReadOnly(mount.path.appendingPathComponent("store")) { mount.remountReadOnly() }
  }

  // Root writes any directory whatever its mode, so only another user can check this form.
  @Test(.enabled(if: getuid() != 0, "root writes any directory whatever its mode"))
  func aStoreInADirectoryThisUserCannotWriteAnswersReads() throws {
    let temporary = try TemporaryStore()
    try checkReadOnly(temporary.directory) {
      chmod(temporary.directory.path, 0o500) == 0
    }
    chmod(temporary.directory.path, 0o700)
  }

  @Test(.enabled(if: ScratchMount.isPossible, "a tmpfs needs root and mount(2)"))
  func aMissingStoreOnAReadOnlyFileSystemIsAClearError() throws {
    let mount = try #require(try ScratchMount(megabytes: 1), "root could not mount a tmpfs")
    defer { mount.remove() }
    try FileManager.default.createDirectory(
      at: mount.path.appendingPathComponent("empty"), withIntermediateDirectories: false,
      attributes: [.posixPermissions: 0o700])
    try #require(mount.remountReadOnly())
    #expect {
      _ = try KeychainStore(directory: mount.path.appendingPathComponent("empty"))
    } throws: { error in
      (error as? KeychainStoreError)?.status == errSecNoSuchKeychain
    }
  }

  @Test func missingParentDirectoriesAreCreatedPrivateEvenUnderUmaskZero() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("kb-umask-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let previous = umask(0)
    defer { umask(previous) }
    let directory = root.appendingPathComponent("a/b/store")
    _ = try KeychainStore(directory: directory)
    for path in [root, root.appendingPathComponent("a"), root.appendingPathComponent("a/b"), directory] {
      let mode = try FileManager.default.attributesOfItem(atPath: path.path)[.posixPermissions] as? Int
      #expect(mode == 0o700, "\(path.path)")
    }
  }

  @Test func deletedSecretsAreOverwrittenInTheDatabaseFile() throws {
    let temporary = try TemporaryStore()
    let marker = Data("deleted-secret-marker-7d2c".utf8)
    temporary.run {
      #expect(add(genp("gone", [kSecValueData as String: marker])) == errSecSuccess)
    }
    // The sealed row as stored, to look for after the delete.
    let sealed = try StoreTampering.sealedColumn("secret", row: 0, directory: temporary.directory)
    let meta = try StoreTampering.sealedColumn("meta", row: 0, directory: temporary.directory)
    try StoreTampering.checkpoint(temporary.directory)
    temporary.run { #expect(delete(genp("gone")) == errSecSuccess) }
    try StoreTampering.checkpoint(temporary.directory)
    let bytes = try StoreTampering.databaseBytes(temporary.directory)
    #expect(bytes.range(of: sealed) == nil, "the deleted row's sealed secret is still in the files")
    #expect(bytes.range(of: meta) == nil, "the deleted row's sealed metadata is still in the files")
  }
}

/// The documented maximum item size (`SecItemMaximumDataLength`), checked before any work.
@Suite struct ItemSizeLimit {
  @Test func dataAboveTheMaximumIsRefusedAtOnceWithParam() throws {
    try withFreshStore { _ in
      let tooLarge = Data(count: SecItemMaximumDataLength + 1)
      #expect(add(genp("big", [kSecValueData as String: tooLarge])) == errSecParam)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == 0)
      #expect(add(genp("small", [kSecValueData as String: Data(utf8: "ok")])) == errSecSuccess)
      #expect(update(genp("small"), [kSecValueData as String: tooLarge]) == errSecParam)
      #expect(readData(genp("small")) == Data(utf8: "ok"))
    }
  }

  @Test func dataOfExactlyTheMaximumIsStored() throws {
    try withFreshStore { _ in
      let largest = Data(repeating: 0x5A, count: SecItemMaximumDataLength)
      #expect(add(genp("largest", [kSecValueData as String: largest])) == errSecSuccess)
      #expect(readData(genp("largest")) == largest)
    }
  }

  @Test func attributesAboveTheMaximumAreRefusedWithParam() throws {
    try withFreshStore { _ in
      let hugeAccount = String(repeating: "a", count: SecItemMaximumAttributesLength + 1)
      #expect(add(genp(hugeAccount, [kSecValueData as String: Data(utf8: "x")])) == errSecParam)
      #expect(
        add(genp("ok", [kSecAttrGeneric as String: Data(count: SecItemMaximumAttributesLength + 1)])) == errSecParam)
    }
  }
}

/// KEYCHAIN_BRIDGE_PASSPHRASE: test suites written for a simulator with a passcode run unchanged.
@Suite struct PassphraseFromTheEnvironment {
  private func passcodeItemStatus(home: URL, passphrase: String?) throws -> String {
    try passcodeItem(home: home, passphrase: passphrase).first ?? ""
  }

  /// The helper's output lines: "status N" and "message TEXT".
  func passcodeItem(home: URL, passphrase: String?) throws -> [String] {
    var environment = ["KEYCHAIN_BRIDGE_HOME": home.path, "KEYCHAIN_BRIDGE_ACCESS_GROUPS": "helper"]
    environment["KEYCHAIN_BRIDGE_PASSPHRASE"] = passphrase
    return try FullDisk.runHelper(["passcode"], environment: environment).lines.map(String.init)
  }

  @Test func aDefaultStoreThatCannotOpenExplainsWhyInTheStatusMessage() throws {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("kb-open-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: home) }
    try FileManager.default.createDirectory(
      at: home, withIntermediateDirectories: false,
      attributes: [
        .posixPermissions: 0o755
      ])
    let lines = try passcodeItem(home: home, passphrase: nil)
    #expect(lines.first == "status \(errSecInvalidKeychain)")
    #expect(lines.last?.contains("accessible to other users (mode 755); it must be 0700") == true, "\(lines)")
    #expect(lines.last?.contains(home.path) == true)
  }

  @Test func theDefaultStoreIsAPassphraseStoreWhenTheEnvironmentGivesOne() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("kb-passcode-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    #expect(
      try passcodeItemStatus(home: root.appendingPathComponent("plain"), passphrase: nil)
        == "status \(errSecAuthFailed)")
    let home = root.appendingPathComponent("passcode")
    #expect(try passcodeItemStatus(home: home, passphrase: "simulator-passcode") == "status \(errSecSuccess)")
    // The store it created is sealed by that passphrase.
    let reopened = try KeychainStore(directory: home)
    #expect(reopened.hasPassphrase)
    #expect(reopened.unlock(passphrase: "wrong") == errSecAuthFailed)
    #expect(reopened.unlock(passphrase: "simulator-passcode") == errSecSuccess)
    withKeychainContext(store: reopened, accessGroups: ["helper"]) {
      #expect(readData(genp("passcode", service: "")) == Data(utf8: "needs a passcode"))
    }
  }
}

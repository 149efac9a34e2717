import Foundation
import GRDB
import Security
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The files around the item rows, attacked as someone with write access to the user's files would
/// (issue 27, defects 1, 5, 7 and 8): the key file, the store's recorded protection, the plain sync
/// column, oversized or expensive key files, symbolic links and files of other users. Each test
/// failed before the fix it guards.
@Suite(.serialized) struct KeyFileTampering {
  private func keyFile(_ directory: URL) -> URL { directory.appendingPathComponent("keychain.key") }

  private func database(_ directory: URL) throws -> DatabaseQueue {
    try DatabaseQueue(path: directory.appendingPathComponent("keychain.db").path)
  }

  /// A passphrase store holding one item, closed.
  private func passphraseStore(_ passphrase: String = "correct horse") throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-keyfile-\(UUID().uuidString)")
    let store = try KeychainStore(directory: directory, passphrase: passphrase)
    withKeychainContext(store: store, accessGroups: ["g"]) {
      #expect(add(genp("alice", [kSecValueData as String: Data(utf8: "old secret")])) == errSecSuccess)
    }
    return directory
  }

  /// The key file of a plain store: magic, mode 0 and 32 bytes of the attacker's choosing.
  private func plantPlainKeyFile(in directory: URL) throws {
    let planted = Data("KBK1".utf8) + Data([0]) + Data(repeating: 0x41, count: 32)
    try FileManager.default.removeItem(at: keyFile(directory))
    #expect(
      FileManager.default.createFile(
        atPath: keyFile(directory).path, contents: planted, attributes: [.posixPermissions: 0o600]))
  }

  private func openStatus(_ directory: URL, passphrase: String?) -> OSStatus {
    do {
      _ = try KeychainStore(directory: directory, passphrase: passphrase)
      return errSecSuccess
    } catch {
      return error.status
    }
  }

  @Test func aPlantedPlainKeyFileWithTheCheckDeletedIsRefused() throws {
    let directory = try passphraseStore()
    defer { try? FileManager.default.removeItem(at: directory) }
    try plantPlainKeyFile(in: directory)
    try database(directory).write { db in try db.execute(sql: "DELETE FROM store_info WHERE name = 'key_check'") }
    #expect(openStatus(directory, passphrase: "wrong") == errSecAuthFailed)
    #expect(openStatus(directory, passphrase: nil) == errSecAuthFailed)
    // The refusal names the cause.
    do {
      _ = try KeychainStore(directory: directory)
      Issue.record("a planted key file was accepted")
    } catch {
      #expect(error.message.contains("was created with a passphrase"), "\(error.message)")
    }
  }

  @Test func aPlantedKeyFileWithItsOwnCheckAndProtectionIsRefused() throws {
    let directory = try passphraseStore()
    defer { try? FileManager.default.removeItem(at: directory) }
    // The attacker makes a plain store of their own and moves its key file, its check and its
    // protection record into the victim's store: everything agrees except the items.
    let attacker = try TemporaryStore()
    let attackerCheck = try database(attacker.directory).read { db in
      try Data.fetchOne(db, sql: "SELECT value FROM store_info WHERE name = 'key_check'")
    }
    try FileManager.default.removeItem(at: keyFile(directory))
    try FileManager.default.copyItem(at: keyFile(attacker.directory), to: keyFile(directory))
    try database(directory).write { db in
      try db.execute(sql: "UPDATE store_info SET value = ? WHERE name = 'key_check'", arguments: [attackerCheck])
      try db.execute(sql: "UPDATE store_info SET value = x'00' WHERE name = 'protection'")
    }
    #expect(openStatus(directory, passphrase: nil) == errSecAuthFailed)
    #expect(openStatus(directory, passphrase: "wrong") == errSecAuthFailed)
  }

  @Test func aPassphraseForAStoreMadeWithoutOneIsRefused() throws {
    let temporary = try TemporaryStore()
    #expect(!temporary.store.hasPassphrase)
    #expect(openStatus(temporary.directory, passphrase: "anything") == errSecAuthFailed)
    #expect(temporary.store.unlock(passphrase: "anything") == errSecAuthFailed)
    #expect(temporary.store.unlock() == errSecSuccess)
  }

  @Test func concurrentFirstOpensWithAndWithoutAPassphraseNeverDowngrade() throws {
    let trials = ReliabilityTests.long ? 40 : 8
    let processesPerTrial = 6
    var downgraded: [String] = []
    var upgraded: [String] = []
    var refused = 0
    for trial in 0..<trials {
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-mixed-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: directory) }
      let processes = try (0..<processesPerTrial).map { index -> (Bool, Process, Pipe) in
        let withPassphrase = index % 2 == 0
        let process = Process()
        process.executableURL = FullDisk.helper
        process.arguments = ["open", directory.path, "p\(index)"] + (withPassphrase ? ["passcode-\(trial)"] : [])
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        return (withPassphrase, process, pipe)
      }
      for (withPassphrase, process, pipe) in processes {
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if output.hasPrefix("failed \(errSecAuthFailed)") || output.hasPrefix("failed \(errSecInteractionNotAllowed)") {
          refused += 1
        } else if withPassphrase && !output.hasSuffix("passphrase\n") {
          downgraded.append("trial \(trial): \(output)")
        } else if !withPassphrase && output.hasPrefix("added") && !output.hasSuffix("plain\n") {
          upgraded.append("trial \(trial): \(output)")
        }
      }
    }
    print(
      "mixed first opens: \(trials * processesPerTrial) processes, \(refused) refused, \(downgraded.count) downgraded")
    #expect(downgraded.isEmpty, "\(downgraded.prefix(3))")
    #expect(upgraded.isEmpty, "\(upgraded.prefix(3))")
  }

  @Test func anOversizedKeyFileIsRefusedWithoutReadingIt() throws {
    let temporary = try TemporaryStore()
    let path = keyFile(temporary.directory).path
    // A sparse 2 GiB file: it costs no disk, and reading it whole would cost 2 GiB of memory.
    #expect(truncate(path, 2 << 30) == 0)
    var before = rusage()
    getrusage(RUSAGE_SELF.rawValue, &before)
    #expect(openStatus(temporary.directory, passphrase: nil) == errSecDecode)
    var after = rusage()
    getrusage(RUSAGE_SELF.rawValue, &after)
    // ru_maxrss is in KiB: the open must not have raised the peak by anything like the file's size.
    #expect(after.ru_maxrss - before.ru_maxrss < 100 * 1024)
  }

  @Test func scryptParametersRaisedInTheKeyFileAreRefusedBeforeScryptRuns() throws {
    let directory = try passphraseStore()
    defer { try? FileManager.default.removeItem(at: directory) }
    var contents = [UInt8](try Data(contentsOf: keyFile(directory)))
    contents[5] = 20  // log2 N
    contents[6] = 16  // r
    contents[10] = 4  // p
    try Data(contents).write(to: keyFile(directory))
    // errSecDecode: the header is refused as it is read. Before, scrypt ran at the raised cost
    // (2 GiB, four times over) and the open then failed with errSecAuthFailed.
    #expect(openStatus(directory, passphrase: "correct horse") == errSecDecode)
  }

  @Test func aDanglingDatabaseSymlinkIsNotFollowedOutOfTheStore() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-symlink-\(UUID().uuidString)")
    let outside = FileManager.default.temporaryDirectory.appendingPathComponent("kb-outside-\(UUID().uuidString).db")
    defer {
      try? FileManager.default.removeItem(at: directory)
      try? FileManager.default.removeItem(at: outside)
    }
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    #expect(symlink(outside.path, directory.appendingPathComponent("keychain.db").path) == 0)
    #expect(openStatus(directory, passphrase: nil) == errSecInvalidKeychain)
    #expect(!FileManager.default.fileExists(atPath: outside.path))
  }

  @Test func aWriteAheadLogSymlinkIsNotFollowed() throws {
    let directory = try passphraseStore()
    let outside = FileManager.default.temporaryDirectory.appendingPathComponent("kb-outside-\(UUID().uuidString).wal")
    defer {
      try? FileManager.default.removeItem(at: directory)
      try? FileManager.default.removeItem(at: outside)
    }
    let wal = directory.appendingPathComponent("keychain.db-wal").path
    unlink(wal)
    #expect(symlink(outside.path, wal) == 0)
    #expect(openStatus(directory, passphrase: "correct horse") == errSecInvalidKeychain)
    #expect(!FileManager.default.fileExists(atPath: outside.path))
  }

  @Test func aKeyFileSymlinkIsNotFollowed() throws {
    let temporary = try TemporaryStore()
    let elsewhere = temporary.directory.appendingPathComponent("elsewhere.key")
    try FileManager.default.moveItem(at: keyFile(temporary.directory), to: elsewhere)
    #expect(symlink(elsewhere.path, keyFile(temporary.directory).path) == 0)
    #expect(openStatus(temporary.directory, passphrase: nil) == errSecInvalidKeychain)
  }

  /// Issue 49, case 13: a store whose key check verifies but whose every row fails authentication
  /// was refused as "the key file was replaced?"; the recorded check cannot tell that from every
  /// item being damaged, and the message now says both.
  @Test func aStoreWhoseEveryRowIsDamagedSaysSoToo() throws {
    let directory = try passphraseStore()
    try database(directory).write { database in
      try database.execute(sql: "UPDATE item SET meta = zeroblob(length(meta))")
    }
    do {
      _ = try KeychainStore(directory: directory, passphrase: "correct horse")
      Issue.record("a store none of whose items opens was opened")
    } catch {
      #expect(error.status == errSecAuthFailed)
      #expect(error.message.contains("or every item was damaged"), "\(error.message)")
    }
  }

  /// Issue 49, case 12: a FIFO in the key file's place hung every open (it was opened blocking
  /// before the regular-file check). Now the open is refused at once, and so is the failure
  /// ledger's FIFO (read as a damaged ledger: prompts wait, nothing hangs).
  @Test func aFIFOInPlaceOfTheKeyFileIsRefusedAtOnce() throws {
    let temporary = try TemporaryStore()
    try FileManager.default.removeItem(at: keyFile(temporary.directory))
    #expect(mkfifo(keyFile(temporary.directory).path, 0o600) == 0)
    #expect(openStatus(temporary.directory, passphrase: nil) == errSecInvalidKeychain)
    let ledgerPath = temporary.directory.appendingPathComponent("authentication-failures").path
    #expect(mkfifo(ledgerPath, 0o600) == 0)
    let ledger = FailedAttemptLedger(directory: temporary.directory)
    #expect(ledger.read().failures == FailedAttemptLedger.freeAttempts + 1)
  }

  // Only root can give a file away; another user's tests see the refusal through the mode test.
  @Test(.enabled(if: geteuid() == 0, "chown needs root"))
  func aDirectoryOrFileOfAnotherUserIsRefused() throws {
    let temporary = try TemporaryStore()
    #expect(chown(keyFile(temporary.directory).path, 65534, 65534) == 0)
    #expect(openStatus(temporary.directory, passphrase: nil) == errSecInvalidKeychain)
    #expect(chown(keyFile(temporary.directory).path, 0, 0) == 0)
    #expect(chown(temporary.directory.path, 65534, 65534) == 0)
    #expect(openStatus(temporary.directory, passphrase: nil) == errSecInvalidKeychain)
    #expect(chown(temporary.directory.path, 0, 0) == 0)
    #expect(openStatus(temporary.directory, passphrase: nil) == errSecSuccess)
  }

  @Test func aSyncColumnChangedInAnyBitIsDamage() throws {
    let temporary = try TemporaryStore()
    temporary.run {
      #expect(add(genp("alice", [kSecValueData as String: Data(utf8: "a")])) == errSecSuccess)
    }
    try database(temporary.directory).write { db in try db.execute(sql: "UPDATE item SET sync = 256") }
    let report = try temporary.store.checkIntegrity()
    #expect(report.damagedItems == 1)
  }
}

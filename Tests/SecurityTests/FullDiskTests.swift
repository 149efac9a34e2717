import Foundation
import Security
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A store whose disk fills up answers with a status, keeps every item it acknowledged, and can
/// still free space through SecItemDelete.
@Suite(.serialized) struct FullDisk {
  /// The helper executable, built beside the test bundle.
  static var helper: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("keychain-store-helper")
  }

  /// Runs the helper (with `environment`, when given, as its whole environment) and returns its
  /// exit status and output lines.
  static func runHelper(_ arguments: [String], environment: [String: String]? = nil) throws -> (
    status: Int32, lines: [Substring]
  ) {
    let process = Process()
    process.executableURL = helper
    process.arguments = arguments
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output.split(separator: "\n"))
  }

  /// Fills the store in `directory` until an add fails, deletes five items and adds one, and
  /// checks that every acknowledged item that was not deleted is intact. Returns the statuses of
  /// the deletes and of the add after them.
  private func fillThenDelete(_ directory: URL, maxFileBytes: Int, label: String) throws -> [OSStatus] {
    let (status, lines) = try Self.runHelper(["fill", directory.path, String(maxFileBytes)])
    #expect(status == 0, "helper exited with \(status): \(lines.suffix(5))")
    let acknowledged = lines.filter { $0.hasPrefix("ok ") }.count
    let failure = try #require(lines.first { $0.hasPrefix("failed ") })
    #expect(acknowledged > 10)
    #expect(failure == "failed \(errSecIO)")
    let afterwards = lines.filter { $0.hasPrefix("deleted ") || $0.hasPrefix("refilled ") }.compactMap {
      $0.split(separator: " ").last.flatMap { OSStatus($0) }
    }
    #expect(afterwards.count == 6)
    #expect(afterwards.allSatisfy { $0 == errSecSuccess || $0 == errSecIO })
    let wal = directory.appendingPathComponent("keychain.db-wal").path
    let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
    print("full disk (\(label)): \(acknowledged) adds acknowledged, then statuses \(afterwards); WAL \(walSize) bytes")

    let deleted = Set((0..<5).filter { afterwards[$0] == errSecSuccess })
    let refilled = afterwards.last == errSecSuccess
    let reopened = try KeychainStore(directory: directory)
    withKeychainContext(store: reopened, accessGroups: ["helper"]) {
      var intact = 0
      for index in 0...acknowledged where !deleted.contains(index) && (index < acknowledged || refilled) {
        let data = readData([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "item-\(index)"])
        if data == Data(repeating: UInt8(truncatingIfNeeded: index), count: 4096) { intact += 1 }
      }
      let expected = acknowledged - deleted.count + (refilled ? 1 : 0)
      #expect(intact == expected)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == expected)
    }
    return afterwards
  }

  @Test func aFileSizeLimitGivesAStatusAndKeepsEveryAcknowledgedItem() throws {
    // A per-file limit caps the database file itself, so a delete cannot always make room (pages
    // committed to the WAL may have nowhere to go); what must hold is statuses and no loss.
    let temporary = try TemporaryStore()
    _ = try fillThenDelete(temporary.directory, maxFileBytes: 2 * 1024 * 1024, label: "2 MiB file-size limit")
  }

  @Test(.enabled(if: ScratchMount.isPossible, "a 2 MiB tmpfs needs root and mount(2)"))
  func aFullFileSystemGivesAStatusAndDeletesStillFreeRoom() throws {
    let mount = try #require(try ScratchMount(megabytes: 2), "root could not mount a tmpfs")
    defer { mount.remove() }
    let afterwards = try fillThenDelete(
      mount.path.appendingPathComponent("store"), maxFileBytes: 0, label: "2 MiB tmpfs")
    #expect(afterwards == Array(repeating: errSecSuccess, count: 6))
  }
}

/// A small tmpfs for tests that need a real full or read-only file system; nil where this process
/// may not mount one (not root, or no mount permission in a container).
struct ScratchMount {
  let path: URL

  /// Whether this process may mount one (root): tests that need it are skipped, and say so, where not.
  static var isPossible: Bool { getuid() == 0 }

  init?(megabytes: Int) throws {
    guard getuid() == 0 else { return nil }
    path = FileManager.default.temporaryDirectory.appendingPathComponent("kb-mount-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: path, withIntermediateDirectories: false)
    guard Glibc.mount("tmpfs", path.path, "tmpfs", 0, "size=\(megabytes)m,mode=0700") == 0 else {
      try? FileManager.default.removeItem(at: path)
      return nil
    }
  }

  /// Makes the file system read-only.
  /// Remounts read-only. The kernel refuses (EBUSY) while a file is open for writing, and a store
  /// closed just before may still have its background checkpointer's connection open for a moment
  /// on a loaded machine: retry for up to two seconds.
  func remountReadOnly() -> Bool {
    for _ in 0..<40 {
      if Glibc.mount("tmpfs", path.path, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) == 0 { return true }
      guard errno == EBUSY else { return false }
      usleep(50_000)
    }
    return false
  }

  func remove() {
    umount2(path.path, Int32(MNT_DETACH))
    try? FileManager.default.removeItem(at: path)
  }
}

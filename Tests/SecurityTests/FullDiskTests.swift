import Foundation
import Security
import Testing

/// A store whose disk fills up answers with a status and keeps every item it acknowledged.
@Suite struct FullDisk {
  /// The helper executable, built beside the test bundle.
  static var helper: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent("keychain-store-helper")
  }

  @Test func aFullDiskGivesAStatusAndKeepsEveryAcknowledgedItem() throws {
    let temporary = try TemporaryStore()
    let process = Process()
    process.executableURL = Self.helper
    process.arguments = ["fill", temporary.directory.path, String(2 * 1024 * 1024)]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "helper exited with \(process.terminationStatus): \(output.suffix(200))")
    let lines = output.split(separator: "\n")
    let acknowledged = lines.filter { $0.hasPrefix("ok ") }.count
    let failure = try #require(lines.last { $0.hasPrefix("failed ") })
    #expect(acknowledged > 10)
    #expect(failure == "failed \(errSecIO)")

    let reopened = try KeychainStore(directory: temporary.directory)
    withKeychainContext(store: reopened, accessGroups: ["helper"]) {
      var intact = 0
      for index in 0..<acknowledged {
        let data = readData([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "item-\(index)"])
        if data == Data(repeating: UInt8(truncatingIfNeeded: index), count: 4096) { intact += 1 }
      }
      #expect(intact == acknowledged)
      #expect(count([kSecClass as String: kSecClassGenericPassword]) == acknowledged)
    }
  }
}

import Foundation
import Logging
import Security
import Synchronization
import Testing

/// Every entry the logging system received in this test process, as "level label: message metadata".
final class CapturedLog: Sendable {
  static let shared = CapturedLog()
  private let entries = Mutex<[String]>([])

  /// Installs the capturing handler once for the process (swift-log allows one bootstrap).
  static let installed: Void = LoggingSystem.bootstrap { label in CapturingLogHandler(label: label) }

  func append(_ entry: String) { entries.withLock { $0.append(entry) } }
  var all: [String] { entries.withLock { $0 } }
}

struct CapturingLogHandler: LogHandler {
  let label: String
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .trace

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    CapturedLog.shared.append("\(event.level) \(label): \(event.message) \(fields.joined(separator: " "))")
  }
}

/// The store's operational log, through swift-log: what it says, and that it never says a value.
@Suite struct StoreLogging {
  init() { CapturedLog.installed }

  @Test func aRefusedStoreIsLoggedWithItsReason() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-log-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: false,
      attributes: [
        .posixPermissions: 0o755
      ])
    // Four tries, as four SecItem calls of Apple-style code make: one warning (issue 52).
    for _ in 0..<4 {
      #expect(throws: KeychainStoreError.self) { _ = try KeychainStore(directory: directory) }
    }
    let entries = CapturedLog.shared.all.filter { $0.contains(directory.path) && $0.contains("Refused to open") }
    #expect(entries.count == 1, "\(entries)")
    let entry = entries.first
    #expect(entry?.hasPrefix("warning keychain-bridge.store") == true, "\(CapturedLog.shared.all.suffix(3))")
    #expect(entry?.contains("mode 755") == true)
  }

  @Test(.enabled(if: !TemporaryStore.overAgent, "the log is the agent's, in its own process"))
  func skippedRowsAreLoggedWithoutAnyValue() throws {
    let temporary = try TemporaryStore()
    let account = "log-account-5e1d"
    let secret = "log-secret-9b7c"
    temporary.run {
      add(genp(account, service: "log-service-77aa", [kSecValueData as String: Data(utf8: secret)]))
      add(genp("other", service: "log-service-77aa", [kSecValueData as String: Data(utf8: "x")]))
    }
    try StoreTampering.swapColumn("acct", 0, 1, directory: temporary.directory)
    temporary.run {
      #expect(copy(genp(account, service: "log-service-77aa", [kSecReturnData as String: true])).0 == errSecDecode)
      _ = copy([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account])
    }
    let entries = CapturedLog.shared.all.filter { $0.contains(temporary.directory.path) }
    #expect(entries.contains { $0.contains("Skipped item rows that failed authentication") }, "\(entries)")
    for entry in CapturedLog.shared.all {
      #expect(!entry.contains(account) && !entry.contains(secret) && !entry.contains("log-service-77aa"), "\(entry)")
    }
  }
}

import Foundation
import KeychainStorageMemory
import Logging
import Security
import Testing

@testable import KeychainAgent

/// Agent services over in-memory storages, and callers for them, for tests that need no process.
enum AgentServices {
  /// A service over `storage`, with no policy rule and no idle lock.
  static func make(over storage: InMemoryItemStorage) throws -> AgentService {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("agent-\(UUID().uuidString)")
    return AgentService(
      store: KeychainStore(directory: directory, storage: storage), storage: storage,
      backend: try SecurityBackends.required(),
      policy: AgentPolicy(), idleLock: IdleLock(timeout: 0, storage: storage, logger: Logger(label: "test")),
      ledger: FailedAttemptLedger(directory: nil), logger: Logger(label: "test"))
  }

  /// This test process as a caller the policy granted `groups` (nil: every group).
  static func caller(of service: AgentService, granted groups: [String]?) throws -> AgentCaller {
    let acceptedAt = try #require(ProcessInspection.ticksSinceBoot())
    let identified = try #require(service.identify(pid: getpid(), acceptedAt: acceptedAt))
    return AgentCaller(
      pid: identified.pid, file: identified.file, executable: identified.executable,
      grant: AccessGrant(groups: groups, namedByRule: false), session: identified.session)
  }
}

import Foundation
import Logging
import Security
import Synchronization

/// Locks a passphrase store when no request has come for a while, as a device locks itself: the
/// keys leave the agent's memory until a client unlocks the store again.
///
/// Only a passphrase store is locked so: a key-file store's lock protects nothing its key file
/// does not give back to any client that asks, so locking it would only make reads fail.
package final class IdleLock: @unchecked Sendable {
  // @unchecked: `timer` (a DispatchSourceTimer, not Sendable) is set once in init and only
  // cancelled in deinit; every other property is immutable or atomic.
  /// The default: 15 minutes, a laptop's screen lock (`keychaind --idle-timeout SECONDS`; 0 never).
  package static let defaultTimeout = 900

  package let timeout: Int
  /// The keys and the lock: all an idle lock needs of a storage.
  private let storage: any KeyLockStorage
  private let logger: Logger
  private let lastRequest = Atomic<Int64>(IdleLock.now())
  private let timer: DispatchSourceTimer?

  package init(timeout: Int, storage: any KeyLockStorage, logger: Logger) {
    self.timeout = timeout
    self.storage = storage
    self.logger = logger
    guard timeout > 0, storage.hasPassphrase else {
      timer = nil
      return
    }
    let timer = DispatchSource.makeTimerSource(queue: .global())
    // Checked several times per period, so the lock comes within a tenth of it (at most 30 s) late.
    let interval = max(1, min(30, timeout / 10))
    timer.schedule(deadline: .now() + .seconds(interval), repeating: .seconds(interval))
    self.timer = timer
    timer.setEventHandler { [weak self] in self?.check() }
    timer.resume()
  }

  deinit { timer?.cancel() }

  /// Seconds on a clock that only goes forward.
  static func now() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000_000) }

  /// A request came: the idle period starts again.
  package func touch() { lastRequest.store(Self.now(), ordering: .relaxed) }

  private func check() {
    guard Self.now() - lastRequest.load(ordering: .relaxed) >= Int64(timeout), !storage.isLocked else { return }
    storage.lock()
    logger.info("locked the store after an idle period", metadata: ["seconds": .stringConvertible(timeout)])
  }
}

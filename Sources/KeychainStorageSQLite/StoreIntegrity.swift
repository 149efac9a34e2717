import Logging
import Security
import Synchronization

/// The store's operational log: opening, upgrades, refused files, checkpoint and space trouble.
/// Entries name files, classes and counts, never an attribute value or a secret.
///
/// Made per entry (entries are rare) so that a logging system the application bootstraps after
/// the first store was opened still receives them.
var storeLogger: Logger { Logger(label: "keychain-bridge.store") }

/// Keeps count of the item rows a store skipped because they failed authentication, and logs each
/// occurrence (the database path, the class and how many rows: never a value).
///
/// Apple's securityd skips such rows and deletes them later (rule 3.8). Here they are skipped and
/// left on disk, so that nothing an attacker or a damaged disk did is made permanent by the store,
/// and `security show-keychain-info` can report them.
final class IntegrityMonitor: Sendable {
  private let databasePath: String
  private let skipped = Mutex<Int>(0)

  init(databasePath: String) { self.databasePath = databasePath }

  /// The number of damaged rows calls on this store skipped since it was opened.
  var skippedRows: Int { skipped.withLock { $0 } }

  /// Counts skipped rows; logs the first and then each time the total passes a power of two, so a
  /// damaged row that every call meets cannot flood the log.
  func report(damagedRows: Int, itemClass: ItemClass) {
    let (before, after) = skipped.withLock { total in
      defer { total += damagedRows }
      return (total, total + damagedRows)
    }
    // The highest set bit moved: the total reached a new power of two.
    guard after.leadingZeroBitCount < before.leadingZeroBitCount else { return }
    storeLogger.warning(
      "Skipped item rows that failed authentication",
      metadata: [
        "database": .string(databasePath), "class": .string(itemClass.rawValue),
        "rows": .stringConvertible(damagedRows), "skippedSinceOpen": .stringConvertible(after),
      ])
  }
}

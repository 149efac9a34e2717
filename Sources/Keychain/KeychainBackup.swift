import Foundation
import Security

/// An encrypted backup of the keychain: every item that may leave the device, sealed under a key
/// derived from a passphrase (scrypt, then AES-256-GCM).
///
/// As in Apple's backups, items whose accessibility ends in `ThisDeviceOnly` are left out. The
/// backup covers the items this process's access groups can read, in the current store (the
/// default one, or the one `withKeychainContext` names).
public struct KeychainBackup: Sendable {
  /// The backup file's bytes.
  public let file: Data
  /// How many items the backup holds.
  public let itemCount: Int
  /// How many items were left out because their accessibility ends in `ThisDeviceOnly`.
  public let skippedDeviceOnlyItemCount: Int

  /// Seals a backup of the keychain under `passphrase`.
  ///
  /// Fails with `.interactionNotAllowed` while the store is locked, since the secrets cannot be
  /// read then; the error's message gives the reason of every failure.
  public static func export(passphrase: String) -> Result<KeychainBackup, KeychainError> {
    SecKeychainExportBackup(passphrase: passphrase)
      .map {
        KeychainBackup(
          file: $0.file, itemCount: $0.exportedItems, skippedDeviceOnlyItemCount: $0.skippedThisDeviceOnlyItems)
      }
      .mapError { KeychainError(status: $0.status) }
  }

  /// Restores the items of a backup `export(passphrase:)` made, in one transaction.
  ///
  /// Items the keychain already holds (by their primary key) are kept as they are; items this
  /// keychain or process cannot take are rejected with their reason; the rest are added. A wrong
  /// passphrase or an altered file fails with `.authFailed`, bytes that are no backup or are cut
  /// short with `.decode`, and then nothing is added.
  public static func restore(_ file: Data, passphrase: String) -> Result<KeychainRestoreReport, KeychainError> {
    SecKeychainImportBackup(file, passphrase: passphrase)
      .map {
        KeychainRestoreReport(
          addedItemCount: $0.addedItems, duplicateItemCount: $0.duplicateItems, rejections: $0.rejections)
      }
      .mapError { KeychainError(status: $0.status) }
  }
}

/// What a restore did with the items of a backup.
public struct KeychainRestoreReport: Sendable, Hashable {
  /// How many items were added.
  public let addedItemCount: Int
  /// How many items were left out because the keychain already holds an item with their primary key.
  public let duplicateItemCount: Int
  /// Why each rejected item was refused, naming its class and position in the backup, never a value.
  public let rejections: [String]
  /// How many items were rejected.
  public var rejectedItemCount: Int { rejections.count }
}

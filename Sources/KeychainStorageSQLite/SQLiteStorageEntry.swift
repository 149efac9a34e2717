import Foundation
import Logging
import Security
import Synchronization

/// The store module's entry point for Security's backend (KeychainBackend): the one way a store
/// is opened, logged without a value.
package enum SQLiteStorageEntry {
  /// Opens, creating it if needed, the SQLite store in `directory`; see `KeychainStore.init`.
  package static func open(directory: URL, passphrase: String?, sealing: KeyFileSealing? = nil)
    throws(KeychainStoreError) -> any ItemStorage
  {
    do {
      let store = try SQLiteItemStorage(directory: directory, passphrase: passphrase, sealing: sealing)
      storeLogger.debug(
        "Opened keychain store",
        metadata: [
          "directory": .string(directory.path), "readOnly": .stringConvertible(store.isReadOnly),
          "passphrase": .stringConvertible(store.hasPassphrase), "locked": .stringConvertible(store.isLocked),
        ])
      return store
    } catch {
      // Apple-style code tries the default store again on every call: the same refusal is
      // logged once, not once per call.
      let firstTime = refusalsLogged.withLock { logged in
        // Bounded: past 256 refusals the record starts again (and may log one twice), never stops.
        if logged.count >= 256 { logged.removeAll() }
        return logged.insert("\(directory.path)\u{0}\(error.message)").inserted
      }
      if firstTime {
        storeLogger.warning(
          "Refused to open keychain store",
          metadata: [
            "directory": .string(directory.path), "status": .stringConvertible(error.status),
            "reason": .string(error.message),
          ])
      }
      throw error
    }
  }

  /// The refusals logged so far in this process, by directory and reason.
  private static let refusalsLogged = Mutex<Set<String>>([])
}

import CKeychainAgent
import Foundation
import KeychainBackend
import KeychainCrypto
import Security

/// What keychaind does before it serves: the store opened with the environment's passphrase, and
/// the memory its keys will live in.
package enum AgentStartup {
  /// The store in `directory`, unlocked with the environment's passphrase when it gives one
  /// (`KEYCHAIN_BRIDGE_PASSPHRASE`, removed from the environment as it is read). An existing store
  /// is opened locked and unlocked with the passphrase's bytes, which are then wiped; only a store
  /// made now takes it as a String (its creation's one copy, which is not wiped). `backend` opens
  /// it (`backend()`).
  package static func openStore(in directory: URL, with backend: any SecurityBackend) throws(AgentStartError) -> (
    store: KeychainStore, storage: any ItemStorage
  ) {
    var passphrase = AgentEnvironment.takePassphrase()
    defer { if passphrase != nil { Secrets.wipe(&passphrase!) } }
    let exists = FileManager.default.fileExists(atPath: directory.appendingPathComponent("keychain.key").path)
    let storage: any ItemStorage
    do {
      storage = try backend.openStore(
        directory: directory,
        passphrase: exists ? nil : passphrase.map { String(decoding: $0, as: UTF8.self) }, sealingToTPM: false)
    } catch {
      throw AgentStartError("cannot open the store: \(error.message)")
    }
    let store = KeychainStore(directory: directory, storage: storage, backend: backend)
    guard exists, passphrase != nil else { return (store, storage) }
    do throws(SecStatus) {
      try storage.unlock(passphraseBytes: passphrase)
    } catch {
      throw AgentStartError(
        "cannot open the store: \(error.detail ?? "the passphrase in KEYCHAIN_BRIDGE_PASSPHRASE is wrong")")
    }
    return (store, storage)
  }

  /// Marks the process not dumpable, before any key is in memory: no core file, and no process of
  /// this user may read its memory through ptrace or /proc.
  package static func makeUndumpable() throws(AgentStartError) {
    guard keychaind_disable_dumps() == 0 else {
      throw AgentStartError("cannot make the process undumpable: \(String(cString: strerror(errno)))")
    }
  }

  /// The backend the agent's engines run with (the SQLite store, the OpenSSL key engine): a value
  /// made here and handed to the service, not the process-wide one Apple's functions find.
  package static func backend() -> any SecurityBackend { SQLiteOpenSSLBackend() }

  /// The store's keys in OpenSSL's secure heap: locked in memory (never swapped out), left out of
  /// core dumps and wiped when dropped. 64 KiB holds a store's dozen keys and HMAC's copies many
  /// times over; the agent makes no private-key objects of its own, which would share it. Returns
  /// the sentence to log.
  package static func enableKeyMemory() throws(AgentStartError) -> (message: String, locked: Bool) {
    do {
      switch try SecureHeap.enable(byteCount: 64 * 1024) {
      case .locked:
        return ("Key memory: 64 KiB secure heap, locked and excluded from core dumps", true)
      case .unlocked:
        return (
          "Key memory: 64 KiB secure heap, but the kernel refused to lock it (raise RLIMIT_MEMLOCK, `ulimit -l`)",
          false
        )
      }
    } catch {
      throw AgentStartError("cannot set up locked memory for the keys: \(error)")
    }
  }
}

/// Why the agent cannot start, in a sentence for its standard error.
package struct AgentStartError: Error, CustomStringConvertible {
  /// The sentence.
  package let description: String

  /// The error saying `description`.
  package init(_ description: String) { self.description = description }
}

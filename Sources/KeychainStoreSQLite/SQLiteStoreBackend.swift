import COpenSSL
import Foundation
import Logging
import Security

/// The backend of the `Security` product: SQLite stores sealed with OpenSSL.
enum SQLiteStoreBackend: StoreBackend {
  static func openStore(directory: URL, passphrase: String?) throws(KeychainStoreError) -> any ItemStore {
    do {
      let store = try SQLiteItemStore(directory: directory, passphrase: passphrase)
      storeLogger.debug(
        "Opened keychain store",
        metadata: [
          "directory": .string(directory.path), "readOnly": .stringConvertible(store.isReadOnly),
          "passphrase": .stringConvertible(store.hasPassphrase), "locked": .stringConvertible(store.isLocked),
        ])
      return store
    } catch {
      storeLogger.warning(
        "Refused to open keychain store",
        metadata: [
          "directory": .string(directory.path), "status": .stringConvertible(error.status),
          "reason": .string(error.message),
        ])
      throw error
    }
  }

  static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return true }
    return RAND_bytes(base.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1
  }

  static func isSingleDERCertificate(_ bytes: Data) -> Bool {
    guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return false }
    return bytes.withUnsafeBytes { buffer in
      guard let base = buffer.bindMemory(to: UInt8.self).baseAddress else { return false }
      var cursor: UnsafePointer<UInt8>? = base
      guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return false }
      X509_free(certificate)
      // Trailing bytes after the certificate make the input something other than one certificate.
      return cursor.map { $0 - base } == buffer.count
    }
  }
}

/// Defines the symbol `Security` declares with the same name (see StoreBackend.swift there).
@_silgen_name("KeychainBridge_linkedStoreBackend")
package func linkedStoreBackend() -> any StoreBackend.Type {
  SQLiteStoreBackend.self
}

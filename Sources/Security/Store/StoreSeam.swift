import Foundation

// The Security module reaches its store through C entry points, not `import KeychainStoreSQLite`:
// Swift makes every importer of a module load that module's imports, and the store's imports
// include C modules (SQLite, OpenSSL) whose module maps only targets that declare them can find.
// Packages that test `#if canImport(Security)` and then import it without declaring it
// (swift-certificates does) would fail to compile. So Security imports no C module and calls the
// functions Sources/CKeychainBridgeSeam/include/KeychainBridgeSeam.h declares, by symbol; their C
// ABI is checked on the store's side against the header's function types (StoreEntryPoints.swift).
// When the store is not linked, weak definitions answer with a clear failure.

@_extern(c, "KeychainBridge_openStore")
private func keychainBridgeOpenStore(
  _ directory: UnsafePointer<CChar>, _ passphrase: UnsafePointer<CChar>?, _ status: UnsafeMutablePointer<Int32>,
  _ message: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> UnsafeMutableRawPointer?

@_extern(c, "KeychainBridge_checkCertificate")
private func keychainBridgeCheckCertificate(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32

enum StoreSeam {
  /// Opens (creating if needed) the store in `directory` through the linked store.
  static func openStore(directory: URL, passphrase: String?) throws(KeychainStoreError) -> any ItemStore {
    var status: Int32 = errSecSuccess
    var message: UnsafeMutablePointer<CChar>?
    let opened = directory.path.withCString { path in
      if let passphrase {
        return passphrase.withCString { keychainBridgeOpenStore(path, $0, &status, &message) }
      }
      return keychainBridgeOpenStore(path, nil, &status, &message)
    }
    guard let opened else {
      let reason = message.map { String(cString: $0) } ?? "The keychain store could not be opened."
      free(message)
      throw KeychainStoreError(status: status == errSecSuccess ? errSecNotAvailable : status, message: reason)
    }
    guard let store = Unmanaged<AnyObject>.fromOpaque(opened).takeRetainedValue() as? any ItemStore else {
      throw KeychainStoreError(
        status: errSecInternalComponent, message: "The linked keychain store is not an item store of this version.")
    }
    return store
  }

  /// Whether `bytes` are exactly one DER-encoded X.509 certificate; nil when no parser is linked.
  static func isSingleDERCertificate(_ bytes: Data) -> Bool? {
    let verdict = bytes.withUnsafeBytes { buffer in
      keychainBridgeCheckCertificate(buffer.bindMemory(to: UInt8.self).baseAddress, buffer.count)
    }
    return verdict < 0 ? nil : verdict == 1
  }
}

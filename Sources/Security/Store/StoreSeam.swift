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
  _ directory: UnsafePointer<CChar>, _ passphrase: UnsafePointer<UInt8>?, _ passphraseLength: Int,
  _ status: UnsafeMutablePointer<Int32>, _ message: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> UnsafeMutableRawPointer?

@_extern(c, "KeychainBridge_checkCertificate")
private func keychainBridgeCheckCertificate(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32

@_extern(c, "KeychainBridge_keyEngine")
private func keychainBridgeKeyEngine() -> UnsafeMutableRawPointer?

@_extern(c, "KeychainBridge_sealBackup")
private func keychainBridgeSealBackup(
  _ plaintext: UnsafePointer<UInt8>?, _ plaintextLength: Int, _ passphrase: UnsafePointer<UInt8>?,
  _ passphraseLength: Int, _ sealed: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
  _ sealedLength: UnsafeMutablePointer<Int>, _ message: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32

@_extern(c, "KeychainBridge_openBackup")
private func keychainBridgeOpenBackup(
  _ sealed: UnsafePointer<UInt8>?, _ sealedLength: Int, _ passphrase: UnsafePointer<UInt8>?,
  _ passphraseLength: Int, _ plaintext: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
  _ plaintextLength: UnsafeMutablePointer<Int>, _ message: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32

enum StoreSeam {
  /// Opens (creating if needed) the store in `directory` through the linked store.
  static func openStore(directory: URL, passphrase: String?) throws(KeychainStoreError) -> any ItemStore {
    // A C string ends at the first NUL: a path holding one would name another directory.
    guard !directory.path.utf8.contains(0) else {
      throw KeychainStoreError(status: errSecParam, message: "The store directory's path contains a NUL character.")
    }
    var status: Int32 = errSecSuccess
    var message: UnsafeMutablePointer<CChar>?
    let opened = directory.path.withCString { path in
      guard let passphrase else { return keychainBridgeOpenStore(path, nil, 0, &status, &message) }
      // The passphrase crosses as bytes and a length, so that every byte of it counts. An empty
      // one still points somewhere: NULL means "no passphrase".
      let count = passphrase.utf8.count
      let bytes = count == 0 ? [0] : Array(passphrase.utf8)
      return bytes.withUnsafeBufferPointer { buffer in
        keychainBridgeOpenStore(path, buffer.baseAddress, count, &status, &message)
      }
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

  /// The linked key engine, asked for once; nil when no engine is linked.
  static let keyEngine: (any KeyEngine)? = {
    guard let engine = keychainBridgeKeyEngine() else { return nil }
    return Unmanaged<AnyObject>.fromOpaque(engine).takeRetainedValue() as? any KeyEngine
  }()

  /// A backup file holding `plaintext`, sealed under `passphrase` by the linked store's cipher.
  static func sealBackup(_ plaintext: Data, passphrase: String) throws(SecStatus) -> Data {
    try transform(plaintext, passphrase, keychainBridgeSealBackup)
  }

  /// The plaintext of a backup file: errSecDecode when the bytes are no backup or are cut short,
  /// errSecAuthFailed for a wrong passphrase or an altered file.
  static func openBackup(_ sealed: Data, passphrase: String) throws(SecStatus) -> Data {
    try transform(sealed, passphrase, keychainBridgeOpenBackup)
  }

  private typealias BytesTransform = (
    UnsafePointer<UInt8>?, Int, UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
    UnsafeMutablePointer<Int>, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  ) -> Int32

  private static func transform(_ input: Data, _ passphrase: String, _ function: BytesTransform) throws(SecStatus)
    -> Data
  {
    var output: UnsafeMutablePointer<UInt8>?
    var outputLength = 0
    var message: UnsafeMutablePointer<CChar>?
    let secret = Array(passphrase.utf8)
    let status = input.withUnsafeBytes { inputBuffer in
      secret.withUnsafeBufferPointer { secretBuffer in
        function(
          inputBuffer.bindMemory(to: UInt8.self).baseAddress, inputBuffer.count, secretBuffer.baseAddress,
          secretBuffer.count, &output, &outputLength, &message)
      }
    }
    defer {
      // The plaintext of a backup holds secrets: overwrite it before the memory is reused.
      output?.update(repeating: 0, count: outputLength)
      free(output)
      free(message)
    }
    guard status == errSecSuccess, let output else {
      throw SecStatus(
        status == errSecSuccess ? errSecInternalComponent : status, detail: message.map { String(cString: $0) })
    }
    return Data(bytes: output, count: outputLength)
  }
}

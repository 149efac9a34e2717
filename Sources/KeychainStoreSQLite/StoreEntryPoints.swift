import CKeychainBridgeSeam
import COpenSSL
import Foundation
import Logging
import Security

// The definitions of the C entry points the Security module calls (KeychainBridgeSeam.h). They
// replace the header's weak "not linked" definitions when this target is linked.

/// Opens a SQLite store for the Security module; see `KeychainBridgeOpenStoreFunction`.
@_cdecl("KeychainBridge_openStore")
func openStoreEntryPoint(
  _ directory: UnsafePointer<CChar>, _ passphrase: UnsafePointer<UInt8>?, _ passphraseLength: Int,
  _ status: UnsafeMutablePointer<Int32>, _ message: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> UnsafeMutableRawPointer? {
  let directory = URL(fileURLWithPath: String(cString: directory))
  let passphrase = passphrase.map {
    String(decoding: UnsafeBufferPointer(start: $0, count: passphraseLength), as: UTF8.self)
  }
  do {
    let store = try SQLiteItemStore(directory: directory, passphrase: passphrase)
    storeLogger.debug(
      "Opened keychain store",
      metadata: [
        "directory": .string(directory.path), "readOnly": .stringConvertible(store.isReadOnly),
        "passphrase": .stringConvertible(store.hasPassphrase), "locked": .stringConvertible(store.isLocked),
      ])
    return Unmanaged.passRetained(store as AnyObject).toOpaque()
  } catch {
    storeLogger.warning(
      "Refused to open keychain store",
      metadata: [
        "directory": .string(directory.path), "status": .stringConvertible(error.status),
        "reason": .string(error.message),
      ])
    status.pointee = error.status
    message.pointee = strdup(error.message)
    return nil
  }
}

/// Checks DER bytes with OpenSSL's X.509 parser; see `KeychainBridgeCheckCertificateFunction`.
@_cdecl("KeychainBridge_checkCertificate")
func checkCertificateEntryPoint(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
  guard let bytes, count > 0, count <= Int(Int32.max) else { return 0 }
  var cursor: UnsafePointer<UInt8>? = bytes
  guard let certificate = d2i_X509(nil, &cursor, count) else { return 0 }
  X509_free(certificate)
  // Trailing bytes after the certificate make the input something other than one certificate.
  return cursor.map { $0 - bytes } == count ? 1 : 0
}

/// Fails to compile when a definition above stops matching the C function type its header
/// declares, which is what the Security module calls.
private func entryPointsMatchTheirDeclarations() -> (
  KeychainBridgeOpenStoreFunction, KeychainBridgeCheckCertificateFunction
) {
  (openStoreEntryPoint, checkCertificateEntryPoint)
}

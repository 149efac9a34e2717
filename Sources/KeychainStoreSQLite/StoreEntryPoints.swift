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

/// Seals a backup for the Security module; see `KeychainBridgeSealBackupFunction`.
@_cdecl("KeychainBridge_sealBackup")
func sealBackupEntryPoint(
  _ plaintext: UnsafePointer<UInt8>?, _ plaintextLength: Int, _ passphrase: UnsafePointer<UInt8>?,
  _ passphraseLength: Int, _ sealed: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
  _ sealedLength: UnsafeMutablePointer<Int>, _ message: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  transform(plaintext, plaintextLength, passphrase, passphraseLength, sealed, sealedLength, message) {
    input, passphrase throws(SecStatus) in try BackupEnvelope.seal(input, passphrase: passphrase)
  }
}

/// Opens a backup for the Security module; see `KeychainBridgeOpenBackupFunction`.
@_cdecl("KeychainBridge_openBackup")
func openBackupEntryPoint(
  _ sealed: UnsafePointer<UInt8>?, _ sealedLength: Int, _ passphrase: UnsafePointer<UInt8>?,
  _ passphraseLength: Int, _ plaintext: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
  _ plaintextLength: UnsafeMutablePointer<Int>, _ message: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> Int32 {
  transform(sealed, sealedLength, passphrase, passphraseLength, plaintext, plaintextLength, message) {
    input, passphrase throws(SecStatus) in try BackupEnvelope.open(input, passphrase: passphrase)
  }
}

/// The bytes-in, bytes-out convention of the backup entry points: output in malloc'd memory, or a
/// status and a malloc'd sentence.
private func transform(
  _ input: UnsafePointer<UInt8>?, _ inputLength: Int, _ passphrase: UnsafePointer<UInt8>?, _ passphraseLength: Int,
  _ output: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, _ outputLength: UnsafeMutablePointer<Int>,
  _ message: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
  _ body: ([UInt8], [UInt8]) throws(SecStatus) -> [UInt8]
) -> Int32 {
  output.pointee = nil
  outputLength.pointee = 0
  let bytes = input.map { Array(UnsafeBufferPointer(start: $0, count: inputLength)) } ?? []
  var secret = passphrase.map { Array(UnsafeBufferPointer(start: $0, count: passphraseLength)) } ?? []
  defer { OpenSSLCrypto.wipe(&secret) }
  do {
    var result = try body(bytes, secret)
    defer { OpenSSLCrypto.wipe(&result) }
    guard let copy = malloc(max(result.count, 1))?.assumingMemoryBound(to: UInt8.self) else {
      message.pointee = strdup("Out of memory for the backup.")
      return errSecAllocate
    }
    result.withUnsafeBufferPointer { buffer in
      if let base = buffer.baseAddress { copy.update(from: base, count: buffer.count) }
    }
    output.pointee = copy
    outputLength.pointee = result.count
    return errSecSuccess
  } catch {
    message.pointee = strdup(error.detail ?? secMessage(for: error.code))
    return error.code
  }
}

/// Fails to compile when a definition above stops matching the C function type its header
/// declares, which is what the Security module calls.
private func entryPointsMatchTheirDeclarations() -> (
  KeychainBridgeOpenStoreFunction, KeychainBridgeCheckCertificateFunction, KeychainBridgeSealBackupFunction,
  KeychainBridgeOpenBackupFunction
) {
  (openStoreEntryPoint, checkCertificateEntryPoint, sealBackupEntryPoint, openBackupEntryPoint)
}

import CKeychainTPM
import Foundation
import Security
import Synchronization

/// Why a TPM operation failed: tpm2-tss's status and its description.
package struct TPMError: Error, Sendable, CustomStringConvertible {
  /// The TSS2_RC (0 never appears here).
  package let code: UInt32
  /// What failed, in tpm2-tss's words.
  package let message: String

  package init(code: UInt32, message: String) {
    self.code = code
    self.message = message
  }

  init(_ code: UInt32, _ step: String) {
    self.code = code
    message = "\(step): \(String(cString: keychain_tpm_describe(code)))"
  }

  package var description: String { message }
}

/// A key or sealed object made by a TPM: its private blob (loadable by that TPM alone, under the
/// keychain's storage primary) and its public blob, as tpm2-tss marshals them.
package struct TPMObjectBlob: Sendable, Equatable {
  package var privatePart: [UInt8]
  package var publicPart: [UInt8]

  package init(privatePart: [UInt8], publicPart: [UInt8]) {
    self.privatePart = privatePart
    self.publicPart = publicPart
  }

  /// "KBT1", then each part with a big-endian UInt16 length: what a key item's data holds.
  package var encoded: Data {
    var bytes = Array("KBT1".utf8)
    for part in [privatePart, publicPart] {
      bytes += [UInt8(part.count >> 8), UInt8(part.count & 0xff)] + part
    }
    return Data(bytes)
  }

  /// The blob `encoded` wrote; nil for anything else (bounded: each part at most the capacity
  /// tpm2-tss writes, and nothing after the second).
  package init?(encoded data: Data) {
    let bytes = [UInt8](data)
    guard bytes.count >= 8, Array(bytes[0..<4]) == Array("KBT1".utf8) else { return nil }
    var offset = 4
    var parts: [[UInt8]] = []
    for _ in 0..<2 {
      guard offset + 2 <= bytes.count else { return nil }
      let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
      offset += 2
      guard length > 0, length <= Int(KEYCHAIN_TPM_BLOB_CAPACITY), offset + length <= bytes.count else { return nil }
      parts.append(Array(bytes[offset..<offset + length]))
      offset += length
    }
    guard offset == bytes.count else { return nil }
    self.init(privatePart: parts[0], publicPart: parts[1])
  }
}

/// One TPM 2.0, reached through the TCTI tpm2-tss names it by, with the keychain's storage primary
/// made on it (the same key on every start: nothing is written to the TPM's NV memory).
package final class TPMConnection: @unchecked Sendable {
  // @unchecked: the C context serializes its own commands (a mutex around each operation).
  private let handle: OpaquePointer
  /// The TCTI, in tpm2-tss syntax.
  package let tcti: String

  /// Connects to the TPM `tcti` names.
  package init(tcti: String) throws(TPMError) {
    var opened: OpaquePointer?
    var message = [CChar](repeating: 0, count: 256)
    let status = keychain_tpm_open(tcti, &opened, &message)
    guard status == 0, let opened else {
      let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw TPMError(code: status, message: "TPM \(tcti): \(text)")
    }
    handle = opened
    self.tcti = tcti
  }

  deinit { keychain_tpm_close(handle) }

  /// The TCTI to use: `KEYCHAIN_BRIDGE_TCTI`, else the kernel's resource manager `/dev/tpmrm0`
  /// when it exists; nil (with what is missing) when neither.
  package static func configuredTCTI(_ environment: [String: String] = ProcessInfo.processInfo.environment)
    -> Result<String, TPMError>
  {
    if let tcti = environment["KEYCHAIN_BRIDGE_TCTI"], !tcti.isEmpty { return .success(tcti) }
    if FileManager.default.fileExists(atPath: "/dev/tpmrm0") { return .success("device:/dev/tpmrm0") }
    return .failure(
      TPMError(
        code: 0,
        message:
          "no TPM: /dev/tpmrm0 does not exist and KEYCHAIN_BRIDGE_TCTI is not set (for example swtpm:host=127.0.0.1,port=2321)"
      ))
  }

  /// A P-256 key for signing and ECDH made inside the TPM, and its public key (X9.63, 65 bytes).
  package func createP256() throws(TPMError) -> (blob: TPMObjectBlob, publicKey: Data) {
    var privatePart = [UInt8](repeating: 0, count: Int(KEYCHAIN_TPM_BLOB_CAPACITY))
    var publicPart = [UInt8](repeating: 0, count: Int(KEYCHAIN_TPM_BLOB_CAPACITY))
    var privateLength = 0
    var publicLength = 0
    var x = [UInt8](repeating: 0, count: 32)
    var y = [UInt8](repeating: 0, count: 32)
    let status = keychain_tpm_create_p256(handle, &privatePart, &privateLength, &publicPart, &publicLength, &x, &y)
    guard status == 0 else { throw TPMError(status, "TPM2_Create of a P-256 key") }
    return (
      TPMObjectBlob(
        privatePart: Array(privatePart[0..<privateLength]), publicPart: Array(publicPart[0..<publicLength])),
      Data([4] + x + y)
    )
  }

  /// An ECDSA signature (X9.62 DER) of a 32-byte digest, made inside the TPM.
  package func sign(_ blob: TPMObjectBlob, digest: [UInt8]) throws(TPMError) -> Data {
    precondition(digest.count == 32, "the caller sizes the digest")
    var r = [UInt8](repeating: 0, count: 32)
    var s = [UInt8](repeating: 0, count: 32)
    let status = keychain_tpm_sign_p256(
      handle, blob.privatePart, blob.privatePart.count, blob.publicPart, blob.publicPart.count, digest, &r, &s)
    guard status == 0 else { throw TPMError(status, "TPM2_Sign") }
    var der = [UInt8](repeating: 0, count: 72)
    let length = keychain_tpm_ecdsa_der(r, s, &der)
    guard length > 0 else { throw TPMError(code: 0, message: "the TPM's signature could not be encoded") }
    return Data(der[0..<length])
  }

  /// The ECDH shared secret (32 bytes) of the key and the peer's public point (65-byte X9.63).
  package func sharedSecret(_ blob: TPMObjectBlob, peer: Data) throws(TPMError) -> Data {
    let point = [UInt8](peer)
    guard point.count == 65, point[0] == 4 else {
      throw TPMError(code: 0, message: "the peer's key is not an uncompressed P-256 point")
    }
    var shared = [UInt8](repeating: 0, count: 32)
    let status = keychain_tpm_ecdh_p256(
      handle, blob.privatePart, blob.privatePart.count, blob.publicPart, blob.publicPart.count, Array(point[1...32]),
      Array(point[33...64]), &shared)
    guard status == 0 else { throw TPMError(status, "TPM2_ECDH_ZGen") }
    return Data(shared)
  }

  /// `secret` (at most 128 bytes) sealed to this TPM.
  package func seal(_ secret: [UInt8]) throws(TPMError) -> TPMObjectBlob {
    var privatePart = [UInt8](repeating: 0, count: Int(KEYCHAIN_TPM_BLOB_CAPACITY))
    var publicPart = [UInt8](repeating: 0, count: Int(KEYCHAIN_TPM_BLOB_CAPACITY))
    var privateLength = 0
    var publicLength = 0
    let status = keychain_tpm_seal(
      handle, secret, secret.count, &privatePart, &privateLength, &publicPart, &publicLength)
    guard status == 0 else { throw TPMError(status, "TPM2_Create of a sealed object") }
    return TPMObjectBlob(
      privatePart: Array(privatePart[0..<privateLength]), publicPart: Array(publicPart[0..<publicLength]))
  }

  /// What `seal` sealed (only this TPM can unseal it).
  package func unseal(_ blob: TPMObjectBlob) throws(TPMError) -> [UInt8] {
    var secret = [UInt8](repeating: 0, count: 128)
    var length = 0
    let status = keychain_tpm_unseal(
      handle, blob.privatePart, blob.privatePart.count, blob.publicPart, blob.publicPart.count, &secret, &length)
    guard status == 0 else { throw TPMError(status, "TPM2_Unseal") }
    return Array(secret[0..<length])
  }
}

/// The connection of each TCTI, made on first use and made again after a failure (a TPM that
/// went away, a simulator restarted).
package enum TPMConnections {
  private static let open = Mutex<[String: TPMConnection]>([:])
  /// The TPM of the calls made inside `withValue` (on this task) instead of the environment's:
  /// for tests, which start software TPMs of their own, run beside tests that expect none, and
  /// cannot change a running process's environment safely.
  @TaskLocal package static var chosenTCTI: String?

  /// The connection to the configured TPM.
  package static func configured() throws(TPMError) -> TPMConnection {
    if let tcti = chosenTCTI { return try connection(tcti: tcti) }
    return try connection(tcti: TPMConnection.configuredTCTI().get())
  }

  /// The connection to `tcti`.
  package static func connection(tcti: String) throws(TPMError) -> TPMConnection {
    if let existing = open.withLock({ $0[tcti] }) { return existing }
    let made = try TPMConnection(tcti: tcti)
    return open.withLock { connections in
      if let winner = connections[tcti] { return winner }
      connections[tcti] = made
      return made
    }
  }

  /// Runs `operation` on the configured TPM; a failure drops the connection, so the next call
  /// connects again instead of reusing a broken one.
  package static func run<T>(_ operation: (TPMConnection) throws(TPMError) -> T) throws(TPMError) -> T {
    let connection = try configured()
    do {
      return try operation(connection)
    } catch {
      open.withLock { if $0[connection.tcti] === connection { $0[connection.tcti] = nil } }
      throw error
    }
  }
}

import Foundation
import KeychainCryptoOpenSSL
import Security

/// A P-256 private key inside a TPM: Apple's Secure Enclave key on Linux (issue 33). Signing and
/// ECDH run in the TPM; the public half is an ordinary software key.
package final class TPMKey: TokenEngineKey {
  package let blob: TPMObjectBlob
  private let publicPoint: Data

  init(blob: TPMObjectBlob, publicPoint: Data) {
    self.blob = blob
    self.publicPoint = publicPoint
  }

  package var type: KeyType { .ec }
  package var isPrivate: Bool { true }
  package var bits: Int { 256 }
  package var tokenID: String { secureEnclaveTokenID }
  package var tokenBlob: Data { blob.encoded + publicPoint }

  /// As on Apple, a Secure Enclave private key has no external representation.
  package func externalRepresentation() throws(KeyOperationFailure) -> Data {
    throw KeyOperationFailure(errSecUnimplemented, "A Secure Enclave key's private half never leaves the TPM")
  }

  package func publicKey() throws(KeyOperationFailure) -> any EngineKey {
    try OpenSSLKeyEngine.shared.importKey(.ec, isPrivate: false, data: publicPoint)
  }

  package func publicRepresentation() throws(KeyOperationFailure) -> Data { publicPoint }

  package func ecdsaSign(digest: Data) throws(KeyOperationFailure) -> Data {
    // X9.62 uses the leftmost 256 bits of a longer digest; a shorter one is the same integer
    // left-padded with zeros. The TPM signs exactly 32 bytes.
    let bytes = [UInt8](digest)
    let sized = bytes.count >= 32 ? Array(bytes.prefix(32)) : [UInt8](repeating: 0, count: 32 - bytes.count) + bytes
    return try Self.inTPM { connection throws(TPMError) in try connection.sign(blob, digest: sized) }
  }

  package func ecdsaVerify(digest: Data, signature: Data) throws(KeyOperationFailure) -> Bool {
    try publicKey().ecdsaVerify(digest: digest, signature: signature)
  }

  package func rsaSign(_ input: Data, padding: RSASignaturePadding) throws(KeyOperationFailure) -> Data {
    throw KeyOperationFailure(errSecParam, "A Secure Enclave key is an EC key")
  }

  package func rsaVerify(_ input: Data, signature: Data, padding: RSASignaturePadding) throws(KeyOperationFailure)
    -> Bool
  {
    throw KeyOperationFailure(errSecParam, "A Secure Enclave key is an EC key")
  }

  package func rsaEncrypt(_ plaintext: Data, padding: RSAEncryptionPadding) throws(KeyOperationFailure) -> Data {
    throw KeyOperationFailure(errSecParam, "A Secure Enclave key is an EC key")
  }

  package func rsaDecrypt(_ ciphertext: Data, padding: RSAEncryptionPadding) throws(KeyOperationFailure) -> Data {
    throw KeyOperationFailure(errSecParam, "A Secure Enclave key is an EC key")
  }

  package func ecdh(peer: any EngineKey, cofactor: Bool) throws(KeyOperationFailure) -> Data {
    let point = try peer.publicRepresentation()
    guard peer.type == .ec, point.count == 65 else {
      throw KeyOperationFailure(errSecParam, "The peer's key is not a P-256 key")
    }
    return try Self.inTPM { connection throws(TPMError) in try connection.sharedSecret(blob, peer: point) }
  }

  /// Runs `operation` on the configured TPM; its failure as the errSec code SecKey reports.
  static func inTPM<T>(_ operation: (TPMConnection) throws(TPMError) -> T) throws(KeyOperationFailure) -> T {
    do {
      return try TPMConnections.run(operation)
    } catch {
      // No TPM configured: D10's answer. A status from the TPM itself (the layer bits are 0) means
      // it refused the blob or the command (another TPM's key); any other layer is the way to it.
      let status =
        error.code == 0 ? errSecUnimplemented : (error.code >> 16 == 0 ? errSecDecode : errSecNotAvailable)
      let message =
        error.code == 0
        ? "The Secure Enclave is a TPM 2.0 on Linux, and none is configured: \(error.message)"
        : "Secure Enclave (TPM): \(error.message)"
      throw KeyOperationFailure(status, message)
    }
  }
}

/// kSecAttrTokenIDSecureEnclave over the TPM `KEYCHAIN_BRIDGE_TCTI` (or /dev/tpmrm0) names.
package struct TPMSecureEnclave: SecureEnclaveEngine {
  package init() {}

  package func generateP256() throws(KeyOperationFailure) -> any TokenEngineKey {
    let (blob, point) = try TPMKey.inTPM { connection throws(TPMError) in try connection.createP256() }
    return TPMKey(blob: blob, publicPoint: point)
  }

  /// The key item's data: the TPM's blob, then the 65-byte public point.
  package func key(fromBlob data: Data) throws(KeyOperationFailure) -> any TokenEngineKey {
    guard data.count > 65, let blob = TPMObjectBlob(encoded: data.dropLast(65)),
      data.suffix(65).first == 4
    else {
      throw KeyOperationFailure(errSecDecode, "The item's data is not a Secure Enclave key of this keychain")
    }
    return TPMKey(blob: blob, publicPoint: Data(data.suffix(65)))
  }
}

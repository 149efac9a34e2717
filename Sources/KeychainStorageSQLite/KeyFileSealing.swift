import Foundation
import KeychainCrypto
import Security

/// Seals a store's key file to this machine's hardware (a TPM 2.0, issue 33): the key file on
/// disk is then "KBK1", mode 2, and the hardware's blob of the key file that would otherwise be
/// there (mode 0, the key itself; or mode 1, the key under the passphrase). A copied directory is
/// useless on another machine, even without a passphrase; with one, both are needed.
package protocol KeyFileSealer: Sendable {
  /// `contents` sealed to the hardware (at most 128 bytes).
  func seal(_ contents: [UInt8]) throws(KeychainStoreError) -> [UInt8]
  /// What `seal` sealed; fails on another machine, or when the hardware cannot be reached.
  func unseal(_ blob: [UInt8]) throws(KeychainStoreError) -> [UInt8]
}

/// How a store's key file is sealed to hardware.
package struct KeyFileSealing: Sendable {
  /// The sealer of the machine's hardware, used to open a sealed key file (and to seal a new one).
  package let sealer: any KeyFileSealer
  /// Whether a store created now has its key file sealed.
  package let sealsNewStores: Bool

  package init(sealer: any KeyFileSealer, sealsNewStores: Bool) {
    self.sealer = sealer
    self.sealsNewStores = sealsNewStores
  }

  /// The mode byte of a sealed key file.
  static let sealedMode: UInt8 = 2

  /// Whether `contents` is a sealed key file.
  static func isSealed(_ contents: [UInt8]) -> Bool {
    contents.count > 5 && Array(contents[0..<4]) == KeyFile.magic && contents[4] == sealedMode
  }

  /// The key file `contents` stands for: itself, or for a sealed one what the hardware unseals
  /// (checked to be a key file of the two other modes).
  static func inner(_ contents: [UInt8], _ sealing: KeyFileSealing?, path: String) throws(KeychainStoreError)
    -> [UInt8]
  {
    guard isSealed(contents) else { return contents }
    guard let sealing else {
      throw KeychainStoreError(
        status: errSecNotAvailable,
        message: "The key file \(path) is sealed to a TPM, and this program was given no way to reach one.")
    }
    let inner = try sealing.sealer.unseal(Array(contents[5...]))
    guard inner.count >= 5, Array(inner[0..<4]) == KeyFile.magic, inner[4] == 0 || inner[4] == 1 else {
      throw KeychainStoreError(status: errSecDecode, message: "The key file \(path) unsealed to something else.")
    }
    return inner
  }

  /// The key file to write for a new store whose key file would be `contents`.
  func sealed(_ contents: [UInt8]) throws(KeychainStoreError) -> [UInt8] {
    KeyFile.magic + [Self.sealedMode] + (try sealer.seal(contents))
  }
}

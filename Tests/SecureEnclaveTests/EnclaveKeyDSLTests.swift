import Foundation
import Keychain
import KeychainTPM
import Security
import SoftwareTPM
import Testing

/// The typed API's Secure Enclave keys (issue 66): `PrivateKey.generate(.secureEnclaveP256)` makes
/// the key in the TPM, and the key builder's and item's `tokenID`, `isExtractable` and
/// `isSensitive` say what Apple's say of such a key.
@Suite(.serialized) struct EnclaveKeyDSL {
  @Test func anEnclaveKeyIsMadeInTheTPMAndItsItemSaysSo() throws {
    let machine = try SecureEnclaveKeys.Machine()
    try machine.run {
      let key = try PrivateKey.generate(.secureEnclaveP256).get()
      let message = Data("signed in the TPM".utf8)
      let signature = try key.signature(for: message, algorithm: .ecdsaSignatureMessageX962SHA256).get()
      #expect(throws: Never.self) {
        try key.publicKey!.isValidSignature(signature, for: message, algorithm: .ecdsaSignatureMessageX962SHA256).get()
      }
      let query = KeyQuery().label("enclave key").applicationTag(Data("dsl".utf8))
      try query.add(key).get()
      let stored = try #require(try KeyQuery().tokenID(.secureEnclave).isExtractable(false).item().get())
      #expect(stored.tokenID == .secureEnclave)
      #expect(stored.isExtractable == false)
      #expect(stored.isSensitive == true)
      #expect(stored.label == "enclave key")
    }
  }
}

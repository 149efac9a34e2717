import Foundation
import KeychainTPM
import Security
import SoftwareTPM
import Testing

/// A store whose key file is sealed to a TPM (issue 33): useless on another machine, even without
/// a passphrase; with one, both are needed.
@Suite struct StoresSealedToATPM {
  static func add(_ store: KeychainStore) -> OSStatus {
    withKeychainContext(store: store, accessGroups: ["sealed"]) {
      SecItemAdd(
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a",
          kSecValueData as String: Data("kept".utf8),
        ] as CFDictionary, nil)
    }
  }

  static func read(_ store: KeychainStore) -> String? {
    withKeychainContext(store: store, accessGroups: ["sealed"]) {
      var result: CFTypeRef?
      guard
        SecItemCopyMatching(
          [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a",
            kSecReturnData as String: true,
          ] as CFDictionary, &result) == errSecSuccess
      else { return nil }
      return (result as? Data).map { String(decoding: $0, as: UTF8.self) }
    }
  }

  @Test("The key file is the TPM's blob; the store opens again on its TPM and on no other")
  func opensOnItsTPMAlone() throws {
    let tpm = try SoftwareTPM()
    let other = try SoftwareTPM()
    defer {
      tpm.stop()
      other.stop()
    }
    let directory = tpm.state.appendingPathComponent("store")
    try TPMConnections.$chosenTCTI.withValue(tpm.tcti) {
      let store = try KeychainStore(directory: directory, sealedToTPM: true)
      #expect(Self.add(store) == errSecSuccess)
    }
    let keyFile = try Data(contentsOf: directory.appendingPathComponent("keychain.key"))
    #expect(keyFile.prefix(5) == Data("KBK1".utf8) + Data([2]))
    try TPMConnections.$chosenTCTI.withValue(tpm.tcti) { () throws in
      // Opened again on its TPM (the flag only matters for a new store).
      let reopened = try KeychainStore(directory: directory)
      #expect(Self.read(reopened) == "kept")
    }
    TPMConnections.$chosenTCTI.withValue(other.tcti) {
      #expect(throws: KeychainStoreError.self) { _ = try KeychainStore(directory: directory) }
      do throws(KeychainStoreError) {
        _ = try KeychainStore(directory: directory)
      } catch {
        #expect(error.status == errSecAuthFailed)
        #expect(error.message.contains("another machine"))
      }
    }
    // The TPM gone: the store cannot be opened, and nothing is lost.
    tpm.kill()
    TPMConnections.$chosenTCTI.withValue(tpm.tcti) {
      do throws(KeychainStoreError) {
        _ = try KeychainStore(directory: directory)
        Issue.record("opened without its TPM")
      } catch {
        #expect(error.status == errSecNotAvailable)
      }
    }
    try tpm.start()
    try TPMConnections.$chosenTCTI.withValue(tpm.tcti) { () throws in
      let reopened = try KeychainStore(directory: directory)
      #expect(Self.read(reopened) == "kept")
    }
  }

  @Test("With a passphrase, both the TPM and the passphrase are needed")
  func passphraseAndTPM() throws {
    let tpm = try SoftwareTPM()
    defer { tpm.stop() }
    let directory = tpm.state.appendingPathComponent("store")
    try TPMConnections.$chosenTCTI.withValue(tpm.tcti) {
      let store = try KeychainStore(directory: directory, passphrase: "both", sealedToTPM: true)
      #expect(store.hasPassphrase)
      #expect(Self.add(store) == errSecSuccess)
      #expect(throws: KeychainStoreError.self) { _ = try KeychainStore(directory: directory, passphrase: "wrong") }
      let sealed = try KeychainStore(directory: directory)
      #expect(sealed.isLocked && Self.read(sealed) == nil)
      #expect(sealed.unlock(passphrase: "both") == errSecSuccess)
      #expect(Self.read(sealed) == "kept")
    }
  }
}

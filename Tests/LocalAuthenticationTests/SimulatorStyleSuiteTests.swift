import Foundation
import LocalAuthentication
import Security
import Testing

/// A wrapper library in the style of Valet's SinglePromptSecureEnclaveValet, written for iOS: it
/// stores strings with `.userPresence` and reads them through one LAContext, so the user is asked
/// once. Its test suite below was written for the simulator, which does not prompt; here the
/// prompt is answered by a scripted askpass helper (Security's DocC article "Getting started with
/// askpass"), and the suite runs unchanged.
final class PresenceVault {
  let service: String
  private var context = LAContext()

  init(service: String) { self.service = service }

  private func query(_ key: String?) -> [String: Any] {
    var query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
      kSecUseAuthenticationContext as String: context,
    ]
    if let key { query[kSecAttrAccount as String] = key }
    return query
  }

  @discardableResult
  func set(string: String, forKey key: String) -> Bool {
    SecItemDelete(query(key) as CFDictionary)
    var add = query(key)
    add[kSecAttrAccessControl as String] = SecAccessControlCreateWithFlags(
      nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .userPresence, nil)
    add[kSecValueData as String] = Data(string.utf8)
    return SecItemAdd(add as CFDictionary, nil) == errSecSuccess
  }

  func string(forKey key: String, withPrompt prompt: String) -> String? {
    var read = query(key)
    read[kSecReturnData as String] = true
    read[kSecUseOperationPrompt as String] = prompt
    var result: CFTypeRef?
    guard SecItemCopyMatching(read as CFDictionary, &result) == errSecSuccess, let data = result as? Data else {
      return nil
    }
    return String(data: data, encoding: .utf8)
  }

  func containsObject(forKey key: String) -> Bool {
    var check = query(key)
    check[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUISkip
    check[kSecReturnAttributes as String] = true
    return SecItemCopyMatching(check as CFDictionary, nil) == errSecSuccess
  }

  func allKeys() -> Set<String> {
    var list = query(nil)
    list[kSecReturnAttributes as String] = true
    list[kSecMatchLimit as String] = kSecMatchLimitAll
    var result: CFTypeRef?
    guard SecItemCopyMatching(list as CFDictionary, &result) == errSecSuccess else { return [] }
    return Set((result as? [[String: Any]] ?? []).compactMap { $0[kSecAttrAccount as String] as? String })
  }

  @discardableResult
  func removeObject(forKey key: String) -> Bool { SecItemDelete(query(key) as CFDictionary) == errSecSuccess }

  /// Forgets the user's proof: the next read asks again.
  func requirePromptOnNextAccess() {
    context.invalidate()
    context = LAContext()
  }
}

@Suite struct SimulatorStyleSuite {
  @Test func setAndReadAString() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      let vault = PresenceVault(service: "suite.set")
      #expect(vault.set(string: "hunter2", forKey: "password"))
      #expect(vault.string(forKey: "password", withPrompt: "read it") == "hunter2")
      #expect(vault.containsObject(forKey: "password"))
    }
  }

  @Test func onePromptForManyReads() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      let vault = PresenceVault(service: "suite.single")
      vault.set(string: "a", forKey: "first")
      vault.set(string: "b", forKey: "second")
      #expect(vault.string(forKey: "first", withPrompt: "read") == "a")
      #expect(vault.string(forKey: "second", withPrompt: "read") == "b")
      #expect(vault.string(forKey: "first", withPrompt: "read") == "a")
      #expect(fixture.prompts.count == 1)
    }
  }

  @Test func requirePromptOnNextAccessAsksAgain() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      let vault = PresenceVault(service: "suite.again")
      vault.set(string: "x", forKey: "key")
      #expect(vault.string(forKey: "key", withPrompt: "read") == "x")
      vault.requirePromptOnNextAccess()
      #expect(vault.string(forKey: "key", withPrompt: "read") == "x")
      #expect(fixture.prompts.count == 2)
    }
  }

  @Test func overwriteAndRemove() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      let vault = PresenceVault(service: "suite.remove")
      vault.set(string: "old", forKey: "key")
      vault.set(string: "new", forKey: "key")
      #expect(vault.string(forKey: "key", withPrompt: "read") == "new")
      #expect(vault.removeObject(forKey: "key"))
      #expect(!vault.containsObject(forKey: "key"))
      #expect(vault.string(forKey: "key", withPrompt: "read") == nil)
    }
  }

  @Test func allKeysNeedNoPrompt() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      let vault = PresenceVault(service: "suite.keys")
      vault.set(string: "1", forKey: "one")
      vault.set(string: "2", forKey: "two")
      #expect(vault.allKeys() == ["one", "two"])
      #expect(fixture.prompts.isEmpty)
    }
  }
}

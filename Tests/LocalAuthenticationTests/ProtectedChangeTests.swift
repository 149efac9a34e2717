import AgentProcess
import Foundation
import LocalAuthentication
import Testing

@testable import Security

/// Issue 49, case 1: an item that asks for the user keeps asking. Changing its secret or its
/// access control needs the same proof as reading it, in the engine (embedded and agent mode
/// alike) and in the agent (a client that skips the engine); otherwise one SecItemUpdate would
/// strip the protection and the next read take the secret without the user.
@Suite struct ProtectedChanges {
  /// An access control with no constraint, as an attacker would set.
  static var open: SecAccessControl { SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], nil)! }

  /// A context that may not prompt: the read an attacker makes after stripping the protection.
  static func quietRead() -> (OSStatus, String?) {
    let context = LAContext()
    context.interactionNotAllowed = true
    return readToken("token", [kSecUseAuthenticationContext as String: context])
  }

  @Test("A cancelled prompt refuses the change of a protected item's access control or data, and it stays protected")
  func aCancelledPromptRefusesTheChange() throws {
    let fixture = try AuthenticationFixture(user: .cancels)
    fixture.run {
      #expect(addToken() == errSecSuccess)
      #expect(
        SecItemUpdate(tokenQuery() as CFDictionary, [kSecAttrAccessControl as String: Self.open] as CFDictionary)
          == errSecUserCanceled)
      #expect(
        SecItemUpdate(tokenQuery() as CFDictionary, [kSecValueData as String: Data("replaced".utf8)] as CFDictionary)
          == errSecUserCanceled)
      #expect(fixture.prompts.count == 2)
      #expect(Self.quietRead() == (errSecInteractionNotAllowed, nil))
      // The upsert behind the typed API's `set` asks the same.
      #expect(
        SecItemUpsert(
          tokenQuery() as CFDictionary,
          [kSecAttrAccessControl as String: Self.open, kSecValueData as String: Data("x".utf8)] as CFDictionary)
          == errSecUserCanceled)
      #expect(Self.quietRead() == (errSecInteractionNotAllowed, nil))
    }
  }

  @Test("A call that may not prompt cannot change a protected item's access control; attributes need no proof")
  func aQuietCallCannotChangeTheAccessControl() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      #expect(addToken() == errSecSuccess)
      let quiet = LAContext()
      quiet.interactionNotAllowed = true
      let quietQuery = tokenQuery("token", [kSecUseAuthenticationContext as String: quiet])
      #expect(
        SecItemUpdate(quietQuery as CFDictionary, [kSecAttrAccessControl as String: Self.open] as CFDictionary)
          == errSecInteractionNotAllowed)
      let failing = tokenQuery("token", [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail])
      #expect(
        SecItemUpdate(failing as CFDictionary, [kSecAttrAccessControl as String: Self.open] as CFDictionary)
          == errSecInteractionNotAllowed)
      let skipping = tokenQuery("token", [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip])
      #expect(
        SecItemUpdate(skipping as CFDictionary, [kSecAttrAccessControl as String: Self.open] as CFDictionary)
          == errSecInteractionNotAllowed)
      // A label is no secret: it changes without the user, as on Apple's keychain.
      #expect(
        SecItemUpdate(quietQuery as CFDictionary, [kSecAttrLabel as String: "renamed"] as CFDictionary)
          == errSecSuccess)
      #expect(fixture.prompts.isEmpty)
      #expect(Self.quietRead() == (errSecInteractionNotAllowed, nil))
    }
  }

  @Test("The user who proves their presence may change the access control, once per call or through a context")
  func theUserMayChangeIt() throws {
    let fixture = try AuthenticationFixture()
    fixture.run {
      #expect(addToken() == errSecSuccess)
      #expect(addToken("second") == errSecSuccess)
      let context = LAContext()
      #expect(evaluate(context) == nil)
      let proven = tokenQuery("second", [kSecUseAuthenticationContext as String: context])
      #expect(
        SecItemUpdate(proven as CFDictionary, [kSecValueData as String: Data("new second".utf8)] as CFDictionary)
          == errSecSuccess)
      #expect(fixture.prompts.count == 1)
      #expect(
        SecItemUpdate(tokenQuery() as CFDictionary, [kSecAttrAccessControl as String: Self.open] as CFDictionary)
          == errSecSuccess)
      #expect(fixture.prompts.count == 2)
      // Stripped by the user: now it reads without them.
      #expect(Self.quietRead() == (errSecSuccess, "secret-token"))
    }
  }

  @Test(
    "Through the agent: a cancelled prompt refuses SecItemUpdate, and a hand-written request is asked for as well"
  )
  func theAgentRefusesAReplacementWithoutTheUser() throws {
    let folder = try ProtectedTokenProgram.Folder()
    let agent = try RunningAgent(
      passphrase: AgentAuthentication.passphrase, environment: ["KEYCHAIN_BRIDGE_ASKPASS": try folder.helper(.cancels)])
    defer { agent.stop() }
    let store = try KeychainStore.agentStore(socketPath: agent.socketPath)
    try withKeychainContext(store: store, accessGroups: ["la-tests"]) { () throws in
      #expect(addToken() == errSecSuccess)
      #expect(
        SecItemUpdate(tokenQuery() as CFDictionary, [kSecAttrAccessControl as String: Self.open] as CFDictionary)
          == errSecUserCanceled)
      #expect(folder.prompts.count == 1)
      // A hand-written client: the same change and a planted secret, sent as requests with no
      // engine of its own in the way. The agent's engine asks the user for each, as for the call.
      guard case .agent(let link) = store.holder else {
        Issue.record("the store is not the agent's")
        return
      }
      let requests = link.service(accessGroups: ["la-tests"])
      #expect(throws: SecStatus(errSecUserCanceled)) {
        try requests.update(
          try ItemRequest.reading(tokenQuery() as NSDictionary),
          changes: [(kSecAttrAccessControl as String, .object(Self.open))])
      }
      #expect(throws: SecStatus(errSecUserCanceled)) {
        try requests.update(
          try ItemRequest.reading(tokenQuery() as NSDictionary),
          changes: [(kSecValueData as String, .data(Data("planted".utf8)))])
      }
      #expect(folder.prompts.count == 3)
      // Still withheld from the rows a replicator reads, and still asking.
      var filter = ItemFilter(itemClass: .genericPassword)
      filter.accessGroups = ["la-tests"]
      let found = try link.replica.find(filter, limit: nil, fetch: ItemFetch(attributes: false, data: true))
      #expect(found.map(\.data) == [nil])
      #expect(Self.quietRead() == (errSecInteractionNotAllowed, nil))
    }
  }
}

import AgentProcess
import Foundation
import LocalAuthentication
import Security
import Testing

/// In agent mode the agent asks the user and holds back what a connection's user has not proven.
@Suite(.serialized) struct AgentAuthentication {
  static let passphrase = "correct horse battery staple"

  @Test("The agent withholds a protected secret from a connection until its user proves presence to the agent")
  func theAgentWithholdsUntilTheUserProves() throws {
    let folder = try ProtectedTokenProgram.Folder()
    let agent = try RunningAgent(
      passphrase: Self.passphrase,
      environment: ["KEYCHAIN_BRIDGE_ASKPASS": try folder.helper(.answers("wrong"))])
    defer { agent.stop() }
    let store = try KeychainStore.agentStore(socketPath: agent.socketPath)
    try withKeychainContext(store: store, accessGroups: ["la-tests"]) { () throws in
      #expect(addToken() == errSecSuccess)
      // What the rows a replicator reads hold: the item, not its secret.
      guard case .agent(let link) = store.holder else {
        Issue.record("the store is not the agent's")
        return
      }
      var filter = ItemFilter(itemClass: .genericPassword)
      filter.accessGroups = ["la-tests"]
      let fetch = ItemFetch(attributes: false, data: true)
      let withheld = try link.replica.find(filter, limit: nil, fetch: fetch)
      #expect(withheld.map(\.data) == [nil])
      // A wrong answer at the agent's prompt: Apple's errors, still no secret.
      #expect(readToken() == (errSecAuthFailed, nil))
      #expect(evaluate(LAContext())?.code == .authenticationFailed)
      let stillWithheld = try link.replica.find(filter, limit: nil, fetch: fetch)
      #expect(stillWithheld.map(\.data) == [nil])
      #expect(folder.prompts.count == 2)
    }
    // The agent's own helper now answers right: the read that prompts gets the secret.
    agent.stop()
    let rightAgent = try RunningAgent(
      passphrase: Self.passphrase,
      environment: ["KEYCHAIN_BRIDGE_ASKPASS": try folder.helper(.answers(Self.passphrase))])
    defer { rightAgent.stop() }
    let rightStore = try KeychainStore.agentStore(socketPath: rightAgent.socketPath)
    try withKeychainContext(store: rightStore, accessGroups: ["la-tests"]) { () throws in
      #expect(addToken() == errSecSuccess)
      #expect(readToken() == (errSecSuccess, "secret-token"))
      var filter = ItemFilter(itemClass: .genericPassword)
      filter.accessGroups = ["la-tests"]
      guard case .agent(let link) = rightStore.holder else {
        Issue.record("the store is not the agent's")
        return
      }
      let found = try link.replica.find(filter, limit: nil, fetch: ItemFetch(attributes: false, data: true))
      #expect(found.map(\.data) == [Data("secret-token".utf8)])
    }
    #expect(folder.prompts.count == 3)
  }

  @Test("A proof given to an agent that restarted is asked for again; a reuse window is per program")
  func proofsAreTheConnections() throws {
    let folder = try ProtectedTokenProgram.Folder()
    let agent = try RunningAgent(
      passphrase: Self.passphrase,
      environment: ["KEYCHAIN_BRIDGE_ASKPASS": try folder.helper(.answers(Self.passphrase))])
    defer { agent.stop() }
    let first = try KeychainStore.agentStore(socketPath: agent.socketPath)
    let context = LAContext()
    try withKeychainContext(store: first, accessGroups: ["la-tests"]) { () throws in
      #expect(addToken() == errSecSuccess)
      #expect(evaluate(context) == nil)
      #expect(readToken("token", [kSecUseAuthenticationContext as String: context]) == (errSecSuccess, "secret-token"))
    }
    #expect(folder.prompts.count == 1)
    // Another program (another connection) whose context accepts a recent proof is asked all the
    // same: the proof was given to the first one, and the prompt must name this one.
    let second = try KeychainStore.agentStore(socketPath: agent.socketPath)
    withKeychainContext(store: second, accessGroups: ["la-tests"]) {
      let reusing = LAContext()
      reusing.touchIDAuthenticationAllowableReuseDuration = 60
      #expect(evaluate(reusing) == nil)
      #expect(evaluate(reusing) == nil)  // this connection's own proof is recent: no prompt
    }
    #expect(folder.prompts.count == 2)
    // The agent restarts: the first connection's proof is gone with it, so the context's next
    // read makes the agent ask again, or fails where the call may not prompt.
    agent.terminate()
    try agent.start()
    withKeychainContext(store: first, accessGroups: ["la-tests"]) {
      let quiet =
        [
          kSecUseAuthenticationContext as String: context,
          kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
        ] as [String: Any]
      #expect(readToken("token", quiet) == (errSecInteractionNotAllowed, nil))
      #expect(readToken("token", [kSecUseAuthenticationContext as String: context]) == (errSecSuccess, "secret-token"))
    }
    #expect(folder.prompts.count == 3)
  }
}

/// Application passwords through the agent (issue 64): the LAContext's credential crosses with the
/// request, the agent's engine seals and opens the secret, and without one the agent asks through
/// its own prompt, naming the program.
@Suite(.serialized) struct AgentApplicationPasswords {
  @Test("The context's password seals and opens the secret in the agent; a wrong one cannot")
  func theCredentialCrossesWithTheRequest() throws {
    let folder = try ProtectedTokenProgram.Folder()
    let agent = try RunningAgent(environment: ["KEYCHAIN_BRIDGE_ASKPASS": try folder.helper(.answers("app pw"))])
    defer { agent.stop() }
    let store = try KeychainStore.agentStore(socketPath: agent.socketPath)
    try withKeychainContext(store: store, accessGroups: ["la-tests"]) { () throws in
      let adding = LAContext()
      #expect(adding.setCredential(Data("app pw".utf8), type: .applicationPassword))
      #expect(
        addToken("sealed", .applicationPassword, [kSecUseAuthenticationContext as String: adding]) == errSecSuccess)
      // What the agent stores is sealed: a replicator's read of the row has no plaintext.
      guard case .agent(let link) = store.holder else {
        Issue.record("the store is not the agent's")
        return
      }
      var filter = ItemFilter(itemClass: .genericPassword)
      filter.accessGroups = ["la-tests"]
      let sealed = try #require(
        try link.replica.find(filter, limit: nil, fetch: ItemFetch(attributes: false, data: true)).first?.data)
      #expect(sealed.prefix(4) == Data("KBAP".utf8))
      expectOnlyItsPasswordOpens("sealed", password: "app pw")
      #expect(folder.prompts.isEmpty)
      // Without a credential the agent asks through its prompt, which names this program.
      #expect(readToken("sealed") == (errSecSuccess, "secret-sealed"))
      #expect(folder.prompts.count == 1)
      #expect(folder.prompts.last?.contains("application password") == true, "\(folder.prompts)")
    }
  }
}

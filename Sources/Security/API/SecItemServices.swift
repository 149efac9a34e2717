import Foundation

// Where Apple's functions, the DSL's entry points and the tool get their service: the one place
// a call's default context is built from the environment, the task-local context and the linked
// backend. Everything past it receives that context as a value.

/// The services of this process's CF functions.
package enum SecItemServices {
  /// The service of this process's CF functions: the store and groups `withKeychainContext` names,
  /// else the default store (opened once, from the environment) and the process's groups, narrowed
  /// to what an agent grants. errSecMissingEntitlement when no group is left (rule 11).
  package static func forCurrentCall() throws(SecStatus) -> any SecItemService {
    let current = KeychainContext.current
    let store = try current.resolvedStore()
    var groups = current.resolvedAccessGroups
    switch store.holder {
    case .process(let storage):
      guard !groups.isEmpty else { throw SecStatus.missingEntitlement }  // rule 11
      return SecItemEngine(
        storage: storage, accessGroups: groups, authenticator: store.authenticator,
        backend: try current.resolvedBackend(for: store))
    case .agent(let agent):
      if let granted = agent.grantedAccessGroups {
        groups = KeychainAccessGroups.narrowed(
          groups, to: granted, callerChose: current.accessGroups != nil || KeychainAccessGroups.isConfigured)
      }
      guard !groups.isEmpty else { throw SecStatus.missingEntitlement }  // rule 11
      return agent.service(accessGroups: groups)
    }
  }
}

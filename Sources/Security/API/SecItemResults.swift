import Foundation

// The CF edge of the SecItem calls: running one call of Apple's functions on the current call's
// service, and shaping the typed results the engine answers into the dictionaries, arrays and
// refs Apple's API hands out. The engine itself answers only typed values (SecItemService).

extension SecItemCall {
  /// Runs one call of this process's CF functions on their service (`SecItemServices.forCurrentCall`):
  /// every failure becomes its status, and nothing escapes as a crash. The call is recorded when a
  /// recorder is installed (withSecItemCallRecording).
  static func run(
    _ function: SecItemFunction, _ dictionary: @autoclosure () -> NSDictionary,
    _ changes: @autoclosure () -> NSDictionary? = nil, _ body: (any SecItemService) throws(SecStatus) -> Void
  ) -> OSStatus {
    let status: OSStatus
    SecItemFailureDetail.clear()
    do throws(SecStatus) {
      let service = try SecItemServices.forCurrentCall()
      do throws(SecStatus) {
        try body(service)
      } catch  where error.code == errSecInteractionNotAllowed {
        // A store this process holds, found locked: ask to unlock it, as macOS asks for a locked
        // keychain's password and as keychaind asks for its store, then run the call once more.
        guard unlockedByAsking(dictionary()) else { throw error }
        try body(service)
      }
      status = errSecSuccess
    } catch {
      status = error.code
      SecItemFailureDetail.record(error)
    }
    SecItemCallRecorder.record(function, dictionary, changes, status)
    return status
  }

  /// Whether the call's store, which this process holds and found locked, was unlocked by asking
  /// the user for its passphrase (its authenticator's prompt: the askpass helper or the terminal).
  /// Nothing is asked when the call may not prompt (kSecUseAuthenticationUI fail or skip, an
  /// LAContext with interactionNotAllowed), the store has no passphrase, or no prompt can be shown.
  private static func unlockedByAsking(_ dictionary: NSDictionary) -> Bool {
    guard let store = try? KeychainContext.current.resolvedStore(), case .process = store.holder, store.isLocked,
      store.authenticator.hasPassphrase
    else { return false }
    if let interaction = dictionary[SecConstantValue.useAuthenticationUI] as? String,
      interaction == SecConstantValue.useAuthenticationUIFail || interaction == SecConstantValue.useAuthenticationUISkip
    {
      return false
    }
    if let carrier = dictionary[SecConstantValue.useAuthenticationContext] as? any AuthenticationContextCarrier,
      carrier.authenticationSession.interactionNotAllowed
    {
      return false
    }
    do throws(UserAuthenticationFailure) {
      // No reason: a prompt quotes a reason as the program's own words, and these would be ours.
      try store.authenticator.authenticateUser(reason: "", caller: ProcessInfo.processInfo.processName, reuse: 0)
    } catch {
      return false
    }
    return !store.isLocked
  }

  /// SecItemCopyMatching's result for `items` (what `matchingItems` found for `request`): what the
  /// return keys ask for, as the Foundation objects bridged to Apple's result next, or nil when they
  /// ask for nothing to be written; refs are made by `backend`.
  static func shaped(_ items: [StoredItem], _ request: ItemRequest, backend: any SecurityBackend) -> Any? {
    let flags = request.returnFlags
    if (request.limit ?? .one).isOne {
      return items.first.flatMap { ResultShape.value($0, flags, forAdd: false, backend: backend) }
    }
    return items.compactMap { ResultShape.value($0, flags, forAdd: false, backend: backend) }
  }

  /// SecItemCopyMatching's result for the identities `matchingIdentities` found for `query`: the
  /// shape its return keys ask for, or nil when they ask for nothing.
  static func shapedIdentities(_ pairs: [IdentityPair], _ query: NSDictionary, backend: any SecurityBackend)
    throws(SecStatus) -> CFTypeRef?
  {
    let returns = try IdentityItems.certificateRequest(query)
    if (returns.limit ?? .one).isOne {
      guard !returns.returnFlags.isEmpty, let first = pairs.first else { return nil }
      return IdentityItems.shaped(first, returns.returnFlags, backend: backend)
    }
    return
      (returns.returnFlags.isEmpty
      ? [] : pairs.compactMap { IdentityItems.shaped($0, returns.returnFlags, backend: backend) }) as NSArray
  }
}

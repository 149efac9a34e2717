import Foundation

/// The user-authentication step of one SecItem call (keys rule 10.4, rules 1.11, 1.12 and 6.7).
///
/// A search that reads secrets (data, or a ref that carries them) checks each found item's access
/// control. What it asks is met by the call's `LAContext` (kSecUseAuthenticationContext) when the
/// user proved their presence through it, else by a prompt: allowed unless the call says
/// kSecUseAuthenticationUIFail (or the context forbids interaction), which then answers
/// errSecInteractionNotAllowed, or kSecUseAuthenticationUISkip, which leaves the item out. A prompt
/// a call shows answers for all of its items, and an unevaluated context it was shown for counts
/// as evaluated after (as Apple's does). Attributes and persistent references need no proof.
struct ItemAuthentication {
  /// What the call allows when an item needs the user.
  enum Interaction {
    case allowed
    case fail
    case skip
  }

  let engine: SecItemEngine
  let session: AuthenticationSession?
  let interaction: Interaction
  /// kSecUseOperationPrompt: why the call asks, shown in the prompt.
  let reason: String
  /// Proofs this call obtained by prompting.
  private(set) var provenByPrompt: Set<UserProof> = []
  /// The application password the user typed at this call's prompt.
  private var typedApplicationPassword: [UInt8]?

  init(_ request: ItemRequest, engine: SecItemEngine) throws(SecStatus) {
    self.engine = engine
    session = try Self.session(in: request)
    switch request.useKeys[SecConstantValue.useAuthenticationUI]?.string {
    case SecConstantValue.useAuthenticationUISkip?: interaction = .skip
    case SecConstantValue.useAuthenticationUIFail?: interaction = .fail
    default: interaction = .allowed
    }
    reason = request.useKeys[SecConstantValue.useOperationPrompt]?.string ?? ""
  }

  /// The call's context: kSecUseAuthenticationContext must be an LAContext (rule 1.12 is checked
  /// when the request is read).
  static func session(in request: ItemRequest) throws(SecStatus) -> AuthenticationSession? {
    guard let value = request.useKeys[SecConstantValue.useAuthenticationContext] else { return nil }
    guard let carrier = value.object as? any AuthenticationContextCarrier else {
      throw SecStatus.param.naming(
        SecConstantValue.useAuthenticationContext, "must be an LAContext, not \(value.typeDescription)")
    }
    return carrier.authenticationSession
  }

  /// Whether a search with these return flags reads a secret: the data, or a ref (a key's ref is
  /// its key material, a certificate's is made from its data, an identity's holds its private
  /// key; password items have no ref, so for them kSecReturnRef reads nothing).
  static func readsSecrets(_ flags: ReturnFlags, of itemClass: ItemClass?) -> Bool {
    if flags.contains(.data) { return true }
    guard flags.contains(.ref) else { return false }
    switch itemClass {
    case .genericPassword?, .internetPassword?: return false
    default: return true
    }
  }

  /// Whether the search must read every match before limiting: skipped items must not use up
  /// the limit.
  var skipsItems: Bool { interaction == .skip }

  /// Whether reading the item's secret asks anything of the user.
  static func needsAuthentication(_ item: StoredItem) -> Bool { AccessRequirement(item.accessControl) != nil }

  /// The items the call may hand out, in order (at most `limit`), their application-password
  /// secrets opened; throws the status the first refused item gives.
  mutating func admit(_ items: [StoredItem], limit: Int?) throws(SecStatus) -> [StoredItem] {
    guard items.contains(where: Self.needsAuthentication) else { return items }
    var admitted: [StoredItem] = []
    for var item in items {
      if let limit, admitted.count >= limit { break }
      guard let requirement = AccessRequirement(item.accessControl) else {
        admitted.append(item)
        continue
      }
      guard try satisfy(requirement) else { continue }
      if requirement.applicationPassword, let sealed = item.data {
        item.data = try openSecret(sealed)
      }
      admitted.append(item)
    }
    return admitted
  }

  /// Whether `change` reaches an item's secret or what protects it: new data or a new access
  /// control. A new protection class alone does not: the access control keeps its constraints
  /// (rule 12), so the secret still needs the user.
  static func reachesSecret(_ change: ItemChange) -> Bool {
    change.data != nil || change.accessControl != nil
  }

  /// Proves what each of `matches` asks of the user before `change` may replace its secret or its
  /// access control, as reading the secret would: by the call's LAContext or a prompt, or
  /// errSecInteractionNotAllowed where the call allows neither (kSecUseAuthenticationUISkip too:
  /// an update cannot leave some of its matches out). Without this one SecItemUpdate would strip
  /// an item's protection and the next read take its secret without the user; on Apple's
  /// keychain re-sealing a protected item needs the item's own authentication too. The
  /// application password is not asked: a change that adds or removes it must carry new data
  /// (`sealingChange`), so the old secret is never opened for it.
  mutating func authorizeChange(_ change: ItemChange, of matches: [StoredItem]) throws(SecStatus) {
    guard Self.reachesSecret(change) else { return }
    for item in matches {
      guard let requirement = AccessRequirement(item.accessControl), !requirement.proofs.isEmpty else { continue }
      guard try satisfy(requirement, askingApplicationPassword: false) else {
        throw SecStatus.interactionNotAllowed.naming(
          SecConstantValue.useAuthenticationUI,
          "is kSecUseAuthenticationUISkip, and changing the secret or access control of an item that asks for the user needs the user"
        )
      }
    }
  }

  /// Proves what `requirement` asks, prompting where allowed; false when the call skips the item.
  /// The application password is asked too unless `askingApplicationPassword` is false.
  private mutating func satisfy(_ requirement: AccessRequirement, askingApplicationPassword: Bool = true)
    throws(SecStatus) -> Bool
  {
    if session?.isInvalidated == true { throw UserAuthenticationFailure.invalidContext.status }
    var proven = provenByPrompt
    if session?.hasProvenPresence == true { proven.insert(.passcode) }
    let missing = requirement.missing(given: proven)
    let needsPassword =
      askingApplicationPassword && requirement.applicationPassword && session?.applicationPassword == nil
      && typedApplicationPassword == nil
    guard !missing.isEmpty || needsPassword else { return true }
    switch interaction {
    case .skip: return false
    case .fail:
      throw SecStatus.interactionNotAllowed.naming(
        SecConstantValue.useAuthenticationUI, "is kSecUseAuthenticationUIFail and the item needs the user")
    case .allowed:
      if session?.interactionNotAllowed == true {
        throw SecStatus.interactionNotAllowed.naming(
          SecConstantValue.useAuthenticationContext, "does not allow interaction and the item needs the user")
      }
    }
    for proof in missing {
      switch proof {
      case .passcode:
        do {
          try engine.authenticator.authenticateUser(reason: reason, caller: engine.programName, reuse: 0)
        } catch {
          throw error.status
        }
        provenByPrompt.insert(.passcode)
        session?.recordProof()
      case .biometry: throw UserAuthenticationFailure.biometryNotAvailable.status
      case .companion:
        throw SecStatus.interactionNotAllowed.naming(
          SecConstantValue.attrAccessControl, "asks for a companion device, which Linux does not have")
      }
    }
    if needsPassword {
      typedApplicationPassword = try Self.askApplicationPassword(engine, reason: reason, adding: false)
    }
    return true
  }

  /// The password the secret is sealed under: the context's credential, or what this call's
  /// prompt got.
  private var applicationPassword: [UInt8]? { session?.applicationPassword ?? typedApplicationPassword }

  private func openSecret(_ sealed: Data) throws(SecStatus) -> Data {
    guard let password = applicationPassword else { throw .interactionNotAllowed }
    return try engine.backend.openWithApplicationPassword(sealed, password: password)
  }

  /// Asks the user for an item's application password (the store's authenticator's prompt).
  static func askApplicationPassword(_ engine: SecItemEngine, reason: String, adding: Bool) throws(SecStatus)
    -> [UInt8]
  {
    let words = PassphraseAuthenticator.programWords(reason)
    let why = words.isEmpty ? "" : " (it says: \u{201C}\(words)\u{201D})"
    let text =
      adding
      ? "\(engine.programName) is adding a keychain item protected by an application password\(why). Choose its password:"
      : "\(engine.programName) wants to read a keychain item protected by an application password\(why). Its password:"
    do {
      return try engine.authenticator.askApplicationPassword(text)
    } catch {
      throw error.status
    }
  }

  /// The item's secret sealed under its application password, for an add or an update whose
  /// access control has .applicationPassword: the context's credential, else a prompt where the
  /// call allows one.
  static func sealForApplicationPassword(_ secret: Data, _ request: ItemRequest, _ engine: SecItemEngine)
    throws(SecStatus) -> Data
  {
    let session = try Self.session(in: request)
    if session?.isInvalidated == true { throw UserAuthenticationFailure.invalidContext.status }
    var password: [UInt8]
    if let given = session?.applicationPassword {
      password = given
    } else {
      let failing =
        request.useKeys[SecConstantValue.useAuthenticationUI]?.string == SecConstantValue.useAuthenticationUIFail
      guard !failing, session?.interactionNotAllowed != true else {
        throw SecStatus.interactionNotAllowed.naming(
          SecConstantValue.attrAccessControl,
          "asks for an application password: give it with LAContext.setCredential(_:type:)")
      }
      let reason = request.useKeys[SecConstantValue.useOperationPrompt]?.string ?? ""
      password = try askApplicationPassword(engine, reason: reason, adding: true)
    }
    defer { Secrets.wipe(&password) }
    return try engine.backend.sealWithApplicationPassword(secret, password: password)
  }

  /// An update's change with its new data sealed where the items it updates (`matches`, as the
  /// update read them, access control included) are or become protected by an application
  /// password; `sealed` keeps the sealed data of an earlier attempt of the same update, so a
  /// retried update neither asks nor seals twice. errSecParam when the change would leave a secret
  /// sealed under a password its access control no longer names (or plain under one that does),
  /// or when the matches differ in this.
  static func sealingChange(
    _ change: ItemChange, for matches: [StoredItem], _ request: ItemRequest, _ engine: SecItemEngine,
    sealed: inout Data?
  ) throws(SecStatus) -> ItemChange {
    func isSealed(_ control: SecAccessControl?) -> Bool { control?.flags.contains(.applicationPassword) ?? false }
    let now = matches.map { isSealed($0.accessControl) }
    let after = matches.map { change.accessControl.map(isSealed) ?? isSealed($0.accessControl) }
    guard now.contains(true) || after.contains(true) else { return change }
    guard let secret = change.data else {
      guard now == after else {
        throw SecStatus.param.naming(
          SecConstantValue.attrAccessControl,
          "adds or removes an application password: give the item's data (kSecValueData) with it")
      }
      return change
    }
    guard Set(after).count == 1 else {
      throw SecStatus.param.naming(
        SecConstantValue.valueData,
        "would be sealed under an application password for some of the items and not others: update them apart")
    }
    guard after[0] else { return change }
    if sealed == nil { sealed = try sealForApplicationPassword(secret, request, engine) }
    var sealedChange = change
    sealedChange.data = sealed
    return sealedChange
  }
}

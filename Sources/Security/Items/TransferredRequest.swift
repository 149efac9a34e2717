import Foundation

// What a SecItem request becomes to cross to the agent, and what the agent makes of it again. A
// request is its caller's entries, the same ones the engine's grammar reads here; the objects among
// them (refs, an access control, an LAContext) are made bytes and flags by their owners in this
// module, and objects again in the agent by the same code that makes them from items. The agent
// reads the entries by rule 1's grammar itself: a client's bytes are requests, never rows.

/// One value of a request, as it crosses to the agent.
package indirect enum TransferredValue {
  /// Text, bytes, a number, a date or null: as the caller gave it.
  case plain(RequestValue)
  /// A SecKey: its type, class and external representation (a token key's blob).
  case key(TransferredKey)
  /// A SecCertificate: its DER.
  case certificate(Data)
  /// A SecIdentity: its certificate's DER and its private key.
  case identity(certificate: Data, key: TransferredKey)
  /// A SecAccessControl.
  case accessControl(SecAccessControl)
  /// An LAContext, by what the engine reads of it.
  case context(TransferredContext)
  /// An array of values (kSecMatchIssuers).
  case array([TransferredValue])
  /// Any other object, by its type's description: the agent's grammar refuses it as this process's
  /// would, naming that type.
  case unsupported(String)

  /// `value` as it crosses.
  package init(_ value: RequestValue) throws(SecStatus) {
    guard case .object(let object) = value else {
      self = .plain(value)
      return
    }
    switch object {
    case let key as SecKey: self = .key(try TransferredKey(key))
    case let certificate as SecCertificate: self = .certificate(certificate.derBytes)
    case let identity as SecIdentity:
      self = .identity(certificate: identity.certificate.derBytes, key: try TransferredKey(identity.privateKey))
    case let control as SecAccessControl: self = .accessControl(control)
    case let carrier as any AuthenticationContextCarrier:
      self = .context(TransferredContext(carrier.authenticationSession))
    case let array as NSArray:
      var elements: [TransferredValue] = []
      for element in array { elements.append(try TransferredValue(RequestValue(element))) }
      self = .array(elements)
    default: self = .unsupported(describeType(object))
    }
  }

  /// The value as the agent's grammar reads it, its objects made with `backend`; every context met
  /// is added to `contexts`, in order. errSecDecode for a key or certificate that makes none.
  package func received(backend: any SecurityBackend, contexts: inout [RelayedAuthenticationContext])
    throws(SecStatus) -> RequestValue
  {
    switch self {
    case .plain(let value): return value
    case .key(let key): return .object(try key.received(backend: backend))
    case .certificate(let der):
      guard let certificate = SecCertificate.parse(der, with: backend) else {
        throw SecStatus(errSecDecode, detail: "a certificate in the request does not parse")
      }
      return .object(certificate)
    case .identity(let der, let key):
      guard let certificate = SecCertificate.parse(der, with: backend),
        let identity = SecIdentityCreate(nil, certificate, try key.received(backend: backend))
      else { throw SecStatus(errSecDecode, detail: "an identity in the request does not make one") }
      return .object(identity)
    case .accessControl(let control): return .object(control)
    case .context(let transferred):
      let relayed = RelayedAuthenticationContext(transferred)
      contexts.append(relayed)
      return .object(relayed)
    case .array(let elements):
      let array = NSMutableArray()
      for element in elements {
        array.add(try element.received(backend: backend, contexts: &contexts).foundationObject)
      }
      return .object(array)
    case .unsupported(let description): return .object(UnsupportedRequestObject(typeDescription: description))
    }
  }
}

/// A SecKey as it crosses: what `KeyItems` stores of a key and makes a key from again.
package struct TransferredKey {
  /// kSecAttrKeyType's value ("73", "42").
  package var typeCode: String
  /// Whether it is a private key.
  package var isPrivate: Bool
  /// The token that holds it (a Secure Enclave key's), or nil for a software key.
  package var tokenID: String?
  /// Its external representation, or its token's blob.
  package var bytes: Data

  /// The key's form.
  package init(typeCode: String, isPrivate: Bool, tokenID: String?, bytes: Data) {
    self.typeCode = typeCode
    self.isPrivate = isPrivate
    self.tokenID = tokenID
    self.bytes = bytes
  }

  init(_ key: SecKey) throws(SecStatus) {
    typeCode = key.keyType == .ec ? "73" : "42"
    isPrivate = key.isPrivate
    tokenID = (key.material as? any TokenEngineKey)?.tokenID
    bytes = try KeyItems.data(of: key)
  }

  /// The key again, made by `backend` as a stored key item's ref is; errSecDecode when the bytes
  /// make none.
  func received(backend: any SecurityBackend) throws(SecStatus) -> SecKey {
    guard
      let key = KeyItems.key(
        typeCode: typeCode, isPrivate: isPrivate, tokenID: tokenID, data: bytes, backend: backend)
    else { throw SecStatus(errSecDecode, detail: "a key in the request does not make one") }
    return key
  }
}

/// What the engine reads of an LAContext, as it crosses: whether the user proved their presence
/// through it, whether it was invalidated or may not prompt, and its application password.
package struct TransferredContext {
  /// Whether the caller's context says the user proved their presence through it. The agent
  /// believes it only where the user proved it to the agent for this caller.
  package var claimsProof: Bool
  /// Whether the context was invalidated.
  package var isInvalidated: Bool
  /// `LAContext.interactionNotAllowed`.
  package var interactionNotAllowed: Bool
  /// The context's application password (`setCredential`), or nil.
  package var applicationPassword: [UInt8]?

  /// The form's fields.
  package init(claimsProof: Bool, isInvalidated: Bool, interactionNotAllowed: Bool, applicationPassword: [UInt8]?) {
    self.claimsProof = claimsProof
    self.isInvalidated = isInvalidated
    self.interactionNotAllowed = interactionNotAllowed
    self.applicationPassword = applicationPassword
  }

  init(_ session: AuthenticationSession) {
    claimsProof = session.hasProvenPresence
    isInvalidated = session.isInvalidated
    interactionNotAllowed = session.interactionNotAllowed
    applicationPassword = session.applicationPassword
  }
}

/// An LAContext as the agent's engine sees a caller's: the state its client sent, and whether a
/// prompt of this call proved the user through it (the client then records the proof in its own).
package final class RelayedAuthenticationContext: AuthenticationContextCarrier {
  package let authenticationSession = AuthenticationSession()
  /// Whether the client's context claimed a proof.
  package let claimsProof: Bool

  init(_ transferred: TransferredContext) {
    claimsProof = transferred.claimsProof
    if transferred.isInvalidated {
      authenticationSession.invalidate()
    } else {
      authenticationSession.interactionNotAllowed = transferred.interactionNotAllowed
      authenticationSession.setApplicationPassword(transferred.applicationPassword)
    }
  }

  /// Takes the client's claim of a proof when `provenToAgent` (the user proved their presence to
  /// the agent for this caller): the claim alone proves nothing.
  package func acceptClaim(provenToAgent: Bool) {
    if claimsProof && provenToAgent { authenticationSession.recordProof() }
  }
}

/// An object of a request that has no form across processes: the grammar refuses it by its type.
final class UnsupportedRequestObject {
  let typeDescription: String

  init(typeDescription: String) { self.typeDescription = typeDescription }
}

extension Array where Element == (String, RequestValue) {
  /// The entries as they cross to the agent.
  package func transferred() throws(SecStatus) -> [(String, TransferredValue)] {
    var values: [(String, TransferredValue)] = []
    values.reserveCapacity(count)
    for (key, value) in self { values.append((key, try TransferredValue(value))) }
    return values
  }

  /// The contexts among the entries (kSecUseAuthenticationContext), in order, as a client relates
  /// the agent's answer about them to its own.
  package var authenticationSessions: [AuthenticationSession] {
    var sessions: [AuthenticationSession] = []
    for (_, value) in self { collectSessions(value, into: &sessions) }
    return sessions
  }
}

private func collectSessions(_ value: RequestValue, into sessions: inout [AuthenticationSession]) {
  switch value.object {
  case let carrier as any AuthenticationContextCarrier: sessions.append(carrier.authenticationSession)
  case let array as NSArray: for element in array { collectSessions(RequestValue(element), into: &sessions) }
  default: break
  }
}

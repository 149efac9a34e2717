import Foundation
import Security

// The SecItem requests and their typed results in the agent's binary form: a request is its
// caller's entries (`TransferredValue`), a result is items as the engine found them.

/// The tag before each value of a request.
private enum ValueTag: UInt8 {
  case string = 0
  case data
  case integer
  case double
  case date
  case null
  case key
  case certificate
  case identity
  case accessControl
  case context
  case array
  case unsupported
}

/// How deep arrays may nest in a request: Apple's grammar reads one level (kSecMatchIssuers).
private let maximumNesting = 4

extension WireWriter {
  /// A request's entries, keys in the caller's order.
  package mutating func entries(_ entries: [(String, TransferredValue)]) {
    count(entries.count)
    for (key, value) in entries {
      string(key)
      transferred(value)
    }
  }

  package mutating func transferred(_ value: TransferredValue) {
    switch value {
    case .plain(let plain):
      switch plain {
      case .string(let text):
        byte(ValueTag.string.rawValue)
        string(text)
      case .data(let bytes):
        byte(ValueTag.data.rawValue)
        data(bytes)
      case .number(.double(let number), let isBoolean):
        byte(ValueTag.double.rawValue)
        int64(Int64(bitPattern: number.bitPattern))
        flag(isBoolean)
      case .number(let number, let isBoolean):
        byte(ValueTag.integer.rawValue)
        if case .integer(let integer) = number { int64(integer) } else { int64(0) }
        flag(isBoolean)
      case .date(let date):
        byte(ValueTag.date.rawValue)
        int64(Int64(bitPattern: date.timeIntervalSinceReferenceDate.bitPattern))
      case .null:
        byte(ValueTag.null.rawValue)
      case .object:
        // `TransferredValue.init` made every object another case.
        byte(ValueTag.unsupported.rawValue)
        string("an object")
      }
    case .key(let key):
      byte(ValueTag.key.rawValue)
      self.key(key)
    case .certificate(let der):
      byte(ValueTag.certificate.rawValue)
      data(der)
    case .identity(let certificate, let key):
      byte(ValueTag.identity.rawValue)
      data(certificate)
      self.key(key)
    case .accessControl(let control):
      byte(ValueTag.accessControl.rawValue)
      accessControl(control)
    case .context(let context):
      byte(ValueTag.context.rawValue)
      flag(context.claimsProof)
      flag(context.isInvalidated)
      flag(context.interactionNotAllowed)
      optional(context.applicationPassword) { $0.data(Data($1)) }
    case .array(let elements):
      byte(ValueTag.array.rawValue)
      list(elements) { $0.transferred($1) }
    case .unsupported(let description):
      byte(ValueTag.unsupported.rawValue)
      string(description)
    }
  }

  private mutating func key(_ key: TransferredKey) {
    string(key.typeCode)
    flag(key.isPrivate)
    optional(key.tokenID) { $0.string($1) }
    data(key.bytes)
  }

  /// An identity the engine found: its certificate and key items.
  package mutating func identityPair(_ pair: IdentityPair) {
    storedItem(pair.certificate)
    storedItem(pair.key)
  }
}

extension WireReader {
  /// A request's entries as the agent's grammar reads them, their objects made with `backend`;
  /// `contexts` receives each LAContext met, in order.
  package mutating func entries(backend: any SecurityBackend, contexts: inout [RelayedAuthenticationContext])
    throws(SecStatus) -> RequestEntries
  {
    try list { reader throws(SecStatus) in
      let key = try reader.string()
      let value = try reader.transferred(depth: 0)
      return (key, try value.received(backend: backend, contexts: &contexts))
    }
  }

  private mutating func transferred(depth: Int) throws(SecStatus) -> TransferredValue {
    guard let tag = ValueTag(rawValue: try byte()) else { throw SecStatus(errSecDecode, detail: "an unknown value") }
    switch tag {
    case .string: return .plain(.string(try string()))
    case .data: return .plain(.data(try data()))
    case .integer: return .plain(.number(.integer(try int64()), isBoolean: try flag()))
    case .double:
      return .plain(.number(.double(Double(bitPattern: UInt64(bitPattern: try int64()))), isBoolean: try flag()))
    case .date:
      return .plain(.date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: UInt64(bitPattern: try int64())))))
    case .null: return .plain(.null)
    case .key: return .key(try key())
    case .certificate: return .certificate(try data())
    case .identity: return .identity(certificate: try data(), key: try key())
    case .accessControl:
      guard let control = try accessControl() else { throw SecStatus(errSecDecode, detail: "an empty access control") }
      return .accessControl(control)
    case .context:
      return .context(
        TransferredContext(
          claimsProof: try flag(), isInvalidated: try flag(), interactionNotAllowed: try flag(),
          applicationPassword: try optional { reader throws(SecStatus) in try reader.secretBytes() }))
    case .array:
      guard depth < maximumNesting else { throw SecStatus(errSecDecode, detail: "arrays nested too deep") }
      return .array(try list { reader throws(SecStatus) in try reader.transferred(depth: depth + 1) })
    case .unsupported: return .unsupported(try string())
    }
  }

  private mutating func key() throws(SecStatus) -> TransferredKey {
    TransferredKey(
      typeCode: try string(), isPrivate: try flag(),
      tokenID: try optional { reader throws(SecStatus) in try reader.string() }, bytes: try data())
  }

  /// An identity the engine found.
  package mutating func identityPair() throws(SecStatus) -> IdentityPair {
    IdentityPair(certificate: try storedItem(), key: try storedItem())
  }
}

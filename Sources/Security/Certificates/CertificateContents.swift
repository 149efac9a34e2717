import Foundation

/// What Apple's certificate functions and certificate items read from an X.509 certificate's DER
/// (keys-semantics.md section 7). OpenSSL checks that the bytes are a certificate; the fields are
/// read here, because Apple's rules (summary order, name normalization, serial octets) are about
/// the encoding itself, which OpenSSL's accessors re-encode or canonicalise.
struct CertificateContents: Sendable {
  /// The certificate's DER: the first element of the bytes given (trailing bytes are dropped, 7.2).
  var der: Data
  /// The X.509 version number, 1 to 3 (7.14).
  var version: Int
  /// The serial INTEGER's content octets, unmodified (7.9).
  var serialNumber: Data
  /// The issuer and subject Names, as encoded (SEQUENCE included).
  var issuer: Data
  var subject: Data
  /// The subject's attributes in order: the attribute type's OID (DER content) and its value.
  var subjectAttributes: [(oid: [UInt8], value: String)]
  /// The subjectKeyIdentifier extension's key identifier.
  var subjectKeyIdentifier: Data?
  /// The subjectAltName rfc822Names and dNSNames.
  var alternativeEmails: [String]
  var alternativeDNSNames: [String]
  /// The SubjectPublicKeyInfo's algorithm OID and parameters, and its BIT STRING's key bytes.
  var publicKeyAlgorithm: [UInt8]
  var publicKeyParameters: [UInt8]?
  var publicKeyBits: Data
  var notBefore: Date?
  var notAfter: Date?

  static let commonName: [UInt8] = [0x55, 0x04, 0x03]
  static let organizationalUnit: [UInt8] = [0x55, 0x04, 0x0b]
  static let organization: [UInt8] = [0x55, 0x04, 0x0a]
  static let description: [UInt8] = [0x55, 0x04, 0x0d]
  static let emailAddress: [UInt8] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x01]
  static let rsaEncryption: [UInt8] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01]
  static let ecPublicKey: [UInt8] = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]

  /// Reads the first certificate of `bytes`; nil when it does not parse or breaks rule 7.3.
  init?(_ bytes: Data) {
    var outer = DERReader(Array(bytes))
    guard let element = outer.readElement(tag: 0x30) else { return nil }
    der = Data(element.whole)
    var certificate = DERReader(element.content)
    guard let tbs = certificate.read(tag: 0x30) else { return nil }
    var fields = DERReader(tbs)
    // 7.3: an explicit version must be v2 or v3 (v1 is encoded by leaving it out).
    if let explicit = fields.read(tag: 0xa0) {
      var inner = DERReader(explicit)
      guard let value = inner.read(tag: 0x02), value.count == 1, value[0] == 1 || value[0] == 2 else { return nil }
      version = Int(value[0]) + 1
    } else {
      version = 1
    }
    guard let serial = fields.read(tag: 0x02), (1...37).contains(serial.count) else { return nil }
    serialNumber = Data(serial)
    guard fields.read(tag: 0x30) != nil,  // signature algorithm
      let issuerElement = fields.readElement(tag: 0x30),
      let validity = fields.read(tag: 0x30),
      let subjectElement = fields.readElement(tag: 0x30),
      let publicKeyInfo = fields.read(tag: 0x30)
    else { return nil }
    issuer = Data(issuerElement.whole)
    subject = Data(subjectElement.whole)
    guard let attributes = Self.nameAttributes(subjectElement.content) else { return nil }
    subjectAttributes = attributes
    var times = DERReader(validity)
    notBefore = times.readTime()
    notAfter = times.readTime()

    var keyInfo = DERReader(publicKeyInfo)
    guard let algorithm = keyInfo.read(tag: 0x30), let bits = keyInfo.read(tag: 0x03), bits.first == 0 else {
      return nil
    }
    var algorithmFields = DERReader(algorithm)
    guard let oid = algorithmFields.read(tag: 0x06) else { return nil }
    publicKeyAlgorithm = oid
    publicKeyParameters = algorithmFields.read(tag: 0x06)
    publicKeyBits = Data(bits.dropFirst())

    subjectKeyIdentifier = nil
    alternativeEmails = []
    alternativeDNSNames = []
    // The optional issuer and subject unique IDs, then the extensions ([3]).
    _ = fields.read(tag: 0x81)
    _ = fields.read(tag: 0x82)
    if let wrapped = fields.read(tag: 0xa3) {
      var outerExtensions = DERReader(wrapped)
      guard let list = outerExtensions.read(tag: 0x30) else { return nil }
      var extensions = DERReader(list)
      while !extensions.isAtEnd {
        guard let item = extensions.read(tag: 0x30) else { return nil }
        var parts = DERReader(item)
        guard let id = parts.read(tag: 0x06) else { return nil }
        _ = parts.read(tag: 0x01)  // critical
        guard let value = parts.read(tag: 0x04) else { return nil }
        readExtension(id, value)
      }
    }
  }

  private mutating func readExtension(_ id: [UInt8], _ value: [UInt8]) {
    var reader = DERReader(value)
    switch id {
    case [0x55, 0x1d, 0x0e]:  // subjectKeyIdentifier
      subjectKeyIdentifier = reader.read(tag: 0x04).map { Data($0) }
    case [0x55, 0x1d, 0x11]:  // subjectAltName
      guard let names = reader.read(tag: 0x30) else { return }
      var entries = DERReader(names)
      while let (tag, content) = entries.readAny() {
        switch tag {
        case 0x81: alternativeEmails.append(String(decoding: content, as: UTF8.self))
        case 0x82: alternativeDNSNames.append(String(decoding: content, as: UTF8.self))
        default: continue
        }
      }
    default:
      return
    }
  }

  /// A Name's attributes in order, each RDN's in turn.
  static func nameAttributes(_ name: [UInt8]) -> [(oid: [UInt8], value: String)]? {
    var attributes: [(oid: [UInt8], value: String)] = []
    var rdns = DERReader(name)
    while !rdns.isAtEnd {
      guard let set = rdns.read(tag: 0x31) else { return nil }
      var members = DERReader(set)
      while !members.isAtEnd {
        guard let pair = members.read(tag: 0x30) else { return nil }
        var fields = DERReader(pair)
        guard let oid = fields.read(tag: 0x06), let (tag, content) = fields.readAny() else { return nil }
        if let text = decodeString(tag: tag, content) { attributes.append((oid, text)) }
      }
    }
    return attributes
  }

  /// The text of a directory string; nil for a value of another type.
  static func decodeString(tag: UInt8, _ content: [UInt8]) -> String? {
    switch tag {
    case 0x0c, 0x13, 0x16, 0x1a: String(decoding: content, as: UTF8.self)  // UTF8, Printable, IA5, Visible
    case 0x14: String(content.map { Character(UnicodeScalar($0)) })  // T61, read as Latin-1
    case 0x1e:  // BMPString: UTF-16 big-endian
      String(
        decoding: stride(from: 0, to: content.count - 1, by: 2).map {
          UInt16(content[$0]) << 8 | UInt16(content[$0 + 1])
        },
        as: UTF16.self)
    default: nil
    }
  }

  /// The subject summary of rule 7.5.
  var subjectSummary: String? {
    let names = subjectAttributes.filter { $0.oid == Self.commonName }.map(\.value)
    if !names.isEmpty {
      let joined = names.reversed().joined(separator: ", ")
      if let description = subjectAttributes.first(where: { $0.oid == Self.description })?.value {
        return "\(joined) (\(description))"
      }
      return joined
    }
    if let email = emailAddresses.first { return email }
    if let dns = alternativeDNSNames.first { return dns }
    for type in [Self.organizationalUnit, Self.organization] {
      let values = subjectAttributes.filter { $0.oid == type }.map(\.value)
      if !values.isEmpty { return values.reversed().joined(separator: ", ") }
    }
    return subjectAttributes.last?.value
  }

  /// The subjectAltName rfc822Names, then the subject's emailAddress values (7.7).
  var emailAddresses: [String] {
    alternativeEmails + subjectAttributes.filter { $0.oid == Self.emailAddress }.map(\.value)
  }

  /// The last commonName of the subject (7.6).
  var commonName: String? { subjectAttributes.last { $0.oid == Self.commonName }?.value }
}

/// Apple's name normalization (7.11): PrintableString values upper-cased with blanks trimmed and
/// runs collapsed; every other value, the order and the structure kept byte for byte.
enum NameNormalization {
  /// The normalized Name's content (the RDNs without the outer SEQUENCE header), or nil.
  static func normalizedContent(_ name: Data) -> Data? {
    var outer = DERReader(Array(name))
    guard let content = outer.read(tag: 0x30), outer.isAtEnd else { return nil }
    var rdns = DERReader(content)
    var output: [UInt8] = []
    while !rdns.isAtEnd {
      guard let set = rdns.read(tag: 0x31) else { return nil }
      var members = DERReader(set)
      var setContent: [UInt8] = []
      while !members.isAtEnd {
        guard let pair = members.read(tag: 0x30) else { return nil }
        var fields = DERReader(pair)
        guard let oid = fields.readElement(tag: 0x06), let (tag, value) = fields.readAny() else { return nil }
        var normalized = value
        if tag == 0x13 { normalized = printable(value) }
        let pairContent = oid.whole + DEREncoding.element(tag: tag, normalized)
        setContent += DEREncoding.element(tag: 0x30, pairContent)
      }
      output += DEREncoding.element(tag: 0x31, setContent)
    }
    return Data(output)
  }

  /// The normalized Name as a SEQUENCE (SecCertificateCopyNormalized...Sequence).
  static func normalizedSequence(_ name: Data) -> Data? {
    normalizedContent(name).map { Data(DEREncoding.element(tag: 0x30, Array($0))) }
  }

  private static func printable(_ value: [UInt8]) -> [UInt8] {
    var output: [UInt8] = []
    var pendingBlank = false
    for byte in value {
      if byte == 0x20 || byte == 0x09 {
        pendingBlank = !output.isEmpty
        continue
      }
      if pendingBlank { output.append(0x20) }
      pendingBlank = false
      output.append((0x61...0x7a).contains(byte) ? byte - 0x20 : byte)
    }
    return output
  }
}

extension DERReader {
  /// A UTCTime (years 1950 to 2049) or GeneralizedTime, in UTC.
  mutating func readTime() -> Date? {
    guard let (tag, content) = readAny(), content.last == UInt8(ascii: "Z") else { return nil }
    let digits = content.dropLast().map { Int($0) - 48 }
    guard digits.allSatisfy({ (0...9).contains($0) }) else { return nil }
    func number(_ range: Range<Int>) -> Int { digits[range].reduce(0) { $0 * 10 + $1 } }
    let year: Int
    let rest: Int
    switch (tag, digits.count) {
    case (0x17, 12):
      let short = number(0..<2)
      year = short >= 50 ? 1900 + short : 2000 + short
      rest = 2
    case (0x18, 14):
      year = number(0..<4)
      rest = 4
    default: return nil
    }
    var components = DateComponents()
    components.timeZone = TimeZone(identifier: "UTC")
    components.year = year
    components.month = number(rest..<rest + 2)
    components.day = number(rest + 2..<rest + 4)
    components.hour = number(rest + 4..<rest + 6)
    components.minute = number(rest + 6..<rest + 8)
    components.second = number(rest + 8..<rest + 10)
    return Calendar(identifier: .gregorian).date(from: components)
  }
}

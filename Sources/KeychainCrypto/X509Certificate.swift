internal import COpenSSL

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// X.509 certificates, through OpenSSL's X509 API.
package enum X509Certificate {
  /// Whether `bytes` are exactly one DER-encoded X.509 certificate that OpenSSL parses: trailing
  /// bytes after the certificate make them something else.
  package static func isSingleDER(_ bytes: [UInt8]) -> Bool {
    guard let (certificate, consumed) = parse(bytes) else { return false }
    X509_free(certificate)
    return consumed == bytes.count
  }

  /// The fields Apple's certificate functions and certificate items read (KeysSemantics
  /// section 7), as OpenSSL parses them from the first certificate of `bytes`; nil when OpenSSL
  /// does not parse one. Names and the serial number keep their encoding as it was given
  /// (OpenSSL keeps a Name's original bytes; the serial is its DER content octets), because
  /// Apple's rules normalize and compare those bytes.
  package static func fields(of bytes: [UInt8]) -> X509Fields? {
    guard let (certificate, consumed) = parse(bytes) else { return nil }
    defer { X509_free(certificate) }
    guard let serial = contentOctets(ofInteger: X509_get0_serialNumber(certificate)),
      let issuer = X509_get_issuer_name(certificate).flatMap(encoded(name:)),
      let subjectName = X509_get_subject_name(certificate), let subject = encoded(name: subjectName),
      let subjectAttributes = attributes(of: subjectName),
      let publicKey = X509_get_X509_PUBKEY(certificate)
    else { return nil }
    var algorithm: OpaquePointer?
    var keyBytes: UnsafePointer<UInt8>?
    var keyLength: Int32 = 0
    var parameters: UnsafeMutablePointer<X509_ALGOR>?
    guard X509_PUBKEY_get0_param(&algorithm, &keyBytes, &keyLength, &parameters, publicKey) == 1,
      let algorithm, let algorithmOID = contentOctets(ofObject: algorithm), let keyBytes, keyLength >= 0
    else {
      LibcryptoErrorQueue.clear()
      return nil
    }
    var fields = X509Fields(
      der: Array(bytes[0..<consumed]), version: Int(X509_get_version(certificate)) + 1, serialNumber: serial,
      issuer: issuer, subject: subject, subjectAttributes: subjectAttributes,
      publicKeyAlgorithm: algorithmOID,
      publicKeyBits: Array(UnsafeBufferPointer(start: keyBytes, count: Int(keyLength))))
    if let parameters {
      var type: Int32 = 0
      var value: UnsafeRawPointer?
      var object: OpaquePointer?
      X509_ALGOR_get0(&object, &type, &value, UnsafePointer(parameters))
      if type == V_ASN1_OBJECT, let value {
        fields.publicKeyParameters = contentOctets(ofObject: OpaquePointer(value))
      }
    }
    fields.notBefore = secondsSince1970(X509_get0_notBefore(certificate))
    fields.notAfter = secondsSince1970(X509_get0_notAfter(certificate))
    if let identifier = X509_get0_subject_key_id(certificate) {
      fields.subjectKeyIdentifier = octets(of: identifier)
    }
    readAlternativeNames(certificate, into: &fields)
    LibcryptoErrorQueue.clear()
    return fields
  }

  /// The certificate OpenSSL parses at the start of `bytes`, and how many bytes it took.
  static func parse(_ bytes: [UInt8]) -> (OpaquePointer, Int)? {
    guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return nil }
    return bytes.withUnsafeBufferPointer { buffer in
      guard let start = buffer.baseAddress else { return nil }
      var cursor: UnsafePointer<UInt8>? = start
      guard let certificate = d2i_X509(nil, &cursor, buffer.count), let end = cursor else {
        LibcryptoErrorQueue.clear()
        return nil
      }
      return (certificate, end - start)
    }
  }

  /// A Name's DER as the certificate encodes it.
  private static func encoded(name: OpaquePointer) -> [UInt8]? {
    var output: UnsafeMutablePointer<UInt8>?
    let length = i2d_X509_NAME(name, &output)
    guard length > 0, let output else { return nil }
    defer { CRYPTO_free(output, #fileID, #line) }
    return Array(UnsafeBufferPointer(start: output, count: Int(length)))
  }

  /// A Name's attributes in order, each RDN's in turn: the type's OID (DER content) and the text
  /// of a directory string; values of other types are left out.
  private static func attributes(of name: OpaquePointer) -> [(oid: [UInt8], value: String)]? {
    var attributes: [(oid: [UInt8], value: String)] = []
    for index in 0..<X509_NAME_entry_count(name) {
      guard let entry = X509_NAME_get_entry(name, index), let object = X509_NAME_ENTRY_get_object(entry),
        let oid = contentOctets(ofObject: object), let data = X509_NAME_ENTRY_get_data(entry)
      else { return nil }
      if let text = DirectoryString.text(type: ASN1_STRING_type(data), octets(of: UnsafePointer(data))) {
        attributes.append((oid, text))
      }
    }
    return attributes
  }

  /// The subjectAltName's rfc822Names and dNSNames, in order.
  private static func readAlternativeNames(_ certificate: OpaquePointer, into fields: inout X509Fields) {
    var critical: Int32 = 0
    guard let names = X509_get_ext_d2i(certificate, NID_subject_alt_name, &critical, nil) else { return }
    let stack = OpaquePointer(names)
    defer { GENERAL_NAMES_free(stack) }
    for index in 0..<OPENSSL_sk_num(stack) {
      guard let raw = OPENSSL_sk_value(stack, index) else { continue }
      var type: Int32 = 0
      let name = UnsafePointer(raw.assumingMemoryBound(to: GENERAL_NAME.self))
      guard let value = GENERAL_NAME_get0_value(name, &type) else { continue }
      let text = String(
        decoding: octets(of: UnsafePointer(value.assumingMemoryBound(to: ASN1_STRING.self))), as: UTF8.self)
      switch type {
      case GEN_EMAIL: fields.alternativeEmails.append(text)
      case GEN_DNS: fields.alternativeDNSNames.append(text)
      default: continue
      }
    }
  }

  /// An ASN1_STRING's bytes.
  private static func octets(of string: UnsafePointer<ASN1_STRING>) -> [UInt8] {
    let length = Int(ASN1_STRING_length(string))
    guard length > 0, let data = ASN1_STRING_get0_data(string) else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: length))
  }

  /// The content octets of an object identifier's DER.
  private static func contentOctets(ofObject object: OpaquePointer) -> [UInt8]? {
    let length = Int(OBJ_length(object))
    guard length > 0, let data = OBJ_get0_data(object) else { return nil }
    return Array(UnsafeBufferPointer(start: data, count: length))
  }

  /// The content octets of an INTEGER's DER: its two's-complement bytes, leading zero included.
  private static func contentOctets(ofInteger integer: UnsafePointer<ASN1_INTEGER>) -> [UInt8]? {
    var output: UnsafeMutablePointer<UInt8>?
    let length = i2d_ASN1_INTEGER(integer, &output)
    guard length > 2, let output else { return nil }
    defer { CRYPTO_free(output, #fileID, #line) }
    var reader = Array(UnsafeBufferPointer(start: output, count: Int(length)))[...]
    // Tag, then a short or long length.
    reader = reader.dropFirst()
    guard let first = reader.popFirst() else { return nil }
    if first & 0x80 != 0 { reader = reader.dropFirst(Int(first & 0x7f)) }
    return Array(reader)
  }

  /// An ASN1_TIME as seconds since 1970 (UTC).
  static func secondsSince1970(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
    guard let time else { return nil }
    var parts = tm()
    guard ASN1_TIME_to_tm(time, &parts) == 1 else {
      LibcryptoErrorQueue.clear()
      return nil
    }
    return Int64(timegm(&parts))
  }
}

/// What `X509Certificate.fields(of:)` reads from a certificate.
package struct X509Fields: Sendable {
  /// The certificate's DER: the bytes OpenSSL parsed (trailing bytes dropped).
  package var der: [UInt8]
  /// The X.509 version number, 1 to 3.
  package var version: Int
  /// The serial INTEGER's content octets.
  package var serialNumber: [UInt8]
  /// The issuer and subject Names, as encoded (SEQUENCE included).
  package var issuer: [UInt8]
  package var subject: [UInt8]
  /// The subject's attributes in order: the type's OID (DER content) and its text.
  package var subjectAttributes: [(oid: [UInt8], value: String)]
  /// The SubjectPublicKeyInfo's algorithm OID, its parameters when they are an OID (a named
  /// curve), and the key's bits.
  package var publicKeyAlgorithm: [UInt8]
  package var publicKeyParameters: [UInt8]?
  package var publicKeyBits: [UInt8]
  /// The validity period, in seconds since 1970.
  package var notBefore: Int64?
  package var notAfter: Int64?
  /// The subjectKeyIdentifier extension's key identifier.
  package var subjectKeyIdentifier: [UInt8]?
  /// The subjectAltName's rfc822Names and dNSNames.
  package var alternativeEmails: [String] = []
  package var alternativeDNSNames: [String] = []

  init(
    der: [UInt8], version: Int, serialNumber: [UInt8], issuer: [UInt8], subject: [UInt8],
    subjectAttributes: [(oid: [UInt8], value: String)], publicKeyAlgorithm: [UInt8], publicKeyBits: [UInt8]
  ) {
    self.der = der
    self.version = version
    self.serialNumber = serialNumber
    self.issuer = issuer
    self.subject = subject
    self.subjectAttributes = subjectAttributes
    self.publicKeyAlgorithm = publicKeyAlgorithm
    self.publicKeyBits = publicKeyBits
  }
}

/// The text of an X.520 directory string, by its ASN.1 type.
enum DirectoryString {
  static func text(type: Int32, _ content: [UInt8]) -> String? {
    switch type {
    case V_ASN1_UTF8STRING, V_ASN1_PRINTABLESTRING, V_ASN1_IA5STRING, V_ASN1_VISIBLESTRING:
      return String(decoding: content, as: UTF8.self)
    case V_ASN1_T61STRING:
      // Read as Latin-1, as Apple does.
      return String(content.map { Character(UnicodeScalar($0)) })
    case V_ASN1_BMPSTRING:
      // UTF-16 big-endian.
      return String(
        decoding: stride(from: 0, to: content.count - 1, by: 2).map {
          UInt16(content[$0]) << 8 | UInt16(content[$0 + 1])
        },
        as: UTF16.self)
    default:
      return nil
    }
  }
}

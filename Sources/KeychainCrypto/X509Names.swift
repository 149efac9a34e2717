internal import COpenSSL

/// A Name after Apple's normalization (KeysSemantics 7.11), as certificate items store issuer and
/// subject: its content (the RDNs, without the outer SEQUENCE header) and the whole SEQUENCE
/// (SecCertificateCopyNormalized...Sequence).
package struct NormalizedX509Name: Sendable, Equatable {
  package var content: [UInt8]
  package var sequence: [UInt8]
}

/// X.509 Names read through OpenSSL's X509_NAME, and the encoding facts OpenSSL's certificate
/// parser does not keep, read with its TLV reader (ASN1_get_object).
package enum X509Names {
  /// Apple's normalization of the DER Name `der` (exactly one Name, nothing after it): each
  /// PrintableString upper-cased with blanks trimmed and runs collapsed to one space; every other
  /// value, the order of RDNs and of attributes within one, kept byte for byte. Nil when OpenSSL
  /// does not read a Name there.
  package static func normalized(_ der: [UInt8]) -> NormalizedX509Name? {
    guard let name = WholeDER.decode(der, { d2i_X509_NAME(nil, $0, $1) }, free: { X509_NAME_free($0) }) else {
      return nil
    }
    defer { X509_NAME_free(name) }
    var content: [UInt8] = []
    var set: [UInt8] = []
    var currentSet: Int32 = -1
    for index in 0..<X509_NAME_entry_count(name) {
      guard let entry = X509_NAME_get_entry(name, index), let object = X509_NAME_ENTRY_get_object(entry),
        let data = X509_NAME_ENTRY_get_data(entry), let oid = encoded(object)
      else { return nil }
      let setIndex = X509_NAME_ENTRY_set(entry)
      if setIndex != currentSet, currentSet >= 0 {
        content += element(0x31, set)
        set = []
      }
      currentSet = setIndex
      guard let value = value(of: data) else { return nil }
      set += element(0x30, oid + value)
    }
    if currentSet >= 0 { content += element(0x31, set) }
    return NormalizedX509Name(content: content, sequence: element(0x30, content))
  }

  /// Whether the certificate in `der` writes its version as an explicit v1 (`[0] INTEGER 0`),
  /// which keys rule 7.3 refuses: v1 is written by leaving the version out, and OpenSSL's parser
  /// reads both as v1.
  package static func hasExplicitVersionOne(_ der: [UInt8]) -> Bool {
    der.withUnsafeBufferPointer { buffer in
      guard let start = buffer.baseAddress else { return false }
      var cursor: UnsafePointer<UInt8>? = start
      var remaining = buffer.count
      // Certificate SEQUENCE, then TBSCertificate SEQUENCE, then its first element.
      let headers: [(tag: Int32, cls: Int32)] = [
        (V_ASN1_SEQUENCE, V_ASN1_UNIVERSAL), (V_ASN1_SEQUENCE, V_ASN1_UNIVERSAL), (0, V_ASN1_CONTEXT_SPECIFIC),
      ]
      for expected in headers {
        var length = 0
        var tag: Int32 = 0
        var cls: Int32 = 0
        let before = cursor!
        let flags = ASN1_get_object(&cursor, &length, &tag, &cls, remaining)
        guard flags & 0x80 == 0, tag == expected.tag, cls == expected.cls, let after = cursor else {
          LibcryptoErrorQueue.clear()
          return false
        }
        remaining -= after - before
        remaining = min(remaining, length)
      }
      var length = 0
      var tag: Int32 = 0
      var cls: Int32 = 0
      let flags = ASN1_get_object(&cursor, &length, &tag, &cls, remaining)
      LibcryptoErrorQueue.clear()
      guard flags & 0x80 == 0, tag == V_ASN1_INTEGER, cls == V_ASN1_UNIVERSAL, length == 1, let cursor else {
        return false
      }
      return cursor.pointee == 0
    }
  }

  /// A value's encoding, normalized when it is a PrintableString.
  private static func value(of data: UnsafeMutablePointer<ASN1_STRING>) -> [UInt8]? {
    let type = ASN1_STRING_type(data)
    let bytes =
      ASN1_STRING_get0_data(data).map { Array(UnsafeBufferPointer(start: $0, count: Int(ASN1_STRING_length(data)))) }
      ?? []
    switch type {
    case V_ASN1_SEQUENCE, V_ASN1_SET, V_ASN1_OTHER:
      // OpenSSL keeps a value of no string type whole, its tag and length included.
      return bytes
    case 0..<31:
      return element(UInt8(type), type == V_ASN1_PRINTABLESTRING ? printable(bytes) : bytes)
    default:
      return nil
    }
  }

  /// An OBJECT IDENTIFIER's whole DER.
  private static func encoded(_ object: OpaquePointer) -> [UInt8]? {
    var output: UnsafeMutablePointer<UInt8>?
    let length = i2d_ASN1_OBJECT(object, &output)
    guard length > 0, let output else { return nil }
    defer { CRYPTO_free(output, #fileID, #line) }
    return Array(UnsafeBufferPointer(start: output, count: Int(length)))
  }

  /// Upper case, blanks trimmed and each run of them one space (7.11).
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

  /// A DER element: the re-encoding of what OpenSSL read (a writer, not a reader).
  static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    var length: [UInt8] = []
    if content.count < 0x80 {
      length = [UInt8(content.count)]
    } else {
      var remaining = content.count
      while remaining > 0 {
        length.insert(UInt8(remaining & 0xff), at: 0)
        remaining >>= 8
      }
      length.insert(0x80 | UInt8(length.count), at: 0)
    }
    return [tag] + length + content
  }
}

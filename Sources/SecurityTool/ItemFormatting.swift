import Foundation
import Keychain

/// Prints items the way macOS's `security` tool does, so scripts that parse its output keep working.
enum ItemFormatting {
  /// A value as `security` shows it: printable text quoted, anything else as hex and escaped text.
  static func blob(_ bytes: Data?) -> String {
    guard let bytes else { return "<NULL>" }
    let printable = bytes.allSatisfy {
      (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
    }
    if printable { return "\"\(String(decoding: bytes, as: UTF8.self))\"" }
    let hex = bytes.map { String(format: "%02X", $0) }.joined()
    return "0x\(hex)  \"\(escaped(bytes))\""
  }

  /// The password as `-w` prints it: as text when every byte is printable ASCII, otherwise as
  /// lowercase hexadecimal, as macOS's tool does, so that no byte is lost or changed on the way.
  static func passwordOnly(_ bytes: Data) -> String {
    if bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) { return String(decoding: bytes, as: UTF8.self) }
    return bytes.map { String(format: "%02x", $0) }.joined()
  }

  /// Bytes with non-printable ones as octal escapes, as `security` prints them.
  static func escaped(_ bytes: Data) -> String {
    bytes.map { byte in
      switch byte {
      case UInt8(ascii: "\""): "\\\""
      case UInt8(ascii: "\\"): "\\\\"
      case 0x20..<0x7F: String(UnicodeScalar(byte))
      default: String(format: "\\%03o", byte)
      }
    }.joined()
  }

  static func text(_ value: String?) -> String { blob(value.map { Data($0.utf8) }) }

  /// A 32-bit attribute as macOS prints it: its four-character code when the four bytes are
  /// printable (`"aapl"`), else hexadecimal.
  static func uint32(_ value: Int?) -> String {
    guard let value else { return "<NULL>" }
    let number = UInt32(truncatingIfNeeded: value)
    let bytes = (0..<4).map { UInt8(truncatingIfNeeded: number >> (24 - 8 * $0)) }
    if bytes.allSatisfy({ (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
      return "\"\(String(decoding: bytes, as: UTF8.self))\""
    }
    return String(format: "0x%08X ", number)
  }

  static func sint32(_ value: Bool?) -> String {
    guard let value else { return "<NULL>" }
    return String(format: "0x%08X ", value ? 1 : 0)
  }

  static func fourCharacterCode(_ value: String?) -> String {
    guard let value else { return "<NULL>" }
    return "\"\(value)\""
  }

  static func date(_ value: Date?) -> String {
    guard let value else { return "<NULL>" }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMddHHmmss'Z'"
    let text = formatter.string(from: value)
    let bytes = Data(text.utf8) + Data([0])
    return "0x\(bytes.map { String(format: "%02X", $0) }.joined())  \"\(text)\\000\""
  }

  static func header(store: String, itemClass: String) -> [String] {
    ["keychain: \"\(store)\"", "version: 512", "class: \"\(itemClass)\"", "attributes:"]
  }

  static func lines(_ item: GenericPasswordItem, store: String) -> [String] {
    header(store: store, itemClass: "genp") + [
      "    0x00000007 <blob>=\(text(item.label))",
      "    0x00000008 <blob>=<NULL>",
      "    \"acct\"<blob>=\(text(item.account))",
      "    \"cdat\"<timedate>=\(date(item.creationDate))",
      "    \"crtr\"<uint32>=\(uint32(item.creator))",
      "    \"cusi\"<sint32>=\(sint32(item.hasCustomIcon))",
      "    \"desc\"<blob>=\(text(item.description))",
      "    \"gena\"<blob>=\(blob(item.generic))",
      "    \"icmt\"<blob>=\(text(item.comment))",
      "    \"invi\"<sint32>=\(sint32(item.isInvisible))",
      "    \"mdat\"<timedate>=\(date(item.modificationDate))",
      "    \"nega\"<sint32>=\(sint32(item.isNegative))",
      "    \"prot\"<blob>=<NULL>",
      "    \"scrp\"<sint32>=\(uint32(item.scriptCode))",
      "    \"svce\"<blob>=\(text(item.service))",
      "    \"type\"<uint32>=\(uint32(item.type))",
    ]
  }

  static func lines(_ item: InternetPasswordItem, store: String) -> [String] {
    header(store: store, itemClass: "inet") + [
      "    0x00000007 <blob>=\(text(item.label))",
      "    0x00000008 <blob>=<NULL>",
      "    \"acct\"<blob>=\(text(item.account))",
      "    \"atyp\"<blob>=\(text(item.authenticationType.map { $0.constant as String }))",
      "    \"cdat\"<timedate>=\(date(item.creationDate))",
      "    \"crtr\"<uint32>=\(uint32(item.creator))",
      "    \"cusi\"<sint32>=\(sint32(item.hasCustomIcon))",
      "    \"desc\"<blob>=\(text(item.description))",
      "    \"icmt\"<blob>=\(text(item.comment))",
      "    \"invi\"<sint32>=\(sint32(item.isInvisible))",
      "    \"mdat\"<timedate>=\(date(item.modificationDate))",
      "    \"nega\"<sint32>=\(sint32(item.isNegative))",
      "    \"path\"<blob>=\(text(item.path))",
      "    \"port\"<uint32>=\(uint32(item.port))",
      "    \"prot\"<blob>=<NULL>",
      "    \"ptcl\"<uint32>=\(fourCharacterCode(item.protocol.map { $0.constant as String }))",
      "    \"scrp\"<sint32>=\(uint32(item.scriptCode))",
      "    \"sdmn\"<blob>=\(text(item.securityDomain))",
      "    \"srvr\"<blob>=\(text(item.server))",
      "    \"type\"<uint32>=\(uint32(item.type))",
    ]
  }

  /// A key as macOS prints one: its record type (0x0F public, 0x10 private, 0x11 symmetric, the
  /// CSSM numbers) as the class, and its attributes by number.
  static func lines(_ item: KeyItem, store: String) -> [String] {
    // kSecAttrKeyClass's constants are "0", "1" and "2"; the record types follow from 0x0F.
    let keyClass = item.keyClass.flatMap { Int($0.constant as String) }.map { 0x0F + $0 }
    let keyType = item.keyType.flatMap { Int($0.constant as String) }
    let flags: [(Int, Bool?)] = [
      (0x12, item.canEncrypt), (0x13, item.canDecrypt), (0x14, item.canDerive), (0x15, item.canSign),
      (0x16, item.canVerify), (0x19, item.canWrap), (0x1A, item.canUnwrap),
    ]
    return ["keychain: \"\(store)\"", "version: 512", "class: \(hexadecimal(keyClass))", "attributes:"]
      + [
        "    0x00000000 <uint32>=\(hexadecimal(keyClass))",
        "    0x00000001 <blob>=\(text(item.label))",
        "    0x00000002 <blob>=\(text(item.alias))",
        "    0x00000003 <uint32>=\(hexadecimal(item.isPermanent.map { $0 ? 1 : 0 }))",
        "    0x00000004 <uint32>=\(hexadecimal(item.isPrivate.map { $0 ? 1 : 0 }))",
        "    0x00000005 <uint32>=\(hexadecimal(item.isModifiable.map { $0 ? 1 : 0 }))",
        "    0x00000006 <blob>=\(blob(item.applicationLabel))",
        "    0x00000007 <blob>=\(blob(item.applicationTag))",
        "    0x00000008 <blob>=\(uint32(item.creator))",
        "    0x00000009 <uint32>=\(hexadecimal(keyType))",
        "    0x0000000A <uint32>=\(hexadecimal(item.keySizeInBits))",
        "    0x0000000B <uint32>=\(hexadecimal(item.effectiveKeySize))",
      ] + flags.map { "    \(String(format: "0x%08X", $0.0)) <uint32>=\(hexadecimal($0.1.map { $0 ? 1 : 0 }))" }
  }

  /// A certificate as macOS prints one (class 0x80001000).
  static func lines(_ item: CertificateItem, store: String) -> [String] {
    ["keychain: \"\(store)\"", "version: 512", "class: 0x80001000 ", "attributes:"] + [
      "    \"alis\"<blob>=\(text(item.alias))",
      "    \"cenc\"<uint32>=\(hexadecimal(item.certificateEncoding))",
      "    \"ctyp\"<uint32>=\(hexadecimal(item.certificateType))",
      "    \"hpky\"<blob>=\(blob(item.publicKeyHash))",
      "    \"issu\"<blob>=\(blob(item.issuer))",
      "    \"labl\"<blob>=\(text(item.label))",
      "    \"skid\"<blob>=\(blob(item.subjectKeyID))",
      "    \"snbr\"<blob>=\(blob(item.serialNumber))",
      "    \"subj\"<blob>=\(blob(item.subject))",
    ]
  }

  /// A number as macOS prints a numeric attribute: eight hexadecimal digits and a space.
  static func hexadecimal(_ value: Int?) -> String {
    guard let value else { return "<NULL>" }
    return String(format: "0x%08X ", UInt32(truncatingIfNeeded: value))
  }

  /// `password: "..."`, as `-g` prints it (to standard error).
  static func passwordLine(_ data: Data?) -> String {
    "password: " + (data.map(blob) ?? "")
  }
}

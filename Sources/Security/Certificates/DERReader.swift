import Foundation

/// Reads definite-length DER elements: enough for ECDSA signatures, Names and certificates.
struct DERReader {
  private let bytes: [UInt8]
  private var position = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  var isAtEnd: Bool { position == bytes.count }

  /// The tag of the next element, or nil at the end.
  var peekTag: UInt8? { position < bytes.count ? bytes[position] : nil }

  /// The next element of any tag: its tag and content.
  mutating func readAny() -> (UInt8, [UInt8])? {
    guard let tag = peekTag, let content = read(tag: tag) else { return nil }
    return (tag, content)
  }

  /// The content of the next element when its tag is `tag`.
  mutating func read(tag: UInt8) -> [UInt8]? { readElement(tag: tag)?.content }

  /// The next element when its tag is `tag`: its whole encoding and its content.
  mutating func readElement(tag: UInt8) -> (whole: [UInt8], content: [UInt8])? {
    guard position + 2 <= bytes.count, bytes[position] == tag else { return nil }
    var cursor = position + 1
    var length = Int(bytes[cursor])
    cursor += 1
    if length & 0x80 != 0 {
      let count = length & 0x7f
      guard (1...4).contains(count), cursor + count <= bytes.count else { return nil }
      length = bytes[cursor..<cursor + count].reduce(0) { $0 << 8 | Int($1) }
      cursor += count
    }
    guard length >= 0, cursor + length <= bytes.count else { return nil }
    let start = position
    position = cursor + length
    return (Array(bytes[start..<position]), Array(bytes[cursor..<position]))
  }
}

/// Writes DER elements: the names normalization re-encodes and ECDSA signatures converted to DER.
enum DEREncoding {
  static func element(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    [tag] + length(content.count) + content
  }

  static func length(_ count: Int) -> [UInt8] {
    if count < 0x80 { return [UInt8(count)] }
    var bytes: [UInt8] = []
    var remaining = count
    while remaining > 0 {
      bytes.insert(UInt8(remaining & 0xff), at: 0)
      remaining >>= 8
    }
    return [0x80 | UInt8(bytes.count)] + bytes
  }
}

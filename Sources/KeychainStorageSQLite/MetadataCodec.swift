import Foundation
import Security

/// The plaintext of a row's sealed metadata (a store format, not an Apple rule): every attribute
/// with its type, and in rows sealed before row format 3 the access control.
///
/// A small tagged binary format rather than a property list: it is read on every attribute query,
/// and it must reject any malformed input with an error rather than trap (the bytes come from disk).
enum MetadataCodec {
  private static let version: UInt8 = 1
  private typealias Tag = TaggedBinaryForm.Tag

  /// Serializes attributes (sorted by key, so equal items give equal bytes) and an access control.
  static func encode(_ attributes: SortedAttributes, accessControl: SecAccessControl?) -> [UInt8] {
    var out: [UInt8] = [version]
    out.reserveCapacity(256)
    let count = attributes.count + (accessControl == nil ? 0 : 1)
    TaggedBinaryForm.appendLength(count, to: &out)
    for (key, value) in attributes {
      TaggedBinaryForm.appendBytes(Array(key.utf8), to: &out)
      TaggedBinaryForm.append(value, to: &out)
    }
    if let accessControl {
      TaggedBinaryForm.appendBytes(Array(SecConstantValue.attrAccessControl.utf8), to: &out)
      out.append(Tag.accessControl.rawValue)
      TaggedBinaryForm.appendBytes(Array(accessControl.protection.utf8), to: &out)
      TaggedBinaryForm.appendUInt64(UInt64(accessControl.flags.rawValue), to: &out)
    }
    return out
  }

  /// Parses what `encode` wrote; anything else is errSecDecode.
  static func decode(_ bytes: [UInt8]) throws(SecStatus) -> (
    attributes: SortedAttributes, accessControl: SecAccessControl?
  ) {
    var reader = TaggedBinaryForm.Reader(bytes)
    guard try reader.byte() == version else { throw .decode }
    let count = try reader.length()
    var attributes = SortedAttributes()
    // Sized once: growing a 30-entry array from empty copies it five times, on every row read.
    attributes.reserveCapacity(min(count, 256))
    var accessControl: SecAccessControl?
    for _ in 0..<count {
      let key = try reader.string()
      guard let tag = Tag(rawValue: try reader.byte()) else { throw .decode }
      if tag == .accessControl {
        let protection = try reader.string()
        let flags = SecAccessControlCreateFlags(rawValue: CFOptionFlags(try reader.uint64()))
        accessControl = SecAccessControl(protection: protection, flags: flags)
      } else {
        // `encode` wrote the keys in order, so each one is appended without a search.
        attributes.appendDecoded(key, try reader.value(after: tag))
      }
    }
    guard reader.isAtEnd else { throw .decode }
    return (attributes, accessControl)
  }
}

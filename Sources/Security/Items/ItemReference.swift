import Foundation

/// A persistent reference (rule 13): 4 class bytes and a 16-byte item UUID, or the legacy 12-byte
/// form with an 8-byte big-endian row id.
package enum ItemReference: Sendable, Equatable {
  case uuid(ItemClass, Data)
  case rowID(ItemClass, Int64)

  package var itemClass: ItemClass {
    switch self {
    case .uuid(let itemClass, _), .rowID(let itemClass, _): itemClass
    }
  }

  /// Parses a reference; malformed bytes are errSecParam (rule 13).
  package init(parsing data: Data) throws(SecStatus) {
    let bytes = [UInt8](data)
    guard bytes.count == 20 || bytes.count == 12 else { throw .param }
    let prefix = String(decoding: bytes[0..<4], as: UTF8.self)
    if prefix == SecConstantValue.classAppleSharePassword { throw .noSuchClass }
    guard let itemClass = ItemClass(rawValue: prefix) else { throw .param }
    if bytes.count == 20 {
      self = .uuid(itemClass, Data(bytes[4...]))
    } else {
      let rowID = bytes[4...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
      self = .rowID(itemClass, Int64(bitPattern: rowID))
    }
  }

  /// The 20-byte reference of an item.
  package static func bytes(of itemClass: ItemClass, uuid: Data) -> Data {
    Data(itemClass.tag) + uuid
  }
}

import Foundation

/// The largest `kSecValueData` an item may hold, in bytes: 16 MiB.
///
/// Apple documents no limit; keychain items hold passwords, keys and certificates, which are far
/// smaller. A larger value is refused with errSecParam before any work is done, instead of running
/// for minutes and growing memory with the value's size.
public let SecItemMaximumDataLength = 16 * 1024 * 1024

/// The largest total size of one dictionary's attribute values, in bytes: 4 MiB.
///
/// Strings count their UTF-8 bytes, data its bytes, numbers and dates 8 bytes each. A dictionary
/// above it is refused with errSecParam.
public let SecItemMaximumAttributesLength = 4 * 1024 * 1024

extension AttributeValue {
  /// The bytes this value counts for against `SecItemMaximumAttributesLength`.
  var countedLength: Int {
    switch self {
    case .string(let value): value.utf8.count
    case .data(let value): value.count
    case .integer, .double, .date: 8
    }
  }
}

/// Refuses data or attributes above the documented maxima with errSecParam.
func checkItemSize(data: Data?, attributes: [String: AttributeValue]) throws(SecStatus) {
  if let data, data.count > SecItemMaximumDataLength {
    throw SecStatus.param.naming(SecConstantValue.valueData, "is larger than SecItemMaximumDataLength (16 MiB)")
  }
  var total = 0
  for (key, value) in attributes {
    total += value.countedLength
    if total > SecItemMaximumAttributesLength {
      throw SecStatus.param.naming(key, "takes the attributes past SecItemMaximumAttributesLength (4 MiB)")
    }
  }
}

import Foundation

/// A 16-byte keyed digest of a plain column (access group, primary key, SPI key, a searchable
/// attribute), held inline: a row's digests are read, compared and bound without an allocation
/// each (a 16-byte `Data` does not fit Data's inline storage, so every one was a heap object, eight
/// per row read).
struct RowDigest: Hashable {
  static let byteCount = 16

  /// The bytes in memory order (the two words are never read as numbers).
  private var words: (UInt64, UInt64)

  /// The digest whose bytes are `bytes`; nil unless there are exactly 16.
  init?(_ bytes: UnsafeRawBufferPointer) {
    guard bytes.count == Self.byteCount else { return nil }
    words = (
      bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
    )
  }

  /// The digest whose bytes are the first 16 of `bytes`, which must hold at least that many.
  init(prefixOf bytes: [UInt8]) {
    precondition(bytes.count >= Self.byteCount, "a digest needs 16 bytes")
    words = bytes.withUnsafeBytes {
      ($0.loadUnaligned(fromByteOffset: 0, as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }
  }

  static func == (lhs: RowDigest, rhs: RowDigest) -> Bool { lhs.words == rhs.words }

  func hash(into hasher: inout Hasher) {
    hasher.combine(words.0)
    hasher.combine(words.1)
  }

  /// Calls `body` with the 16 bytes.
  func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    var copy = words
    return try Swift.withUnsafeBytes(of: &copy) { try body($0) }
  }

  /// The bytes as `Data`, for what leaves the row layer (the change feed's keys).
  var data: Data { withUnsafeBytes { Data($0) } }
}

/// The digests of `ItemTable.digestColumns`, in that order, each nil where the item has no such
/// attribute: four optionals inline rather than an array of them.
struct SearchDigestColumns: Equatable {
  private var account: RowDigest?
  private var service: RowDigest?
  private var server: RowDigest?
  private var label: RowDigest?

  /// As many as `ItemTable.digestColumns` has.
  static let count = 4

  init() {}

  subscript(index: Int) -> RowDigest? {
    get {
      switch index {
      case 0: account
      case 1: service
      case 2: server
      case 3: label
      default: preconditionFailure("there are four search digest columns")
      }
    }
    set {
      switch index {
      case 0: account = newValue
      case 1: service = newValue
      case 2: server = newValue
      case 3: label = newValue
      default: preconditionFailure("there are four search digest columns")
      }
    }
  }

  /// Whether no column holds a digest.
  var isEmpty: Bool { account == nil && service == nil && server == nil && label == nil }
}

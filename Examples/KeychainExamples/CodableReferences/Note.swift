import Foundation

/// The object both versions of example 3 store.
struct Note: Codable, Equatable {
  var title: String
  var body: String
}

extension Note {
  /// The note as JSON with sorted keys, so equal notes give equal bytes.
  var json: Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return try! encoder.encode(self)
  }
}

// A request's entries are (key, value) pairs. Reading an entry of the array copies the whole pair,
// and copying a value (an enum that may hold an existential, a String or Data) costs several times
// what comparing a short key does (about 25 ns against 4 an entry when values were `Any`), so the
// scans that look at keys only read each key in place.

extension Array where Element == (String, RequestValue) {
  /// The index of the first entry named `key`.
  func firstIndex(ofKey key: String) -> Int? {
    withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return nil }
      for index in buffer.indices where (base + index).keyOfEntry == key { return index }
      return nil
    }
  }

  /// The value of the first entry named `key`.
  func value(ofKey key: String) -> RequestValue? {
    firstIndex(ofKey: key).map { self[$0].1 }
  }

  /// Whether some entry's key satisfies `predicate`.
  func containsKey(where predicate: (String) -> Bool) -> Bool {
    withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return false }
      return buffer.indices.contains { predicate((base + $0).keyOfEntry) }
    }
  }
}

extension UnsafePointer where Pointee == (String, RequestValue) {
  /// The entry's key, read without copying its value.
  fileprivate var keyOfEntry: String {
    // A tuple's elements are stored properties, so the projection always exists.
    pointer(to: \.0)!.pointee
  }
}

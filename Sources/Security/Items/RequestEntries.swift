// A request's entries are (key, value) pairs with the value as `Any`. Reading an entry of the
// array copies the whole pair, and copying an existential value costs several times what comparing
// a short key does (about 25 ns against 4 an entry here), so the scans that look at keys only read
// each key in place.

extension Array where Element == (String, Any) {
  /// The index of the first entry named `key`.
  func firstIndex(ofKey key: String) -> Int? {
    withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return nil }
      for index in buffer.indices where (base + index).keyOfEntry == key { return index }
      return nil
    }
  }

  /// The value of the first entry named `key`.
  func value(ofKey key: String) -> Any? {
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

extension UnsafePointer where Pointee == (String, Any) {
  /// The entry's key, read without copying its value.
  fileprivate var keyOfEntry: String {
    // A tuple's elements are stored properties, so the projection always exists.
    pointer(to: \.0)!.pointee
  }
}

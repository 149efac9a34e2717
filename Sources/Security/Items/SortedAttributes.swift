/// An item's attributes as a store hands them out: entries sorted by key, read by binary search.
///
/// A stored item is decoded on every search and its attributes are then read by key, some 30
/// times for a typed item. A `Dictionary` hashed every key twice on that path (once inserting it
/// while decoding, once reading it), about a sixth of a listing's CPU (keychain-bench, perf). The
/// store's metadata keeps attributes sorted by key, so decoding appends in order, and a binary
/// search over a few dozen short keys compares small strings, which costs half a hash lookup
/// (30 ns against 60 here).
///
/// The API mirrors the parts of `Dictionary` the engine uses (subscript, `keys`, iteration as
/// `(key:value:)` pairs), so code that read a dictionary reads this unchanged.
package struct SortedAttributes: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
  /// One attribute.
  package typealias Element = (key: String, value: AttributeValue)

  // Two arrays rather than one of pairs: the search reads only keys, and reading a key out of a
  // pair copied its value too (a retain and a release per comparison, three times the lookup).
  /// The keys, sorted (String's order), each once.
  package private(set) var keys: [String]
  /// The value of each key, at the key's position.
  private var values: [AttributeValue]

  /// No attributes.
  package init() {
    keys = []
    values = []
  }

  /// The entries of `dictionary`, sorted.
  package init(_ dictionary: [String: AttributeValue]) {
    keys = dictionary.keys.sorted()
    values = []
    values.reserveCapacity(keys.count)
    for key in keys {
      // Present: the key comes from the dictionary's own keys.
      if let value = dictionary[key] { values.append(value) }
    }
  }

  /// A literal's entries; a key given twice keeps its last value, as a dictionary literal may not.
  package init(dictionaryLiteral elements: (String, AttributeValue)...) {
    self.init()
    for (key, value) in elements { self[key] = value }
  }

  /// Room for `count` entries, for a decoder that knows how many follow.
  package mutating func reserveCapacity(_ count: Int) {
    keys.reserveCapacity(count)
    values.reserveCapacity(count)
  }

  /// Adds an entry read from stored bytes, which hold their keys in order: appended when it sorts
  /// after the last one (the case the store writes), otherwise placed as the subscript would, so a
  /// record written in another order still reads the same.
  package mutating func appendDecoded(_ key: String, _ value: AttributeValue) {
    if let last = keys.last, !(last < key) {
      self[key] = value
    } else {
      keys.append(key)
      values.append(value)
    }
  }

  /// The position of `key`, or where it would be inserted.
  private func position(of key: String) -> (index: Int, found: Bool) {
    var low = 0
    var high = keys.count
    while low < high {
      let middle = low + (high - low) / 2
      if keys[middle] < key {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return (low, low < keys.count && keys[low] == key)
  }

  /// The value of `key`; setting nil removes it.
  package subscript(key: String) -> AttributeValue? {
    get {
      let (index, found) = position(of: key)
      return found ? values[index] : nil
    }
    set {
      let (index, found) = position(of: key)
      switch (found, newValue) {
      case (true, let value?):
        values[index] = value
      case (true, nil):
        keys.remove(at: index)
        values.remove(at: index)
      case (false, let value?):
        keys.insert(key, at: index)
        values.insert(value, at: index)
      case (false, nil):
        break
      }
    }
  }

  /// Removes `key`, returning its value.
  @discardableResult
  package mutating func removeValue(forKey key: String) -> AttributeValue? {
    let value = self[key]
    if value != nil { self[key] = nil }
    return value
  }

  /// These attributes with `other`'s added, `other`'s value kept where both have a key.
  package func merging(_ other: SortedAttributes) -> SortedAttributes {
    var merged = self
    for (key, value) in other { merged[key] = value }
    return merged
  }

  /// How many attributes there are.
  package var count: Int { keys.count }

  /// Whether there are none.
  package var isEmpty: Bool { keys.isEmpty }

  /// The same attributes as a dictionary, for the few readers that need one.
  package var dictionary: [String: AttributeValue] {
    var dictionary = [String: AttributeValue](minimumCapacity: keys.count)
    for (key, value) in zip(keys, values) { dictionary[key] = value }
    return dictionary
  }

  /// The entries in key order.
  package struct Iterator: IteratorProtocol {
    fileprivate var pairs: Zip2Sequence<[String], [AttributeValue]>.Iterator

    /// The next entry, or nil after the last.
    package mutating func next() -> Element? { pairs.next().map { (key: $0.0, value: $0.1) } }
  }

  /// Walks the entries in key order.
  package func makeIterator() -> Iterator { Iterator(pairs: zip(keys, values).makeIterator()) }

  /// The number of entries (exact).
  package var underestimatedCount: Int { keys.count }

  /// Equal when both hold the same keys with equal values.
  package static func == (lhs: Self, rhs: Self) -> Bool { lhs.keys == rhs.keys && lhs.values == rhs.values }
}

/// Attributes read by key and walked as `(key:value:)` pairs: a dictionary, as a request holds
/// them, or `SortedAttributes`, as a stored item does. The API's row rules (`ItemRows`) read
/// either, so neither form is converted into the other on the way to a store.
package protocol AttributeLookup: Sequence where Element == (key: String, value: AttributeValue) {
  /// The value of `key`, or nil.
  subscript(key: String) -> AttributeValue? { get }
}

extension Dictionary: AttributeLookup where Key == String, Value == AttributeValue {}

extension SortedAttributes: AttributeLookup {}

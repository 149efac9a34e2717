import Foundation
import Testing

@testable import KeychainStorageSQLite
@testable import Security

/// The sorted attribute list a stored item carries in place of a dictionary: it must answer every
/// read as the dictionary did, whatever order its entries arrive in.
@Suite struct SortedAttributesTests {
  /// Keys in an order no sort gives, a long one among them.
  static let keys = ["svce", "acct", "persistref", "UUID", "agrp", "sync", "labl", "cdat", "mdat", "a", "zzzz"]

  static func value(_ index: Int) -> AttributeValue {
    index % 2 == 0 ? .string("value \(index)") : .integer(Int64(index))
  }

  @Test func readsAsTheDictionaryItWasBuiltFrom() {
    var dictionary: [String: AttributeValue] = [:]
    for (index, key) in Self.keys.enumerated() { dictionary[key] = Self.value(index) }
    let sorted = SortedAttributes(dictionary)
    #expect(sorted.count == dictionary.count)
    #expect(sorted.keys == dictionary.keys.sorted())
    for key in Self.keys { #expect(sorted[key] == dictionary[key]) }
    for absent in ["", "acc", "acctt", "b", "persist", "zzzzz", "ACCT"] { #expect(sorted[absent] == nil) }
    #expect(sorted.dictionary == dictionary)
  }

  @Test func entriesDecodedOutOfOrderOrTwiceLandWhereTheyBelong() {
    var decoded = SortedAttributes()
    for (index, key) in Self.keys.enumerated() { decoded.appendDecoded(key, Self.value(index)) }
    // A key read again keeps the later value, as a dictionary's assignment did.
    decoded.appendDecoded("acct", .string("again"))
    var expected: [String: AttributeValue] = [:]
    for (index, key) in Self.keys.enumerated() { expected[key] = Self.value(index) }
    expected["acct"] = .string("again")
    #expect(decoded == SortedAttributes(expected))
    #expect(decoded.keys == expected.keys.sorted())
  }

  @Test func settingAndRemovingKeepTheOrder() {
    var attributes: SortedAttributes = ["labl": .string("label"), "acct": .string("alice")]
    attributes["svce"] = .string("mail")
    attributes["acct"] = .string("bob")
    attributes["labl"] = nil
    attributes["none"] = nil
    #expect(attributes.removeValue(forKey: "svce") == .string("mail"))
    #expect(attributes.removeValue(forKey: "svce") == nil)
    attributes["agrp"] = .string("group")
    #expect(attributes.keys == ["acct", "agrp"])
    #expect(attributes["acct"] == .string("bob"))
    let merged = attributes.merging(["acct": .string("carol"), "zzzz": .integer(1)])
    #expect(merged.keys == ["acct", "agrp", "zzzz"])
    #expect(merged["acct"] == .string("carol"))
    #expect(attributes != merged)
  }

  /// A stored record whose attributes are not in key order (no writer of this store makes one, but
  /// a record is read as bytes): it reads as the same attributes, and is encoded back in order.
  @Test func metadataWrittenOutOfOrderReadsTheSame() throws {
    var bytes: [UInt8] = [1]
    TaggedBinaryForm.appendLength(3, to: &bytes)
    for (key, value) in [
      ("svce", AttributeValue.string("mail")), ("acct", .data(Data([1, 2]))), ("cdat", .integer(7)),
    ] {
      TaggedBinaryForm.appendBytes(Array(key.utf8), to: &bytes)
      TaggedBinaryForm.append(value, to: &bytes)
    }
    let (attributes, accessControl) = try MetadataCodec.decode(bytes)
    #expect(accessControl == nil)
    #expect(attributes.keys == ["acct", "cdat", "svce"])
    #expect(attributes["acct"] == .data(Data([1, 2])))
    let encoded = MetadataCodec.encode(attributes, accessControl: nil)
    #expect(try MetadataCodec.decode(encoded).attributes == attributes)
    #expect(encoded != bytes)
  }
}

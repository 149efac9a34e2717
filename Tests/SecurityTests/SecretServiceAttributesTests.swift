import Foundation
import Testing

@testable import Security

/// How a Secret Service item's attributes are kept in its generic attribute: what is written reads
/// back exactly, and anything else reads as no Secret Service attributes at all.
@Suite struct SecretServiceAttributesTests {
  @Test("Attributes read back exactly, whatever characters they hold")
  func attributesReadBackExactly() {
    let attributes = [
      "service": "https://example.com/login?a=1&b=\"2\"", "username": "ren\u{e9}e \\ o'hara",
      "xdg:schema": "org.freedesktop.Secret.Generic", "empty": "", "tab\tand\nnewline": "\u{1}\u{1f}",
      "emoji": "\u{1F511} key", "slash/": "/a/b/",
    ]
    let encoded = SecretServiceAttributes.encoded(attributes)
    #expect(SecretServiceAttributes.decoded(encoded) == attributes)
    #expect(SecretServiceAttributes.decoded(SecretServiceAttributes.encoded([:])) == [:])
  }

  @Test("A generic attribute that is not an object of strings holds no Secret Service attributes")
  func otherGenericValuesAreNotAttributes() {
    for text in [
      #"{"service": 1}"#, #"{"service": null}"#, #"{"a": ["b"]}"#, #"["service"]"#, "service", "",
      #"{"service": "s""#, " {\"a\": \"b\"}",
    ] {
      #expect(SecretServiceAttributes.decoded(Data(text.utf8)) == nil, "\(text)")
    }
  }

  @Test("More attributes or bytes than an item keeps read as none")
  func attributesOverTheBoundsAreNotRead() {
    let many = Dictionary(uniqueKeysWithValues: (0...SecretServiceAttributes.maximumCount).map { ("k\($0)", "v") })
    #expect(SecretServiceAttributes.decoded(SecretServiceAttributes.encoded(many)) == nil)
    let long = ["service": String(repeating: "x", count: SecretServiceAttributes.maximumEncodedLength)]
    #expect(SecretServiceAttributes.decoded(SecretServiceAttributes.encoded(long)) == nil)
  }
}

import Foundation
import Testing

@testable import Security

/// ValueConversion answers by a value's type before it casts (a cast of a Swift value to a
/// Foundation class bridges it first): the answers must be those of the casts themselves, for the
/// Swift values the typed module passes and for the Foundation objects a CFDictionary holds.
@Suite struct ValueConversionTypeTests {
  static var swiftValues: [Any] { ["text", Data([1, 2, 3]), true, 7] }
  static var foundationValues: [Any] {
    [
      NSString(string: "text"), NSData(bytes: [1, 2, 3] as [UInt8], length: 3), NSNumber(value: true),
      NSNumber(value: 7), NSNull(), NSMutableData(bytes: [9] as [UInt8], length: 1), NSData(),
    ]
  }

  @Test func everyAnswerIsTheCastsAnswer() {
    for value in Self.swiftValues + Self.foundationValues {
      #expect(ValueConversion.isNull(value) == (value is NSNull), "\(type(of: value))")
      #expect(ValueConversion.data(value) == (value as? Data), "\(type(of: value))")
      #expect(ValueConversion.string(value) == (value as? String), "\(type(of: value))")
    }
  }

  @Test func numbersAndBooleansAreReadFromEitherForm() {
    #expect(ValueConversion.number("7") == nil)
    #expect(ValueConversion.number(Data([7])) == nil)
    #expect(ValueConversion.number(7) == .integer(7))
    #expect(ValueConversion.number(NSNumber(value: 2.5)) == .double(2.5))
    #expect(ValueConversion.isBoolean(true))
    #expect(ValueConversion.isBoolean(NSNumber(value: false)))
    #expect(!ValueConversion.isBoolean("true"))
    #expect(!ValueConversion.isBoolean(Data([1])))
    #expect(!ValueConversion.isBoolean(1))
  }

  @Test func dataReadFromAnNSDataIsACopyOfItsBytes() {
    let object = NSMutableData(bytes: [1, 2, 3] as [UInt8], length: 3)
    let data = ValueConversion.data(object)
    object.append(Data([4]))
    #expect(data == Data([1, 2, 3]))
    #expect(ValueConversion.data(NSData()) == Data())
  }
}

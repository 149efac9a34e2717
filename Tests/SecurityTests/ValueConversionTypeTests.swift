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

  /// Every kind of value a caller's dictionary may hold, Swift and Foundation forms alike.
  static var everyKindOfValue: [Any] {
    get throws {
      let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAlways, [], nil))
      return swiftValues + foundationValues + [
        kSecClassGenericPassword, kSecAttrSynchronizableAny, false, NSNumber(value: false), NSNumber(value: 2.5),
        NSNumber(value: -4), Int64(9), Int32(-3), UInt32(5), UInt(3), UInt.max, 2.0, 2.5, Float(1.5), "",
        "123", Date(timeIntervalSinceReferenceDate: 5), NSDate(timeIntervalSinceReferenceDate: 6), [Data([1])],
        NSArray(array: [1]), NSDictionary(), control, UUID(),
      ]
    }
  }

  @Test func aClassifiedValueAnswersAsTheCastingReadersDo() throws {
    // Apple's CF functions classify each value once (RequestValue) and rule 1's grammar reads the
    // case; the readers of `Any` it replaced must give the same answer for every kind of value.
    for value in try Self.everyKindOfValue {
      let typed = RequestValue(value)
      let name = "\(type(of: value))"
      #expect(typed.string == ValueConversion.string(value), "\(name)")
      #expect(typed.data == ValueConversion.data(value), "\(name)")
      #expect(typed.number == ValueConversion.number(value), "\(name)")
      #expect(typed.isBoolean == ValueConversion.isBoolean(value), "\(name)")
      #expect(typed.boolean == ValueConversion.boolean(value), "\(name)")
      #expect(typed.isNull == ValueConversion.isNull(value), "\(name)")
      #expect(typed.date == (value as? Date), "\(name)")
      #expect(typed.typeDescription == describeType(value), "\(name)")
      // Anything else is kept as given: the same object, or an equal value.
      if let object = typed.object {
        #expect("\(object)" == "\(value)", "\(name)")
        if type(of: value) is AnyClass { #expect(object as AnyObject === value as AnyObject, "\(name)") }
      }
    }
  }

  @Test func dataReadFromAnNSDataIsACopyOfItsBytes() {
    let object = NSMutableData(bytes: [1, 2, 3] as [UInt8], length: 3)
    let data = ValueConversion.data(object)
    object.append(Data([4]))
    #expect(data == Data([1, 2, 3]))
    #expect(ValueConversion.data(NSData()) == Data())
  }
}

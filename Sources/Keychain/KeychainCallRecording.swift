import Foundation
@_spi(KeychainBridge) import Security

/// Which SecItem function a call goes to: the runtime's own enum, so that a call the DSL made and
/// one raw code made name their function with the same value.
public typealias KeychainFunction = SecItemFunction

/// One SecItem call as the DSL made it: the function and its dictionaries.
public struct KeychainCall: Hashable, Sendable, CustomStringConvertible {
  /// The SecItem function called.
  public var function: KeychainFunction
  /// The first dictionary: attributes (add) or query (the others).
  public var dictionary: KeychainDictionary
  /// attributesToUpdate, for update and upsert.
  public var changes: KeychainDictionary?
  /// The status the call returned.
  public var status: OSStatus

  /// Describes a call.
  public init(
    function: KeychainFunction, dictionary: KeychainDictionary, changes: KeychainDictionary?, status: OSStatus
  ) {
    self.function = function
    self.dictionary = dictionary
    self.changes = changes
    self.status = status
  }

  /// The call as it reads in code: `SecItemAdd([kSecClass: kSecClassGenericPassword, ...]) -> 0`.
  public var description: String {
    "\(function.rawValue)(\(dictionary)" + (changes.map { ", \($0)" } ?? "") + ") -> \(status)"
  }
}

extension KeychainCall {
  /// A call the runtime recorded, its dictionaries typed (a value the DSL never produces shows
  /// as "<untyped>").
  init(_ record: SecItemCallRecord) {
    func typed(_ dictionary: NSDictionary) -> KeychainDictionary {
      KeychainDictionary(dictionary) ?? KeychainDictionary(["<untyped>": .string(dictionary.description)])
    }
    self.init(
      function: record.function, dictionary: typed(record.dictionary), changes: record.changes.map(typed),
      status: record.status)
  }
}

/// Records every SecItem call made inside `body` on this task, by the DSL or by raw code: what the
/// equivalence tests compare. The runtime's recorder observes both at the same boundary.
public func recordingKeychainCalls<T>(_ body: () throws -> T) rethrows -> (result: T, calls: [KeychainCall]) {
  let (result, records) = try withSecItemCallRecording(body)
  return (result, records.map(KeychainCall.init))
}

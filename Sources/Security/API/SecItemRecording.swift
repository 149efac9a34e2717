import Foundation

/// The SecItem functions a recording can name, by their C names (`rawValue`).
///
/// Public for the typed `Keychain` module, whose recorded calls (`KeychainCall`) name their
/// function with it (as `KeychainFunction`): one enum for both sides of the equivalence proof.
public enum SecItemFunction: String, Sendable, CaseIterable {
  /// `SecItemAdd`.
  case add = "SecItemAdd"
  /// `SecItemCopyMatching`.
  case copyMatching = "SecItemCopyMatching"
  /// `SecItemUpdate`.
  case update = "SecItemUpdate"
  /// `SecItemDelete`.
  case delete = "SecItemDelete"
  /// The runtime's one-transaction update-or-add.
  case upsert = "SecItemUpsert"
  /// The runtime's one-transaction import.
  case importItems = "SecItemImport"
}

/// One SecItem call as a caller made it: which function, its dictionaries and the status.
///
/// For the equivalence tests: raw code and the typed API are observed at the same boundary.
package struct SecItemCallRecord: @unchecked Sendable, CustomStringConvertible {
  // The dictionaries are immutable copies; @unchecked for their Foundation type.
  /// The function called.
  public let function: SecItemFunction
  /// The attributes (add) or query (the others).
  public let dictionary: NSDictionary
  /// attributesToUpdate, for update and upsert.
  public let changes: NSDictionary?
  /// What the call returned.
  public let status: OSStatus

  /// The function and status.
  public var description: String { "\(function.rawValue) -> \(status)" }
}

final class SecItemCallRecorder: @unchecked Sendable {
  // Appended to only by the task that installed it.
  var records: [SecItemCallRecord] = []
  @TaskLocal static var current: SecItemCallRecorder?

  /// Records a call when a recorder is installed; the dictionaries are built only then.
  static func record(
    _ function: SecItemFunction, _ dictionary: () -> NSDictionary, _ changes: () -> NSDictionary?,
    _ status: OSStatus
  ) {
    guard let recorder = current else { return }
    recorder.records.append(
      SecItemCallRecord(
        function: function, dictionary: dictionary().copy() as! NSDictionary,
        changes: changes().map { $0.copy() as! NSDictionary }, status: status))
  }
}

/// Runs `body` and returns every SecItem call it made on this task, in order.
package func withSecItemCallRecording<T>(_ body: () throws -> T) rethrows -> (result: T, calls: [SecItemCallRecord]) {
  let recorder = SecItemCallRecorder()
  let result = try SecItemCallRecorder.$current.withValue(recorder, operation: body)
  return (result, recorder.records)
}

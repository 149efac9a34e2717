import Foundation

/// A store that cannot be opened, or a backup of one that cannot be made or restored, with the
/// reason in words (never a secret).
public struct KeychainStoreError: Error, Equatable, CustomStringConvertible, LocalizedError {
  /// The errSec code SecItem calls report for this failure.
  public let status: OSStatus
  /// What went wrong, naming the file where it applies.
  public let message: String

  /// Creates an error with a status and a message.
  package init(status: OSStatus, message: String) {
    self.status = status
    self.message = message
  }

  /// A readable description of the failure.
  public var description: String { "\(message) (OSStatus \(status))" }

  /// The message, for `localizedDescription` and the alerts and logs that read it.
  public var errorDescription: String? { message }
}

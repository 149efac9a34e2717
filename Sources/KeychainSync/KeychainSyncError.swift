import Foundation
import Security

/// Why a sync operation failed: an OSStatus, as the SecItem calls report, and a sentence naming the
/// cause (never a secret, a passphrase or an attribute value).
public struct KeychainSyncError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
  /// The status: errSecNotAvailable when the server cannot be reached, errSecAuthFailed for a wrong
  /// passphrase, errSecParam for a bad argument, errSecNoSuchKeychain when the store is in no group
  /// (or the server holds no such group), errSecInteractionNotAllowed while the store is locked.
  public let status: OSStatus
  /// What went wrong, in one sentence.
  public let message: String

  /// Makes an error with a status and its explanation.
  public init(status: OSStatus, message: String) {
    self.status = status
    self.message = message
  }

  /// The message, for `localizedDescription` and the alerts and logs that read it.
  public var errorDescription: String? { message }

  init(_ status: SecStatus, _ context: String) {
    let reason = status.detail ?? secMessage(for: status.code)
    self.init(status: status.code, message: "\(context): \(reason)")
  }

  /// The message and the status code.
  public var description: String { "\(message) (OSStatus \(status))" }
}

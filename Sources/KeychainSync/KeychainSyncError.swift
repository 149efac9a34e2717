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
    var reason = status.detail ?? secMessage(for: status.code)
    // The store's statuses say "Sync: ..." to tell them from its other failures; the context here
    // already says it.
    if reason.hasPrefix("Sync: ") { reason = String(reason.dropFirst("Sync: ".count)) }
    self.init(status: status.code, message: "\(context): \(reason)")
  }

  /// The message and the status code.
  public var description: String { "\(message) (OSStatus \(status))" }

  /// Where a sync server's password may come from, said when the server asks for one.
  public static let serverPasswordSources =
    "give it in the URL (postgres://USER:PASSWORD@host/db), in PGPASSWORD, or in ~/.pgpass, as psql takes it."

  /// Whether the server asked for a password the URL, the environment and the password file did not
  /// give: a program that can ask its user may ask and try again.
  public var asksForServerPassword: Bool { message.hasSuffix(Self.serverPasswordSources) }
}

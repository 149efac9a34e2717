import Foundation
import LocalAuthentication
import Security
import Testing

/// A passphrase store in a private directory, whose prompts go to a scripted askpass helper that
/// logs each prompt it is shown: the user of these tests.
final class AuthenticationFixture {
  /// What the scripted user does when asked.
  enum User {
    /// Types this.
    case answers(String)
    /// Presses Cancel (the helper exits 1, as ssh-askpass does).
    case cancels
    /// The helper crashes (SIGSEGV).
    case crashes
    /// Never answers.
    case hangs
    /// Runs these shell commands (the prompt is "$1").
    case runs(String)
  }

  static let passphrase = "correct horse battery staple"

  let directory: URL
  let store: KeychainStore
  private let log: URL

  init(passphrase: String? = AuthenticationFixture.passphrase, user: User = .answers(passphrase)) throws {
    var template = Array(FileManager.default.temporaryDirectory.appendingPathComponent("la-XXXXXX").path.utf8CString)
    guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
    directory = URL(fileURLWithPath: String(cString: made), isDirectory: true)
    log = directory.appendingPathComponent("prompts.log")
    store = try KeychainStore(directory: directory.appendingPathComponent("store"), passphrase: passphrase)
    try use(user)
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  /// Writes the helper for `user` and makes the store's prompts use it, waiting `timeout`.
  func use(_ user: User, timeout: Duration = .seconds(20), now: @escaping @Sendable () -> Date = Date.init) throws {
    let helper = try Self.writeHelper(user, in: directory, log: log)
    store.authenticator = PassphraseAuthenticator(
      storage: store.storage!, ledger: FailedAttemptLedger(directory: store.directory, now: now),
      prompt: PassphrasePrompt(helper: helper, timeout: timeout))
  }

  /// An askpass helper acting as `user`, logging each prompt to `log`; returns its path.
  static func writeHelper(_ user: User, in directory: URL, log: URL) throws -> String {
    let action: String
    switch user {
    case .answers(let text): action = "printf '%s\\n' '\(text)'"
    case .cancels: action = "exit 1"
    case .crashes: action = "kill -SEGV $$"
    case .hangs: action = "exec sleep 60"
    case .runs(let commands): action = commands
    }
    let path = directory.appendingPathComponent("askpass-\(UUID().uuidString)").path
    try "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(log.path)'\n\(action)\n".write(
      toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o700)
    return path
  }

  /// The prompts the helper was shown, in order.
  var prompts: [String] {
    ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// Runs `body` with SecItem calls and LAContexts on this store.
  func run<T>(_ body: () throws -> T) rethrows -> T {
    try withKeychainContext(store: store, accessGroups: ["la-tests"], body)
  }

  /// The async form of `run`.
  func run<T>(_ body: () async throws -> T) async rethrows -> T {
    try await withKeychainContext(store: store, accessGroups: ["la-tests"], body)
  }
}

/// A generic password's query.
func tokenQuery(_ account: String = "token", _ extra: [String: Any] = [:]) -> [String: Any] {
  [
    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "com.example.la",
    kSecAttrAccount as String: account,
  ].merging(extra) { $1 }
}

/// Adds a token protected by `flags`.
@discardableResult
func addToken(
  _ account: String = "token", _ flags: SecAccessControlCreateFlags = .userPresence, _ extra: [String: Any] = [:]
)
  -> OSStatus
{
  let control = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, nil)!
  return SecItemAdd(
    tokenQuery(
      account,
      [kSecAttrAccessControl as String: control, kSecValueData as String: Data("secret-\(account)".utf8)].merging(
        extra
      ) { $1 }) as CFDictionary, nil)
}

/// Reads a token's data.
func readToken(_ account: String = "token", _ extra: [String: Any] = [:]) -> (OSStatus, String?) {
  var result: CFTypeRef?
  let status = SecItemCopyMatching(
    tokenQuery(account, [kSecReturnData as String: true].merging(extra) { $1 }) as CFDictionary, &result)
  return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
}

/// Reads the token `account`, sealed under the application password `password`, with a context
/// holding that password (it opens), one holding another (errSecAuthFailed) and a call that may not
/// ask (errSecInteractionNotAllowed). Returns the context that opened it.
@discardableResult
func expectOnlyItsPasswordOpens(_ account: String, password: String) -> LAContext {
  let right = LAContext()
  right.setCredential(Data(password.utf8), type: .applicationPassword)
  #expect(readToken(account, [kSecUseAuthenticationContext as String: right]) == (errSecSuccess, "secret-\(account)"))
  let wrong = LAContext()
  wrong.setCredential(Data("guess".utf8), type: .applicationPassword)
  #expect(readToken(account, [kSecUseAuthenticationContext as String: wrong]) == (errSecAuthFailed, nil))
  #expect(
    readToken(account, [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]).0
      == errSecInteractionNotAllowed)
  return right
}

/// Evaluates `.deviceOwnerAuthentication` on `context` and waits for the reply.
func evaluate(_ context: LAContext, reason: String = "unlock the token") -> LAError? {
  let semaphore = DispatchSemaphore(value: 0)
  let outcome = OutcomeBox()
  context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: reason) { success, error in
    outcome.set(
      success ? nil : (error as? LAError ?? LAError(.authenticationFailed, message: "\(String(describing: error))")))
    semaphore.signal()
  }
  semaphore.wait()
  return outcome.value
}

/// The reply of an evaluation, handed from its thread to the test's.
final class OutcomeBox: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: LAError?
  func set(_ error: LAError?) { lock.withLock { stored = error } }
  var value: LAError? { lock.withLock { stored } }
}

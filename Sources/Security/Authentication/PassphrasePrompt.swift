import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What asking the user gave.
package enum PromptAnswer: Sendable, Equatable {
  /// The user typed this (its bytes; the caller wipes them).
  case answered([UInt8])
  /// The user declined: the helper exited with a failure status (as ssh-askpass does on Cancel),
  /// or the terminal got end of input or Ctrl-C.
  case canceled
  /// No answer came within the prompt's timeout; the helper was killed.
  case timedOut
  /// The helper could not be run, crashed, or answered something no passphrase is.
  case failed(String)
}

/// How this process asks its user for a passphrase, in the order `sudo` and `ssh` use: a helper
/// program named by `KEYCHAIN_BRIDGE_ASKPASS` (the `SSH_ASKPASS` convention: the prompt is its one
/// argument, the answer its standard output; or one of GnuPG's `pinentry` programs, whose name
/// starts with `pinentry`, spoken to in its own protocol), else the controlling terminal, without
/// echo.
///
/// The helper comes first when it is set, because setting it says where the user is (a desktop
/// dialog, or a test suite's scripted answer) even when the process also has a terminal.
package struct PassphrasePrompt: Sendable {
  /// Where a prompt goes.
  package enum Channel: Sendable, Equatable {
    /// An askpass program, by absolute path.
    case helper(String)
    /// A pinentry program (GnuPG's prompts: pinentry-gnome3, -qt, -curses, -tty), by absolute path.
    case pinentry(String)
    /// The controlling terminal (`/dev/tty`).
    case terminal
  }

  /// The longest answer read: a passphrase is far shorter, and a helper that writes without end
  /// must not make this process hold it all.
  package static let answerLimit = 4096

  /// How long a prompt waits for its answer.
  package let timeout: Duration
  /// The helper, when one is configured.
  package let helper: String?
  /// Why the configured helper cannot be used (not found, not executable), when it cannot.
  package let helperProblem: String?

  /// A prompt that uses `helper` (nil: the terminal only), waiting `timeout` for an answer.
  package init(helper: String?, timeout: Duration = .seconds(60)) {
    self.timeout = timeout
    guard let helper, !helper.isEmpty else {
      self.helper = nil
      helperProblem = nil
      return
    }
    switch Self.resolve(helper) {
    case .success(let path):
      self.helper = path
      helperProblem = nil
    case .failure(let problem):
      self.helper = nil
      helperProblem = problem.reason
    }
  }

  /// The prompt this process's environment describes: `KEYCHAIN_BRIDGE_ASKPASS`, and
  /// `KEYCHAIN_BRIDGE_ASKPASS_TIMEOUT` (whole seconds, 1 to 3600; 60 when unset or out of range).
  package static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
    -> PassphrasePrompt
  {
    let seconds = environment["KEYCHAIN_BRIDGE_ASKPASS_TIMEOUT"].flatMap(Int.init).flatMap {
      (1...3600).contains($0) ? $0 : nil
    }
    return PassphrasePrompt(helper: environment["KEYCHAIN_BRIDGE_ASKPASS"], timeout: .seconds(seconds ?? 60))
  }

  /// The channel a prompt would use now, or nil when the user cannot be asked (no helper and no
  /// controlling terminal), with the reason.
  package func channel() -> Result<Channel, PromptUnavailable> {
    if let helper {
      let name = helper.split(separator: "/").last ?? ""
      return .success(name.hasPrefix("pinentry") ? .pinentry(helper) : .helper(helper))
    }
    if let helperProblem { return .failure(PromptUnavailable(reason: helperProblem)) }
    if let unavailable = TerminalPrompt(timeout: timeout).unavailability() { return .failure(unavailable) }
    return .success(.terminal)
  }

  /// The prompter the channel names: an askpass helper, a pinentry program or the terminal, each
  /// a `PromptService` of its own that a front end may also use directly.
  package func prompter() -> Result<any PromptService, PromptUnavailable> {
    switch channel() {
    case .success(.helper(let path)): .success(AskpassHelper(path: path, timeout: timeout))
    case .success(.pinentry(let path)): .success(PinentryProgram(path: path, timeout: timeout))
    case .success(.terminal): .success(TerminalPrompt(timeout: timeout))
    case .failure(let unavailable): .failure(unavailable)
    }
  }

  /// Asks the user through the prompter, showing `text`; `completion` runs once, later, on the
  /// prompt thread. No thread waits for the answer.
  package func ask(_ text: String, completion: @escaping @Sendable (PromptAnswer) -> Void) {
    switch prompter() {
    case .success(let prompter): prompter.ask(text, completion: completion)
    case .failure(let unavailable): completion(.failed(unavailable.reason))
    }
  }

  /// Asks the user to allow or refuse what `text` says; `completion` gets true only when they
  /// allowed it. An askpass helper runs in its confirmation mode (`SSH_ASKPASS_PROMPT=confirm`, as
  /// OpenSSH asks: exit status 0 allows), pinentry shows a confirmation, the terminal asks for yes.
  package func confirm(_ text: String, completion: @escaping @Sendable (Bool) -> Void) {
    switch prompter() {
    case .success(let prompter): prompter.confirm(text, completion: completion)
    case .failure: completion(false)
    }
  }

  /// `name` as a program path: itself when it names a path, else the first executable of that name
  /// in PATH's absolute folders (a relative folder would run whatever the working directory holds).
  static func resolve(_ name: String) -> Result<String, PromptUnavailable> {
    if name.contains("/") {
      guard access(name, X_OK) == 0 else {
        return .failure(PromptUnavailable(reason: "KEYCHAIN_BRIDGE_ASKPASS names \(name), which is not executable"))
      }
      return .success(name)
    }
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").filter { $0.hasPrefix("/") }
    for folder in folders where access("\(folder)/\(name)", X_OK) == 0 {
      return .success("\(folder)/\(name)")
    }
    return .failure(
      PromptUnavailable(reason: "KEYCHAIN_BRIDGE_ASKPASS names \(name), which no absolute folder of PATH holds"))
  }
}

/// Why no prompt can be shown.
package struct PromptUnavailable: Error, Sendable, Equatable {
  /// In words.
  package let reason: String
}

import Foundation
import Security

/// A prompt an Unlock returned: who may show it, what it unlocks, and what it asks the user, in
/// order: the store's passphrase when the store is locked, then whether the program may use the
/// items the policy makes it ask for.
struct PendingPrompt {
  let sender: String
  /// The objects the Unlock named: what Completed reports unlocked.
  let objects: [String]
  /// Who proves the user for the store's passphrase.
  let authenticator: any UserAuthenticating
  /// The program asking, and the items (path and label) the user is asked to let it use.
  let executable: String
  let confirmations: [(path: String, label: String)]
  var shown = false
  /// What the prompt does once the store is unlocked and the user allowed what was asked (a
  /// CreateItem that found the store locked makes the item then): its result is what Completed
  /// carries. nil: Completed carries `objects`.
  var action: (() throws(BusError) -> BusValue)?
  /// A yes-or-no question asked instead of the items' confirmations (deleting a collection whose
  /// first accesses the policy confirms): the action runs only on a yes.
  var question: String?
}

/// A secret a call keeps until its prompt completes (CreateItem on a locked store): wiped when
/// the prompt is done with it, whether it completed, was dismissed or its client left.
final class PendingSecret {
  var bytes: [UInt8]

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  deinit { Secrets.wipe(&bytes) }
}

/// Service.Unlock and the Prompt objects.
extension SecretServiceObjects {
  static let promptPrefix = "/org/freedesktop/secrets/prompt/"
  /// At most this many prompts wait at once, every client counted.
  static let maximumPrompts = 64
  /// At most this many of them for one program, so that one program cannot use up every
  /// other's (issue 63).
  static let maximumPromptsPerProgram = 8

  /// Refuses a new prompt for `caller` when the service or its program has as many waiting as
  /// it may.
  func checkPromptRoom(for caller: SecretCaller) throws(BusError) {
    guard prompts.count < Self.maximumPrompts else { throw .failed("Too many prompts are waiting.") }
    guard prompts.values.lazy.filter({ $0.executable == caller.executable }).count < Self.maximumPromptsPerProgram
    else { throw .failed("This program has too many prompts waiting: complete or dismiss them first.") }
  }

  /// Service.Unlock: what is unlocked already, and a prompt for the rest (the store's passphrase,
  /// or the user's leave for this program to use items the policy confirms).
  func unlock(_ objects: [String], for caller: SecretCaller) throws(BusError) -> [BusValue] {
    if service.store.isLocked && !service.store.hasPassphrase {
      // A key-file store's lock asks nothing of the user: its key file gives the keys back.
      do throws(SecStatus) {
        try service.storage.unlock(passphrase: nil)
      } catch {
        throw SecretItems.busError(error)
      }
    }
    var confirmations: [(path: String, label: String)] = []
    var unlocked: [String] = []
    // Whether an object asked for is in the store, locked: the prompt then asks for its passphrase.
    var needsPassphrase = false
    for path in objects.prefix(BusMessageReader.maximumElements) {
      guard let collection = try? access.collection(at: path, for: caller) else { continue }
      if path != collection.path, access.needsConfirmation(path, in: collection, for: caller) {
        let label = (try? items(in: collection, for: caller).item(at: path).label) ?? ""
        confirmations.append((path, label))
      } else if !access.isLocked(collection) {
        unlocked.append(path)
      } else {
        needsPassphrase = true
      }
    }
    guard needsPassphrase || !confirmations.isEmpty else { return [.objectPaths(unlocked), .objectPath("/")] }
    try checkPromptRoom(for: caller)
    let path = Self.promptPrefix + "u\(nextPrompt)"
    nextPrompt += 1
    prompts[path] = PendingPrompt(
      sender: caller.sender, objects: objects, authenticator: caller.engine.authenticator,
      executable: caller.executable, confirmations: confirmations)
    return [.objectPaths(unlocked), .objectPath(path)]
  }

  /// Prompt.Prompt asks the user through the prompt service, which answers later: the prompt
  /// completes then, with the Completed signal. Prompt.Dismiss completes it dismissed.
  func promptMethod(_ call: BusCall) throws(BusError) -> [BusValue] {
    guard var prompt = prompts[call.path], prompt.sender == call.caller.sender else {
      throw .noSuchObject("No prompt at \(call.path) for this client.")
    }
    switch (call.interface, call.member) {
    case ("org.freedesktop.Secret.Prompt", "Prompt"):
      _ = try call.arguments.string()  // the window to show it over: no window here
      guard !prompt.shown else { return [] }
      prompt.shown = true
      prompts[call.path] = prompt
      let path = call.path
      guard service.store.isLocked else {
        confirm(path)
        return []
      }
      prompt.authenticator.authenticateUser(reason: "unlock the keyring", caller: "", reuse: 0) { [self] failure in
        onBusThread {
          if failure == nil && !self.service.store.isLocked {
            self.confirm(path)
          } else {
            self.complete(path, dismissed: true)
          }
        }
      }
      return []
    case ("org.freedesktop.Secret.Prompt", "Dismiss"):
      complete(call.path, dismissed: true)
      return []
    default:
      throw .unknownMethod("A prompt has the methods Prompt and Dismiss.")
    }
  }

  /// A prompt for `caller` that asks `question` and, on a yes, runs `action` (whose result
  /// Completed carries): for a call the policy makes the user confirm.
  func promptToConfirm(
    _ question: String, for caller: SecretCaller, then action: @escaping () throws(BusError) -> BusValue
  ) throws(BusError) -> String {
    let path = try promptToUnlock(for: caller, then: action)
    prompts[path]?.question = question
    return path
  }

  /// The prompt's second step: asks whether the program may use the items the policy confirms
  /// (or the prompt's own question), remembers a yes, and completes.
  private func confirm(_ path: String) {
    guard let prompt = prompts[path] else { return }
    if let question = prompt.question {
      prompter.confirm(question) { [self] allowed in
        onBusThread { self.complete(path, dismissed: !allowed) }
      }
      return
    }
    // Items the user allowed meanwhile (another prompt) need no question.
    let asked = prompt.confirmations.filter { !approvals.allows(prompt.executable, $0.path) }
    guard !asked.isEmpty else { return complete(path, dismissed: false) }
    // Labels and paths are the programs' words: shown on one line, without control or format
    // characters and cut short (as a SecItem reason is), so no label can clear the terminal or
    // add a line that names another program (issue 63).
    let labels =
      asked.prefix(5).map { "“\(PassphraseAuthenticator.programWords($0.label))”" }.joined(separator: ", ")
      + (asked.count > 5 ? " and more" : "")
    let text =
      "\(PassphraseAuthenticator.programWords(prompt.executable)) wants to use \(asked.count == 1 ? "the keyring item" : "the keyring items") \(labels). Allow it from now on?"
    let executable = prompt.executable
    let paths = asked.map(\.path)
    prompter.confirm(text) { [self] allowed in
      onBusThread {
        var remembered = allowed
        if allowed {
          do throws(BusError) {
            try self.approvals.allow(executable, paths)
          } catch {
            self.service.logger.error("could not remember an access the user allowed: \(error.message)")
            remembered = false
          }
        }
        self.complete(path, dismissed: !remembered)
      }
    }
  }

  /// A prompt for `caller` that unlocks the store, then runs `action` (whose result Completed
  /// carries): a call that needs the store unlocked answers with it instead of IsLocked, as the
  /// specification lets CreateItem do.
  func promptToUnlock(for caller: SecretCaller, then action: @escaping () throws(BusError) -> BusValue)
    throws(BusError) -> String
  {
    try checkPromptRoom(for: caller)
    let path = Self.promptPrefix + "u\(nextPrompt)"
    nextPrompt += 1
    prompts[path] = PendingPrompt(
      sender: caller.sender, objects: [], authenticator: caller.engine.authenticator, executable: caller.executable,
      confirmations: [], action: action)
    return path
  }

  /// Ends a prompt with its Completed signal: what it unlocked (or its action's result), or
  /// dismissed.
  func complete(_ path: String, dismissed: Bool) {
    guard let prompt = prompts.removeValue(forKey: path) else { return }
    var failed = dismissed || service.store.isLocked
    var result = BusValue.objectPaths(failed ? [] : prompt.objects)
    if !failed, let action = prompt.action {
      do throws(BusError) {
        result = try action()
      } catch {
        service.logger.warning("a prompt's call failed once the keyring was unlocked: \(error.message)")
        failed = true
        result = .string("")
      }
    }
    emit(
      BusSignal(
        path: path, interface: "org.freedesktop.Secret.Prompt", member: "Completed",
        values: [.boolean(failed), .variant(result)]))
    for signal in takeSignals() { emit(signal) }
  }
}

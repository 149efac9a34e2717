import Foundation
import Synchronization

/// Warnings about calls that succeed as Apple's do but leave the program with something it cannot
/// use: written once per distinct sentence to standard error (a keychaind serving the call writes
/// them to its log), or to a test's recorder.
///
/// Apple's keychain stores such items silently; a program brought from Apple's platforms to Linux
/// meets these cases for the first time here, so a sentence at the call says what to change.
package enum KeychainWarnings {
  /// Where a test collects the warnings of its calls instead of standard error.
  @TaskLocal package static var recorder: Recorder?

  /// A test's list of warnings.
  package final class Recorder: Sendable {
    private let warnings = Mutex<[String]>([])

    package init() {}

    /// The warnings recorded so far, in order.
    package var recorded: [String] { warnings.withLock { $0 } }

    fileprivate func record(_ warning: String) { warnings.withLock { $0.append(warning) } }
  }

  private static let written = Mutex<Set<String>>([])

  /// Warns once per process with `sentence` (no secret is ever part of one).
  package static func warn(_ sentence: String) {
    if let recorder {
      recorder.record(sentence)
      return
    }
    guard written.withLock({ $0.insert(sentence).inserted }) else { return }
    FileHandle.standardError.write(Data("KeychainBridge warning: \(sentence)\n".utf8))
  }
}

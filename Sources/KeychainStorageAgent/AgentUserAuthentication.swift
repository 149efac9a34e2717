import Foundation
import KeychainAgentWire
import Security

/// In agent mode the agent proves the user (issue 32): it shows the prompt (its own askpass
/// helper), checks the answer against the store it holds and counts failures beside it, so the
/// passphrase never passes through this process. A proof also opens this connection to the
/// secrets of items that ask for the user: the agent hands them to no connection before.
extension AgentClient {
  package func authenticateUser(reason: String, caller: String, reuse: TimeInterval)
    throws(UserAuthenticationFailure)
  {
    var reader: WireReader
    do {
      reader = try call(.authenticateUser) { writer in
        writer.string(reason)
        writer.int(reuse.isFinite ? Int((min(max(reuse, 0), maximumReuse) * 1000).rounded()) : 0)
      }
    } catch {
      throw .systemCanceled("The keychain agent could not be asked: \(error.detail ?? error.description)")
    }
    let failure: (code: Int, message: String)?
    do throws(SecStatus) {
      failure = try reader.flag() ? (Int(try reader.int64()), try reader.string()) : nil
    } catch {
      throw .systemCanceled("The keychain agent's answer could not be read: \(error.detail ?? error.description)")
    }
    guard let failure else { return }
    throw UserAuthenticationFailure(laErrorCode: failure.code, message: failure.message)
      ?? .failed("The keychain agent answered an unknown failure (\(failure.code)): \(failure.message)")
  }

  /// An application password is the application's secret, needed in this process to open the
  /// item: it is asked for here, through this process's prompt.
  package func askApplicationPassword(_ text: String) throws(UserAuthenticationFailure) -> [UInt8] {
    try PassphrasePrompt.fromEnvironment().answer(text)
  }
}

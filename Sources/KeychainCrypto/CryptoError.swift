internal import COpenSSL

/// A libcrypto failure, named by what failed. Every primitive of this module throws one of these
/// instead of returning zeros or a flag, so a caller can tell a forged ciphertext from a broken
/// library; each layer above maps it to its own status (the store to an errSec code, the key
/// engine to a key-operation failure).
package enum CryptoError: Error, Equatable, CustomStringConvertible {
  /// The ciphertext, nonce, tag, key or associated data do not belong together.
  case authenticationFailed
  /// The random generator could not produce bytes.
  case randomGeneratorFailed
  /// libcrypto could not allocate a context for `operation`.
  case outOfMemory(operation: String)
  /// An input is longer than libcrypto's `int` lengths allow.
  case inputTooLarge(operation: String, count: Int)
  /// An argument the operation cannot take (a key of the wrong size, an empty nonce, an unknown
  /// digest), described without its value.
  case invalidParameter(String)
  /// A libcrypto call failed: which one, and the reason libcrypto queued for it.
  case callFailed(function: String, reason: String)

  /// A sentence naming the failure; never a key, a secret or a plaintext.
  package var description: String {
    switch self {
    case .authenticationFailed: "the data failed authentication"
    case .randomGeneratorFailed: "the random generator failed"
    case .outOfMemory(let operation): "libcrypto could not allocate memory for \(operation)"
    case .inputTooLarge(let operation, let count): "\(count) bytes are too many for \(operation)"
    case .invalidParameter(let what): what
    case .callFailed(let function, let reason): "\(function) failed: \(reason)"
    }
  }

  /// The failure of `function`, with the reason at the head of libcrypto's error queue (which is
  /// then emptied, so that it cannot be mistaken for a later call's). The one formatter of
  /// libcrypto's error queue in the package.
  package static func failure(of function: String) -> CryptoError {
    .callFailed(function: function, reason: LibcryptoErrorQueue.takeReason() ?? "no reason given")
  }
}

/// libcrypto's per-thread error queue.
package enum LibcryptoErrorQueue {
  /// The reason at the head of the queue, or nil when it is empty; the queue is emptied either way.
  package static func takeReason() -> String? {
    let code = ERR_get_error()
    ERR_clear_error()
    guard code != 0 else { return nil }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Empties the queue after a failure that is an expected outcome (a tag that does not verify).
  package static func clear() { ERR_clear_error() }
}

/// Succeeds when a libcrypto call returned 1 (its success value), else throws its failure.
func check(_ result: Int32, _ function: String) throws(CryptoError) {
  guard result == 1 else { throw CryptoError.failure(of: function) }
}

/// `count` as libcrypto's `int` length.
func cLength(_ count: Int, for operation: String) throws(CryptoError) -> Int32 {
  guard let length = Int32(exactly: count) else { throw .inputTooLarge(operation: operation, count: count) }
  return length
}

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Passwords and passphrases read from standard input: bytes, bounded, and refused unless they
/// are UTF-8 text, as command-line arguments are.
///
/// Foundation's `readLine` replaces invalid bytes with U+FFFD (so `x\xff` and `x\xfe` became the
/// same password) and reads a line of any length into memory; this reads at most `limit` bytes.
package enum StandardInput {
  /// The longest line taken: far above any password or passphrase, far below what costs memory.
  package static let limit = 64 * 1024

  /// Why a line of standard input was refused.
  package enum Refusal: Error, Equatable {
    case tooLong
    case notUTF8
    case empty

    /// What the tool says, for `what` ("the password", "the passphrase").
    package func message(_ what: String) -> String {
      switch self {
      case .tooLong: "\(what) on standard input is longer than \(StandardInput.limit) bytes; it was refused."
      case .notUTF8:
        "\(what) on standard input is not valid UTF-8; it is taken as UTF-8 text only, so it was refused rather than changed."
      case .empty: "\(what) is empty; nothing was stored."
      }
    }
  }

  /// One line of standard input without its line ending (a final line needs none); `.empty` when
  /// there is no input or the line is empty.
  package static func line() throws(Refusal) -> String {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = read(STDIN_FILENO, &byte, 1)
      if count < 0 && errno == EINTR { continue }
      if count <= 0 || byte == UInt8(ascii: "\n") { break }
      guard bytes.count < limit else {
        wipe(&bytes)
        throw .tooLong
      }
      bytes.append(byte)
    }
    if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    defer { wipe(&bytes) }
    guard !bytes.isEmpty else { throw .empty }
    guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
    return text
  }

  /// `line()`, or the tool's exit 64 (as for an argument that is not UTF-8) with the reason.
  package static func lineOrExit(_ what: String) -> String {
    do throws(Refusal) {
      return try line()
    } catch {
      refuse(error, what)
    }
  }

  /// Ends the tool with exit 64 and the reason `refusal` gives.
  package static func refuse(_ refusal: Refusal, _ what: String) -> Never {
    FileHandle.standardError.write(Data("security: \(refusal.message(what))\n".utf8))
    exit(64)
  }

  /// Overwrites bytes that held a secret before they are freed (explicit_bzero: a store the
  /// optimizer may not drop).
  private static func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
      if let base = buffer.baseAddress { explicit_bzero(base, buffer.count) }
    }
    bytes.removeAll()
  }
}

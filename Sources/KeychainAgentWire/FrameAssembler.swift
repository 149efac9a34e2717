import CKeychainAgent
import Foundation
import Security

#if canImport(Glibc)
  import Glibc
#endif

/// One frame read from a non-blocking socket as its bytes arrive, for a server that waits on many
/// connections at once (the agent's event loop): each call reads what has arrived and never
/// waits, so a client that sends half a frame holds no thread, only these bytes.
///
/// The agent's frames (the default) have a little-endian length and every byte must come from the
/// process `sender` (SO_PASSCRED on, see `FrameSocket.passCredentials`); OpenSSH's agent messages
/// (`sshAgentMessages`) have a big-endian length, at most 256 KiB, and any sender. The body's bytes are counted against `budget` as they arrive,
/// as `FrameSocket.receive` counts them: the caller releases a finished frame's count with
/// `FrameBudget.release(frame.count)` once done, and `discard` releases an unfinished one's.
package struct FrameAssembler: Sendable {
  private var header = [UInt8](repeating: 0, count: 4)
  private var headerFilled = 0
  private var body: [UInt8] = []
  private var length = 0
  private var filled = 0
  /// The body bytes reserved in the budget so far.
  private var counted = 0
  /// Whether the length is sent most significant byte first.
  private let bigEndian: Bool
  /// The longest body a header may announce.
  private let maximumLength: Int

  /// What a read gave.
  package enum Progress: Sendable {
    /// A whole frame's body.
    case frame([UInt8])
    /// Nothing more has arrived yet.
    case waiting
    /// The peer closed the connection between two frames.
    case closed
  }

  /// An assembler of the agent's frames.
  package init() {
    bigEndian = false
    maximumLength = AgentFrame.maximumFrameLength
  }

  /// An assembler of OpenSSH's agent messages (draft-miller-ssh-agent §3): a 32-bit big-endian
  /// length, then at most `maximumLength` bytes (OpenSSH's own bound is 256 KiB).
  package static func sshAgentMessages(maximumLength: Int) -> FrameAssembler {
    FrameAssembler(bigEndian: true, maximumLength: maximumLength)
  }

  private init(bigEndian: Bool, maximumLength: Int) {
    self.bigEndian = bigEndian
    self.maximumLength = maximumLength
  }

  /// Whether no byte of a next frame has arrived.
  package var isBetweenFrames: Bool { headerFilled == 0 }

  /// Reads what has arrived on `descriptor`, without waiting: a whole frame when its last byte is
  /// in, `.waiting` when more must come, `.closed` when the peer closed between frames. Throws
  /// when the peer closed mid-frame, announced a frame longer than the protocol allows or the
  /// budget holds, or sent as another process than `sender` (any process when nil).
  package mutating func read(on descriptor: Int32, sender: Int32?, budget: FrameBudget) throws(FrameSocketError)
    -> Progress
  {
    while true {
      if headerFilled < 4 {
        guard let count = try receive(into: &header, from: headerFilled, on: descriptor, sender: sender) else {
          return .waiting
        }
        if count == 0 {
          if headerFilled == 0 { return .closed }
          throw .closed
        }
        headerFilled += count
        guard headerFilled == 4 else { continue }
        length = (bigEndian ? header : header.reversed()).reduce(0) { $0 << 8 | Int($1) }
        // Bounded before anything is allocated for it.
        guard length <= maximumLength else { throw .tooLong(length) }
        // Small frames (every lookup) are read at once; a long one grows as its bytes arrive.
        try grow(to: min(length, 64 << 10), budget: budget)
      }
      if filled == length { return .frame(finish()) }
      if filled == body.count { try grow(to: min(length, body.count * 2), budget: budget) }
      guard let count = try receive(into: &body, from: filled, on: descriptor, sender: sender) else {
        return .waiting
      }
      if count == 0 { throw .closed }
      filled += count
    }
  }

  /// Drops an unfinished frame: its bytes wiped, its count given back to `budget`.
  package mutating func discard(budget: FrameBudget) {
    budget.release(counted)
    Secrets.wipe(&body)
    self = FrameAssembler(bigEndian: bigEndian, maximumLength: maximumLength)
  }

  /// The finished body; the assembler is ready for the next frame.
  private mutating func finish() -> [UInt8] {
    let frame = body
    body = []
    headerFilled = 0
    length = 0
    filled = 0
    counted = 0
    return frame
  }

  /// The body's buffer grown to `size` bytes (reserved in the budget first), the outgrown one
  /// wiped: it may hold part of a secret.
  private mutating func grow(to size: Int, budget: FrameBudget) throws(FrameSocketError) {
    guard budget.reserve(size - counted) else { throw .overBudget(length) }
    counted = size
    var larger = [UInt8](repeating: 0, count: size)
    larger.withUnsafeMutableBytes { target in
      body.withUnsafeBytes { source in target.copyMemory(from: source) }
    }
    Secrets.wipe(&body)
    body = larger
  }

  /// recv without waiting into `buffer` from `start`: the count (0 at the end of the stream), or
  /// nil when nothing has arrived.
  private func receive(into buffer: inout [UInt8], from start: Int, on descriptor: Int32, sender: Int32?)
    throws(FrameSocketError) -> Int?
  {
    while true {
      var from: pid_t = 0
      let count = buffer.count
      let result = buffer.withUnsafeMutableBytes { bytes in
        keychain_receive_with_sender(
          descriptor, bytes.baseAddress! + start, UInt(count - start), Int32(MSG_DONTWAIT), &from)
      }
      if result > 0 {
        if let sender, from != sender { throw .otherSender(from) }
        return result
      }
      if result == 0 { return 0 }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK: return nil
      case ECONNRESET: throw .closed
      default: throw .system("recv", errno)
      }
    }
  }
}

import Foundation
import KeychainAgentWire
import Security

#if canImport(Glibc)
  import Glibc
#endif

/// A request's bytes, held in one place so that wiping them wipes the only copy: an array passed
/// between threads by value would be copied by the wipe (copy on write), leaving the original.
final class FrameBytes: @unchecked Sendable {
  // @unchecked: used by one thread at a time, the connection's owner.
  private(set) var bytes: [UInt8]

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// Overwrites the bytes with zeros where they are, even while another reference to the same
  /// storage is still alive (the reader's, for an instant after it made the frame): a wipe
  /// through `inout` would copy them first and zero the copy.
  func wipe() {
    bytes.withUnsafeBufferPointer { buffer in
      if let base = buffer.baseAddress { explicit_bzero(UnsafeMutableRawPointer(mutating: base), buffer.count) }
    }
    bytes = []
  }
}

/// One client connection, owned by one thread at a time: the epoll set while it waits there (not
/// `busy`), else the thread serving it or the prompt answering it.
final class SocketConnection: @unchecked Sendable {
  // @unchecked: `busy` changes under SocketEventLoop.connections' lock; the other mutable fields
  // are used only by the connection's owner of the moment, which that flag decides.
  let descriptor: Int32
  let peer: PeerCredentials
  /// The protocol its listening socket serves.
  let frontEnd: any SocketFrontEnd
  /// Who is calling, once identified.
  var caller: AgentCaller?
  /// The ssh-agent's view of the caller, on an ssh-agent connection.
  var sshCaller: SSHAgentCaller?
  var assembler: FrameAssembler
  /// How long its serving thread polls for the next request after an answer.
  var polling = AdaptivePoll(microseconds: AgentSocketServer.pollMicroseconds)
  /// When the last whole request came (seconds on a clock that only goes forward).
  var lastActive: UInt64
  var busy = true

  init(descriptor: Int32, peer: PeerCredentials, frontEnd: any SocketFrontEnd, assembler: FrameAssembler, now: UInt64) {
    self.descriptor = descriptor
    self.peer = peer
    self.frontEnd = frontEnd
    self.assembler = assembler
    lastActive = now
  }
}

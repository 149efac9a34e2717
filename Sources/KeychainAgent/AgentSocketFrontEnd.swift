import Foundation
import KeychainAgentWire
import Security

#if canImport(Glibc)
  import Glibc
#endif

/// The agent's own protocol on its socket (`KEYCHAIN_BRIDGE_AGENT`): a greeting once the caller is
/// identified, then requests (AgentFrame) each answered by the caller's engine in the agent
/// (`AgentService.answer`). Every byte must come from the process that connected (SCM_CREDENTIALS);
/// after an answer the serving thread polls a moment for the next request, as a program making
/// calls in a row sends it within a few tens of µs.
struct AgentSocketFrontEnd: SocketFrontEnd {
  let service: AgentService

  var closesIdleConnections: Bool { true }

  func makeAssembler() -> FrameAssembler { FrameAssembler() }

  /// Who is calling (AgentService.identify), then the greeting, once no byte has come yet: every
  /// request is sent after this reading (AgentHandshake). The connection ends, the reason counted,
  /// otherwise.
  func accepted(_ connection: SocketConnection, loop: SocketEventLoop) {
    let peer = connection.peer
    do throws(FrameSocketError) {
      try FrameSocket.passCredentials(on: connection.descriptor)
    } catch {
      return loop.end(connection, error.description)
    }
    guard let acceptedAt = ProcessInspection.ticksSinceBoot(),
      let caller = service.identify(pid: peer.pid, acceptedAt: acceptedAt)
    else { return loop.end(connection, nil) }
    do throws(FrameSocketError) {
      guard try FrameSocket.pendingBytes(on: connection.descriptor) == 0 else {
        return loop.end(connection, "a request sent before the agent greeted the connection")
      }
      try FrameSocket.send(AgentFrame.greeting, on: connection.descriptor)
    } catch {
      return loop.end(connection, error == .closed ? nil : error.description)
    }
    service.logger.debug(
      "connected",
      metadata: [
        "executable": .string(caller.executable), "groups": .string(caller.grant.groups?.joined(separator: ",") ?? "*"),
      ])
    connection.caller = caller
    loop.release(connection, adding: true)
  }

  func readable(_ connection: SocketConnection, loop: SocketEventLoop) {
    switch loop.read(connection, sender: connection.peer.pid) {
    case .frame(let body)?:
      serve(connection, FrameBytes(body), loop: loop)
    case .waiting?:
      loop.release(connection)
    case .closed?, nil:
      break
    }
  }

  /// Answers `first`, then the requests that follow at once, then arms the connection again. A
  /// request that waits for the user answers from the prompt's completion, which arms it.
  private func serve(_ connection: SocketConnection, _ first: FrameBytes, loop: SocketEventLoop) {
    guard let caller = connection.caller else { return loop.end(connection, "a request before the greeting") }
    var next: FrameBytes? = first
    while let frame = next {
      next = nil
      var answer: [UInt8]?
      do {
        // Wiped (a request may carry a secret or a passphrase) and given back to the budget once used.
        defer {
          loop.frameBudget.release(frame.bytes.count)
          frame.wipe()
        }
        guard service.isStillRunning(caller) else {
          return loop.end(connection, "the process that connected now runs another program")
        }
        loop.touch(connection)
        answer = try service.answer(frame.bytes, from: caller) { later in
          defer { Secrets.wipe(&later) }
          guard send(later, on: connection, loop: loop) else { return }
          loop.release(connection)
        }
      } catch {
        return loop.end(connection, "a malformed request: \(error.detail ?? "errSecDecode")")
      }
      // nil: the answer comes from a prompt's completion, which hands the connection back.
      guard answer != nil else { return }
      // Wiped in place: the optional holds the one reference to the bytes.
      defer { Secrets.wipe(&answer!) }
      guard send(answer!, on: connection, loop: loop) else { return }
      let budget = connection.polling.budget()
      guard budget > 0 else { break }
      let (polled, outcome) = AdaptivePoll.poll(forMicroseconds: budget) { () -> PolledFrame? in
        switch loop.read(connection, sender: connection.peer.pid) {
        case .frame(let body)?: .frame(body)
        case .waiting?: connection.assembler.isBetweenFrames ? nil : .partial
        case .closed?, nil: .ended
        }
      }
      connection.polling.record(outcome)
      switch polled {
      case .frame(let body)?: next = FrameBytes(body)
      case .ended?: return
      case .partial?, nil: break
      }
    }
    loop.release(connection)
  }

  /// What a poll for the next request found: a whole frame, the connection's end, or part of a
  /// frame (the rest is awaited in the set).
  private enum PolledFrame {
    case frame([UInt8])
    case ended
    case partial
  }

  /// Sends an answer as an agent frame; false when the connection ended (it is closed).
  private func send(_ answer: [UInt8], on connection: SocketConnection, loop: SocketEventLoop) -> Bool {
    loop.send(on: connection) { descriptor throws(FrameSocketError) in try FrameSocket.send(answer, on: descriptor) }
  }
}

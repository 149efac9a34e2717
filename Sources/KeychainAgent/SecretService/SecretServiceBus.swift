import CSystemdBus
import Foundation
import Security
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The Secret Service front end (issue 51): owns `org.freedesktop.secrets` on the session bus that
/// `DBUS_SESSION_BUS_ADDRESS` names and answers its objects' calls with each caller's engine.
///
/// A caller is identified by the bus (the process and user the bus daemon read from the caller's
/// socket when it connected: `sd_bus_query_sender_creds`), then as the agent socket identifies one
/// (`AgentService.identify`: the executable, its namespaces, whether it was started altered). A
/// caller of another user is refused. Every program of the user gets the default collection (the
/// group `KeychainAccessGroups.defaultAccessGroup`) and the collections no rule confines, as GNOME
/// Keyring gives them, so desktop programs work unchanged; a program a policy rule names gets the
/// rule's groups instead (`SecretServiceAccess.groups(for:)`).
///
/// sd-bus objects are used from one thread: `serve` runs the bus there.
package final class SecretServiceBus: @unchecked Sendable {
  // @unchecked: `bus`, `objects` and `callers` are used on the serving thread only (and set up
  // before it starts).
  static let name = "org.freedesktop.secrets"
  private var bus: OpaquePointer?
  private var slot: OpaquePointer?
  private var departures: OpaquePointer?
  private let service: AgentService
  private let objects: SecretServiceObjects
  /// Callers by unique bus name: identified once per client connection.
  private var callers: [String: AgentCaller] = [:]
  /// Connections whose process ran another program after it was identified: refused until they
  /// leave the bus.
  private var outcast: Set<String> = []
  private static let ranAnotherProgram =
    "The program on this connection has run another program since it was identified: connect again."
  /// Work other threads hand to the bus's thread (a prompt's completion), and the pipe that wakes
  /// it: sd-bus objects are used from one thread.
  private let queued = Mutex<[@Sendable () -> Void]>([])
  private var wakeRead: Int32 = -1
  /// Calls waiting for the user's proof of presence, counted by program.
  private var waitingForProof: [String: Int] = [:]
  /// Searches that came while the store was sealed, waiting for the unlock prompt's answer, with
  /// the program that sent each.
  private var waitingForUnlock: [(message: OpaquePointer, program: String)] = []
  private var wakeWrite: Int32 = -1

  /// Connects to the session bus and takes the name; fails with a sentence when the bus cannot be
  /// reached or another program owns the name (GNOME Keyring, KWallet, KeePassXC).
  package init(service: AgentService) throws(AgentStartError) {
    self.service = service
    objects = SecretServiceObjects(service: service)
    var ends: [Int32] = [-1, -1]
    // pipe2 is declared for _GNU_SOURCE only, which Swift's Glibc module does not define.
    guard pipe(&ends) == 0 else {
      throw AgentStartError("cannot make the Secret Service's wake-up pipe: \(String(cString: strerror(errno)))")
    }
    for end in ends {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, O_NONBLOCK)
    }
    (wakeRead, wakeWrite) = (ends[0], ends[1])
    var opened: OpaquePointer?
    let connected = sd_bus_open_user(&opened)
    guard connected >= 0, let opened else {
      throw AgentStartError(
        "cannot connect to the session bus (DBUS_SESSION_BUS_ADDRESS): \(String(cString: strerror(-connected)))")
    }
    bus = opened
    let requested = sd_bus_request_name(opened, Self.name, 0)
    guard requested >= 0 else {
      sd_bus_unref(opened)
      bus = nil
      throw AgentStartError(
        requested == -EEXIST
          ? "another program owns \(Self.name) on the session bus (GNOME Keyring or another keyring): stop it first"
          : "cannot own \(Self.name) on the session bus: \(String(cString: strerror(-requested)))")
    }
    let added = sd_bus_add_fallback(
      opened, &slot, SecretServiceObjects.servicePath,
      { message, context, _ in
        guard let message, let context else { return 0 }
        return Unmanaged<SecretServiceBus>.fromOpaque(context).takeUnretainedValue().handle(message)
      }, Unmanaged.passUnretained(self).toOpaque())
    guard added >= 0 else {
      throw AgentStartError("cannot serve the Secret Service's objects: \(String(cString: strerror(-added)))")
    }
    // A client that leaves the bus leaves its sessions, prompts and identity behind: without
    // this, each connection that opened a session and left would hold one of the 1,024 for good.
    let watched = sd_bus_add_match(
      opened, &departures,
      "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
        + "interface='org.freedesktop.DBus',member='NameOwnerChanged'",
      { message, context, _ in
        guard let message, let context else { return 0 }
        Unmanaged<SecretServiceBus>.fromOpaque(context).takeUnretainedValue().ownerChanged(message)
        return 0
      }, Unmanaged.passUnretained(self).toOpaque())
    guard watched >= 0 else {
      throw AgentStartError("cannot watch clients leave the bus: \(String(cString: strerror(-watched)))")
    }
    objects.onBusThread = { [unowned self] work in perform(work) }
    objects.emit = { [unowned self] signal in emit(signal) }
  }

  /// Runs `work` on the bus's thread, soon (from any thread).
  private func perform(_ work: @escaping @Sendable () -> Void) {
    queued.withLock { $0.append(work) }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  /// Emits `signal`.
  private func emit(_ signal: BusSignal) {
    var message: OpaquePointer?
    guard sd_bus_message_new_signal(bus, &message, signal.path, signal.interface, signal.member) >= 0, let message
    else { return }
    defer { sd_bus_message_unref(message) }
    let writer = BusMessageWriter(message: message)
    guard signal.values.allSatisfy({ writer.append($0) >= 0 }) else { return }
    _ = sd_bus_send(bus, message, nil)
  }

  /// Serves the bus on this thread until the connection ends.
  package func serve() {
    guard let bus else { return }
    service.logger.info("serving the Secret Service", metadata: ["name": .string(Self.name)])
    while true {
      let processed = sd_bus_process(bus, nil)
      if processed < 0 {
        service.logger.error("the session bus connection ended", metadata: ["errno": .stringConvertible(-processed)])
        return
      }
      if processed > 0 { continue }
      var drained = [UInt8](repeating: 0, count: 64)
      while read(wakeRead, &drained, drained.count) > 0 {}
      for work in queued.withLock({ work in
        defer { work = [] }; return work
      }) { work() }
      // Waits for the bus (as sd_bus_wait does, with its events and deadline) or the pipe.
      var deadline: UInt64 = 0
      var timeout: Int32 = -1
      if sd_bus_get_timeout(bus, &deadline) > 0, deadline != UInt64.max {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let current = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        timeout = deadline > current ? Int32(min((deadline - current) / 1000 + 1, 60_000)) : 0
      }
      var waiting = [
        pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0),
        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      ]
      _ = poll(&waiting, 2, timeout)
    }
  }

  /// One message for an object of ours: a method call is answered, anything else left alone. A
  /// search that finds the store sealed (a passphrase store not unlocked since the agent started:
  /// not even attributes can be read) waits for the unlock prompt when `mayWait`, and is answered
  /// after it.
  private func handle(_ message: OpaquePointer, mayWait: Bool = true) -> Int32 {
    guard sd_bus_message_is_method_call(message, nil, nil) > 0,
      let member = sd_bus_message_get_member(message).map({ String(cString: $0) }),
      let path = sd_bus_message_get_path(message).map({ String(cString: $0) })
    else { return 0 }
    let interface = sd_bus_message_get_interface(message).map { String(cString: $0) } ?? ""
    let sender = sd_bus_message_get_sender(message).map { String(cString: $0) } ?? ""
    let values: [BusValue]
    var identified: AgentCaller?
    do throws(BusError) {
      let caller = try identify(message, sender: sender)
      identified = caller
      values = try objects.answer(
        BusCall(
          path: path, interface: interface, member: member, arguments: BusMessageReader(message: message),
          caller: SecretCaller(
            engine: service.engine(
              groups: try objects.access.groups(for: caller.grant), authenticator: caller.session,
              programName: caller.programName),
            executable: caller.executable, namedByRule: caller.grant.namedByRule, sender: sender,
            interactive: !mayWait)))
    } catch
      where mayWait && error.isLocked && member == "SearchItems" && service.store.isLocked
      && service.store.hasPassphrase
    {
      guard let identified else { return reply(to: message, error: error) }
      return answerAfterUnlock(message, from: identified, refusal: error)
    } catch  where mayWait && error == .needsUser {
      guard let identified else { return reply(to: message, error: error) }
      return answerAfterProof(message, from: identified)
    } catch {
      return reply(to: message, error: error)
    }
    var reply: OpaquePointer?
    guard sd_bus_message_new_method_return(message, &reply) >= 0, let reply else { return -ENOMEM }
    defer { sd_bus_message_unref(reply) }
    let writer = BusMessageWriter(message: reply)
    for value in values where writer.append(value) < 0 {
      return self.reply(to: message, error: .failed("The answer could not be written."))
    }
    guard sd_bus_send(bus, reply, nil) >= 0 else { return -EIO }
    for signal in objects.takeSignals() { emit(signal) }
    return 1
  }

  /// Keeps `message` until the user answers the unlock prompt (one prompt for every search
  /// waiting), then answers it: found items once unlocked, `refusal` if not. The prompt runs on the
  /// prompt service's queue, so the bus serves other clients meanwhile.
  private func answerAfterUnlock(_ message: OpaquePointer, from caller: AgentCaller, refusal: BusError) -> Int32 {
    // Bounded as prompts are: in all, and for each program.
    guard waitingForUnlock.count < SecretServiceObjects.maximumPrompts,
      waitingForUnlock.lazy.filter({ $0.program == caller.executable }).count
        < SecretServiceObjects.maximumPromptsPerProgram
    else {
      return reply(to: message, error: refusal)
    }
    sd_bus_message_ref(message)
    waitingForUnlock.append((message, caller.executable))
    guard waitingForUnlock.count == 1 else { return 1 }
    caller.session.authenticate(reason: "unlock the keyring", reuse: 0) { [self] _ in
      perform { self.unlockPromptEnded() }
    }
    return 1
  }

  /// Keeps `message`, whose call reads or changes an item that asks for the user, until the user
  /// answers the prompt (asked through the caller's session, which names the program), then runs
  /// the call again, where the proof answers the engine's ask; a refusal is answered as such. The
  /// prompt runs on the prompt service's queue: a slow answer holds no other client (issue 63).
  private func answerAfterProof(_ message: OpaquePointer, from caller: AgentCaller) -> Int32 {
    guard waitingForProof.values.reduce(0, +) < SecretServiceObjects.maximumPrompts,
      waitingForProof[caller.executable, default: 0] < SecretServiceObjects.maximumPromptsPerProgram
    else {
      return reply(to: message, error: .failed("This program has too many prompts waiting."))
    }
    sd_bus_message_ref(message)
    waitingForProof[caller.executable, default: 0] += 1
    let program = caller.executable
    let pending = MessageBox(message)
    caller.session.authenticateForRetry(reason: "use a protected keyring item") { [self] failure in
      perform {
        let message = pending.message
        self.waitingForProof[program, default: 1] -= 1
        if self.waitingForProof[program] == 0 { self.waitingForProof[program] = nil }
        if failure == nil, sd_bus_message_rewind(message, 1) >= 0 {
          _ = self.handle(message, mayWait: false)
        } else {
          _ = self.reply(to: message, error: .isLocked("The user did not allow this program to use the item."))
        }
        sd_bus_message_unref(message)
      }
    }
    return 1
  }

  /// Answers the searches that waited for the unlock prompt, on the bus's thread.
  private func unlockPromptEnded() {
    let waiting = waitingForUnlock
    waitingForUnlock = []
    for (message, _) in waiting {
      // Read from its first argument again; a client that left meanwhile gets nothing.
      if sd_bus_message_rewind(message, 1) >= 0 { _ = handle(message, mayWait: false) }
      sd_bus_message_unref(message)
    }
  }

  private func reply(to message: OpaquePointer, error: BusError) -> Int32 {
    var busError = sd_bus_error()
    _ = sd_bus_error_set(&busError, error.name, error.message)
    defer { sd_bus_error_free(&busError) }
    return sd_bus_reply_method_error(message, &busError) >= 0 ? 1 : -EIO
  }

  /// NameOwnerChanged: a unique name that lost its owner is a client that left.
  private func ownerChanged(_ message: OpaquePointer) {
    let reader = BusMessageReader(message: message)
    guard let name = try? reader.string(), let _ = try? reader.string(), let owner = try? reader.string(),
      owner.isEmpty, name.hasPrefix(":")
    else { return }
    callers[name] = nil
    outcast.remove(name)
    objects.clientLeft(name)
  }

  /// The caller behind `message`, identified once per client and checked on each call.
  private func identify(_ message: OpaquePointer, sender: String) throws(BusError) -> AgentCaller {
    // A unique name is one connection of one process for its lifetime, so the bus daemon's
    // answer about it holds while that process runs the file it was identified with; asking the
    // daemon again would cost a round trip on every call. A process that ran another program
    // since is not identified again: the connection may be held by another process now (kept
    // across the exec by a child), and a bus message names no sending process, so the
    // connection is refused for good.
    if outcast.contains(sender) { throw .accessDenied(Self.ranAnotherProgram) }
    if let known = callers[sender] {
      if service.isStillRunning(known) { return known }
      callers[sender] = nil
      if outcast.count >= 4096 { outcast.removeAll() }
      outcast.insert(sender)
      service.count("a Secret Service caller that ran another program since it was identified")
      throw .accessDenied(Self.ranAnotherProgram)
    }
    var credentials: OpaquePointer?
    guard sd_bus_query_sender_creds(message, kb_bus_creds_mask(), &credentials) >= 0, let credentials else {
      throw .accessDenied("The bus did not say who is calling.")
    }
    defer { sd_bus_creds_unref(credentials) }
    var pid: pid_t = 0
    var uid: uid_t = 0
    guard sd_bus_creds_get_pid(credentials, &pid) >= 0, sd_bus_creds_get_euid(credentials, &uid) >= 0 else {
      throw .accessDenied("The bus did not say which process is calling.")
    }
    guard uid == getuid() else {
      service.count("a Secret Service caller of another user (uid \(uid))")
      throw .accessDenied("This keyring serves its own user only.")
    }
    guard let acceptedAt = ProcessInspection.ticksSinceBoot(),
      let caller = service.identify(pid: pid, acceptedAt: acceptedAt)
    else { throw .accessDenied("The calling program cannot be identified.") }
    if callers.count >= 4096 { callers.removeAll() }
    callers[sender] = caller
    return caller
  }

}

/// A bus message carried to the bus's thread by a completion (sd-bus messages are used there
/// only; the completion merely hands it back).
private final class MessageBox: @unchecked Sendable {
  let message: OpaquePointer
  init(_ message: OpaquePointer) { self.message = message }
}

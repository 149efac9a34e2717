import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The one thread that waits for every prompt of this process (issue 64): the output of askpass
/// helpers and pinentry programs, the terminal, and their timeouts, all in one `poll`. A prompt
/// waiting for its user holds no thread of its own, and the handlers of every prompt run on this
/// thread one at a time, so a prompt's state needs no lock.
///
/// Not Swift tasks: a SecItem call blocks its caller by Apple's contract, and a caller on Swift's
/// cooperative pool (as many threads as cores) waiting for a prompt that itself needs a thread of
/// that pool could wait forever on a small machine. Not Dispatch's read sources either: on this
/// toolchain a source made on a descriptor number that a cancelled source had just closed missed
/// its events every other time (a prompt timed out on alternate calls).
final class PromptIO: Sendable {
  /// The process's prompt thread, started at its first use.
  static let shared = PromptIO()

  private struct Watch {
    var descriptor: Int32?
    var deadline: ContinuousClock.Instant
    var readable: (@Sendable (Int) -> Void)?
    var expired: @Sendable (Int) -> Void
  }

  private let watches = Mutex<(next: Int, all: [Int: Watch])>((0, [:]))
  /// Written to wake the thread when a watch is added.
  private let wakeWrite: Int32
  private let wakeRead: Int32

  private init() {
    var ends: [Int32] = [-1, -1]
    // Without the pipe (no descriptor left) the thread still works: poll skips a negative
    // descriptor, and the thread then looks for new watches every 50 ms instead of being woken.
    if pipe(&ends) != 0 { ends = [-1, -1] }
    for end in ends where end >= 0 {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
    }
    wakeRead = ends[0]
    wakeWrite = ends[1]
    let thread = Thread { [self] in run() }
    thread.name = "keychain prompts"
    thread.start()
  }

  /// Calls `readable` on the prompt thread each time `descriptor` has bytes or reached its end, and
  /// `expired` once at `deadline`, each with the watch's identifier, until `stop` is called with it
  /// (a handler that ends the prompt must). The descriptor is made non-blocking, and closed when the
  /// watch stops.
  func watch(
    _ descriptor: Int32, until deadline: ContinuousClock.Instant, readable: @escaping @Sendable (Int) -> Void,
    expired: @escaping @Sendable (Int) -> Void
  ) {
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    add(Watch(descriptor: descriptor, deadline: deadline, readable: readable, expired: expired))
  }

  /// Calls `action` once on the prompt thread at `deadline`.
  func after(_ deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) {
    add(Watch(descriptor: nil, deadline: deadline, readable: nil, expired: { _ in action() }))
  }

  /// Stops the watch `id` and closes its descriptor; its handlers run no more. Call it from a
  /// handler (on the prompt thread).
  func stop(_ id: Int) {
    guard let removed = watches.withLock({ $0.all.removeValue(forKey: id) }) else { return }
    if let descriptor = removed.descriptor { close(descriptor) }
  }

  private func add(_ watch: Watch) {
    watches.withLock { state in
      state.all[state.next] = watch
      state.next += 1
    }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  private func run() {
    while true {
      let current = watches.withLock { $0.all }
      let now = ContinuousClock.now
      for (id, watch) in current where watch.deadline <= now {
        // Expired: the handler runs once, and a timer is gone after it.
        if watch.descriptor == nil { watches.withLock { _ = $0.all.removeValue(forKey: id) } }
        watch.expired(id)
        // A prompt ends at its deadline whatever its handler did: never polled again.
        stop(id)
      }
      let live = watches.withLock { $0.all }.filter { $0.value.deadline > ContinuousClock.now }
      let waiting = live.compactMap { id, watch in watch.descriptor.map { (id, $0) } }
      var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
      descriptors += waiting.map { pollfd(fd: $0.1, events: Int16(POLLIN), revents: 0) }
      let nearest = live.values.map(\.deadline).min()
      let untilNearest =
        nearest.map { deadline -> Int32 in
          let remaining = ContinuousClock.now.duration(to: deadline)
          return Int32(
            clamping: max(
              0, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000) + 1)
        } ?? -1
      let timeout = wakeRead >= 0 ? untilNearest : (untilNearest < 0 ? 50 : min(untilNearest, 50))
      let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
      guard ready > 0 else { continue }
      if descriptors[0].revents != 0 {
        var drained = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &drained, drained.count) > 0 {}
      }
      for (index, entry) in waiting.enumerated() where descriptors[index + 1].revents != 0 {
        // A handler before this one may have stopped this watch.
        guard let watch = watches.withLock({ $0.all[entry.0] }), let readable = watch.readable else { continue }
        readable(entry.0)
      }
    }
  }
}

/// A prompt in progress, run on the prompt thread: what it does when its descriptor has bytes (or
/// reached its end) and at its deadline. Every handler that ends the prompt stops its watch.
protocol WatchedPrompt: AnyObject, Sendable {
  /// The prompt's watch, set before each handler runs.
  var watch: Int { get set }
  /// The descriptor has bytes, or reached its end.
  func read()
  /// The deadline passed.
  func expire()
}

extension WatchedPrompt {
  /// Starts watching `descriptor` until `deadline` for this prompt.
  func start(watching descriptor: Int32, until deadline: ContinuousClock.Instant) {
    PromptIO.shared.watch(
      descriptor, until: deadline,
      readable: { [self] id in
        watch = id
        read()
      },
      expired: { [self] id in
        watch = id
        expire()
      })
  }
}

/// Reads what `descriptor` holds now, without waiting: the bytes, or nil at its end (or on an
/// error other than "nothing yet"). The chunk is wiped after it is copied out.
func readAvailable(_ descriptor: Int32) -> [UInt8]? {
  var chunk = [UInt8](repeating: 0, count: 1024)
  defer { Secrets.wipe(&chunk) }
  var bytes: [UInt8] = []
  while true {
    let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    if count > 0 {
      bytes.append(contentsOf: chunk[..<count])
      continue
    }
    if count < 0 && errno == EINTR { continue }
    if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return bytes }
    // The end (0), or a failure: whatever came before it is still returned first.
    return bytes.isEmpty ? nil : bytes
  }
}

/// A child process ending on its own: its wait status once it exits, or nil at `deadline` (when it
/// is killed and reaped). Checked every 5 ms on the prompt thread, so no thread waits for it.
func reapWhenDone(
  _ child: pid_t, until deadline: ContinuousClock.Instant, _ done: @escaping @Sendable (Int32?) -> Void
) {
  var status: Int32 = 0
  let reaped = waitpid(child, &status, WNOHANG)
  if reaped == child { return done(status) }
  if reaped < 0 && errno != EINTR { return done(0x7f00) }  // gone already: reported as exit 127
  guard ContinuousClock.now < deadline else {
    killAndReap(child)
    return done(nil)
  }
  PromptIO.shared.after(.now + .milliseconds(5)) { reapWhenDone(child, until: deadline, done) }
}

/// Kills `child` and reaps it (the kernel ends a killed process at once).
func killAndReap(_ child: pid_t) {
  kill(child, SIGKILL)
  var status: Int32 = 0
  while waitpid(child, &status, 0) < 0 && errno == EINTR {}
}

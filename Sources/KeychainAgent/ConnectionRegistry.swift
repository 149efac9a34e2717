import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The agent's open connections, bounded (issue 49, case 7): at most `limit` in all, and at most
/// `perProcess` from one process. A connection past a bound makes room by closing the connection
/// that has been idle longest (of that process, for the per-process bound), rather than being
/// refused: programs reconnect when their connection is gone (`AgentClient`), so a program
/// that opens connections without end only ever closes idle ones, and never keeps another program
/// from being served or the agent from accepting (its descriptors stay below the limit).
package final class ConnectionRegistry: Sendable {
  let limit: Int
  let perProcess: Int

  private struct Entry {
    var pid: Int32
    var lastActive: UInt64
  }

  private let entries = Mutex<[Int32: Entry]>([:])
  private let clock = Atomic<UInt64>(0)

  init(limit: Int, perProcess: Int) {
    self.limit = limit
    self.perProcess = perProcess
  }

  /// How many connections are open.
  var count: Int { entries.withLock { $0.count } }

  /// Records `descriptor` from process `pid`, first closing (shutdown: its thread then sees the end
  /// and unregisters it) the longest-idle connections that the bounds require; returns how many it
  /// closed.
  func register(_ descriptor: Int32, pid: Int32) -> Int {
    let now = clock.add(1, ordering: .relaxed).newValue
    return entries.withLock { entries in
      var closed = 0
      let sameProcess = entries.filter { $0.value.pid == pid }
      if sameProcess.count >= perProcess,
        let idlest = sameProcess.min(by: { $0.value.lastActive < $1.value.lastActive })
      {
        Self.end(idlest.key, in: &entries)
        closed += 1
      }
      while entries.count >= limit, let idlest = entries.min(by: { $0.value.lastActive < $1.value.lastActive }) {
        Self.end(idlest.key, in: &entries)
        closed += 1
      }
      entries[descriptor] = Entry(pid: pid, lastActive: now)
      return closed
    }
  }

  /// A request came on `descriptor`.
  func touch(_ descriptor: Int32) {
    let now = clock.add(1, ordering: .relaxed).newValue
    entries.withLock { $0[descriptor]?.lastActive = now }
  }

  /// Forgets `descriptor` and closes it. The descriptor is closed under the lock, so a descriptor
  /// still registered is always open: `register` never shuts down a number reused by another file.
  func close(_ descriptor: Int32) {
    entries.withLock { entries in
      entries[descriptor] = nil
      _ = Glibc.close(descriptor)
    }
  }

  /// Ends a connection: its thread, blocked reading, wakes to the end of the stream.
  private static func end(_ descriptor: Int32, in entries: inout [Int32: Entry]) {
    shutdown(descriptor, Int32(SHUT_RDWR))
    // Dropped from the count now: its thread closes it soon after.
    entries[descriptor] = nil
  }
}

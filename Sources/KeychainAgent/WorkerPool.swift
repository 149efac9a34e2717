import Foundation

/// A fixed number of threads running submitted jobs in order of submission.
///
/// Not Dispatch's global queues: a job here may block (SQLite, a send to a slow client), and
/// Dispatch answers blocked work with more threads, up to 64 and beyond; the agent's threads must
/// stay bounded whatever its clients do, and a flood of requests must queue instead.
final class WorkerPool: Sendable {
  private let queue = JobQueue()

  /// Starts `threads` threads named `name`.
  init(threads: Int, name: String) {
    for _ in 0..<threads {
      let thread = Thread { [queue] in
        while true { queue.next()() }
      }
      thread.name = name
      thread.start()
    }
  }

  /// Runs `job` on one of the threads, after the jobs submitted before it.
  func submit(_ job: @escaping @Sendable () -> Void) { queue.append(job) }
}

/// The jobs waiting for a thread.
private final class JobQueue: @unchecked Sendable {
  // @unchecked: `jobs` is read and written only while `condition` is locked.
  private let condition = NSCondition()
  private var jobs: [@Sendable () -> Void] = []
  private var first = 0

  func append(_ job: @escaping @Sendable () -> Void) {
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  /// The oldest job, waiting for one when there is none.
  func next() -> @Sendable () -> Void {
    condition.lock()
    defer { condition.unlock() }
    while first == jobs.count { condition.wait() }
    let job = jobs[first]
    first += 1
    if first > 1024 && first * 2 > jobs.count {
      jobs.removeFirst(first)
      first = 0
    }
    return job
  }
}

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
        while let job = queue.next() { job() }
      }
      thread.name = name
      thread.start()
    }
  }

  /// Runs `job` on one of the threads, after the jobs submitted before it.
  func submit(_ job: @escaping @Sendable () -> Void) { queue.append(job) }

  /// Lets the threads end once the jobs submitted so far are done.
  func stop() { queue.finish() }
}

/// The jobs waiting for a thread.
private final class JobQueue: @unchecked Sendable {
  // @unchecked: `jobs` is read and written only while `condition` is locked.
  private let condition = NSCondition()
  private var jobs: [@Sendable () -> Void] = []
  private var first = 0
  private var finished = false

  func append(_ job: @escaping @Sendable () -> Void) {
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  /// No job comes after the ones queued: threads that find none end.
  func finish() {
    condition.lock()
    finished = true
    condition.broadcast()
    condition.unlock()
  }

  /// The oldest job, waiting for one when there is none; nil once there is none and none will come.
  func next() -> (@Sendable () -> Void)? {
    condition.lock()
    defer { condition.unlock() }
    while first == jobs.count {
      if finished { return nil }
      condition.wait()
    }
    let job = jobs[first]
    first += 1
    if first > 1024 && first * 2 > jobs.count {
      jobs.removeFirst(first)
      first = 0
    }
    return job
  }
}

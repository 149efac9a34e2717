import Foundation
import Keychain
import Security

/// Lookups from two threads at once against one thread's (issue 34, "both cores"): SQLite's WAL
/// readers run in parallel, so the store's reads should scale; the ratio shows what the layers
/// above it (locks, caches, allocation) leave of that. One DSL store of 1,000 items, each thread
/// looking up its own sequence of accounts; throughput is all lookups over the wall time.
/// Returns two threads' throughput over one thread's, or nil when it could not be measured.
func printParallelLookupRows(in folder: URL) -> Double? {
  do {
    let dsl = try DSL(directory: folder.appendingPathComponent("parallel"), size: 1_000)
    // The store and the builder are Sendable (the DSL object is not: it may hold an agent).
    let store = dsl.store
    let items = dsl.items
    func throughput(threads: Int) -> Double {
      parallelLookups(store: store, items: items, threads: threads, total: 40_000)
    }
    var one: [Double] = []
    var two: [Double] = []
    for _ in 0..<rounds {
      one.append(throughput(threads: 1))
      two.append(throughput(threads: 2))
    }
    let single = one.sorted()[rounds / 2]
    let double = two.sorted()[rounds / 2]
    let scaling = double / single
    print("\nlookups from two threads (DSL lookup data, 1,000 items; median of \(rounds) rounds)")
    print("one thread   \(format(single)) ops/s")
    print(
      "two threads  \(format(double)) ops/s  (\(String(format: "%.2f", scaling))x)"
    )
    return scaling
  } catch {
    print("\nlookups from two threads: not measured (\(error))")
    return nil
  }
}

/// Lookups per second of `threads` threads sharing `total` DSL data lookups on one store.
func parallelLookups(store: KeychainStore, items: GenericPassword, threads: Int, total: Int) -> Double {
  let each = total / threads
  let group = DispatchGroup()
  let failures = FailureCount()
  let start = now()
  for thread in 0..<threads {
    DispatchQueue.global().async(group: group) {
      withKeychainContext(store: store, accessGroups: ["bench"]) {
        for index in 0..<each {
          let found = (try? items.account("acct-\((index * 7 + thread * 500) % 1_000)").data().get()) ?? nil
          if found == nil { failures.add(1) }
        }
      }
    }
  }
  group.wait()
  let elapsed = Double(now() - start) / 1e9
  if failures.value > 0 { print("  (\(failures.value) lookups failed)") }
  return Double(each * threads) / elapsed
}

/// The failed lookups the threads count together.
final class FailureCount: @unchecked Sendable {
  // @unchecked: every access holds the lock.
  private let lock = NSLock()
  private var count = 0
  func add(_ amount: Int) { lock.withLock { count += amount } }
  var value: Int { lock.withLock { count } }
}

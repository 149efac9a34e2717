import CKeychainBaseline
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
    // The minimal C baseline the same way (a read-only connection per thread): what SQLite and
    // OpenSSL alone make of two threads on this machine.
    let cFolder = folder.appendingPathComponent("parallel-c")
    let c = try CBaseline(directory: cFolder, size: 1_000)
    let cPath = cFolder.appendingPathComponent("baseline.db").path
    func cThroughput(threads: Int) -> Double {
      let total = 200_000
      let start = now()
      let failed = kb_baseline_lookups_on_threads(c.store, cPath, service, Int32(threads), Int32(total))
      if failed != 0 { print("  (C lookups on \(threads) threads: \(failed) failed)") }
      return Double(total) / (Double(now() - start) / 1e9)
    }
    var one: [Double] = []
    var two: [Double] = []
    var cOne: [Double] = []
    var cTwo: [Double] = []
    for _ in 0..<rounds {
      one.append(throughput(threads: 1))
      two.append(throughput(threads: 2))
      cOne.append(cThroughput(threads: 1))
      cTwo.append(cThroughput(threads: 2))
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let scaling = median(two) / median(one)
    let cScaling = median(cTwo) / median(cOne)
    print("\nlookups from two threads (lookup data, 1,000 items; median of \(rounds) rounds)")
    print(
      "DSL  one thread \(format(median(one))) ops/s, two threads \(format(median(two))) ops/s (\(String(format: "%.2f", scaling))x)"
    )
    print(
      "C    one thread \(format(median(cOne))) ops/s, two threads \(format(median(cTwo))) ops/s (\(String(format: "%.2f", cScaling))x)"
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

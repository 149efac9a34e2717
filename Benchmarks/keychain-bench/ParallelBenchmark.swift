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
    // A second process on the same store: SQLite's per-process locks are then its own.
    let partner = try LookupPartner(storeDirectory: folder.appendingPathComponent("parallel"))
    var one: [Double] = []
    var two: [Double] = []
    var processes: [Double] = []
    var cOne: [Double] = []
    var cTwo: [Double] = []
    for _ in 0..<rounds {
      one.append(throughput(threads: 1))
      two.append(throughput(threads: 2))
      processes.append(
        try partner.lookupsAlongside(20_000) { parallelLookups(store: store, items: items, threads: 1, total: $0) })
      cOne.append(cThroughput(threads: 1))
      cTwo.append(cThroughput(threads: 2))
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    let scaling = median(two) / median(one)
    let cScaling = median(cTwo) / median(cOne)
    let processScaling = median(processes) / median(one)
    print("\nlookups from two threads (lookup data, 1,000 items; median of \(rounds) rounds)")
    print(
      "DSL  one thread \(format(median(one))) ops/s, two threads \(format(median(two))) ops/s (\(String(format: "%.2f", scaling))x)"
    )
    print(
      "DSL  two processes on the store \(format(median(processes))) ops/s (\(String(format: "%.2f", processScaling))x one thread)"
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

/// A second keychain-bench process looking items up in the same store on request
/// (`KEYCHAIN_BRIDGE_BENCH_PROFILE=partner`), so two processes can read at once.
final class LookupPartner {
  private let process: Process
  private let requests = Pipe()
  private let answers = Pipe()

  init(storeDirectory: URL) throws {
    process = benchChild(profile: "partner", environment: ["KEYCHAIN_BRIDGE_BENCH_STORE": storeDirectory.path])
    process.standardInput = requests
    process.standardOutput = answers
    try process.run()
    // Its first answer says the store is open and warm.
    _ = try answer()
  }

  deinit {
    try? requests.fileHandleForWriting.close()
    process.waitUntilExit()
  }

  /// Asks the partner for `count` lookups and runs `local(count)` at the same time; returns all
  /// lookups over the time both took.
  func lookupsAlongside(_ count: Int, local: (Int) -> Double) throws -> Double {
    let start = now()
    requests.fileHandleForWriting.write(Data("\(count)\n".utf8))
    _ = local(count)
    let localEnd = now()
    let partnerSeconds = try answer()
    let seconds = max(Double(localEnd - start) / 1e9, partnerSeconds)
    return Double(2 * count) / seconds
  }

  /// The partner's next line: the seconds its lookups took.
  private func answer() throws -> Double {
    var line = Data()
    while true {
      guard let byte = try answers.fileHandleForReading.read(upToCount: 1), let first = byte.first else {
        throw BenchError("the lookup partner ended")
      }
      if first == UInt8(ascii: "\n") { break }
      line.append(first)
    }
    guard let seconds = Double(String(decoding: line, as: UTF8.self)) else {
      throw BenchError("the lookup partner answered \(String(decoding: line, as: UTF8.self))")
    }
    return seconds
  }
}

/// The partner process: opens the store, says so, then for each count read from its input looks
/// that many items up and writes the seconds it took.
func runLookupPartner(storeDirectory: String) throws -> Never {
  let store = try KeychainStore(directory: URL(fileURLWithPath: storeDirectory))
  let items = GenericPassword().service(service)
  func reply(_ text: String) { FileHandle.standardOutput.write(Data("\(text)\n".utf8)) }
  _ = parallelLookups(store: store, items: items, threads: 1, total: 2_000)
  reply("0")
  while let line = readLine(), let count = Int(line) {
    let start = now()
    _ = parallelLookups(store: store, items: items, threads: 1, total: count)
    reply("\(Double(now() - start) / 1e9)")
  }
  exit(0)
}

/// The failed lookups the threads count together.
final class FailureCount: @unchecked Sendable {
  // @unchecked: every access holds the lock.
  private let lock = NSLock()
  private var count = 0
  func add(_ amount: Int) { lock.withLock { count += amount } }
  var value: Int { lock.withLock { count } }
}

// What a round measures and how figures are read: operations, samples, this process's system
// calls and memory, the targets, and the tables they are printed in.
import Dispatch
import Foundation
import Security

enum Operation: String, CaseIterable {
  case add, lookupData = "lookup data", lookupAttributes = "lookup attributes", update, delete, list = "list 100"

  /// How many times a round runs the operation. Durable writes are slower, but 1000 per round keep
  /// their ratios steady on a noisy disk and make p99.9 the 5th-worst of 5000 samples, not the worst.
  var count: Int {
    switch self {
    case .add, .update, .delete: 1000
    case .lookupData, .lookupAttributes: 2000
    case .list: 100
    }
  }
}

struct Samples {
  var roundsPerSecond: [Double] = []
  var latencies: [UInt64] = []
  /// Write system calls (pwrite of WAL pages, mostly) the measuring thread made, per operation, per
  /// round: what a commit writes, without the checkpointer's copying (its own thread).
  var writeCallsPerOperation: [Double] = []

  var medianWriteCalls: Double {
    writeCallsPerOperation.isEmpty ? 0 : writeCallsPerOperation.sorted()[writeCallsPerOperation.count / 2]
  }

  var medianOpsPerSecond: Double { roundsPerSecond.sorted()[roundsPerSecond.count / 2] }
  func percentile(_ fraction: Double) -> Double {
    let sorted = latencies.sorted()
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]) / 1000
  }
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// The write-family system calls this thread has made (`syscw` of /proc/thread-self/io).
func threadWriteCalls() -> UInt64 {
  let io = (try? String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)) ?? ""
  let line = io.split(separator: "\n").first { $0.hasPrefix("syscw:") } ?? ""
  return UInt64(line.split(separator: " ").last ?? "0") ?? 0
}

/// Resident memory figures of this process, in MB: current and peak.
func memory() -> (current: Double, peak: Double) {
  let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
  func value(_ key: String) -> Double {
    let line = status.split(separator: "\n").first { $0.hasPrefix(key) } ?? ""
    return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
  }
  return (value("VmRSS:"), value("VmHWM:"))
}

struct SizeResult {
  var size: Int
  var samples: [String: [Operation: Samples]] = [:]
  var openMilliseconds: Double = 0
  var fillSeconds: Double = 0
}

// The part of a raw lookup that Foundation alone costs, whatever the store does: the caller builds
// the query and bridges it to a CFDictionary, SecItemCopyMatching must read its entries back, and the
// caller casts the result to Data. Measured in this run so the lookup ratio can be read against it.
func foundationFloorMicroseconds() -> Double {
  let result: CFTypeRef = secret as NSData
  var samples: [Double] = []
  for _ in 0..<rounds {
    let count = 20_000
    var sink = 0
    let start = now()
    for index in 0..<count {
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
        kSecAttrAccount as String: "acct-\(index % 1000)", kSecReturnData as String: true,
        kSecMatchLimit as String: kSecMatchLimitOne,
      ]
      sink &+= (query as CFDictionary).stringKeyedEntries().count
      if result is Data { sink &+= 1 }
    }
    samples.append(Double(now() - start) / 1000 / Double(count))
    precondition(sink == count * 6)
  }
  return samples.sorted()[samples.count / 2]
}

/// A performance target (issues 19, 31, 34, 51 and 54), with the value this run measured.
struct Target {
  var name: String
  var value: Double
  var isMet: Bool
  static func atLeast(_ name: String, _ value: Double, _ bound: Double) -> Target {
    Target(name: "\(name) >= \(format(bound))", value: value, isMet: value >= bound)
  }
  static func atMost(_ name: String, _ value: Double, _ bound: Double) -> Target {
    Target(name: "\(name) <= \(format(bound))", value: value, isMet: value <= bound)
  }
}
func ratio(_ result: SizeResult, _ name: String, _ operation: Operation, over other: String = "C") -> Double {
  result.samples[name]![operation]!.medianOpsPerSecond / result.samples[other]![operation]!.medianOpsPerSecond
}

/// Prints `rows` (the first is the header) in columns as wide as their widest cell.
func printTable(_ rows: [[String]]) {
  guard let first = rows.first else { return }
  let widths = first.indices.map { column in rows.map { $0[column].count }.max()! }
  for row in rows {
    print(
      row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  "))
  }
}

func format(_ value: Double) -> String { value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value) }

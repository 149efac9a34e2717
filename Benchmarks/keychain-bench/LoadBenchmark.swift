import Foundation
import Security

#if canImport(Glibc)
  import Glibc
#endif

/// Lookups through keychaind beside the embedded DSL's, on a quiet machine and then with busy
/// processes beside them (issue 54): users' machines are busy, and a transport whose speed needs
/// an idle core loses it there.
///
/// The load is real processes, each a shell loop that never sleeps, `busyProcesses` of them on
/// this machine's cores (a load average of about that many plus the benchmark's own two threads),
/// started after the quiet rounds and killed before the run ends.
struct LoadComparison {
  /// One condition's medians: lookups per second and latency percentiles in µs.
  struct Figures {
    var dslPerSecond: Double
    var agentPerSecond: Double
    var dsl: Samples
    var agent: Samples
    var ratio: Double { agentPerSecond / dslPerSecond }
  }

  var quiet: Figures
  var loaded: Figures
  var busyProcesses: Int
}

/// Busy-loop processes, one per `count`, stopped by `stop()` (and at exit if the run fails).
final class BusyLoad {
  private var processes: [Process] = []

  init(count: Int) throws {
    for _ in 0..<count {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", "while :; do :; done"]
      try process.run()
      processes.append(process)
    }
  }

  func stop() {
    for process in processes where process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    processes.removeAll()
  }

  deinit { stop() }
}

/// Rounds of `lookups` data lookups, alternating between the embedded DSL and the agent so both
/// see the same moments of the load; medians of the rounds' rates, latencies pooled.
private func measureLookups(dsl: DSL, agent: DSL, size: Int, rounds: Int, lookups: Int) -> LoadComparison.Figures {
  var generator = SystemRandomNumberGenerator()
  var samples = ["DSL": Samples(), "agent": Samples()]
  for round in 0..<rounds {
    for implementation in round % 2 == 0 ? [dsl, agent] : [agent, dsl] {
      let accounts = (0..<lookups).map { _ in "acct-\(Int.random(in: 0..<size, using: &generator))" }
      var latencies: [UInt64] = []
      latencies.reserveCapacity(lookups)
      var failures = 0
      let start = now()
      implementation.batch {
        for account in accounts {
          let begin = now()
          if !implementation.lookupData(account) { failures += 1 }
          latencies.append(now() - begin)
        }
      }
      let seconds = Double(now() - start) / 1e9
      if failures > 0 { print("  \(implementation.name) lookups: \(failures) failures") }
      samples[implementation.name]!.roundsPerSecond.append(Double(lookups) / seconds)
      samples[implementation.name]!.latencies += latencies
    }
  }
  return LoadComparison.Figures(
    dslPerSecond: samples["DSL"]!.medianOpsPerSecond, agentPerSecond: samples["agent"]!.medianOpsPerSecond,
    dsl: samples["DSL"]!, agent: samples["agent"]!)
}

/// Measures lookups quiet and loaded, and prints both conditions' rows.
func runLoadComparison(in directory: URL, size: Int = 1_000) throws -> LoadComparison {
  let dsl = try DSL(directory: directory.appendingPathComponent("dsl"), size: size)
  let agent = try agentDSL(size: size)
  let busy = 2 * ProcessInfo.processInfo.activeProcessorCount + 1
  print("lookups through keychaind, quiet and beside \(busy) busy processes (store of \(size) items)")
  let quiet = measureLookups(dsl: dsl, agent: agent, size: size, rounds: 6, lookups: 5_000)
  let load = try BusyLoad(count: busy)
  // A moment for the scheduler to spread the loops over the cores.
  usleep(200_000)
  let loaded = measureLookups(dsl: dsl, agent: agent, size: size, rounds: 6, lookups: 2_000)
  load.stop()
  let comparison = LoadComparison(quiet: quiet, loaded: loaded, busyProcesses: busy)
  let header = ["condition", "DSL ops/s", "agent ops/s", "agent/DSL", "DSL p50/p99", "agent p50/p99"]
  let rows = [("quiet", quiet), ("\(busy) busy processes", loaded)].map { name, figures in
    [
      name, format(figures.dslPerSecond), format(figures.agentPerSecond), String(format: "%.2f", figures.ratio),
      "\(format(figures.dsl.percentile(0.5)))/\(format(figures.dsl.percentile(0.99)))",
      "\(format(figures.agent.percentile(0.5)))/\(format(figures.agent.percentile(0.99)))",
    ]
  }
  printTable([header] + rows)
  return comparison
}

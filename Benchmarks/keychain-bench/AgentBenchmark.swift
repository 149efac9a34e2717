import AgentProcess
import Foundation
import Security

/// The DSL over a store that `keychaind` serves (issue 31): the same calls as the embedded DSL,
/// each a request over the agent's socket, measured in the same run so the two compare.
///
/// The agent is the `keychaind` built beside this executable (`make bench` builds both), started
/// on a private socket over a store of its own and stopped when the run exits.
func agentDSL(size: Int) throws -> DSL {
  guard FileManager.default.isExecutableFile(atPath: RunningAgent.executable.path) else {
    throw BenchError(
      "no keychaind beside keychain-bench at \(RunningAgent.executable.path): build it with "
        + "`swift build -c release --product keychaind` (make bench does)")
  }
  let agent = try RunningAgent()
  if startedAgents.isEmpty {
    // Stopped at exit whichever way the run ends (the profile mode calls exit itself).
    atexit { for agent in startedAgents { agent.stop() } }
  }
  startedAgents.append(agent)
  return try DSL(
    name: "agent", store: try KeychainStore.agentStore(socketPath: agent.socketPath), server: agent, size: size)
}

/// The agents this run started. The benchmark runs on one thread.
nonisolated(unsafe) private var startedAgents: [RunningAgent] = []

/// The agent's rows of one store size: its rate beside the embedded DSL's, and its latencies.
func printAgentRows(_ result: SizeResult) {
  print("through keychaind (the DSL's calls over the agent's socket; p50 / p99.9 in µs)")
  let header = ["operation", "agent ops/s", "agent/DSL", "agent p50/p99.9", "DSL p50/p99.9"]
  let rows = Operation.allCases.map { operation -> [String] in
    let agent = result.samples["agent"]![operation]!
    let dsl = result.samples["DSL"]![operation]!
    return [
      operation.rawValue, format(agent.medianOpsPerSecond),
      String(format: "%.2f", agent.medianOpsPerSecond / dsl.medianOpsPerSecond),
      "\(format(agent.percentile(0.5)))/\(format(agent.percentile(0.999)))",
      "\(format(dsl.percentile(0.5)))/\(format(dsl.percentile(0.999)))",
    ]
  }
  printTable([header] + rows)
}

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

/// The transport's floor under an agent lookup: round trips of a lookup's sizes (a 256-byte
/// request, a 512-byte answer, each with its 4-byte length) over a Unix stream socket to a thread
/// of this process that answers at once. It is what any protocol over the agent's kind of socket
/// pays per call (two system calls each way and two wake-ups), with none of the agent's work.
func bareSocketRoundTrips(count: Int = 20_000) throws -> Samples {
  var ends: [Int32] = [-1, -1]
  guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
    throw BenchError("cannot make a socket pair for the floor")
  }
  let (client, server) = (ends[0], ends[1])
  let echo = Thread {
    var request = [UInt8](repeating: 0, count: 260)
    let answer = [UInt8](repeating: 7, count: 516)
    while readFully(server, &request) {
      guard answer.withUnsafeBytes({ write(server, $0.baseAddress, $0.count) }) == answer.count else { break }
    }
    close(server)
  }
  echo.start()
  defer { close(client) }
  let request = [UInt8](repeating: 1, count: 260)
  var answer = [UInt8](repeating: 0, count: 516)
  var samples = Samples()
  samples.latencies.reserveCapacity(count)
  for _ in 0..<count {
    let start = now()
    guard request.withUnsafeBytes({ write(client, $0.baseAddress, $0.count) }) == request.count,
      readFully(client, &answer)
    else { throw BenchError("the floor's socket failed") }
    samples.latencies.append(now() - start)
  }
  return samples
}

/// Reads exactly `buffer.count` bytes; false at the end of the stream.
private func readFully(_ descriptor: Int32, _ buffer: inout [UInt8]) -> Bool {
  var done = 0
  while done < buffer.count {
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + done, $0.count - done) }
    if count < 0 && errno == EINTR { continue }
    guard count > 0 else { return false }
    done += count
  }
  return true
}

/// The agent's lookup beside its transport's floor, measured in the same run.
func printAgentFloor(_ result: SizeResult, floor: Samples) {
  let lookup = result.samples["agent"]![.lookupData]!
  let floorRate = 1e6 / floor.percentile(0.5)
  let lookupRate = 1e6 / lookup.percentile(0.5)
  print(
    String(
      format: "agent lookup p50 %.1f µs beside a bare round trip of its sizes on a Unix socket, %.1f µs: "
        + "%.0f against %.0f calls/s, %.2f of the floor", lookup.percentile(0.5), floor.percentile(0.5), lookupRate,
      floorRate, lookupRate / floorRate))
}

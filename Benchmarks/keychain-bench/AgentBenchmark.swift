import AgentProcess
import Foundation
import KeychainAgent
import KeychainAgentWire
import KeychainStorageAgent
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

/// The transport's floor under an agent lookup: frames of a lookup's sizes (a 256-byte request, a
/// 512-byte answer) over a Unix stream socket to a thread of this process that answers at once,
/// sent and received by the agent's own framing (`FrameSocket`) with the same polling the agent's
/// client and workers use before they sleep. It is what any protocol on the agent's kind of socket
/// pays per call, with none of the agent's work.
func bareSocketRoundTrips(count: Int = 20_000) throws -> Samples {
  var ends: [Int32] = [-1, -1]
  guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
    throw BenchError("cannot make a socket pair for the floor")
  }
  let (client, server) = (ends[0], ends[1])
  let echo = Thread {
    var polling = AdaptivePoll(microseconds: AgentSocketServer.pollMicroseconds)
    let answer = [UInt8](repeating: 7, count: 512)
    while (try? FrameSocket.receive(on: server, polling: &polling)) ?? nil != nil {
      guard (try? FrameSocket.send(answer, on: server)) != nil else { break }
    }
    close(server)
  }
  echo.start()
  defer { close(client) }
  let request = [UInt8](repeating: 1, count: 256)
  var polling = AdaptivePoll(microseconds: AgentClient.answerPollMicroseconds)
  var samples = Samples()
  samples.latencies.reserveCapacity(count)
  for _ in 0..<count {
    let start = now()
    try FrameSocket.send(request, on: client)
    guard try FrameSocket.receive(on: client, polling: &polling) != nil else {
      throw BenchError("the floor's socket closed")
    }
    samples.latencies.append(now() - start)
  }
  return samples
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

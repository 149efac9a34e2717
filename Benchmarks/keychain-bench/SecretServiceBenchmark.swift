import AgentProcess
import Foundation
import KeychainAgent

/// The Secret Service's rows (issue 51): keychaind serving org.freedesktop.secrets, and GNOME
/// Keyring where it is installed, each on a private session bus of its own, called by the same
/// client over one connection: creates, lookups by attributes (SearchItems then GetSecrets) and
/// deletes, and the client's own floor (a Ping's round trip through the bus daemon).
struct SecretServiceFigures {
  var ping = 0.0
  /// SearchItems that finds nothing, then GetSecrets of no item: a lookup's two calls without
  /// an item to read, so what the service's own dispatch costs shows apart from the store's.
  var emptyLookup = 0.0
  var create = 0.0
  var lookup = 0.0
  var delete = 0.0
}

/// How many items each round creates, looks up and deletes, and how many rounds are run.
private let itemsPerRound = 500
private let secretServiceRounds = 3

/// The figures of the service on the bus at `address`: the median of the rounds for each. Each
/// round looks every item up `lookupPasses` times (more than once only to profile lookups).
private func measureSecretService(
  address: String, rounds roundCount: Int = secretServiceRounds, lookupPasses: Int = 1
) throws -> SecretServiceFigures {
  let client = try SecretServiceClient(address: address)
  let service = "/org/freedesktop/secrets"
  let serviceInterface = "org.freedesktop.Secret.Service"
  let session = try client.call(service, serviceInterface, "OpenSession", [.string("plain"), .variant(.string(""))]) {
    reader throws(BusError) in
    try reader.skip()
    return try reader.objectPath()
  }
  let collection = try client.call(service, serviceInterface, "ReadAlias", [.string("default")]) {
    reader throws(BusError) in try reader.objectPath()
  }
  var rounds: [SecretServiceFigures] = []
  for round in 0..<roundCount {
    func rate(passes: Int = 1, _ body: (Int) throws -> Void) throws -> Double {
      let start = ContinuousClock.now
      for _ in 0..<passes {
        for index in 0..<itemsPerRound { try body(index) }
      }
      let elapsed = ContinuousClock.now - start
      return Double(itemsPerRound * passes)
        / (Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
    }
    var figures = SecretServiceFigures()
    var paths: [String] = []
    figures.ping = try rate { _ in try client.call(service, "org.freedesktop.DBus.Peer", "Ping") }
    figures.emptyLookup = try rate { index in
      let found = try client.call(
        service, serviceInterface, "SearchItems", [.stringMap(["service": "bench", "username": "nobody \(index)"])]
      ) { reader throws(BusError) in try reader.objectPaths() }
      try client.call(service, serviceInterface, "GetSecrets", [.objectPaths(found), .objectPath(session)])
    }
    figures.create = try rate { index in
      let attributes = ["service": "bench", "username": "user \(round).\(index)"]
      paths.append(
        try client.call(
          collection, "org.freedesktop.Secret.Collection", "CreateItem",
          [
            .properties([
              ("org.freedesktop.Secret.Item.Label", .string("bench \(index)")),
              ("org.freedesktop.Secret.Item.Attributes", .stringMap(attributes)),
            ]),
            .structure([.objectPath(session), .bytes([]), .bytes(Array("secret \(index)".utf8)), .string("text/plain")]
            ),
            .boolean(false),
          ]
        ) { reader throws(BusError) in try reader.objectPath() })
    }
    figures.lookup = try rate(passes: lookupPasses) { index in
      let found = try client.call(
        service, serviceInterface, "SearchItems",
        [.stringMap(["service": "bench", "username": "user \(round).\(index)"])]
      ) { reader throws(BusError) in try reader.objectPaths() }
      let secrets = try client.call(
        service, serviceInterface, "GetSecrets", [.objectPaths(found), .objectPath(session)]
      ) {
        reader throws(BusError) in
        try reader.array("{o(oayays)}") { () throws(BusError) in
          try reader.within("e", "o(oayays)") { () throws(BusError) in
            _ = try reader.objectPath()
            return try reader.secret().value
          }
        }
      }
      guard secrets == [Array("secret \(index)".utf8)] else {
        throw BenchError("a lookup found \(secrets.count) secrets")
      }
    }
    figures.delete = try rate { index in try client.call(paths[index], "org.freedesktop.Secret.Item", "Delete") }
    rounds.append(figures)
  }
  func median(_ value: (SecretServiceFigures) -> Double) -> Double { rounds.map(value).sorted()[rounds.count / 2] }
  return SecretServiceFigures(
    ping: median(\.ping), emptyLookup: median(\.emptyLookup), create: median(\.create), lookup: median(\.lookup),
    delete: median(\.delete))
}

/// keychaind's figures, over a key-file store of its own.
private func measureKeychaind(rounds: Int = secretServiceRounds, lookupPasses: Int = 1) throws
  -> SecretServiceFigures
{
  let bus = try PrivateSessionBus()
  defer { bus.stop() }
  let agent = try RunningAgent(arguments: ["--secret-service"], environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
  defer { agent.stop() }
  return try measureSecretService(address: bus.address, rounds: rounds, lookupPasses: lookupPasses)
}

/// keychaind's lookups alone, long enough for a profiler attached to keychaind to attribute them
/// (`KEYCHAIN_BRIDGE_BENCH_PROFILE=secret-service`): ten rounds, each looking every item up twenty
/// times.
func profileSecretServiceLookups() throws {
  let figures = try measureKeychaind(rounds: 10, lookupPasses: 20)
  print("Secret Service lookups: \(format(figures.lookup))/s (client floor \(format(figures.ping)) Pings/s)")
}

/// GNOME Keyring's figures (its secrets component, with a new login keyring unlocked by a
/// password on its standard input, as a desktop login does), or nil when it is not installed.
private func measureGnomeKeyring() throws -> SecretServiceFigures? {
  guard RunningGnomeKeyring.installed else { return nil }
  let bus = try PrivateSessionBus()
  defer { bus.stop() }
  let gnome = try RunningGnomeKeyring(on: bus, password: "bench password")
  defer { gnome.stop() }
  return try measureSecretService(address: bus.address)
}

/// Prints the Secret Service rows and returns their targets: against GNOME Keyring, at least 3
/// times its lookups and 20 times its creates and deletes (issue 51).
func printSecretServiceRows() -> [Target] {
  print(
    "\nSecret Service (one sd-bus connection, \(itemsPerRound) items, median of \(secretServiceRounds) rounds; ops/s)")
  let ours: SecretServiceFigures
  let gnome: SecretServiceFigures?
  do {
    ours = try measureKeychaind()
    gnome = try measureGnomeKeyring()
  } catch {
    print("  not measured: \(error)")
    return []
  }
  let names = [
    "client floor (Ping)", "lookup finding nothing", "create", "lookup (SearchItems + GetSecrets)", "delete",
  ]
  let paths: [KeyPath<SecretServiceFigures, Double>] = [\.ping, \.emptyLookup, \.create, \.lookup, \.delete]
  var rows = [["operation", "keychaind", "GNOME Keyring", "keychaind/GNOME"]]
  for (name, path) in zip(names, paths) {
    let theirs = gnome.map { format($0[keyPath: path]) } ?? "not installed"
    let ratio = gnome.map { String(format: "%.1f", ours[keyPath: path] / $0[keyPath: path]) } ?? "-"
    rows.append([name, format(ours[keyPath: path]), theirs, ratio])
  }
  printTable(rows)
  // A lookup is two calls on the connection (SearchItems, GetSecrets): its transport's floor is
  // two Pings' round trips through the same bus daemon, measured in the same round.
  print(
    String(
      format: "  a lookup against its floor (two Pings, %@ a second): %.2f for keychaind%@", format(ours.ping / 2),
      ours.lookup / (ours.ping / 2),
      gnome.map { String(format: ", %.2f for GNOME Keyring", $0.lookup / ($0.ping / 2)) } ?? ""))
  guard let gnome else { return [] }
  return [
    .atLeast("Secret Service lookups / GNOME Keyring's", ours.lookup / gnome.lookup, 3),
    .atLeast("Secret Service creates / GNOME Keyring's", ours.create / gnome.create, 20),
    .atLeast("Secret Service deletes / GNOME Keyring's", ours.delete / gnome.delete, 20),
  ]
}

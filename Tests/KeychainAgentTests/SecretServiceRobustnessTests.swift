import AgentProcess
import Foundation
import TestTools
import Testing

/// The Secret Service under clients that misbehave (issue 51): random calls, and clients that
/// leave or are killed in the middle of what they started. The agent answers each with a D-Bus
/// error or a reply, holds nothing for a client that left, and keeps serving.
@Suite(
  "The Secret Service under bad clients",
  .enabled(if: InstalledTool.runs(SecretServiceClients.installed), "dbus-daemon, secret-tool and python3 are needed"))
struct SecretServiceRobustnessTests {
  /// How many random calls the fuzzer makes: KEYCHAIN_BRIDGE_FUZZ_CALLS, else 3,000.
  static let fuzzCalls = ProcessInfo.processInfo.environment["KEYCHAIN_BRIDGE_FUZZ_CALLS"].flatMap(Int.init) ?? 3000

  @Test("Random calls on every object get replies or D-Bus errors, and the service answers after")
  func randomCalls() throws {
    let (bus, agent) = try SecretServiceTests.start()
    defer {
      agent.stop()
      bus.stop()
    }
    // Calls of random members of the specification's interfaces (and others), on paths that
    // exist and paths that do not, with random signatures and values: deep variants, long and
    // empty arrays, odd strings. Marshalled as given, so the signatures are wrong on purpose.
    let script = """
      import collections, random, sys
      from jeepney import DBusAddress, new_method_call
      from jeepney.io.blocking import open_dbus_connection
      random.seed(51)
      connection = open_dbus_connection('SESSION')
      name = 'org.freedesktop.secrets'
      service = DBusAddress('/org/freedesktop/secrets', bus_name=name, interface='org.freedesktop.Secret.Service')
      reply = connection.send_and_get_reply(new_method_call(service, 'OpenSession', 'sv', ('plain', ('s', ''))))
      session = reply.body[1]
      item = connection.send_and_get_reply(new_method_call(
          DBusAddress('/org/freedesktop/secrets/collection/login', bus_name=name, interface='org.freedesktop.Secret.Collection'),
          'CreateItem', 'a{sv}(oayays)b',
          ({'org.freedesktop.Secret.Item.Label': ('s', 'fuzz')}, (session, b'', b'x', 'text/plain'), False))).body[0]
      paths = ['/org/freedesktop/secrets', '/org/freedesktop/secrets/collection/login', item, session,
               '/org/freedesktop/secrets/aliases/default', '/org/freedesktop/secrets/prompt/u1',
               '/org/freedesktop/secrets/collection/login/i' + '0' * 32, '/org/freedesktop/secrets/collection/nope',
               '/org/freedesktop/secrets/collection/login/ix', '/', '/org/freedesktop/secrets/aliases/nothing/x']
      members = {
          'org.freedesktop.Secret.Service': ['OpenSession', 'CreateCollection', 'SearchItems', 'Unlock', 'Lock',
                                             'GetSecrets', 'ReadAlias', 'SetAlias', 'Frobnicate'],
          'org.freedesktop.Secret.Collection': ['Delete', 'SearchItems', 'CreateItem'],
          'org.freedesktop.Secret.Item': ['Delete', 'GetSecret', 'SetSecret'],
          'org.freedesktop.Secret.Session': ['Close'],
          'org.freedesktop.Secret.Prompt': ['Prompt', 'Dismiss'],
          'org.freedesktop.DBus.Properties': ['Get', 'GetAll', 'Set'],
          'org.freedesktop.DBus.Introspectable': ['Introspect'],
          'org.example.Nothing': ['Anything'],
      }
      def value(depth=0):
          kind = random.choice('sobuyaeavr' if depth < 3 else 'sobuy')
          if kind == 's': return 's', random.choice(['', 'default', 'plain', 'x' * random.randint(0, 3000), '\\u00e9\\u4e2d', session])
          if kind == 'o': return 'o', random.choice(paths)
          if kind == 'b': return 'b', random.random() < 0.5
          if kind == 'u': return 'u', random.randint(0, 2**32 - 1)
          if kind == 'y': return 'y', random.randint(0, 255)
          if kind == 'a': return 'ay', bytes(random.randint(0, 255) for _ in range(random.choice([0, 1, 16, 5000])))
          if kind == 'e': return 'a{ss}', {('k%d' % n): 'v' for n in range(random.choice([0, 1, 2, 5000]))}
          if kind == 'v':
              inner = value(depth + 1)
              return 'v', inner
          fields = [value(depth + 1) for _ in range(random.randint(1, 4))]
          return '(' + ''.join(f[0] for f in fields) + ')', tuple(f[1] for f in fields)
      outcomes = collections.Counter()
      for _ in range(int(sys.argv[1])):
          interface = random.choice(list(members))
          arguments = [value() for _ in range(random.randint(0, 4))]
          signature = ''.join(a[0] for a in arguments)
          message = new_method_call(DBusAddress(random.choice(paths), bus_name=name, interface=interface),
                                    random.choice(members[interface]), signature or None,
                                    tuple(a[1] for a in arguments))
          reply = connection.send_and_get_reply(message, timeout=30)
          outcomes[reply.header.fields.get(4, 'reply')] += 1
      for outcome, count in sorted(outcomes.items(), key=lambda entry: -entry[1]):
          print(count, outcome)
      """
    let run = try bus.run(SecretServiceClients.python, ["-c", script, String(Self.fuzzCalls)])
    #expect(run.status == 0, "\(run.error)")
    let outcomes = run.output.split(separator: "\n").map { $0.split(separator: " ", maxSplits: 1).map(String.init) }
    let answered = outcomes.reduce(0) { $0 + (Int($1.first ?? "") ?? 0) }
    #expect(answered == Self.fuzzCalls, "\(run.output)")
    // Every error is one of the specification's or D-Bus's own, never the bus saying no one answered.
    for outcome in outcomes.map({ $0.last ?? "" }) where outcome != "reply" {
      #expect(
        outcome.hasPrefix("org.freedesktop.Secret.Error.") || outcome.hasPrefix("org.freedesktop.DBus.Error."),
        "\(outcome)")
      #expect(!outcome.contains("NoReply") && !outcome.contains("ServiceUnknown"), "\(outcome)")
    }
    print("Secret Service fuzz, \(Self.fuzzCalls) calls:\n\(run.output)")
    #expect(agent.process.isRunning)
    #expect(
      try bus.run(
        SecretServiceClients.secretTool, ["store", "--label=After", "service", "after", "username", "me"], input: "ok"
      )
      .status == 0)
    #expect(
      try bus.run(SecretServiceClients.secretTool, ["lookup", "service", "after", "username", "me"]).output == "ok")
  }

  @Test("Clients that leave or are killed mid-call hold nothing: 1,100 sessions later a client is still served")
  func clientsThatLeave() throws {
    let (bus, agent) = try SecretServiceTests.start(passphrase: "pw")
    defer {
      agent.stop()
      bus.stop()
    }
    // More connections than the service keeps sessions for (1,024), each opening one and leaving
    // without Close, as secret-tool does.
    let leaving = """
      from jeepney import DBusAddress, new_method_call
      from jeepney.io.blocking import open_dbus_connection
      service = DBusAddress('/org/freedesktop/secrets', bus_name='org.freedesktop.secrets',
                            interface='org.freedesktop.Secret.Service')
      for _ in range(1100):
          connection = open_dbus_connection('SESSION')
          connection.send_and_get_reply(new_method_call(service, 'OpenSession', 'sv', ('plain', ('s', ''))))
          connection.close()
      print('left')
      """
    #expect(try bus.run(SecretServiceClients.python, ["-c", leaving]).output == "left\n")
    // Killed while waiting: a client sends calls (one that starts a prompt's wait) and is killed
    // before reading the replies.
    let killed = """
      import os, signal
      from jeepney import DBusAddress, new_method_call
      from jeepney.io.blocking import open_dbus_connection
      connection = open_dbus_connection('SESSION')
      service = DBusAddress('/org/freedesktop/secrets', bus_name='org.freedesktop.secrets',
                            interface='org.freedesktop.Secret.Service')
      connection.send(new_method_call(service, 'OpenSession', 'sv', ('plain', ('s', ''))))
      connection.send(new_method_call(service, 'Lock', 'ao', (['/org/freedesktop/secrets/collection/login'],)))
      connection.send(new_method_call(service, 'Unlock', 'ao', (['/org/freedesktop/secrets/collection/login'],)))
      connection.send(new_method_call(service, 'SearchItems', 'a{ss}', ({'k': 'v'},)))
      os.kill(os.getpid(), signal.SIGKILL)
      """
    for _ in 0..<20 { _ = try bus.run(SecretServiceClients.python, ["-c", killed]) }
    #expect(agent.process.isRunning)
    // The store is locked now (the killed clients locked it); a new client opens a session and
    // searches: served.
    let after = """
      from jeepney import DBusAddress, new_method_call
      from jeepney.io.blocking import open_dbus_connection
      connection = open_dbus_connection('SESSION')
      service = DBusAddress('/org/freedesktop/secrets', bus_name='org.freedesktop.secrets',
                            interface='org.freedesktop.Secret.Service')
      reply = connection.send_and_get_reply(new_method_call(service, 'OpenSession', 'sv', ('plain', ('s', ''))))
      print(reply.header.message_type.name, reply.body[1].startswith('/org/freedesktop/secrets/session/'))
      """
    let served = try bus.run(SecretServiceClients.python, ["-c", after])
    #expect(served.output == "method_return True\n", "\(served)")
  }
}

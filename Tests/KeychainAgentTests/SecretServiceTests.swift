import AgentProcess
import Foundation
import Security
import TestTools
import Testing

/// keychaind's Secret Service on a session bus of the test's own, used by real clients
/// (`secret-tool`, Python's keyring and SecretStorage) and by Apple's API through the agent's
/// socket, each reading what the others wrote (issue 51).
@Suite(
  "The Secret Service",
  .enabled(if: InstalledTool.runs(SecretServiceClients.installed), "dbus-daemon, secret-tool and python3 are needed"))
struct SecretServiceTests {
  static let python = SecretServiceClients.python
  static let secretTool = SecretServiceClients.secretTool

  /// A bus and a keychaind serving the Secret Service on it over a new store (a passphrase store
  /// opened unlocked when `passphrase` is given), under `policy` (nil: no policy file).
  static func start(policy: String? = RunningAgent.defaultPolicy, passphrase: String? = nil) throws -> (
    PrivateSessionBus, RunningAgent
  ) {
    let bus = try PrivateSessionBus()
    do {
      let agent = try RunningAgent(
        passphrase: passphrase, policy: policy, arguments: ["--secret-service"],
        environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
      return (bus, agent)
    } catch {
      bus.stop()
      throw error
    }
  }

  /// The secret of the generic password with `service` and `account` in the default collection's
  /// group, read with Apple's API through the agent's socket (the test runner's rule grants it).
  static func appleSecret(_ agent: RunningAgent, service: String, account: String) throws -> String? {
    let store = try agent.connectStore()
    return withKeychainContext(store: store, accessGroups: [KeychainAccessGroups.defaultAccessGroup]) {
      var result: CFTypeRef?
      let status = SecItemCopyMatching(
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
          kSecAttrAccount as String: account, kSecReturnData as String: true,
        ] as CFDictionary, &result)
      return status == errSecSuccess ? (result as? Data).map { String(decoding: $0, as: UTF8.self) } : nil
    }
  }

  @Test("secret-tool stores, Apple's API reads it; Apple's API adds, secret-tool finds it")
  func secretToolAndAppleSeeOneStore() throws {
    let (bus, agent) = try Self.start()
    defer {
      agent.stop()
      bus.stop()
    }
    let stored = try bus.run(
      Self.secretTool, ["store", "--label=Mail", "service", "mail", "username", "alice"], input: "hunter2")
    #expect(stored.status == 0, "\(stored.error)")
    #expect(try Self.appleSecret(agent, service: "mail", account: "alice") == "hunter2")
    let lookup = try bus.run(Self.secretTool, ["lookup", "service", "mail", "username", "alice"])
    #expect(lookup.status == 0 && lookup.output == "hunter2", "\(lookup)")

    let store = try agent.connectStore()
    let added = withKeychainContext(store: store, accessGroups: [KeychainAccessGroups.defaultAccessGroup]) {
      SecItemAdd(
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "chat",
          kSecAttrAccount as String: "bob", kSecValueData as String: Data("from Apple's API".utf8),
        ] as CFDictionary, nil)
    }
    #expect(added == errSecSuccess)
    let found = try bus.run(Self.secretTool, ["lookup", "service", "chat", "username", "bob"])
    #expect(found.status == 0 && found.output == "from Apple's API", "\(found)")

    let cleared = try bus.run(Self.secretTool, ["clear", "service", "mail", "username", "alice"])
    #expect(cleared.status == 0)
    #expect(try Self.appleSecret(agent, service: "mail", account: "alice") == nil)
  }

  @Test("Python's keyring and SecretStorage: set, get, delete, and items with the same attributes")
  func pythonClients() throws {
    let (bus, agent) = try Self.start()
    defer {
      agent.stop()
      bus.stop()
    }
    let script = """
      import keyring, secretstorage
      from keyring.backends import SecretService
      keyring.set_keyring(SecretService.Keyring())
      keyring.set_password('svc', 'carol', 's3cret')
      print(keyring.get_password('svc', 'carol'))
      connection = secretstorage.dbus_init()
      collection = secretstorage.get_default_collection(connection)
      attributes = {'xdg:schema': 'org.example.Token', 'host': 'example.org'}
      first = collection.create_item('first', attributes, b'one')
      second = collection.create_item('second', attributes, b'two')
      print(sorted(item.get_secret().decode() for item in collection.search_items(attributes)))
      collection.create_item('third', attributes, b'three', replace=True)
      print(len(list(collection.search_items(attributes))))
      second.set_label('renamed')
      print(second.get_label(), second.get_attributes() == attributes)
      """
    let run = try bus.run(Self.python, ["-c", script])
    #expect(run.status == 0, "\(run.error)")
    let lines = run.output.split(separator: "\n").map(String.init)
    #expect(lines.count == 4, "\(run.output)")
    guard lines.count == 4 else { return }
    #expect(lines[0] == "s3cret")
    #expect(lines[1] == "['one', 'two']")
    #expect(lines[2] == "2")  // replace overwrote one of the two, and made no third
    #expect(lines[3] == "renamed True")
    // What Python's keyring wrote is a generic password with its service and account.
    #expect(try Self.appleSecret(agent, service: "svc", account: "carol") == "s3cret")
  }

  @Test("A secret keeps its content type through SetSecret and GetSecrets; Apple's API sees it as the item's kind")
  func contentTypesAreKept() throws {
    let (bus, agent) = try Self.start()
    defer {
      agent.stop()
      bus.stop()
    }
    let script = """
      import secretstorage, dbus
      connection = secretstorage.dbus_init()
      collection = secretstorage.get_default_collection(connection)
      item = collection.create_item('typed', {'service': 'typed', 'username': 'dora'}, b'{"a": 1}',
                                    content_type='application/json')
      print(item.get_secret_content_type())
      plain = collection.create_item('plain', {'service': 'plain', 'username': 'dora'}, b'pw')
      print(plain.get_secret_content_type())
      item.set_secret(b'\\x00\\x01', content_type='application/octet-stream')
      print(item.get_secret_content_type())
      bus = dbus.SessionBus()
      service = bus.get_object('org.freedesktop.secrets', '/org/freedesktop/secrets')
      interface = dbus.Interface(service, 'org.freedesktop.Secret.Service')
      _, session = interface.OpenSession('plain', dbus.String('', variant_level=1))
      secrets = interface.GetSecrets([item.item_path, plain.item_path], session)
      print(secrets[item.item_path][3], secrets[plain.item_path][3])
      try:
          collection.create_item('bad', {'service': 'bad'}, b'x', content_type='text/plain\\n')
      except Exception as error:
          print(type(error).__name__)
      else:
          print('accepted')
      """
    let run = try bus.run(Self.python, ["-c", script])
    #expect(run.status == 0, "\(run.error)")
    #expect(
      run.output
        == "application/json\ntext/plain\napplication/octet-stream\napplication/octet-stream text/plain\n"
        + "DBusErrorResponse\n", "\(run.output)")
    #expect(!run.output.contains("bad"))
    // Apple's API: the kind of the typed item is its content type; the plain one has none.
    let store = try agent.connectStore()
    let kinds = withKeychainContext(store: store, accessGroups: [KeychainAccessGroups.defaultAccessGroup]) {
      ["typed", "plain"].map { service -> String? in
        var result: CFTypeRef?
        SecItemCopyMatching(
          [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true,
          ] as CFDictionary, &result)
        return (result as? [String: Any])?[kSecAttrDescription as String] as? String
      }
    }
    #expect(kinds == ["application/octet-stream", nil])
  }

  @Test("Creating, changing and deleting an item signal it on the collection")
  func changesAreSignalled() throws {
    let (bus, agent) = try Self.start()
    defer {
      agent.stop()
      bus.stop()
    }
    let script = """
      import secretstorage
      from jeepney import MatchRule, message_bus, HeaderFields
      from jeepney.io.blocking import open_dbus_connection, Proxy
      listener = open_dbus_connection('SESSION')
      rule = MatchRule(type='signal', interface='org.freedesktop.Secret.Collection',
                       path='/org/freedesktop/secrets/collection/login')
      Proxy(message_bus, listener).AddMatch(rule)
      connection = secretstorage.dbus_init()
      collection = secretstorage.get_default_collection(connection)
      with listener.filter(rule) as queue:
          item = collection.create_item('signalled', {'app': 'test'}, b'x')
          item.set_secret(b'y')
          item.delete()
          for _ in range(3):
              message = listener.recv_until_filtered(queue, timeout=30)
              print(message.header.fields[HeaderFields.member], message.body[0] == item.item_path)
      """
    let run = try bus.run(Self.python, ["-c", script])
    #expect(run.status == 0, "\(run.error)")
    #expect(run.output == "ItemCreated True\nItemChanged True\nItemDeleted True\n", "\(run.output)")
  }

  @Test(
    "Lock is the agent's one lock: Apple's API is locked out, SearchItems lists the match as locked, Unlock opens it")
  func lockIsTheAgentsLock() throws {
    let (bus, agent) = try Self.start()
    defer {
      agent.stop()
      bus.stop()
    }
    #expect(
      try bus.run(Self.secretTool, ["store", "--label=Mail", "service", "mail", "username", "eve"], input: "pw").status
        == 0)
    let script = """
      import dbus
      bus = dbus.SessionBus()
      def call(member, signature, arguments):
          return bus.call_blocking('org.freedesktop.secrets', '/org/freedesktop/secrets',
                                   'org.freedesktop.Secret.Service', member, signature, arguments)
      call('Lock', 'ao', (['/org/freedesktop/secrets/collection/login'],))
      unlocked, locked = call('SearchItems', 'a{ss}', ({'service': 'mail'},))
      print(len(unlocked), len(locked))
      """
    let run = try bus.run(Self.python, ["-c", script])
    #expect(run.status == 0 && run.output == "0 1\n", "\(run)")
    #expect(try Self.appleSecret(agent, service: "mail", account: "eve") == nil)
    // secret-tool finds the item locked and calls Unlock: a key-file store's lock asks nothing of
    // the user (its key file gives the keys back), so the store is unlocked, for both APIs.
    #expect(try bus.run(Self.secretTool, ["lookup", "service", "mail", "username", "eve"]).output == "pw")
    #expect(try Self.appleSecret(agent, service: "mail", account: "eve") == "pw")
  }

  /// An askpass helper that records each prompt in `log` and answers `answer`, or cancels
  /// (exits 1) when `answer` is nil.
  static func askpass(in folder: URL, answer: String?) throws -> (helper: URL, log: URL) {
    let helper = folder.appendingPathComponent("askpass-\(UUID().uuidString)")
    let log = folder.appendingPathComponent("prompts-\(UUID().uuidString)")
    let reply = answer.map { "printf '%s\\n' '\($0)'" } ?? "exit 1"
    try Data("#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(log.path)'\n\(reply)\n".utf8).write(to: helper)
    try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: helper.path)
    return (helper, log)
  }

  @Test("A locked passphrase store is unlocked through a prompt the client shows; a cancelled one stays locked")
  func unlockingPromptsTheUser() throws {
    let bus = try PrivateSessionBus()
    defer { bus.stop() }
    for (answer, unlocks) in [("open sesame", true), (nil, false)] {
      let (helper, log) = try Self.askpass(in: bus.folder, answer: answer)
      let agent = try RunningAgent(
        passphrase: "open sesame", arguments: ["--secret-service"],
        environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "KEYCHAIN_BRIDGE_ASKPASS": helper.path])
      defer { agent.stop() }
      #expect(
        try bus.run(Self.secretTool, ["store", "--label=Vault", "service", "vault", "username", "me"], input: "gold")
          .status == 0)
      let lock = """
        import dbus
        dbus.SessionBus().call_blocking('org.freedesktop.secrets', '/org/freedesktop/secrets',
            'org.freedesktop.Secret.Service', 'Lock', 'ao', (['/org/freedesktop/secrets/collection/login'],))
        """
      #expect(try bus.run(Self.python, ["-c", lock]).status == 0)
      #expect(try Self.appleSecret(agent, service: "vault", account: "me") == nil)
      // libsecret finds the item locked, calls Unlock, shows the prompt and waits for Completed.
      let lookup = try bus.run(Self.secretTool, ["lookup", "service", "vault", "username", "me"])
      let prompts = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      #expect(prompts.contains("wants to use a protected keychain item"), "\(prompts)")
      if unlocks {
        #expect(lookup.output == "gold", "\(lookup)")
        #expect(try Self.appleSecret(agent, service: "vault", account: "me") == "gold")
      } else {
        #expect(lookup.output.isEmpty, "\(lookup)")
        #expect(try Self.appleSecret(agent, service: "vault", account: "me") == nil)
      }
    }
  }

  @Test("Bad calls get D-Bus errors, and the service answers after them")
  func badCallsGetErrors() throws {
    let (bus, agent) = try Self.start()
    defer {
      agent.stop()
      bus.stop()
    }
    let script = """
      import dbus
      bus = dbus.SessionBus()
      name = 'org.freedesktop.secrets'
      service = '/org/freedesktop/secrets'
      interface = 'org.freedesktop.Secret.Service'
      def call(path, interface, member, signature, arguments):
          # Marshalled as given, not as the service's introspection says: a wrong call on purpose.
          return bus.call_blocking(name, path, interface, member, signature, arguments)
      def error_of(path, interface, member, signature, arguments):
          try:
              call(path, interface, member, signature, arguments)
              return 'no error'
          except dbus.exceptions.DBusException as error:
              return error.get_dbus_name()
      print(error_of(service, interface, 'OpenSession', 'ii', (5, 1)))
      print(error_of(service, interface, 'OpenSession', 'sv', ('dh-ietf1024-sha512-aes256', dbus.ByteArray(b'x'))))
      print(error_of(service, interface, 'OpenSession', 'sv', ('dh-ietf1024-sha256-aes128-cbc-pkcs7', dbus.ByteArray(b'\\x01'))))
      print(error_of(service, interface, 'OpenSession', 'sv', ('dh-ietf1024-sha256-aes128-cbc-pkcs7', dbus.ByteArray(b'\\xff' * 129))))
      print(error_of(service, interface, 'GetSecrets', 'aoo', (['/org/freedesktop/secrets/collection/login/inothing'], '/org/freedesktop/secrets/session/nope')))
      print(error_of(service, interface, 'SearchItems', 'a{ss}', ({('k%d' % n): 'v' for n in range(5000)},)))
      print(error_of('/org/freedesktop/secrets/collection/login/ideadbeef', 'org.freedesktop.Secret.Item', 'GetSecret', 'o', ('/',)))
      print(error_of(service, interface, 'Frobnicate', '', ()))
      print(call(service, interface, 'ReadAlias', 's', ('default',)))
      """
    let run = try bus.run(Self.python, ["-c", script])
    #expect(run.status == 0, "\(run.error)")
    #expect(
      run.output.split(separator: "\n").map(String.init) == [
        "org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.DBus.Error.NotSupported",
        "org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.DBus.Error.InvalidArgs",
        "org.freedesktop.Secret.Error.NoSession", "org.freedesktop.DBus.Error.InvalidArgs",
        "org.freedesktop.Secret.Error.NoSuchObject", "org.freedesktop.DBus.Error.UnknownMethod",
        "/org/freedesktop/secrets/collection/login",
      ], "\(run.output)")
  }

  @Test(
    "A caller of another user is refused",
    .enabled(if: getuid() == 0, "needs root, to run a client as nobody through setpriv"))
  func anotherUserIsRefused() throws {
    let (bus, agent) = try Self.start()
    defer {
      agent.stop()
      bus.stop()
    }
    #expect(
      try bus.run(Self.secretTool, ["store", "--label=Mail", "service", "mail", "username", "root"], input: "pw").status
        == 0)
    let stranger = try bus.run(Self.secretTool, ["lookup", "service", "mail", "username", "root"], asUser: "nobody")
    #expect(stranger.status != 0 && stranger.output.isEmpty, "\(stranger)")
    #expect(stranger.error.contains("This keyring serves its own user only"), "\(stranger.error)")
    // Its own user is still served.
    #expect(try bus.run(Self.secretTool, ["lookup", "service", "mail", "username", "root"]).output == "pw")
  }

  @Test(
    "The installed activation file has the session bus start the agent, on the store given at install, when a program first asks"
  )
  func theBusStartsTheAgent() throws {
    let folder = URL(fileURLWithPath: "/tmp/kb-activation-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    defer { try? FileManager.default.removeItem(at: folder) }
    let data = folder.appendingPathComponent("data")
    let runtime = folder.appendingPathComponent("run")
    try FileManager.default.createDirectory(
      at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let install = Process()
    install.executableURL = RunningAgent.executable
    // A store folder with a space and a percent sign: quoted for systemd (%% and all) and for
    // dbus-daemon, it must reach the agent as written (issue 52: the units could not name a store).
    let store = folder.appendingPathComponent("my store%1")
    install.arguments = [
      "--install-units", "--secret-service", "--unit-directory", folder.appendingPathComponent("units").path,
      "--store", store.path,
    ]
    install.environment = ProcessInfo.processInfo.environment.merging(["XDG_DATA_HOME": data.path]) { $1 }
    install.standardOutput = FileHandle.nullDevice
    try install.run()
    install.waitUntilExit()
    #expect(install.terminationStatus == 0)
    let services = data.appendingPathComponent("dbus-1/services")
    let activation = try String(
      contentsOf: services.appendingPathComponent("org.freedesktop.secrets.service"), encoding: .utf8)
    #expect(activation.contains("Name=org.freedesktop.secrets"))
    let executable = RunningAgent.executable.resolvingSymlinksInPath().path
    #expect(
      activation.contains("Exec=\"\(executable)\" \"--secret-service\" \"--store\" \"\(store.path)\"\n"),
      "\(activation)")
    let unit = try String(contentsOf: folder.appendingPathComponent("units/keychaind.service"), encoding: .utf8)
    let quotedStore = store.path.replacingOccurrences(of: "%", with: "%%")
    #expect(
      unit.contains("ExecStart=\"\(executable)\" \"--secret-service\" \"--store\" \"\(quotedStore)\"\n"), "\(unit)")
    // No agent runs: the bus starts one (by Exec: no systemd here) for the first program that asks,
    // serving the store named at install, not the one the environment names; it ends with the bus.
    let bus = try PrivateSessionBus(
      serviceDirectory: services,
      environment: [
        "KEYCHAIN_BRIDGE_HOME": folder.appendingPathComponent("environment-store").path,
        "XDG_RUNTIME_DIR": runtime.path,
      ])
    defer { bus.stop() }
    let stored = try bus.run(
      Self.secretTool, ["store", "--label=Started", "service", "boot", "username", "me"], input: "up")
    #expect(stored.status == 0, "\(stored.error)")
    #expect(try bus.run(Self.secretTool, ["lookup", "service", "boot", "username", "me"]).output == "up")
    #expect(FileManager.default.fileExists(atPath: runtime.appendingPathComponent("keychain-bridge/agent.sock").path))
    #expect(FileManager.default.fileExists(atPath: store.appendingPathComponent("keychain.db").path))
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("environment-store").path))
  }

  @Test("A second keyring on the same bus exits with a sentence saying the name is taken")
  func theNameIsOwnedOnce() throws {
    let (bus, agent) = try Self.start()
    defer {
      agent.stop()
      bus.stop()
    }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-second-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let second = try bus.run(
      RunningAgent.executable.path,
      ["--secret-service", "--socket", folder.appendingPathComponent("agent.sock").path, "--store", folder.path])
    #expect(second.status != 0)
    #expect(second.error.contains("another program owns org.freedesktop.secrets"), "\(second.error)")
  }
}

/// The clients the Secret Service tests run (scripts/setup.sh installs them).
enum SecretServiceClients {
  static let python = "/usr/bin/python3"
  static let secretTool = "/usr/bin/secret-tool"
  static var installed: Bool {
    [python, secretTool, "/usr/bin/dbus-daemon"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
  }
}

import AgentProcess
import Foundation
import Security
import TestTools
import Testing

/// Attacks on the Secret Service by a program of the same user, each as a real process (issue 63).
@Suite(
  "The Secret Service against a program of the same user",
  .enabled(if: InstalledTool.runs(SecretServiceClients.installed), "dbus-daemon, secret-tool and python3 are needed"))
struct SecretServiceAttackTests {
  /// A bus and an agent whose policy confines the collection `vault` to a Python of its own (the
  /// path returned), so that the system's Python is a program no rule names.
  static func withVaultRule() throws -> (pinned: String, bus: PrivateSessionBus, agent: RunningAgent) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-vault-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let pinned = folder.appendingPathComponent("pinned-python").path
    try FileManager.default.copyItem(
      atPath: URL(fileURLWithPath: SecretServiceClients.python).resolvingSymlinksInPath().path, toPath: pinned)
    let policy =
      RunningAgent.defaultPolicy + "\(pinned) = keychain-bridge.default, org.freedesktop.secrets.collection.vault\n"
    let (bus, agent) = try SecretServiceTests.start(policy: policy)
    return (pinned, bus, agent)
  }

  @Test("Case 1: a bus connection kept across execve by a child is refused once its process runs another program")
  func aConnectionKeptAcrossExecIsRefused() throws {
    let (pinned, bus, agent) = try Self.withVaultRule()
    defer {
      agent.stop()
      bus.stop()
      try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: pinned).deletingLastPathComponent().path)
    }
    let made = try bus.run(
      pinned,
      [
        "-c",
        "import secretstorage\nc = secretstorage.create_collection(secretstorage.dbus_init(), 'Vault')\n"
          + "c.create_item('Vault', {'kept-in': 'Vault'}, b'confined')",
      ])
    #expect(made.status == 0, "\(made.error)")
    // The attacker calls once (identified as the unnamed Python), forks a child that keeps the
    // connection, and becomes the pinned program; the child then reads with the kept connection.
    let attack = """
      import os, sys, time, secretstorage
      PINNED = sys.argv[1]
      connection = secretstorage.dbus_init()
      secretstorage.get_default_collection(connection).is_locked()
      pid = os.fork()
      if pid:
          os.execv(PINNED, [PINNED, '-c', 'import time; time.sleep(60)'])
      parent = os.getppid()
      for _ in range(1200):
          if os.readlink('/proc/%d/exe' % parent) == PINNED:
              break
          time.sleep(0.05)
      try:
          items = secretstorage.search_items(connection, {'kept-in': 'Vault'})
          print('read', [item.get_secret().decode() for item in items], flush=True)
      except Exception as error:
          print('refused', 'AccessDenied' in str(error), flush=True)
      os.kill(parent, 9)
      """
    let run = try bus.run(SecretServiceClients.python, ["-c", attack, pinned])
    #expect(run.output == "refused True\n", "\(run)")
    // The pinned program itself, on a connection of its own, still reads its vault.
    let owner = try bus.run(
      pinned,
      [
        "-c",
        "import secretstorage\nprint([i.get_secret().decode() for i in "
          + "secretstorage.search_items(secretstorage.dbus_init(), {'kept-in': 'Vault'})])",
      ])
    #expect(owner.output == "['confined']\n", "\(owner)")
  }

  /// An askpass that records each question on one line and answers as `decision` says.
  static func recordingAskpass(in folder: URL) throws -> (helper: URL, decision: URL, log: URL) {
    let decision = folder.appendingPathComponent("decision")
    let log = folder.appendingPathComponent("asked")
    let helper = folder.appendingPathComponent("askpass")
    try Data(
      "#!/bin/sh\nprintf '%s|%s\\n' \"$SSH_ASKPASS_PROMPT\" \"$1\" >> '\(log.path)'\n[ \"$(cat '\(decision.path)')\" = allow ]\n"
        .utf8
    ).write(to: helper)
    try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: helper.path)
    try Data("deny".utf8).write(to: decision)
    return (helper, decision, log)
  }

  /// A bus and an agent serving the Secret Service on it, whose policy makes programs no rule names
  /// confirm their first access to `group`, asking through a recording askpass.
  static func withConfirmedGroup(_ group: String) throws -> (
    bus: PrivateSessionBus, agent: RunningAgent, askpass: (helper: URL, decision: URL, log: URL)
  ) {
    let bus = try PrivateSessionBus()
    do {
      let askpass = try recordingAskpass(in: bus.folder)
      let agent = try RunningAgent(
        policy: RunningAgent.defaultPolicy + "confirm-first-access = \(group)\n",
        arguments: ["--secret-service"],
        environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "KEYCHAIN_BRIDGE_ASKPASS": askpass.helper.path])
      return (bus, agent, askpass)
    } catch {
      bus.stop()
      throw error
    }
  }

  @Test("Case 4: a label reaches the confirmation on one line, without control characters")
  func labelsAreShownAsWords() throws {
    let (bus, agent, askpass) = try Self.withConfirmedGroup("keychain-bridge.default")
    defer {
      agent.stop()
      bus.stop()
    }
    // The program that stores an item may use it unasked; the label it chose tries to clear the
    // terminal, add a line naming another program, and reverse text.
    let forged = "Mail\\n\\x1b[2J/usr/bin/firefox (already allowed) wants to use \\u202e“Bank”"
    let stored = try bus.run(
      SecretServiceClients.python,
      [
        "-c",
        "import secretstorage\nc = secretstorage.get_default_collection(secretstorage.dbus_init())\n"
          + "c.create_item('\(forged)', {'service': 'mail', 'username': 'alice'}, b'hunter2')",
      ])
    #expect(stored.status == 0, "\(stored.error)")
    // Another program (a second Python) asks to use it: the question shows the label as words.
    let other = bus.folder.appendingPathComponent("python3")
    try FileManager.default.copyItem(
      atPath: URL(fileURLWithPath: SecretServiceClients.python).resolvingSymlinksInPath().path, toPath: other.path)
    _ = try bus.run(
      other.path,
      [
        "-c",
        "import secretstorage\nnext(secretstorage.search_items(secretstorage.dbus_init(), {'service': 'mail'})).unlock()",
      ])
    let lines = ((try? String(contentsOf: askpass.log, encoding: .utf8)) ?? "").split(separator: "\n")
    let question = try #require(lines.last.map(String.init))
    #expect(lines.count == 1, "the question on one line: \(lines)")
    #expect(!question.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(question)")
    #expect(!question.unicodeScalars.contains("\u{202E}"), "\(question)")
    #expect(question.contains("“Mail [2J/usr/bin/firefox (already allowed) wants to use “Bank””"), "\(question)")
  }

  @Test("Case 4: deleting a collection whose accesses the user confirms asks first; a refusal keeps it")
  func deletingAConfirmedCollectionAsks() throws {
    let (bus, agent, askpass) = try Self.withConfirmedGroup("org.freedesktop.secrets.collection.work")
    defer {
      agent.stop()
      bus.stop()
    }
    let made = try bus.run(
      SecretServiceClients.python,
      [
        "-c",
        "import secretstorage\nc = secretstorage.create_collection(secretstorage.dbus_init(), 'Work')\n"
          + "c.create_item('Plan', {'kept-in': 'work'}, b'the plan')",
      ])
    #expect(made.status == 0, "\(made.error)")
    let delete = """
      import secretstorage
      from secretstorage.exceptions import PromptDismissedException
      c = secretstorage.Collection(secretstorage.dbus_init(), '/org/freedesktop/secrets/collection/work')
      try:
          c.delete()
          print('deleted')
      except PromptDismissedException:
          print('dismissed')
      """
    let refused = try bus.run(SecretServiceClients.python, ["-c", delete])
    #expect(refused.output == "dismissed\n", "\(refused)")
    let asked = (try? String(contentsOf: askpass.log, encoding: .utf8)) ?? ""
    #expect(asked.contains("confirm|"), "\(asked)")
    #expect(asked.contains("wants to delete the keyring collection “Work” and every item in it"), "\(asked)")
    let still = try bus.run(SecretServiceClients.secretTool, ["search", "--all", "kept-in", "work"])
    #expect(still.output.contains("label = Plan"), "\(still)")
    try Data("allow".utf8).write(to: askpass.decision)
    #expect(try bus.run(SecretServiceClients.python, ["-c", delete]).output == "deleted\n")
  }

  @Test("Case 4: an unnamed program cannot take an alias from a collection a rule confines")
  func aConfinedCollectionsAliasStays() throws {
    let (pinned, bus, agent) = try Self.withVaultRule()
    defer {
      agent.stop()
      bus.stop()
      try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: pinned).deletingLastPathComponent().path)
    }
    let setAlias = """
      import dbus, sys
      service = dbus.Interface(dbus.SessionBus().get_object('org.freedesktop.secrets', '/org/freedesktop/secrets'),
                               'org.freedesktop.Secret.Service')
      try:
          service.SetAlias('secure', dbus.ObjectPath(sys.argv[1]))
          print('moved')
      except dbus.exceptions.DBusException as error:
          print(error.get_dbus_name())
      print(service.ReadAlias('secure'))
      """
    let made = try bus.run(
      pinned,
      ["-c", "import secretstorage\nsecretstorage.create_collection(secretstorage.dbus_init(), 'Vault', 'secure')"])
    #expect(made.status == 0, "\(made.error)")
    _ = try bus.run(
      SecretServiceClients.python,
      ["-c", "import secretstorage\nsecretstorage.create_collection(secretstorage.dbus_init(), 'Mine')"])
    let attempt = try bus.run(
      SecretServiceClients.python, ["-c", setAlias, "/org/freedesktop/secrets/collection/mine"])
    #expect(attempt.output.hasPrefix("org.freedesktop.DBus.Error.AccessDenied\n"), "\(attempt)")
    let seen = try bus.run(pinned, ["-c", setAlias, "/org/freedesktop/secrets/collection/vault"])
    #expect(seen.output == "moved\n/org/freedesktop/secrets/collection/vault\n", "\(seen)")
  }

  @Test("Case 4: one program cannot take every session, prompt or collection: each has a share of its own")
  func limitsArePerProgram() throws {
    let (bus, agent, _) = try Self.withConfirmedGroup("keychain-bridge.default")
    defer {
      agent.stop()
      bus.stop()
    }
    let greedy = """
      import dbus, secretstorage
      bus = dbus.SessionBus()
      service = dbus.Interface(bus.get_object('org.freedesktop.secrets', '/org/freedesktop/secrets'),
                               'org.freedesktop.Secret.Service')
      def count(call):
          made = 0
          try:
              while made < 1000:
                  call()
                  made += 1
          except dbus.exceptions.DBusException as error:
              return made, error.get_dbus_message()
          return made, None
      connection = secretstorage.dbus_init()
      def collection():
          try:
              secretstorage.create_collection(connection, 'Junk')
          except Exception as error:
              raise dbus.exceptions.DBusException(str(error))
      print(*count(collection), sep='|')
      item = next(secretstorage.search_items(connection, {'service': 'mail'}))
      print(*count(lambda: service.Unlock([dbus.ObjectPath(item.item_path)])), sep='|')
      print(*count(lambda: service.OpenSession('plain', dbus.String('', variant_level=1))), sep='|')
      """
    let stored = try bus.run(
      SecretServiceClients.secretTool, ["store", "--label=Mail", "service", "mail", "username", "alice"],
      input: "hunter2")
    #expect(stored.status == 0, "\(stored.error)")
    let run = try bus.run(SecretServiceClients.python, ["-c", greedy])
    let lines = run.output.split(separator: "\n").map(String.init)
    #expect(lines.count == 3, "\(run)")
    #expect(lines.first?.hasPrefix("16|") == true, "\(lines)")
    #expect(lines.first?.contains("as many as one program may") == true, "\(lines)")
    #expect(
      lines.dropFirst().first == "8|This program has too many prompts waiting: complete or dismiss them first.",
      "\(lines)")
    // secretstorage opened a session of its own for each collection it made: the rest, up to 64.
    #expect(lines.last?.hasSuffix("|This program has too many sessions open: close some first.") == true, "\(lines)")
    // Another program still opens a session, makes a collection and gets a prompt.
    let other = bus.folder.appendingPathComponent("python3")
    try FileManager.default.copyItem(
      atPath: URL(fileURLWithPath: SecretServiceClients.python).resolvingSymlinksInPath().path, toPath: other.path)
    let modest = try bus.run(
      other.path,
      [
        "-c",
        "import secretstorage\nc = secretstorage.dbus_init()\nsecretstorage.create_collection(c, 'Mine')\n"
          + "item = next(secretstorage.search_items(c, {'service': 'mail'}))\n"
          + "print(item.unlock())",
      ])
    #expect(modest.status == 0, "\(modest.error)")
    #expect(modest.output == "True\n", "dismissed by the askpass: \(modest)")
  }

  @Test("Case 4: a protected item's prompt holds no other client, and its attributes change only after the user's yes")
  func aSlowPromptHoldsNoOneElse() throws {
    let bus = try PrivateSessionBus()
    defer { bus.stop() }
    let passphrase = "correct horse"
    let release = bus.folder.appendingPathComponent("release")
    let log = bus.folder.appendingPathComponent("asked")
    let helper = bus.folder.appendingPathComponent("askpass")
    // The askpass answers only once the test releases it, or refuses when told to: no clock.
    try Data(
      """
      #!/bin/sh
      echo asked >> '\(log.path)'
      while [ ! -e '\(release.path)' ]; do sleep 0.05; done
      [ "$(cat '\(release.path)')" = refuse ] && exit 1
      printf '%s\\n' '\(passphrase)'

      """.utf8
    ).write(to: helper)
    try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: helper.path)
    let agent = try RunningAgent(
      passphrase: passphrase, arguments: ["--secret-service"],
      environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "KEYCHAIN_BRIDGE_ASKPASS": helper.path])
    defer { agent.stop() }
    // A .userPresence item, added with Apple's API through the agent's socket.
    let store = try agent.connectStore()
    let added = withKeychainContext(store: store, accessGroups: [KeychainAccessGroups.defaultAccessGroup]) {
      SecItemAdd(
        [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "vault",
          kSecAttrAccount as String: "bob", kSecValueData as String: Data("guarded".utf8),
          kSecAttrAccessControl as String: SecAccessControlCreateWithFlags(
            nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil)!,
        ] as CFDictionary, nil)
    }
    #expect(added == errSecSuccess)
    let stored = try bus.run(
      SecretServiceClients.secretTool, ["store", "--label=Mail", "service", "mail", "username", "alice"],
      input: "hunter2")
    #expect(stored.status == 0, "\(stored.error)")
    // A reads the protected item: the agent asks, and the askpass waits.
    let reader = Process()
    reader.executableURL = URL(fileURLWithPath: SecretServiceClients.secretTool)
    reader.arguments = ["lookup", "service", "vault", "username", "bob"]
    reader.environment = bus.environment
    let output = Pipe()
    reader.standardOutput = output
    reader.standardError = FileHandle.nullDevice
    try reader.run()
    defer { if reader.isRunning { kill(reader.processIdentifier, SIGKILL) } }
    while !FileManager.default.fileExists(atPath: log.path) {
      #expect(reader.isRunning, "the reader ended before the agent asked")
      guard reader.isRunning else { return }
      usleep(20_000)
    }
    // B, meanwhile, is answered: the prompt holds none of the bus.
    let other = try bus.run(SecretServiceClients.secretTool, ["lookup", "service", "mail", "username", "alice"])
    #expect(other.status == 0 && other.output == "hunter2", "\(other)")
    #expect(reader.isRunning, "the reader was answered before the user was")
    try Data("allow".utf8).write(to: release)
    let secret = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    reader.waitUntilExit()
    #expect(secret == "guarded", "\(secret)")
    // Its attributes are the item's too: a change asks as a read does, and a refusal changes nothing.
    try Data("refuse".utf8).write(to: release)
    try? FileManager.default.removeItem(at: log)
    let relabel = """
      import secretstorage
      item = next(secretstorage.search_items(secretstorage.dbus_init(), {'service': 'vault'}))
      try:
          item.set_attributes({'service': 'vault', 'username': 'mallory'})
          print('changed')
      except Exception as error:
          print('refused', 'IsLocked' in str(error))
      """
    let refused = try bus.run(SecretServiceClients.python, ["-c", relabel])
    #expect(refused.output == "refused True\n", "\(refused)")
    #expect(FileManager.default.fileExists(atPath: log.path), "the user was asked")
    let unchanged = try bus.run(SecretServiceClients.secretTool, ["search", "--all", "service", "vault"])
    // secret-tool prints the attributes on standard error (its secret, refused again, on neither).
    #expect((unchanged.output + unchanged.error).contains("attribute.username = bob"), "\(unchanged)")
    #expect(!(unchanged.output + unchanged.error).contains("mallory"), "\(unchanged)")
  }
}

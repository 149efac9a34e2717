import AgentProcess
import Foundation
import TestTools
import Testing

/// What the Secret Service asks the user (issue 51): a program's first use of an item the policy
/// confirms, and the store's passphrase through GnuPG's pinentry in a real terminal.
@Suite(
  "The Secret Service's prompts",
  .enabled(if: InstalledTool.runs(SecretServiceClients.installed), "dbus-daemon, secret-tool and python3 are needed"))
struct SecretServicePromptTests {
  @Test("A program's first use of an item asks the user once; a refusal keeps it locked; a yes is remembered")
  func firstAccessIsConfirmed() throws {
    let bus = try PrivateSessionBus()
    defer { bus.stop() }
    let decision = bus.folder.appendingPathComponent("decision")
    let log = bus.folder.appendingPathComponent("asked")
    let helper = bus.folder.appendingPathComponent("askpass")
    try Data(
      "#!/bin/sh\nprintf '%s|%s\\n' \"$SSH_ASKPASS_PROMPT\" \"$1\" >> '\(log.path)'\n[ \"$(cat '\(decision.path)')\" = allow ]\n"
        .utf8
    ).write(to: helper)
    try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: helper.path)
    try Data("deny".utf8).write(to: decision)
    let agent = try RunningAgent(
      policy: RunningAgent.defaultPolicy + "confirm-first-access = keychain-bridge.default\n",
      arguments: ["--secret-service"],
      environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "KEYCHAIN_BRIDGE_ASKPASS": helper.path])
    defer { agent.stop() }
    func asked() -> [String] {
      ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
    let python = """
      import keyring
      from keyring.backends import SecretService
      keyring.set_keyring(SecretService.Keyring())
      try:
          print(keyring.get_password('mail', 'alice'))
      except Exception as error:
          print(type(error).__name__)
      """
    func pythonReads() throws -> String {
      try bus.run(SecretServiceClients.python, ["-c", python]).output.trimmingCharacters(in: .newlines)
    }

    let stored = try bus.run(
      SecretServiceClients.secretTool, ["store", "--label=Mail", "service", "mail", "username", "alice"],
      input: "hunter2")
    #expect(stored.status == 0, "\(stored.error)")
    // The program that stored it reads it back without a question.
    #expect(
      try bus.run(SecretServiceClients.secretTool, ["lookup", "service", "mail", "username", "alice"]).output
        == "hunter2")
    #expect(asked().isEmpty)

    #expect(try pythonReads() == "KeyringLocked")
    let python3 = URL(fileURLWithPath: SecretServiceClients.python).resolvingSymlinksInPath().path
    #expect(asked() == ["confirm|\(python3) wants to use the keyring item “Mail”. Allow it from now on?"])

    try Data("allow".utf8).write(to: decision)
    #expect(try pythonReads() == "hunter2")
    #expect(asked().count == 2)
    #expect(try pythonReads() == "hunter2")
    #expect(asked().count == 2)  // remembered

    // Remembered in the store: a restarted agent does not ask again.
    agent.terminate()
    try agent.start()
    #expect(try pythonReads() == "hunter2")
    #expect(asked().count == 2)
    // Apple-API programs are governed by their groups alone.
    #expect(try SecretServiceTests.appleSecret(agent, service: "mail", account: "alice") == "hunter2")
  }

  @Test(
    "pinentry in a real terminal asks for the passphrase that unlocks the store",
    .enabled(if: InstalledTool.runs(needing: "/usr/bin/pinentry-tty"), "pinentry-tty is needed"),
    .enabled(if: InstalledTool.runs(needing: "/usr/bin/tmux"), "tmux is needed"))
  func pinentryUnlocks() throws {
    let bus = try PrivateSessionBus()
    defer { bus.stop() }
    let terminal = try TestTerminal(in: bus.folder, command: "sleep 600")
    let device = terminal.device
    #expect(device.hasPrefix("/dev/"), "\(device)")
    let agent = try RunningAgent(
      passphrase: "open sesame", arguments: ["--secret-service"],
      environment: [
        "DBUS_SESSION_BUS_ADDRESS": bus.address, "KEYCHAIN_BRIDGE_ASKPASS": "/usr/bin/pinentry-tty",
        "GPG_TTY": device,
      ])
    defer { agent.stop() }
    #expect(
      try bus.run(
        SecretServiceClients.secretTool, ["store", "--label=Vault", "service", "vault", "username", "me"], input: "gold"
      )
      .status == 0)
    let lock = """
      import dbus
      dbus.SessionBus().call_blocking('org.freedesktop.secrets', '/org/freedesktop/secrets',
          'org.freedesktop.Secret.Service', 'Lock', 'ao', (['/org/freedesktop/secrets/collection/login'],))
      """
    #expect(try bus.run(SecretServiceClients.python, ["-c", lock]).status == 0)
    // secret-tool waits for the prompt; the user answers it in the terminal.
    let lookup = DispatchQueue.global()
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: (status: Int32, output: String, error: String)?
    lookup.async {
      result = try? bus.run(SecretServiceClients.secretTool, ["lookup", "service", "vault", "username", "me"])
      done.signal()
    }
    #expect(terminal.waitFor("Passphrase:"), "\(terminal.screen)")
    #expect(terminal.screen.contains("wants to use a protected keychain item") || terminal.screen.contains("unlock"))
    try terminal.type("open sesame")
    done.wait()
    #expect(result?.output == "gold", "\(String(describing: result)) \(terminal.screen)")
    // Typed into pinentry, never echoed.
    #expect(!terminal.screen.contains("open sesame"))
  }
}

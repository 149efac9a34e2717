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
  @Test("Case 1: a bus connection kept across execve by a child is refused once its process runs another program")
  func aConnectionKeptAcrossExecIsRefused() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-exec-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // The program a rule confines the vault to: a Python of its own, so that the system's is unnamed.
    let pinned = folder.appendingPathComponent("pinned-python").path
    try FileManager.default.copyItem(
      atPath: URL(fileURLWithPath: SecretServiceClients.python).resolvingSymlinksInPath().path, toPath: pinned)
    let policy =
      RunningAgent.defaultPolicy + "\(pinned) = keychain-bridge.default, org.freedesktop.secrets.collection.vault\n"
    let (bus, agent) = try SecretServiceTests.start(policy: policy)
    defer {
      agent.stop()
      bus.stop()
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
}

import AgentProcess
import Foundation
import TestTools
import Testing

/// Moving in from GNOME Keyring (issue 51): a keyring file GNOME Keyring itself wrote, imported
/// with `security import-gnome-keyring`, serves the same items through keychaind's Secret Service.
@Suite(
  "Importing a GNOME Keyring file",
  .enabled(if: InstalledTool.runs(SecretServiceClients.installed), "dbus-daemon, secret-tool and python3 are needed"),
  .enabled(if: RunningGnomeKeyring.installed, "GNOME Keyring is needed"))
struct GnomeKeyringImportTests {
  static let securityTool = RunningAgent.executable.deletingLastPathComponent().appendingPathComponent("security")
  static let password = "gnome password"

  /// Every item of the default collection as a sorted list of JSON lines: label, attributes,
  /// creation and modification times, secret.
  static let listing = """
    import json, secretstorage
    connection = secretstorage.dbus_init()
    collection = secretstorage.get_default_collection(connection)
    rows = [json.dumps([item.get_label(), item.get_attributes(), item.get_created(), item.get_modified(),
                        item.get_secret().decode()], sort_keys=True) for item in collection.get_all_items()]
    print('\\n'.join(sorted(rows)))
    """

  /// A keyring file GNOME Keyring wrote, with three items (two with the same attributes), and its
  /// items as `listing` printed them from GNOME Keyring.
  static func gnomeKeyringFile(in folder: URL) throws -> (file: URL, listing: String) {
    let bus = try PrivateSessionBus()
    defer { bus.stop() }
    let gnome = try RunningGnomeKeyring(on: bus, password: password)
    defer { gnome.stop() }
    #expect(
      try bus.run(
        SecretServiceClients.secretTool, ["store", "--label=Mail", "service", "mail", "username", "alice"],
        input: "hunter2"
      ).status == 0)
    sleep(1)  // a later second, so that modification and creation differ
    let items = """
      import secretstorage
      connection = secretstorage.dbus_init()
      collection = secretstorage.get_default_collection(connection)
      attributes = {'xdg:schema': 'org.example.Token', 'host': 'example.org'}
      collection.create_item('Token one', attributes, b'first')
      collection.create_item('Token two', attributes, b'second')
      for item in collection.search_items({'service': 'mail'}):
          item.set_label('Mail (renamed)')
      """
    let made = try bus.run(SecretServiceClients.python, ["-c", items])
    #expect(made.status == 0, "\(made.error)")
    let listed = try bus.run(SecretServiceClients.python, ["-c", listing])
    #expect(listed.status == 0, "\(listed.error)")
    // Copied out: GNOME's home is in the bus's folder, which goes when this returns.
    let file = folder.appendingPathComponent("login.keyring")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: gnome.loginKeyring, to: file)
    return (file, listed.output)
  }

  @Test("Items keep their labels, attributes, times and secrets; a second import adds nothing")
  func importsWhatGnomeKeyringWrote() throws {
    let folder = URL(fileURLWithPath: "/tmp/kb-gnome-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    defer { try? FileManager.default.removeItem(at: folder) }
    let (file, gnomeListing) = try Self.gnomeKeyringFile(in: folder)
    #expect(gnomeListing.split(separator: "\n").count == 3, "\(gnomeListing)")

    let (bus, agent) = try SecretServiceTests.start()
    defer {
      agent.stop()
      bus.stop()
    }
    func security(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
      try bus.run(Self.securityTool.path, arguments, environment: ["KEYCHAIN_BRIDGE_AGENT": agent.socketPath])
    }
    let wrong = try security(["import-gnome-keyring", "-i", file.path, "-P", "not it"])
    #expect(wrong.status == 51 && wrong.error.contains("the password does not open it"), "\(wrong)")
    let damaged = folder.appendingPathComponent("damaged.keyring")
    let bytes = try Data(contentsOf: file)
    try bytes.prefix(bytes.count - 40).write(to: damaged)
    let cut = try security(["import-gnome-keyring", "-i", damaged.path, "-P", Self.password])
    #expect(cut.status == 93 && cut.error.contains("damaged"), "\(cut)")
    #expect(try bus.run(SecretServiceClients.python, ["-c", Self.listing]).output == "\n")

    let imported = try security(["import-gnome-keyring", "-i", file.path, "-P", Self.password])
    #expect(imported.status == 0 && imported.output.contains("imported 3 item(s)"), "\(imported)")
    let ours = try bus.run(SecretServiceClients.python, ["-c", Self.listing])
    #expect(ours.output == gnomeListing, "\(ours.output) instead of \(gnomeListing)")
    #expect(try security(["find-generic-password", "-s", "mail", "-a", "alice", "-w"]).output == "hunter2\n")
    let again = try security(["import-gnome-keyring", "-i", file.path, "-P", Self.password])
    #expect(again.output.contains("imported 0 item(s)") && again.output.contains("skipped 3 duplicate(s)"), "\(again)")
    #expect(try bus.run(SecretServiceClients.python, ["-c", Self.listing]).output == gnomeListing)
  }

  /// A keyring GNOME keeps without a password, laid out as its textual writer
  /// (gkm_secret_textual_write) writes it: GLib's escapes in labels and values, a binary secret
  /// in hexadecimal, a number attribute, an item with no schema attribute, ACL groups to skip.
  static let textualKeyring = """
    [keyring]
    display-name=Plain\\sKeyring
    ctime=1700000000
    mtime=1700000100
    lock-on-idle=false
    lock-after=false

    [1]
    item-type=2
    display-name=\\sNote with\\ttab
    secret=plain text secret
    mtime=1700000200
    ctime=1700000150

    [1:attribute0]
    name=service
    type=string
    value=notes

    [1:attribute1]
    name=username
    type=string
    value=frank\\nline

    [2]
    item-type=0
    display-name=Binary
    binary-secret=00ff10
    mtime=1700000300
    ctime=1700000300

    [2:attribute0]
    name=service
    type=string
    value=binary

    [2:attribute1]
    name=port
    type=uint32
    value=8443

    [2:acl0]
    display-name=Old
    path=/usr/bin/old
    read-access=true

    """

  @Test("A keyring GNOME keeps as text (an empty password) is read without asking for one")
  func importsATextualKeyring() throws {
    let folder = URL(fileURLWithPath: "/tmp/kb-gnome-text-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("plain.keyring")
    try Data(Self.textualKeyring.utf8).write(to: file)
    let (bus, agent) = try SecretServiceTests.start()
    defer {
      agent.stop()
      bus.stop()
    }
    func security(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
      try bus.run(Self.securityTool.path, arguments, environment: ["KEYCHAIN_BRIDGE_AGENT": agent.socketPath])
    }
    // No -P and no terminal: a textual keyring needs no password, so nothing is asked.
    let imported = try security(["import-gnome-keyring", "-i", file.path])
    #expect(
      imported.status == 0 && imported.output.contains("imported 2 item(s) of the keyring “Plain Keyring”"),
      "\(imported)")
    let listing = """
      import secretstorage, json
      connection = secretstorage.dbus_init()
      collection = secretstorage.get_default_collection(connection)
      for item in sorted(collection.get_all_items(), key=lambda item: item.get_label()):
          print(json.dumps([item.get_label(), item.get_attributes(), item.get_created(), item.get_modified(),
                            item.get_secret().hex()], sort_keys=True))
      """
    let listed = try bus.run(SecretServiceClients.python, ["-c", listing])
    #expect(listed.status == 0, "\(listed.error)")
    let noteSecret = Data("plain text secret".utf8).map { String(format: "%02x", $0) }.joined()
    #expect(
      listed.output.split(separator: "\n").map(String.init) == [
        #"[" Note with\ttab", {"service": "notes", "username": "frank\nline", "xdg:schema": "org.gnome.keyring.Note"}, 1700000150, 1700000200, ""#
          + noteSecret + #""]"#,
        #"["Binary", {"port": "8443", "service": "binary", "xdg:schema": "org.freedesktop.Secret.Generic"}, 1700000300, 1700000300, "00ff10"]"#,
      ], "\(listed.output)")
    // A damaged textual keyring adds nothing and says where.
    let broken = folder.appendingPathComponent("broken.keyring")
    try Data("[keyring]\ndisplay-name=x\n\n[1]\nbinary-secret=zz\n".utf8).write(to: broken)
    let refused = try security(["import-gnome-keyring", "-i", broken.path])
    #expect(refused.status == 93 && refused.error.contains("is not hexadecimal"), "\(refused)")
    let cut = folder.appendingPathComponent("cut.keyring")
    try Data("[keyring]\ndisplay-name=x\n[1\n".utf8).write(to: cut)
    #expect(try security(["import-gnome-keyring", "-i", cut.path]).error.contains("line 3 is not a group"))
  }
}

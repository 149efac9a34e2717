import Foundation
import KeychainStorageMemory
import Logging
import Testing

@testable import KeychainAgent
@testable import Security

/// The agent's policy and idle lock, as the library holds them: no process, no socket.
@Suite("The agent's policy and idle lock")
struct PolicyAndIdleLockTests {
  static let digest = String(repeating: "ab", count: 32)

  @Test("A rule grants its groups to the executable it names, pinned or not; any other gets its own group")
  func rulesGrantByExecutable() throws {
    let text = """
      # mail and its helper share a group; the tool sees every group
      /usr/bin/mail = org.example.mail, org.example.shared
      /usr/bin/pinned sha256:\(Self.digest) = org.example.pinned
      /usr/local/bin/security = *
      """
    let policy = AgentPolicy(rules: try AgentPolicy.parse(text, path: "policy"))
    let mail = policy.grant(for: "/usr/bin/mail") { nil }
    #expect(mail.groups == ["org.example.mail", "org.example.shared"] && mail.namedByRule)
    #expect(policy.grant(for: "/usr/local/bin/security") { nil }.groups == nil)
    let pinned = policy.grant(for: "/usr/bin/pinned") { Self.digest }
    #expect(pinned.groups == ["org.example.pinned"] && pinned.namedByRule)
    // Another build of the pinned program is not the rule's: its own group only.
    let rebuilt = policy.grant(for: "/usr/bin/pinned") { String(repeating: "cd", count: 32) }
    #expect(rebuilt.groups == ["/usr/bin/pinned"] && !rebuilt.namedByRule)
    let stranger = policy.grant(for: "/home/user/a.out") { nil }
    #expect(stranger.groups == ["/home/user/a.out"] && !stranger.namedByRule)
  }

  @Test("confirm-first-access lists groups; the groups rules name are the confined collections")
  func confirmationsAndConfinedGroups() throws {
    let text = """
      confirm-first-access = keychain-bridge.default
      /usr/bin/browser = keychain-bridge.default, org.freedesktop.secrets.collection.browser
      /usr/local/bin/security = *
      confirm-first-access = org.freedesktop.secrets.collection.work
      """
    let policy = try AgentPolicy.read(text, path: "policy")
    #expect(policy.confirmedGroups == ["keychain-bridge.default", "org.freedesktop.secrets.collection.work"])
    #expect(policy.rules.map(\.executable) == ["/usr/bin/browser", "/usr/local/bin/security"])
    // `*` names no group: only the browser's rule confines a collection.
    #expect(policy.namedGroups == ["keychain-bridge.default", "org.freedesktop.secrets.collection.browser"])
    #expect {
      _ = try AgentPolicy.read("confirm-first-access = *\n", path: "policy")
    } throws: { "\($0)".hasPrefix("policy:1:23: name the groups whose first accesses are confirmed") }
  }

  @Test("A rule naming a link matches the file it leads to; a rule naming nothing is reported (issue 52)")
  func rulesNameTheFilesTheAgentSees() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-rules-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let real = folder.appendingPathComponent("real-writer")
    try Data().write(to: real)
    let link = folder.appendingPathComponent("writer")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
    let missing = folder.appendingPathComponent("gone")
    let policy = try AgentPolicy.read("\(link.path) = g\n\(missing.path) = h\n", path: "policy")
    #expect(policy.rules.map(\.executable) == [real.resolvingSymlinksInPath().path, missing.path])
    #expect(policy.notices.count == 2)
    #expect(policy.notices[0].hasPrefix("policy:1: the rule names \(link.path), which is "), "\(policy.notices)")
    #expect(
      policy.notices[1] == "policy:2: the rule names \(missing.path), which does not exist; it matches no program")
  }

  @Test("The security tool beside the agent gets every group, unless others may replace it or a policy file exists")
  func administrationToolRule() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kb-admin-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    let agent = folder.appendingPathComponent("keychaind")
    let tool = folder.appendingPathComponent("security")
    var policy = AgentPolicy()
    policy.administrationToolFolder = AgentPolicy.folder(of: agent.path)
    let toolPath = tool.resolvingSymlinksInPath().path
    // Asked when a program is identified: the tool installed after the agent started (issue 62,
    // case 3) gets every group as soon as it exists.
    #expect(!policy.grant(for: toolPath) { nil }.namedByRule)  // no tool there yet
    try Data().write(to: tool)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
    let grant = policy.grant(for: toolPath) { nil }
    #expect(grant.namedByRule && grant.groups == nil)
    try FileManager.default.setAttributes([.posixPermissions: 0o775], ofItemAtPath: tool.path)
    #expect(!policy.grant(for: toolPath) { nil }.namedByRule)  // the group may replace it
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
    #expect(!policy.grant(for: toolPath) { nil }.namedByRule)  // anyone may swap the file
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
    #expect(policy.grant(for: toolPath) { nil }.namedByRule)
    // A policy file, even one that names other programs only, turns the built-in rule off (issue
    // 63, case 2): a file that confines a group is not undone by a tool any program can run.
    let file = folder.appendingPathComponent("agent-policy")
    try "/usr/bin/vault = com.example.vault\n".write(to: file, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    var withFile = try AgentPolicy.load([file.path])
    withFile.administrationToolFolder = policy.administrationToolFolder
    #expect(!withFile.grant(for: toolPath) { nil }.namedByRule)
    // A rule of the file naming the tool still decides for it.
    try "\(toolPath) = *\n".write(to: file, atomically: true, encoding: .utf8)
    var naming = try AgentPolicy.load([file.path])
    naming.administrationToolFolder = policy.administrationToolFolder
    #expect(naming.grant(for: toolPath) { nil }.groups == nil)
  }

  @Test("A mistake in the policy is an error naming the file, line and column")
  func mistakesNameTheirPlace() {
    for (text, expected) in [
      ("/usr/bin/tool = g\nrelative/tool = g\n", "policy:2:1: name the executable by its absolute path"),
      ("/usr/bin/tool sha256:12ab = g\n", "policy:1:15: a pin is sha256: and 64 hexadecimal digits"),
      ("/usr/bin/tool g\n", "policy:1:1: a rule is"),
    ] {
      #expect {
        _ = try AgentPolicy.parse(text, path: "policy")
      } throws: { error in
        "\(error)".hasPrefix(expected)
      }
    }
  }

  @Test("A caller's groups are narrowed to the granted ones, in its order, and \"*\" only for every group")
  func grantsNarrowGroups() {
    let grant = AccessGrant(groups: ["a", "b"], namedByRule: false)
    #expect(AgentRequests.granted(["b", "c", "a"], grant) == ["b", "a"])
    #expect(AgentRequests.granted(["*"], grant).isEmpty)
    #expect(AgentRequests.granted(["c"], grant).isEmpty)
    #expect(AgentRequests.granted(["*", "x"], AccessGrant(groups: nil, namedByRule: true)) == ["*", "x"])
    #expect(throws: SecStatus.missingEntitlement) { try grant.requireNamedByRule() }
  }

  @Test("An idle passphrase store locks itself; a key-file store never does")
  func anIdleStoreLocks() throws {
    let storage = InMemoryItemStorage(passphrase: "idle")
    let lock = IdleLock(timeout: 1, storage: storage, logger: Logger(label: "test"))
    // The lock comes within a few checks of the timeout; on a loaded machine, later.
    for _ in 0..<300 where !storage.isLocked { usleep(100_000) }
    #expect(storage.isLocked)
    #expect(lock.timeout == 1)
    let keyFile = InMemoryItemStorage()
    let never = IdleLock(timeout: 1, storage: keyFile, logger: Logger(label: "test"))
    usleep(2_500_000)
    #expect(!keyFile.isLocked)
    #expect(never.timeout == 1)
  }
}

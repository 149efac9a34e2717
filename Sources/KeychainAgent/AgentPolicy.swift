import Foundation
import Security

/// Which access groups each program gets, as entitlements decide them on Apple's systems: by
/// which executable is calling, never by what the program says.
///
/// The policy file has one rule per line (`#` starts a comment):
///
///     /usr/bin/mail-client = org.example.mail, org.example.shared
///     /opt/tool/bin/tool sha256:9f86d0...0a08 = org.example.tool
///     /usr/local/bin/security = *
///
/// A rule names an executable by its absolute path, optionally pins it by the SHA-256 of its file
/// (the rule then holds only for that build), and grants groups; `*` grants every group. An
/// executable no rule names gets one group of its own, its path, as every app on Apple's systems
/// has its own group by default: such programs share nothing unless a rule says so.
///
/// For the Secret Service (the SecretService article): a collection is a group, and a rule that
/// names a collection's group confines it to the programs whose rules name it. A line
///
///     confirm-first-access = keychain-bridge.default
///
/// makes a program no rule names ask the user before it first reads each item of those groups'
/// collections; the answer is remembered.
///
/// One rule is built in, for a user who wrote no policy file: the `security` tool installed beside
/// keychaind gets every group, as macOS's `security` is the user's administration tool and reaches
/// every item of the user's keychain (`administrationTool`). It is decided when a program is
/// identified, not when the agent starts, so installing or rebuilding the tool while the agent
/// runs changes nothing; once a policy file exists, only its rules speak (a file that confines a
/// group is not undone by a tool any program of the user may run).
package struct AgentPolicy: Sendable {
  /// One line of the policy file.
  package struct Rule: Sendable, Equatable {
    /// The executable's absolute path.
    package var executable: String
    /// The SHA-256 of the executable's file, lowercase hex, when the rule pins it.
    package var sha256: String?
    /// The groups granted; nil for every group (`*`).
    package var groups: [String]?
    /// Where the rule is written, for messages.
    package var place: String
  }

  /// The rules, in the order they were read: the first naming an executable decides.
  package var rules: [Rule] = []
  /// The groups whose Secret Service items a program no rule names must be allowed to read by the
  /// user, item by item (`confirm-first-access`).
  package var confirmedGroups: Set<String> = []

  /// The keyword of the line listing `confirmedGroups`.
  static let confirmKeyword = "confirm-first-access"

  /// The folder of keychaind's own file: the `security` tool in it is the user's administration
  /// tool while no policy file exists (`administrationTool`). nil: no built-in rule.
  package var administrationToolFolder: String?
  /// Whether a policy file was read: the built-in rule then does not apply.
  package var hasFile = false

  /// What the agent should tell the user about the rules as written: a rule naming a path through
  /// a symbolic link (matched as the file it leads to, since the agent sees the file a process
  /// runs), or a file that does not exist (the rule matches nothing until it does).
  package var notices: [String] = []

  /// The groups some rule names explicitly (not through `*`): a collection among them is confined
  /// to the programs those rules name.
  package var namedGroups: Set<String> { Set(rules.flatMap { $0.groups ?? [] }) }

  /// The largest policy file read: a policy is a few lines, and the file comes from disk.
  static let maximumLength = 1 << 20

  /// What the program whose executable is `executable` is granted: the first rule naming it whose
  /// pin (if any) matches `digest()`, else the executable's own group and nothing more.
  package func grant(for executable: String, digest: () -> String?) -> AccessGrant {
    for rule in rules where rule.executable == executable {
      if let pinned = rule.sha256, pinned != digest() { continue }
      return AccessGrant(groups: rule.groups, namedByRule: true)
    }
    if !hasFile, let folder = administrationToolFolder, Self.administrationTool(in: folder) == executable {
      return AccessGrant(groups: nil, namedByRule: true)
    }
    return .ownGroup(of: executable)
  }

  /// Reads the rules of `text`, the file at `path`; a mistake is an error naming path:line:column.
  package static func parse(_ text: String, path: String) throws(AgentStartError) -> [Rule] {
    try read(text, path: path).rules
  }

  /// Reads the rules and the `confirm-first-access` lines of `text`, the file at `path`.
  static func read(_ text: String, path: String) throws(AgentStartError) -> AgentPolicy {
    var policy = AgentPolicy()
    var rules: [Rule] = []
    for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = rawLine.prefix { $0 != "#" }
      guard line.contains(where: { !$0.isWhitespace }) else { continue }
      let place = "\(path):\(index + 1)"
      guard let equals = line.firstIndex(of: "=") else {
        throw AgentStartError("\(place):1: a rule is `EXECUTABLE [sha256:HEX] = GROUP[, GROUP...]`")
      }
      let column = line.distance(from: line.startIndex, to: equals) + 1
      let left = line[..<equals].split(whereSeparator: \.isWhitespace).map(String.init)
      let groups = line[line.index(after: equals)...].split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard !groups.isEmpty, groups.allSatisfy({ !$0.isEmpty && !$0.contains(where: \.isWhitespace) }) else {
        throw AgentStartError("\(place):\(column + 1): list the granted groups after `=`, separated by commas")
      }
      if left == [confirmKeyword] {
        guard !groups.contains("*") else {
          throw AgentStartError(
            "\(place):\(column + 1): name the groups whose first accesses are confirmed; * is not one")
        }
        policy.confirmedGroups.formUnion(groups)
        continue
      }
      guard let executable = left.first, executable.hasPrefix("/"), left.count <= 2 else {
        throw AgentStartError("\(place):1: name the executable by its absolute path (or \(confirmKeyword)) before `=`")
      }
      var sha256: String?
      if left.count == 2 {
        let pin = left[1]
        let hex = pin.dropFirst("sha256:".count).lowercased()
        guard pin.hasPrefix("sha256:"), hex.count == 64, hex.allSatisfy(\.isHexDigit) else {
          throw AgentStartError("\(place):\(executable.count + 2): a pin is sha256: and 64 hexadecimal digits")
        }
        sha256 = hex
      }
      // The agent knows a program by the file it runs (/proc/PID/exe): a rule naming a link to it
      // (a .build/debug path, /usr/bin/python3) would never match as written.
      var named = executable
      let resolved = URL(fileURLWithPath: executable).resolvingSymlinksInPath().path
      if !FileManager.default.fileExists(atPath: resolved) {
        policy.notices.append("\(place): the rule names \(executable), which does not exist; it matches no program")
      } else if resolved != executable {
        policy.notices.append("\(place): the rule names \(executable), which is \(resolved); it matches that file")
        named = resolved
      }
      rules.append(
        Rule(executable: named, sha256: sha256, groups: groups.contains("*") ? nil : groups, place: place))
    }
    policy.rules = rules
    return policy
  }

  /// The policy of the files that exist among `paths`, the administrator's first: a rule of an
  /// earlier file wins for the executable it names. A file another user may write, or that is
  /// not a regular file, is refused: it would decide what this user's programs may read.
  package static func load(_ paths: [String]) throws(AgentStartError) -> AgentPolicy {
    var policy = AgentPolicy()
    for path in paths {
      var status = stat()
      guard lstat(path, &status) == 0 else { continue }
      guard status.st_mode & S_IFMT == S_IFREG else { throw AgentStartError("\(path) is not a regular file") }
      guard status.st_uid == getuid() || status.st_uid == 0 else {
        throw AgentStartError("\(path) belongs to another user")
      }
      guard status.st_mode & 0o022 == 0 else {
        throw AgentStartError("\(path) may be written by other users (chmod go-w it)")
      }
      guard status.st_size <= maximumLength,
        let data = FileManager.default.contents(atPath: path), data.count <= maximumLength
      else { throw AgentStartError("\(path) is longer than \(maximumLength) bytes: no policy is") }
      guard let text = String(data: data, encoding: .utf8) else { throw AgentStartError("\(path) is not UTF-8") }
      let read = try read(text, path: path)
      policy.hasFile = true
      policy.rules += read.rules
      policy.confirmedGroups.formUnion(read.confirmedGroups)
      policy.notices += read.notices
    }
    return policy
  }

  /// The folder holding `agentExecutable` (keychaind's own file, links resolved), where the
  /// built-in rule looks for the administration tool.
  package static func folder(of agentExecutable: String) -> String {
    URL(fileURLWithPath: agentExecutable).resolvingSymlinksInPath().deletingLastPathComponent().path
  }

  /// The `security` tool in `folder` (keychaind's), as the kernel names the file it runs, when it
  /// may have every group: so that `security find-generic-password` reads what `secret-tool`
  /// stored with no policy file at all. nil when that tool is missing, or when anyone but its
  /// owner, the user or root, may replace it or the folder holding it: the rule trusts the tool as
  /// much as the agent, and no more. Read at each identification (two `lstat` calls).
  package static func administrationTool(in folder: String) -> String? {
    let tool = URL(fileURLWithPath: folder).appendingPathComponent("security").resolvingSymlinksInPath().path
    guard isTrusted(tool, kind: S_IFREG), isTrusted(folder, kind: S_IFDIR) else { return nil }
    return tool
  }

  /// Whether `path` is a `kind` (S_IFREG, S_IFDIR) of the user or root that no one else may write.
  private static func isTrusted(_ path: String, kind: mode_t) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && status.st_mode & S_IFMT == kind
      && (status.st_uid == getuid() || status.st_uid == 0) && status.st_mode & 0o022 == 0
  }

  /// Where the policy is read from: /etc first (the administrator's), then the user's.
  package static var defaultPaths: [String] {
    ["/etc/keychain-bridge/agent-policy", configurationHome + "/keychain-bridge/agent-policy"]
  }

  /// The user's configuration folder: $XDG_CONFIG_HOME when absolute, else ~/.config (the policy's
  /// and the systemd units' base).
  static var configurationHome: String {
    ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
      ?? KeychainStore.homeDirectory().appendingPathComponent(".config").path
  }
}

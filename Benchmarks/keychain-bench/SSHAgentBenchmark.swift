import AgentProcess
import Foundation
import KeychainCrypto

#if canImport(Glibc)
  import Glibc
#endif

// keychaind as the ssh-agent (issue 65) beside OpenSSH's own ssh-agent: the same keys, made by
// ssh-keygen and added with ssh-add to each, signed with by one client over one connection to each
// socket, interleaved round by round so both see the machine in the same state.

/// How many signatures each round asks for, and how many rounds.
private let signaturesPerRound = 500
private let sshRounds = 5

/// The key types measured, as ssh-keygen's options, and their names in the rows.
private let sshKeyTypes: [(name: String, options: [String])] = [
  ("Ed25519", ["-t", "ed25519"]),
  ("ECDSA P-256", ["-t", "ecdsa", "-b", "256"]),
  ("RSA-3072", ["-t", "rsa", "-b", "3072"]),
]

/// A client of an agent's socket speaking OpenSSH's agent protocol: one request, then its answer.
private final class SSHAgentConnection {
  private let descriptor: Int32

  init(path: String) throws {
    descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw BenchError("socket path too long") }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in bytes.enumerated() { buffer[index] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else { throw BenchError("cannot connect to \(path)") }
  }

  deinit { close(descriptor) }

  /// Sends `message` (its length first, big-endian) and returns the answer's body.
  func exchange(_ message: [UInt8]) throws -> [UInt8] {
    var framed = SSHWriter()
    framed.string(message)  // a message is framed as a string is: its length, then its bytes
    let frame = framed.bytes
    guard frame.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == frame.count
    else {
      throw BenchError("the agent's socket closed")
    }
    var header = SSHReader(try read(4))
    guard let count = try? header.uint32() else { throw BenchError("the agent's answer has no length") }
    return try read(Int(count))
  }

  private func read(_ count: Int) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let got = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + done, count - done, 0) }
      guard got > 0 else { throw BenchError("the agent's socket closed") }
      done += got
    }
    return bytes
  }

  /// A sign request (message 13) for the key whose blob is `blob`; `flags` 2 asks for rsa-sha2-256.
  static func signRequest(blob: [UInt8], data: [UInt8], flags: UInt32) -> [UInt8] {
    var request = SSHWriter()
    request.byte(13)
    request.string(blob)
    request.string(data)
    request.uint32(flags)
    return request.bytes
  }
}

/// Runs `tool` with `arguments` and `environment` added, waiting for it; fails on a non-zero exit.
private func runTool(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: tool)
  process.arguments = arguments
  process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  try process.run()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else { throw BenchError("\(tool) \(arguments.joined(separator: " ")) failed") }
}

/// Signatures a second through keychaind's ssh-agent and through OpenSSH's, per key type, and the
/// targets of issue 65: keychaind at least as fast for Ed25519 and ECDSA.
func printSSHAgentRows() -> [Target] {
  for tool in ["/usr/bin/ssh-agent", "/usr/bin/ssh-add", "/usr/bin/ssh-keygen"]
  where !FileManager.default.isExecutableFile(atPath: tool) {
    print("\nssh-agent: skipped (no \(tool); make setup installs openssh-client)")
    return []
  }
  do {
    // Both sockets in a folder of this user's alone (0700), as keychaind requires of its own.
    let folder = URL(fileURLWithPath: "/tmp/kcb-ssh-\(getpid())", isDirectory: true)
    try FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(at: folder) }
    let ours = folder.appendingPathComponent("keychaind.sock").path
    let agent = try RunningAgent(arguments: ["--ssh-agent", ours])
    defer { agent.stop() }
    let theirs = folder.appendingPathComponent("agent.sock").path
    let openssh = Process()
    openssh.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-agent")
    openssh.arguments = ["-D", "-a", theirs]
    openssh.standardOutput = FileHandle.nullDevice
    try openssh.run()
    defer {
      openssh.terminate()
      openssh.waitUntilExit()
    }
    for _ in 0..<600
    where !(FileManager.default.fileExists(atPath: theirs) && FileManager.default.fileExists(atPath: ours)) {
      usleep(50_000)
    }
    var rows: [(name: String, ours: Double, theirs: Double)] = []
    for (name, options) in sshKeyTypes {
      let path = folder.appendingPathComponent(name.filter(\.isLetter)).path
      try runTool("/usr/bin/ssh-keygen", ["-q"] + options + ["-N", "", "-C", "bench", "-f", path])
      for socket in [ours, theirs] { try runTool("/usr/bin/ssh-add", [path], environment: ["SSH_AUTH_SOCK": socket]) }
      let line = try String(contentsOfFile: path + ".pub", encoding: .utf8).split(separator: " ")
      guard line.count >= 2, let blob = Data(base64Encoded: String(line[1])) else { throw BenchError("no public key") }
      let request = SSHAgentConnection.signRequest(
        blob: Array(blob), data: Array(repeating: 0x42, count: 64), flags: name.hasPrefix("RSA") ? 2 : 0)
      var samples: [String: [Double]] = [ours: [], theirs: []]
      for _ in 0..<sshRounds {
        for socket in [ours, theirs] {
          let connection = try SSHAgentConnection(path: socket)
          let start = now()
          for _ in 0..<signaturesPerRound where try connection.exchange(request).first != 14 {
            throw BenchError("\(socket) refused to sign with \(name)")
          }
          samples[socket]!.append(Double(signaturesPerRound) / (Double(now() - start) / 1e9))
        }
      }
      func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
      rows.append((name, median(samples[ours]!), median(samples[theirs]!)))
    }
    print("\nssh-agent signatures a second, one connection (median of \(sshRounds) rounds of \(signaturesPerRound))")
    print("key           keychaind   OpenSSH ssh-agent   keychaind/OpenSSH")
    for row in rows {
      print(
        "\(row.name.padding(toLength: 12, withPad: " ", startingAt: 0))  \(format(row.ours).padding(toLength: 10, withPad: " ", startingAt: 0))  \(format(row.theirs).padding(toLength: 18, withPad: " ", startingAt: 0))  \(String(format: "%.2f", row.ours / row.theirs))"
      )
    }
    return rows.filter { !$0.name.hasPrefix("RSA") }.map {
      .atLeast("ssh-agent signatures \($0.name), keychaind/OpenSSH", $0.ours / $0.theirs, 1.0)
    }
  } catch {
    print("\nssh-agent: not measured (\(error))")
    return []
  }
}
